#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of `tidepool up`'s Kubernetes API, for the e2e tests of
`tidepool autoscale` (issue 6): requests and watch streams pass through unchanged until the
control file says otherwise.

Control file (read on every request and every second of every open stream):
  absent or empty  pass through
  "429"            answer every request 429 TooManyRequests (Retry-After: 1), as an overloaded
                   kube-apiserver does (APF), and cut open streams
  "500"            answer every request 500 InternalError, and cut open streams
  "cut"            cut every open stream (watches end abruptly), pass new requests through

Usage: fault_proxy.py UPSTREAM_PORT CONTROL_FILE PORT_FILE
Listens on 127.0.0.1, an ephemeral port written to PORT_FILE. Counts of what it did go to
stdout, one line per fault answered ("fault 429 GET /api/v1/pods").
"""
import http.client
import http.server
import json
import os
import sys
import threading
import time

UPSTREAM_PORT = int(sys.argv[1])
CONTROL = sys.argv[2]
PORT_FILE = sys.argv[3]
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate", "content-length", "host"}
# Streams opened before the current "cut" generation are closed.
cut_generation = 0
cut_lock = threading.Lock()


def mode():
    try:
        with open(CONTROL) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def status_body(code, reason, message):
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def handle_one(self):
        m = mode()
        if m in ("429", "500"):
            code = int(m)
            if code == 429:
                body = status_body(429, "TooManyRequests",
                                   "Too many requests, please try again later.")
            else:
                body = status_body(500, "InternalError",
                                   "Internal error occurred: injected by fault_proxy")
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if code == 429:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(body)
            print(f"fault {code} {self.command} {self.path.split('?')[0]}", flush=True)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        conn = http.client.HTTPConnection("127.0.0.1", UPSTREAM_PORT, timeout=600)
        conn.request(self.command, self.path, body=body, headers=headers)
        if "watch=" in self.path:
            # Wake up every second to look at the control file (the socket is the response's).
            conn.sock.settimeout(1.0)
        resp = conn.getresponse()
        streaming = "watch=" in self.path or resp.getheader("Transfer-Encoding") == "chunked"
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        if not streaming:
            data = resp.read()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            conn.close()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with cut_lock:
            generation = cut_generation
        try:
            while True:
                if mode() in ("429", "500") or cut_generation != generation:
                    print(f"cut {self.path.split('?')[0]}", flush=True)
                    self.close_connection = True
                    return  # abruptly: no terminating chunk
                try:
                    data = resp.read1(65536)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        finally:
            conn.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_one


def watch_control():
    """Turns a "cut" in the control file into a new generation (open streams end), once."""
    global cut_generation
    while True:
        if mode() == "cut":
            with cut_lock:
                cut_generation += 1
            os.unlink(CONTROL)
        time.sleep(0.2)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=watch_control, daemon=True).start()
    tmp = PORT_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
