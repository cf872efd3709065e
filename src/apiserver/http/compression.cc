#include "apiserver/http/compression.h"

#include <zlib.h>

#include <limits>
#include <utility>
#include <vector>

namespace tidepool::apiserver::http {

bool WantsGzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view token = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    while (!token.empty() && (token.front() == ' ' || token.front() == '\t'))
      token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
    if (token == "gzip") return true;
  }
  return false;
}

StatusOr<std::string> Gzip(std::string_view data, int level) {
  // One deflate call: zlib counts in uInt (32 bits).
  if (data.size() > std::numeric_limits<uInt>::max() / 2)
    return OutOfRangeError("gzip: body too large");
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return InternalError("gzip: deflateInit2 failed");
  }
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return InternalError("gzip: deflate did not finish");
  out.resize(written);
  return out;
}

void CompressingWriter::Send(int status, std::string_view content_type, std::string body,
                             const std::vector<std::pair<std::string, std::string>>& headers) {
  if (body.size() <= threshold_) return w_.Send(status, content_type, std::move(body), headers);
  SendView(status, content_type, body, headers);
}

void CompressingWriter::SendView(int status, std::string_view content_type, std::string_view body,
                                 const std::vector<std::pair<std::string, std::string>>& headers) {
  if (body.size() <= threshold_) return w_.SendView(status, content_type, body, headers);
  StatusOr<std::string> gz = Gzip(body);
  if (!gz.ok())
    return w_.SendView(status, content_type, body, headers);  // uncompressed, still right
  std::vector<std::pair<std::string, std::string>> all = headers;
  all.emplace_back("Content-Encoding", "gzip");
  all.emplace_back("Vary", "Accept-Encoding");
  w_.Send(status, content_type, *std::move(gz), all);
}

}  // namespace tidepool::apiserver::http
