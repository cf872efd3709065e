#include "apiserver/http/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <utility>
#include <vector>

namespace tidepool::apiserver::http {
namespace {

std::string Gunzip(const std::string& gz) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 22, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

TEST(CompressionTest, NegotiatesAsKube) {
  struct Case {
    const char* header;
    bool want;
  };
  for (const Case& c :
       {Case{"gzip", true}, Case{"deflate, gzip", true}, Case{" gzip ,br", true}, Case{"", false},
        Case{"identity", false}, Case{"gzip;q=1.0", false}, Case{"x-gzip", false}}) {
    SCOPED_TRACE(c.header);
    EXPECT_EQ(WantsGzip(c.header), c.want);
  }
}

struct Captured {
  int status = 0;
  std::string content_type, body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class CapturingWriter final : public ResponseWriter {
 public:
  explicit CapturingWriter(Captured& c) : c_(c) {}
  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    c_ = {status, std::string(content_type), std::move(body), headers};
  }
  bool StartStream(int, std::string_view) override { return true; }
  bool WriteChunk(std::string_view data) override {
    c_.body += data;
    return true;
  }
  void EndStream() override {}
  bool Closed() override { return false; }

 private:
  Captured& c_;
};

// Over 128 KiB: gzip with Content-Encoding and Vary; at or under it, and streams: as they are.
TEST(CompressionTest, CompressesLargeCompleteResponsesOnly) {
  const std::string large(kGzipThresholdBytes + 1, 'a');
  const std::string small(kGzipThresholdBytes, 'a');
  for (const std::string* body : {&large, &small}) {
    Captured c;
    CapturingWriter inner(c);
    CompressingWriter w(inner);
    w.SendView(200, "application/json", *body, {{"Warning", "299 - \"x\""}});
    EXPECT_EQ(c.status, 200);
    EXPECT_EQ(c.content_type, "application/json");
    if (body == &large) {
      EXPECT_EQ(c.headers,
                (std::vector<std::pair<std::string, std::string>>{{"Warning", "299 - \"x\""},
                                                                  {"Content-Encoding", "gzip"},
                                                                  {"Vary", "Accept-Encoding"}}));
      EXPECT_LT(c.body.size(), 2048u);
      EXPECT_EQ(Gunzip(c.body), large);
    } else {
      EXPECT_EQ(c.headers.size(), 1u);
      EXPECT_EQ(c.body, small);
    }
  }
  Captured c;
  CapturingWriter inner(c);
  CompressingWriter w(inner);
  ASSERT_TRUE(w.StartStream(200, "application/json"));
  ASSERT_TRUE(w.WriteChunk(large));
  EXPECT_EQ(c.body, large);
}

}  // namespace
}  // namespace tidepool::apiserver::http
