#!/usr/bin/env python3
"""Watchers that never read, while clients write (issue 14's "memory without bound" case).

Opens N watches of ConfigMaps (all namespaces) on a running `tidepool up` over raw sockets and
never reads from them, while W writer threads keep updating ConfigMaps of about 4 KB. Samples the
server's resident memory (/proc/PID/status) all along. Writing stops when the server's log shows
every watcher closed for falling behind ("Forcing configmaps watcher close due to
unresponsiveness"), or after --seconds when given (then no closing is required), or fails after
--max-writes. Then the watchers' sockets are closed and the server must still answer.

Prints one line per phase and a summary; exits 1 when --rss-limit-mb is passed, when not every
watcher was closed (without --seconds), or when the server stops answering.
"""
import argparse
import http.client
import json
import os
import random
import socket
import string
import sys
import threading
import time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def closed_watchers(log_path):
    try:
        with open(log_path, errors="replace") as f:
            return sum(1 for l in f if "watcher close due to unresponsiveness" in l)
    except FileNotFoundError:
        return 0


def request(conn, method, path, body=None, ctype="application/json"):
    headers = {"Content-Type": ctype} if body is not None else {}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    return r.status, data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, required=True, help="the tidepool up process")
    ap.add_argument("--log", required=True, help="tidepool up's stderr")
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--writers", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0, help="write this long instead")
    ap.add_argument("--max-writes", type=int, default=400000)
    ap.add_argument("--rss-limit-mb", type=float, default=0)
    args = ap.parse_args()

    base = closed_watchers(args.log)
    before = rss_mb(args.pid)
    print(f"before: rss {before:.0f} MB", flush=True)

    socks = []
    for _ in range(args.watchers):
        s = socket.create_connection(("127.0.0.1", args.port))
        s.sendall(b"GET /api/v1/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)  # never read

    stop = threading.Event()
    writes = [0] * args.writers
    errors = []
    peak = [before]

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb(args.pid))
            time.sleep(0.2)

    def writer(i):
        conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=60)
        names = [f"sw-{i}-{k}" for k in range(20)]
        created = set()
        rnd = random.Random(i)
        n = 0
        try:
            while not stop.is_set():
                name = names[n % len(names)]
                payload = "".join(rnd.choices(string.ascii_letters, k=4000))
                if name not in created:
                    st, data = request(conn, "POST", "/api/v1/namespaces/default/configmaps",
                                       {"apiVersion": "v1", "kind": "ConfigMap",
                                        "metadata": {"name": name}, "data": {"v": payload}})
                    if st != 201:
                        raise RuntimeError(f"create {name}: {st} {data[:200]!r}")
                    created.add(name)
                else:
                    st, data = request(conn, "PATCH",
                                       f"/api/v1/namespaces/default/configmaps/{name}",
                                       {"data": {"v": payload}}, "application/merge-patch+json")
                    if st != 200:
                        raise RuntimeError(f"patch {name}: {st} {data[:200]!r}")
                n += 1
                writes[i] = n
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
            stop.set()

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(args.writers)]
    start = time.time()
    for t in threads:
        t.start()
    ok = True
    while True:
        time.sleep(0.5)
        total = sum(writes)
        closed = closed_watchers(args.log) - base
        if errors:
            print("writer failed:", errors[0])
            ok = False
            break
        if args.seconds > 0:
            if time.time() - start >= args.seconds:
                break
        elif closed >= args.watchers:
            break
        if total >= args.max_writes:
            print(f"FAIL: {closed} of {args.watchers} watchers closed after {total} writes")
            ok = False
            break
    stop.set()
    for t in threads:
        t.join()
    during = max(peak[0], rss_mb(args.pid))
    total = sum(writes)
    closed = closed_watchers(args.log) - base
    print(f"during: {total} writes in {time.time() - start:.1f} s by {args.writers} writers, "
          f"{closed} of {args.watchers} watchers closed; peak rss {during:.0f} MB", flush=True)

    for s in socks:
        s.close()
    time.sleep(float(os.environ.get("SLOW_WATCHERS_SETTLE", "15")))
    # The server answers afterwards.
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
    st, data = request(conn, "GET", "/api/v1/namespaces/default/configmaps")
    items = len(json.loads(data).get("items", [])) if st == 200 else -1
    after = rss_mb(args.pid)
    print(f"after: sockets closed, GET configmaps {st} ({items} items); rss {after:.0f} MB")
    if st != 200:
        ok = False
    if args.rss_limit_mb and during > args.rss_limit_mb:
        print(f"FAIL: peak rss {during:.0f} MB > {args.rss_limit_mb:.0f} MB")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
