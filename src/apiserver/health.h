// File: health.h
//
// kube-apiserver's health endpoints (k8s.io/apiserver/pkg/server/healthz): /healthz, /livez
// and /readyz, each with its named checks as kube-apiserver 1.32 installs them (ping, log,
// etcd, the post-start hooks; readyz also etcd-readiness, informer-sync and shutdown). Every
// check passes: the store is in this process and serving.
//   - GET /readyz                     -> "ok"
//   - GET /readyz?verbose             -> "[+]ping ok\n" per check, then "readyz check passed\n"
//   - ?exclude=NAME (repeatable)      -> "[+]NAME excluded: ok"; a name that is no check adds
//                                        `warn: some health checks cannot be excluded: no
//                                        matches for "NAME"` (verbose output only)
//   - GET /readyz/<check>             -> "ok"; a check that is not installed is not served
// Bodies are text/plain; charset=utf-8 with X-Content-Type-Options: nosniff, as kube's.
//
// Thread-safe (no state). Nothing throws.
#pragma once

#include "apiserver/http/server.h"

namespace tidepool::apiserver {

// Answers `req` when its path is a health endpoint or one of its checks; false otherwise
// (nothing sent).
bool ServeHealth(const http::HttpRequest& req, http::ResponseWriter& w);

}  // namespace tidepool::apiserver
