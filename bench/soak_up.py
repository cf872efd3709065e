#!/usr/bin/env python3
"""Soak of `tidepool up`: a steady pod create/delete loop; does resident memory plateau?

Starts `tidepool up --speed SPEED` (in-memory storage, the default cluster), then for --minutes
keeps a rolling window of --live pods in namespace default: every 1/--rate seconds it creates
pod soak-N and deletes pod soak-(N - live) (kubectl's default graceful delete; the emulated
kubelet removes it after the 30 s grace period divided by SPEED). Every 10 s it samples the
process's VmRSS and, every minute, prints RSS and the numbers of pods, core/v1 Events and the
store's resourceVersion, and how many seconds of writes the pods' and the events' watch
histories reach back (from the 410 a watch from revision 1 gets; "all" while nothing was
dropped). Stops tidepool up at the end.

  python3 bench/soak_up.py --tidepool build-rel/app/tidepool --speed 600 --minutes 10
"""
import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def call(conn, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "soak"}},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                                     "command": ["sleep", "3600"],
                                     "resources": {"requests": {"cpu": "10m",
                                                                "memory": "16Mi"}}}]}}


def count(conn, path):
    st, data = call(conn, "GET", path)
    if st != 200:
        return -1, ""
    doc = json.loads(data)
    return len(doc.get("items", [])), doc.get("metadata", {}).get("resourceVersion", "")


def history_floor(conn, resource):
    """The revision before the oldest event of `resource`'s watch history (from the 410)."""
    conn.request("GET", f"/api/v1/{resource}?watch=true&resourceVersion=1&timeoutSeconds=1")
    r = conn.getresponse()
    body = r.read().decode(errors="replace")
    m = re.search(r"too old resource version: 1 \((\d+)\)", body)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tidepool", required=True)
    ap.add_argument("--speed", default="600")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--rate", type=float, default=20, help="pod creates (and deletes) per second")
    ap.add_argument("--live", type=int, default=50, help="pods kept alive at a time")
    ap.add_argument("--extra", nargs="*", default=[], help="more `tidepool up` flags")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tidepool-soak.")
    port_file = os.path.join(work, "port")
    log = open(os.path.join(work, "up.log"), "w")
    up = subprocess.Popen([args.tidepool, "up", "--port", "0", "--port-file", port_file,
                           "--speed", args.speed] + args.extra, stdout=log, stderr=log)
    try:
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            if up.poll() is not None:
                print("tidepool up exited; see", log.name)
                return 1
            time.sleep(0.1)
        port = int(open(port_file).read())
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        print(f"tidepool up --speed {args.speed} pid {up.pid} port {port}; {args.rate:g} pod "
              f"creates+deletes/s, {args.live} live; rss at start {rss_mb(up.pid):.0f} MB",
              flush=True)
        print("minute  rss_MB  pods  events  resourceVersion  creates  failures  "
              "pods_history_s  events_history_s", flush=True)
        start = time.time()
        n = 0
        failures = 0
        next_sample = start + 10
        samples = []
        last_rv = [start, int(count(conn, "/api/v1/pods")[1] or 0)]
        while True:
            now = time.time()
            if now - start >= args.minutes * 60:
                break
            st, _ = call(conn, "POST", "/api/v1/namespaces/default/pods", pod(f"soak-{n}"))
            failures += st != 201
            if n >= args.live:
                st, _ = call(conn, "DELETE", f"/api/v1/namespaces/default/pods/soak-{n - args.live}")
                failures += st not in (200, 202)
            n += 1
            if now >= next_sample:
                next_sample += 10
                elapsed = (now - start) / 60
                samples.append((elapsed, rss_mb(up.pid)))
                if len(samples) % 6 == 0:
                    pods, _ = count(conn, "/api/v1/pods")
                    events, rv = count(conn, "/api/v1/events")
                    # How far back each history reaches, in seconds of this run's writes.
                    rv_now = int(rv or 0)
                    rate = (rv_now - last_rv[1]) / max(now - last_rv[0], 1e-9)
                    last_rv[:] = [now, rv_now]
                    spans = []
                    for res in ("pods", "events"):
                        floor = history_floor(conn, res)
                        spans.append(f"{(rv_now - floor) / rate:14.0f}" if floor and rate > 0
                                     else f"{'all':>14}")
                    print(f"{elapsed:6.1f}  {samples[-1][1]:6.0f}  {pods:4d}  {events:6d}  "
                          f"{rv:>15}  {n:7d}  {failures:8d}  {spans[0]}  {spans[1]:>16}",
                          flush=True)
            delay = start + n / args.rate - time.time()
            if delay > 0:
                time.sleep(delay)
        pods, _ = count(conn, "/api/v1/pods")
        events, rv = count(conn, "/api/v1/events")
        print(f"end: {n} creates in {(time.time() - start) / 60:.1f} min, {failures} failures; "
              f"rss {rss_mb(up.pid):.0f} MB; {pods} pods, {events} events, resourceVersion {rv}")
        return 0 if up.poll() is None else 1
    finally:
        if up.poll() is None:
            up.send_signal(signal.SIGTERM)
            up.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
