// File: http_transport.cc
#include "cloud/gke/live/http_transport.h"

namespace tidepool::cloud::gke::live {

StatusOr<HttpReply> HttpClientTransport::Do(const HttpCall& call) {
  client::http::HttpRequest req;
  req.method = call.method;
  req.url = call.url;
  req.headers = call.headers;
  req.body = call.body;
  req.timeout = timeout_;
  TIDEPOOL_ASSIGN_OR_RETURN(client::http::HttpResponse resp, client_.Do(req));
  return HttpReply{resp.status, std::move(resp.body)};
}

}  // namespace tidepool::cloud::gke::live
