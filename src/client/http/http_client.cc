#include "client/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace tidepool::client::http {
namespace {

// curl_global_init once per process (libcurl 7.84+ makes it thread-safe, but once is enough).
void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return std::string(s.substr(b, e - b));
}

// Go's method spelling in url.Error: "Get", "Post", ...
std::string GoMethod(std::string_view m) {
  std::string out = Lower(m);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// One exchange's state, reached from curl's callbacks.
struct Exchange {
  HttpResponse response;
  const ChunkCallback* on_chunk = nullptr;
  CURL* easy = nullptr;
  bool stopped_by_callback = false;
  bool status_known = false;
  bool streaming = false;  // 2xx and on_chunk set
};

size_t HeaderCallback(char* data, size_t size, size_t nitems, void* userdata) {
  auto* ex = static_cast<Exchange*>(userdata);
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (after 100 Continue or a redirect): start over.
    ex->response.headers.clear();
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name = Lower(Trim(line.substr(0, colon)));
  std::string value = Trim(line.substr(colon + 1));
  auto it = ex->response.headers.find(name);
  if (it == ex->response.headers.end()) {
    ex->response.headers.emplace(std::move(name), std::move(value));
  } else {
    it->second += ", " + value;
  }
  return n;
}

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* ex = static_cast<Exchange*>(userdata);
  const size_t n = size * nmemb;
  if (!ex->status_known) {
    long code = 0;
    curl_easy_getinfo(ex->easy, CURLINFO_RESPONSE_CODE, &code);
    ex->response.status = static_cast<int>(code);
    ex->status_known = true;
    ex->streaming = ex->on_chunk != nullptr && code >= 200 && code < 300;
  }
  if (ex->streaming) {
    if (!(*ex->on_chunk)(std::string_view(data, n))) {
      ex->stopped_by_callback = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    return n;
  }
  ex->response.body.append(data, n);
  return n;
}

}  // namespace

// A pool of (multi, easy) pairs. The multi handle holds the connection cache, so a pooled pair
// reuses its kept-alive connection on the next call.
struct HttpClient::Pool {
  struct Handle {
    CURLM* multi = nullptr;
    CURL* easy = nullptr;
  };
  std::mutex mu;
  std::vector<Handle> idle;  // protected by mu
  size_t max_idle = 8;

  Handle Take() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle.empty()) {
        Handle h = idle.back();
        idle.pop_back();
        return h;
      }
    }
    Handle h;
    h.multi = curl_multi_init();
    h.easy = curl_easy_init();
    return h;
  }
  void Give(Handle h, bool reusable) {
    if (reusable) {
      std::lock_guard<std::mutex> lock(mu);
      if (idle.size() < max_idle) {
        idle.push_back(h);
        return;
      }
    }
    Destroy(h);
  }
  static void Destroy(Handle h) {
    if (h.easy != nullptr) curl_easy_cleanup(h.easy);
    if (h.multi != nullptr) curl_multi_cleanup(h.multi);
  }
  ~Pool() {
    for (Handle& h : idle) Destroy(h);
  }
};

std::string HttpResponse::Header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? "" : it->second;
}

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)), pool_(std::make_unique<Pool>()) {
  GlobalInit();
  pool_->max_idle = options_.max_idle_handles;
}

HttpClient::~HttpClient() = default;

StatusOr<HttpResponse> HttpClient::Do(const HttpRequest& req) const { return Perform(req, nullptr); }

StatusOr<HttpResponse> HttpClient::Stream(const HttpRequest& req, const ChunkCallback& on_chunk) const {
  return Perform(req, &on_chunk);
}

StatusOr<HttpResponse> HttpClient::Perform(const HttpRequest& req, const ChunkCallback* on_chunk) const {
  Pool::Handle h = pool_->Take();
  if (h.multi == nullptr || h.easy == nullptr) {
    Pool::Destroy(h);
    return InternalError("curl: cannot create a handle");
  }
  CURL* easy = h.easy;
  curl_easy_reset(easy);

  Exchange ex;
  ex.on_chunk = on_chunk;
  ex.easy = easy;
  char errbuf[CURL_ERROR_SIZE] = {0};

  curl_easy_setopt(easy, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &HeaderCallback);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &WriteCallback);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &ex);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  // Go's transport asks for gzip and decodes it; so do we (curl decodes what it advertised).
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "gzip");
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(options_.connect_timeout).count()));
  if (req.timeout > Duration::zero()) {
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(
                         1, std::chrono::duration_cast<std::chrono::milliseconds>(req.timeout).count())));
  }

  // Method and body.
  if (req.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else if (req.method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else {
    if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, req.body.c_str());
    }
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }

  // Headers. An empty Expect: stops curl's 100-continue dance for large bodies.
  curl_slist* headers = nullptr;
  bool has_content_type = false;
  for (const auto& [name, value] : req.headers) {
    if (Lower(name) == "content-type") has_content_type = true;
    std::string line = value.empty() ? name + ";" : name + ": " + value;
    headers = curl_slist_append(headers, line.c_str());
  }
  if (!has_content_type && !req.body.empty()) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
  }
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

  // TLS.
  const TlsConfig& tls = options_.tls;
  curl_blob ca_blob{};
  curl_blob cert_blob{};
  curl_blob key_blob{};
  if (tls.insecure_skip_verify) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!tls.ca_pem.empty()) {
    ca_blob.data = const_cast<char*>(tls.ca_pem.data());
    ca_blob.len = tls.ca_pem.size();
    ca_blob.flags = CURL_BLOB_COPY;
    curl_easy_setopt(easy, CURLOPT_CAINFO_BLOB, &ca_blob);
  }
  const std::string* cert = &tls.client_cert_pem;
  const std::string* key = &tls.client_key_pem;
  if (req.client_cert_and_key) {
    cert = &req.client_cert_and_key->first;
    key = &req.client_cert_and_key->second;
  }
  if (!cert->empty() && !key->empty()) {
    cert_blob.data = const_cast<char*>(cert->data());
    cert_blob.len = cert->size();
    cert_blob.flags = CURL_BLOB_COPY;
    key_blob.data = const_cast<char*>(key->data());
    key_blob.len = key->size();
    key_blob.flags = CURL_BLOB_COPY;
    curl_easy_setopt(easy, CURLOPT_SSLCERT_BLOB, &cert_blob);
    curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(easy, CURLOPT_SSLKEY_BLOB, &key_blob);
    curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
  }

  std::string sigv4_provider;
  if (req.aws_sigv4) {
    sigv4_provider = "aws:amz:" + req.aws_sigv4->region + ":" + req.aws_sigv4->service;
    curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, sigv4_provider.c_str());
    curl_easy_setopt(easy, CURLOPT_USERNAME, req.aws_sigv4->access_key_id.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD, req.aws_sigv4->secret_access_key.c_str());
  }

  // Drive the transfer through the multi handle so that `cancel` is noticed within 100 ms even
  // while the connection is idle (a watch waiting for events).
  CURLcode result = CURLE_OK;
  bool cancelled = false;
  bool done = false;
  curl_multi_add_handle(h.multi, easy);
  while (!done) {
    if (req.cancel != nullptr && req.cancel->load()) {
      cancelled = true;
      break;
    }
    int running = 0;
    CURLMcode mc = curl_multi_perform(h.multi, &running);
    if (mc != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      std::snprintf(errbuf, sizeof(errbuf), "%s", curl_multi_strerror(mc));
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(h.multi, &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
        result = msg->data.result;
        done = true;
      }
    }
    if (done || running == 0) {
      done = true;
      break;
    }
    curl_multi_poll(h.multi, nullptr, 0, 100, nullptr);
  }
  curl_multi_remove_handle(h.multi, easy);
  curl_slist_free_all(headers);

  if (!ex.status_known) {
    long code = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
    ex.response.status = static_cast<int>(code);
  }
  // A cancelled or aborted stream leaves its connection in an unknown state: do not pool it.
  const bool clean = !cancelled && result == CURLE_OK;
  pool_->Give(h, clean);

  if (cancelled) {
    return Status(StatusCode::kCancelled, GoMethod(req.method) + " \"" + req.url + "\": context canceled");
  }
  if (result == CURLE_WRITE_ERROR && ex.stopped_by_callback) {
    return std::move(ex.response);
  }
  if (result != CURLE_OK) {
    std::string text = errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(result);
    const std::string msg = GoMethod(req.method) + " \"" + req.url + "\": " + text;
    if (result == CURLE_OPERATION_TIMEDOUT) return Status(StatusCode::kDeadlineExceeded, msg);
    if (result == CURLE_URL_MALFORMAT || result == CURLE_UNSUPPORTED_PROTOCOL) {
      return InvalidArgumentError(msg);
    }
    return UnavailableError(msg);
  }
  return std::move(ex.response);
}

bool LineSplitter::Feed(std::string_view chunk,
                        const std::function<bool(std::string_view line)>& on_line) {
  pending_.append(chunk.data(), chunk.size());
  size_t start = 0;
  while (true) {
    const size_t nl = pending_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(pending_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = nl + 1;
    if (!on_line(line)) {
      pending_.clear();
      return false;
    }
  }
  pending_.erase(0, start);
  return true;
}

std::string UrlEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace tidepool::client::http
