#include "cluster/in_process_transport.h"

#include <cctype>
#include <utility>

namespace tidepool::cluster {
namespace {

namespace chttp = client::http;
namespace shttp = apiserver::http;

// The target of a URL: what follows the authority ("/api/v1/pods?limit=500").
std::string TargetOf(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url.empty() || url[0] != '/' ? "/" + url : url;
  const size_t slash = url.find('/', scheme + 3);
  return slash == std::string::npos ? "/" : url.substr(slash);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The handler's answer, kept (Do, or a stream's error answer) or handed on (a stream's body).
class Writer final : public shttp::ResponseWriter {
 public:
  Writer(const chttp::ChunkCallback* on_chunk, const std::atomic<bool>* cancel)
      : on_chunk_(on_chunk), cancel_(cancel) {}

  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    response_.status = status;
    response_.headers["content-type"] = std::string(content_type);
    for (const auto& [name, value] : headers) response_.headers[Lower(name)] = value;
    // A 2xx answer to a stream is handed on like a chunked one.
    if (on_chunk_ != nullptr && status >= 200 && status < 300) {
      if (!body.empty() && !stopped_) stopped_ = !(*on_chunk_)(body);
      return;
    }
    response_.body = std::move(body);
  }
  bool StartStream(int status, std::string_view content_type) override {
    response_.status = status;
    response_.headers["content-type"] = std::string(content_type);
    response_.headers["transfer-encoding"] = "chunked";
    return !Closed();
  }
  bool WriteChunk(std::string_view data) override {
    if (Closed()) return false;
    if (on_chunk_ == nullptr || response_.status < 200 || response_.status >= 300) {
      response_.body.append(data);
      return true;
    }
    if (!data.empty()) stopped_ = !(*on_chunk_)(data);
    return !stopped_;
  }
  void EndStream() override {}
  bool Closed() override { return stopped_ || (cancel_ != nullptr && cancel_->load()); }

  chttp::HttpResponse& response() { return response_; }
  bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }

 private:
  const chttp::ChunkCallback* on_chunk_;
  const std::atomic<bool>* cancel_;
  bool stopped_ = false;
  chttp::HttpResponse response_;
};

// As HttpClient words it (Go's url.Error for a cancelled context).
Status Cancelled(const chttp::HttpRequest& req) {
  return Status(StatusCode::kCancelled, req.method + " \"" + req.url + "\": context canceled");
}

}  // namespace

InProcessTransport::InProcessTransport(apiserver::http::Handler handler, std::string remote)
    : handler_(std::move(handler)), remote_(std::move(remote)) {}

StatusOr<chttp::HttpResponse> InProcessTransport::Do(const chttp::HttpRequest& req) const {
  return Exchange(req, nullptr);
}

StatusOr<chttp::HttpResponse> InProcessTransport::Stream(
    const chttp::HttpRequest& req, const chttp::ChunkCallback& on_chunk) const {
  return Exchange(req, &on_chunk);
}

StatusOr<chttp::HttpResponse> InProcessTransport::Exchange(
    const chttp::HttpRequest& req, const chttp::ChunkCallback* on_chunk) const {
  if (req.cancel != nullptr && req.cancel->load()) return Cancelled(req);
  shttp::HttpRequest r;
  r.method = req.method;
  r.target = TargetOf(req.url);
  shttp::SplitRequestTarget(r);
  for (const auto& [name, value] : req.headers) r.headers[Lower(name)] = value;
  r.body = req.body;
  r.remote = remote_;
  Writer w(on_chunk, req.cancel);
  handler_(r, w);
  if (w.cancelled()) return Cancelled(req);
  if (w.response().status == 0) {
    return UnavailableError(req.method + " \"" + req.url + "\": the server sent no answer");
  }
  return std::move(w.response());
}

client::RestConfig InProcessRestConfig() {
  client::RestConfig config;
  config.host = "http://in-process";
  return config;
}

client::RestClientOptions InProcessRestOptions(const client::http::HttpTransport& transport,
                                               std::string user_agent) {
  client::RestClientOptions options;
  options.transport = &transport;
  options.user_agent = std::move(user_agent);
  return options;
}

}  // namespace tidepool::cluster
