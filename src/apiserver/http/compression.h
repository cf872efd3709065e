// File: compression.h
//
// Response compression as kube-apiserver 1.32 does it (APIResponseCompression, on by default;
// responsewriters.deferredResponseWriter): a complete response whose body is larger than
// 128 KiB (defaultGzipThresholdBytes), to a request whose Accept-Encoding lists the token
// "gzip", is sent gzip-compressed at level 1 (defaultGzipContentEncodingLevel, BestSpeed) with
// "Content-Encoding: gzip" and "Vary: Accept-Encoding". Smaller bodies, other clients, and
// streamed responses (watches, `logs -f`) go as they are. Go's HTTP client asks for gzip unless
// told not to (`kubectl --disable-compression`), and decodes it.
//
// Thread-compatible (one writer per request).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "apiserver/http/server.h"
#include "common/status_or.h"

namespace tidepool::apiserver::http {

inline constexpr size_t kGzipThresholdBytes = 128 * 1024;

// negotiateContentEncoding: true when a comma-separated token of `accept_encoding`, trimmed,
// is exactly "gzip" (quality values are not parsed, as kube's).
bool WantsGzip(std::string_view accept_encoding);

// The gzip stream (RFC 1952) of `data` at zlib `level`.
StatusOr<std::string> Gzip(std::string_view data, int level = 1);

// A ResponseWriter that compresses complete responses as the file comment says and passes
// everything else to `w`.
class CompressingWriter final : public ForwardingWriter {
 public:
  explicit CompressingWriter(ResponseWriter& w, size_t threshold = kGzipThresholdBytes)
      : ForwardingWriter(w), threshold_(threshold) {}
  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override;
  void SendView(int status, std::string_view content_type, std::string_view body,
                const std::vector<std::pair<std::string, std::string>>& headers) override;

 private:
  const size_t threshold_;
};

}  // namespace tidepool::apiserver::http
