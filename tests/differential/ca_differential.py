#!/usr/bin/python3
"""The same scenarios decided by tidepool's autoscaler and by the real Cluster Autoscaler.

Each scenario runs twice on a fresh `tidepool up` with the same --config (node pools, cloud
faults), seed and --speed:
  tidepool  the embedded autoscaler, with the config's `autoscaler:` settings;
  ca        the upstream Cluster Autoscaler 1.31.5 (externalgrpc provider, unmodified) against
            `tidepool up --external-autoscaler-grpc`, with the same settings as CA flags. CA's
            timers are real time, so each flag is the emulated value divided by --speed; the two
            waits CA hard-codes (2 s for unschedulable pods, 30 s for GPU pods) are set in
            tidepool's config as 2 s and 30 s times the speed, so both wait as long.
Each run applies the scenario's workload through the API, watches nodes, pods and events (a
poll every 0.1 s real), then deletes the workload (or part of it) and watches the scale-down.
It prints one table: scale-up plans (each "Final scale-up plan" both log, in order), peak nodes
per autoscaled pool, time to the first new node and to every placed pod Running, reasons of pods
left pending (NotTriggerScaleUp), nodes left after the scale-down phase and the time it took.
Times are emulated seconds (real seconds x speed) from the workload's creation or deletion.

Usage: /usr/bin/python3 tests/differential/ca_differential.py --tidepool build/app/tidepool
         [--ca .../cluster-autoscaler-externalgrpc] [--speed 20] [--only NAME ...]
         [--markdown] [--keep DIR] [--v N]
Exit status 0 when every run finished (differences are reported, not failures); 1 when a run
could not complete (an engine did not start, a phase timed out past its limit); 77 without CA.
Needs only the Python standard library; kills only the processes it started.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CA = os.path.join(REPO, "..", "shared", "tools", "cluster-autoscaler-1.31.5",
                          "cluster-autoscaler-externalgrpc")

# ---- Scenarios ----------------------------------------------------------------------------------

DEFAULT_POOL = {"name": "default-pool", "machineType": "e2-standard-4", "initialNodeCount": 3}
GPU_TAINT = ["nvidia.com/gpu=present:NoSchedule"]


def gpu_pool(name, machine, accel=None, count=1, max_nodes=5):
    p = {"name": name, "machineType": machine, "enableAutoscaling": True, "minNodes": 0,
         "maxNodes": max_nodes, "taints": GPU_TAINT}
    if accel:
        p["accelerator"] = {"type": accel, "count": count}
    return p


def gpu_pod(name, gpus=1, labels=None, cpu=None):
    requests = {"nvidia.com/gpu": str(gpus)}
    if cpu:
        requests["cpu"] = cpu
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "cuda", "image": "nvidia/cuda:11.4.2-base-ubuntu20.04",
                            "command": ["/bin/bash", "-c", "sleep 3600"],
                            "resources": {"limits": dict(requests), "requests": requests}}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
                             "effect": "NoSchedule"}],
        },
    }


def gpu_deployment(name, replicas, gpus):
    template = gpu_pod(name, gpus, labels={"app": name})
    template["spec"]["restartPolicy"] = "Always"
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": template["spec"]}},
    }


def pdb(name, app, min_available):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}}}


T4X1 = gpu_pool("t4x1", "n1-standard-4", "nvidia-tesla-t4", 1)
T4X4 = gpu_pool("t4x4", "n1-standard-16", "nvidia-tesla-t4", 4)

# Each scenario: pools, optional cloud faults, phases. A phase is ("apply", [objects],
# expected_running) then ("delete", [(kind, name)], expected_pool_nodes_after, settle) where
# settle is how long (emulated s) to watch for the expected count before reporting.
SCENARIOS = [
    {
        "name": "walkthrough",
        "what": "seed walkthrough: 1x 1-GPU pod, gpu-pool n1-standard-4+1xT4 (0..5)",
        "pools": [DEFAULT_POOL, gpu_pool("gpu-pool", "n1-standard-4", "nvidia-tesla-t4", 1)],
        "up": [gpu_pod("gpu-test-pod")], "running": 1,
        "down": [("pods", "gpu-test-pod")], "nodes_after": 0,
    },
    {
        "name": "1gpu-pod",
        "what": "1x 1-GPU pod (1 cpu); pools 1xT4 (n1-standard-4) and 4xT4 (n1-standard-16)",
        "pools": [DEFAULT_POOL, T4X1, T4X4],
        "up": [gpu_pod("one-gpu", cpu="1")], "running": 1,
        "down": [("pods", "one-gpu")], "nodes_after": 0,
    },
    {
        "name": "4gpu-pod",
        "what": "1x 4-GPU pod (1 cpu); pools 1xT4 and 4xT4",
        "pools": [DEFAULT_POOL, T4X1, T4X4],
        "up": [gpu_pod("four-gpu", 4, cpu="1")], "running": 1,
        "down": [("pods", "four-gpu")], "nodes_after": 0,
    },
    {
        "name": "1+1+4gpu-pods",
        "what": "2x 1-GPU + 1x 4-GPU pods at once (1 cpu each); pools 1xT4 and 4xT4",
        "pools": [DEFAULT_POOL, T4X1, T4X4],
        "up": [gpu_pod("a-one", cpu="1"), gpu_pod("b-one", cpu="1"),
               gpu_pod("c-four", 4, cpu="1")], "running": 3,
        "down": [("pods", "a-one"), ("pods", "b-one"), ("pods", "c-four")], "nodes_after": 0,
    },
    {
        "name": "6-on-max-5",
        "what": "6x 1-GPU pods; gpu-pool 1xT4 max 5",
        "pools": [DEFAULT_POOL, gpu_pool("gpu-pool", "n1-standard-4", "nvidia-tesla-t4", 1)],
        "up": [gpu_pod(f"p{i}") for i in range(1, 7)], "running": 5,
        "down": [("pods", f"p{i}") for i in range(1, 7)], "nodes_after": 0,
    },
    {
        "name": "stockout-fallback",
        "what": ("1x 1-GPU pod (3 cpu: least-waste prefers n1-standard-4); t4-pool (1xT4) out "
                 "of stock, l4-pool (g2-standard-8, 1xL4)"),
        "pools": [DEFAULT_POOL, gpu_pool("t4-pool", "n1-standard-4", "nvidia-tesla-t4", 1),
                  gpu_pool("l4-pool", "g2-standard-8")],
        "cloud": {"faults": {"stockout": [{"nodePool": "t4-pool", "probability": 1}]}},
        "up": [gpu_pod("gpu-test-pod", cpu="3")], "running": 1,
        "down": [("pods", "gpu-test-pod")], "nodes_after": 0,
    },
    {
        "name": "pdb-scale-down",
        "what": ("2x 3-GPU pods fill two 4xT4 nodes, then 2x 1-GPU pods (PDB minAvailable 2) "
                 "take the free GPUs; the 3-GPU pods are deleted: each node is 1/4 used"),
        "pools": [DEFAULT_POOL, T4X4],
        "up": [gpu_deployment("big", 2, 3)], "running": 2,
        "then": [gpu_deployment("small", 2, 1), pdb("small", "small", 2)], "then_running": 4,
        "down": [("deployments", "big")], "nodes_after": 2, "settle": 600,
    },
]

# Autoscaler settings (emulated time), the same for both engines.
AUTOSCALER = {
    "scan-interval": 10, "scale-down-unneeded-time": 120, "scale-down-delay-after-add": 120,
    "scale-down-delay-after-failure": 180, "scale-down-unready-time": 1200,
    "max-node-provision-time": 900, "initial-node-group-backoff-duration": 300,
    "max-node-group-backoff-duration": 1800, "node-group-backoff-reset-timeout": 10800,
    "unremovable-node-recheck-timeout": 300,
}
# What CA 1.31.5 hard-codes (real seconds) and tidepool has flags for. Two more constants of
# CA's (MaxCloudProviderNodeDeletionTime 5m, PodLongTerminatingExtraThreshold 30s) are options
# without flags in tidepool, so they stay emulated; no scenario here comes near them.
CA_FIXED = {"unschedulable-pod-time-buffer": 2, "unschedulable-pod-with-gpu-time-buffer": 30,
            "max-node-startup-time": 900}


def go_duration(seconds):
    ms = round(seconds * 1000)
    return f"{ms}ms"


def up_config(sc, speed):
    autoscaler = {k: f"{v}s" for k, v in AUTOSCALER.items()}
    autoscaler["expander"] = "least-waste"
    # CA waits these real seconds whatever the speed: tidepool waits as long.
    for k, v in CA_FIXED.items():
        autoscaler[k] = go_duration(v * speed)
    cfg = {"cluster": {"project": "tidepool-local", "name": "tidepool", "zone": "us-central1-a"},
           "autoscaler": autoscaler, "nodePools": sc["pools"]}
    if "cloud" in sc:
        cfg["cloud"] = sc["cloud"]
    return cfg


def ca_flags(speed):
    flags = [f"--{k}={go_duration(v / speed)}" for k, v in AUTOSCALER.items()]
    return flags + ["--expander=least-waste", "--node-delete-delay-after-taint=0s"]


# ---- API access ---------------------------------------------------------------------------------

class Api:
    def __init__(self, base):
        self.base = base

    def raw(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.read()
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:300]!r}") from None

    def call(self, method, path, body=None):
        return json.loads(self.raw(method, path, body) or b"{}")

    def create(self, obj):
        group = "api/v1" if obj["apiVersion"] == "v1" else "apis/" + obj["apiVersion"]
        plural = {"Pod": "pods", "Deployment": "deployments",
                  "PodDisruptionBudget": "poddisruptionbudgets"}[obj["kind"]]
        self.call("POST", f"/{group}/namespaces/default/{plural}", obj)

    def delete(self, plural, name):
        group = "apis/apps/v1" if plural == "deployments" else "api/v1"
        self.call("DELETE", f"/{group}/namespaces/default/{plural}/{name}",
                  {"propagationPolicy": "Background"})


# ---- One run ------------------------------------------------------------------------------------

PLAN = re.compile(r"Final scale-up plan: \[(.*)\]")
GROUP = re.compile(r"\{(\S+) (\d+)->(\d+) \(max: \d+\)\}")


class Run:
    """One scenario under one engine; the observations of `Result`."""

    def __init__(self, sc, engine, args, work):
        self.sc, self.engine, self.args, self.work = sc, engine, args, work
        self.speed = args.speed
        self.procs = []
        self.autoscaled = {p["name"] for p in sc["pools"] if p.get("enableAutoscaling")}
        self.result = {"scale_ups": [], "peak": {}, "first_node": None, "running": None,
                       "pending": {}, "nodes_after": None, "down": None, "error": None}

    # -- processes
    def start(self):
        os.makedirs(self.work, exist_ok=True)
        cfg_path = os.path.join(self.work, "config.yaml")
        with open(cfg_path, "w") as f:
            json.dump(up_config(self.sc, self.speed), f)  # JSON is YAML
        port_file = os.path.join(self.work, "port")
        kubeconfig = os.path.join(self.work, "kubeconfig")
        cmd = [self.args.tidepool, "up", "--port", "0", "--port-file", port_file, "--kubeconfig",
               kubeconfig, "--config", cfg_path, "--speed", str(self.speed), "--seed", "7",
               "--v", str(self.args.v)]
        cloud_config = os.path.join(self.work, "cloud-config.yaml")
        if self.engine == "ca":
            cmd += ["--external-autoscaler-grpc", "127.0.0.1:0",
                    "--external-autoscaler-cloud-config", cloud_config]
        self.spawn(cmd, "up.log")
        deadline = time.time() + 60
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if time.time() > deadline or self.procs[0].poll() is not None:
                raise RuntimeError("tidepool up did not start: " + self.tail("up.log"))
            time.sleep(0.1)
        self.api = Api(f"http://127.0.0.1:{open(port_file).read().strip()}")
        if self.engine == "ca":
            self.spawn([self.args.ca, "--cloud-provider=externalgrpc",
                        f"--cloud-config={cloud_config}", f"--kubeconfig={kubeconfig}",
                        "--namespace=kube-system", "--leader-elect=false", f"--v={self.args.v}",
                        "--address=127.0.0.1:0",  # metrics: CA's :8085 may be taken
                        "--logtostderr"] + ca_flags(self.speed), "ca.log")
        # Every default-pool node Ready before the workload (and, for CA, its first loop).
        self.wait(lambda s: s["ready_default"] >= 3, 60 * self.speed, "default-pool ready")

    def spawn(self, cmd, log):
        out = open(os.path.join(self.work, log), "w")
        self.procs.append(subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True))

    def save_autoscaler_log(self):
        """tidepool's autoscaler logs as the cluster-autoscaler pod: kept as autoscaler.log."""
        if self.engine != "tidepool" or not hasattr(self, "api"):
            return
        try:
            pods = self.api.call("GET", "/api/v1/namespaces/kube-system/pods")["items"]
            for p in pods:
                name = p["metadata"]["name"]
                if name.startswith("cluster-autoscaler"):
                    log = self.api.raw("GET", f"/api/v1/namespaces/kube-system/pods/{name}/log")
                    with open(os.path.join(self.work, "autoscaler.log"), "wb") as f:
                        f.write(log)
        except (RuntimeError, OSError):
            pass

    def stop(self):
        self.save_autoscaler_log()
        if hasattr(self, "api"):
            try:
                with open(os.path.join(self.work, "events.json"), "wb") as f:
                    f.write(self.api.raw("GET", "/api/v1/events"))
            except (RuntimeError, OSError):
                pass
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

    def tail(self, log, n=30):
        try:
            return "".join(open(os.path.join(self.work, log)).readlines()[-n:])
        except OSError:
            return ""

    # -- observation
    def snapshot(self):
        nodes = self.api.call("GET", "/api/v1/nodes")["items"]
        pods = self.api.call("GET", "/api/v1/namespaces/default/pods")["items"]
        per_pool, ready_default = {}, 0
        for n in nodes:
            pool = n["metadata"].get("labels", {}).get("cloud.google.com/gke-nodepool", "")
            per_pool[pool] = per_pool.get(pool, 0) + 1
            ready = any(c["type"] == "Ready" and c["status"] == "True"
                        for c in n.get("status", {}).get("conditions", []))
            ready_default += pool == "default-pool" and ready
        running = sum(1 for p in pods if p.get("status", {}).get("phase") == "Running"
                      and not p["metadata"].get("deletionTimestamp"))
        for pool, count in per_pool.items():
            if pool in self.autoscaled:
                self.result["peak"][pool] = max(self.result["peak"].get(pool, 0), count)
        return {"pools": per_pool, "ready_default": ready_default, "running": running,
                "autoscaled_nodes": sum(per_pool.get(p, 0) for p in self.autoscaled),
                "pods": pods}

    def wait(self, cond, emulated_limit, what):
        deadline = time.time() + emulated_limit / self.speed
        while True:
            s = self.snapshot()
            if cond(s):
                return s
            if time.time() > deadline:
                raise RuntimeError(f"timed out after {emulated_limit} emulated s: {what}")
            time.sleep(0.1)

    def events(self):
        return self.api.call("GET", "/api/v1/events")["items"]

    def collect_scale_ups(self):
        """Every "Final scale-up plan" both autoscalers log (CA's text), in order. Events are no
        substitute: CA 1.31 emits no TriggeredScaleUp for a retry in the loop that saw a
        stockout."""
        log = "ca.log" if self.engine == "ca" else "autoscaler.log"
        try:
            text = open(os.path.join(self.work, log), errors="replace").read()
        except OSError:
            return
        self.result["scale_ups"] = [f"{g.group(1)} {g.group(2)}->{g.group(3)}"
                                    for m in PLAN.finditer(text) for g in GROUP.finditer(m.group(1))]

    def pending_reasons(self, pods):
        pending = {p["metadata"]["name"] for p in pods if p["status"].get("phase") == "Pending"}
        reasons = {}
        for e in sorted(self.events(), key=lambda e: e.get("lastTimestamp") or ""):
            name = e.get("involvedObject", {}).get("name")
            if name in pending and e.get("reason") == "NotTriggerScaleUp":
                reasons[name] = e["message"]
        return reasons

    # -- phases
    def emulated_since(self, t0):
        return round((time.time() - t0) * self.speed)

    def run(self):
        sc = self.sc
        self.start()
        t0 = time.time()
        for obj in sc["up"]:
            self.api.create(obj)
        first = None

        def up_done(s):
            nonlocal first
            if first is None and s["autoscaled_nodes"] > 0:
                first = self.emulated_since(t0)
            return s["running"] >= sc["running"]

        self.wait(up_done, 1800, f"{sc['running']} pods Running")
        self.result["first_node"] = first
        self.result["running"] = self.emulated_since(t0)
        if "then" in sc:
            for obj in sc["then"]:
                self.api.create(obj)
            self.wait(lambda s: s["running"] >= sc["then_running"], 1800, "second wave Running")
        # Pods left pending (more pods than `running`): give both a few loops past the GPU
        # wait to try again and say why not.
        if len(sc["up"]) + len([o for o in sc.get("then", []) if o["kind"] == "Pod"]) > \
                sc.get("then_running", sc["running"]):
            settle_until = time.time() + (CA_FIXED["unschedulable-pod-with-gpu-time-buffer"]
                                          + 5 * AUTOSCALER["scan-interval"] / self.speed)
            while time.time() < settle_until:
                time.sleep(0.2)
                s = self.snapshot()
            self.result["pending"] = self.pending_reasons(s["pods"])
        # Scale-down.
        t1 = time.time()
        for plural, name in sc["down"]:
            self.api.delete(plural, name)
        want = sc["nodes_after"]
        if "settle" in sc:  # watch that the count holds
            limit = time.time() + sc["settle"] / self.speed
            while time.time() < limit:
                s = self.snapshot()
                time.sleep(0.2)
            self.result["nodes_after"] = s["autoscaled_nodes"]
            self.result["down"] = f"held {sc['settle']}"
            return
        s = self.wait(lambda s: s["autoscaled_nodes"] <= want, 3600, "scale-down")
        self.result["nodes_after"] = s["autoscaled_nodes"]
        self.result["down"] = self.emulated_since(t1)


# ---- Table --------------------------------------------------------------------------------------

def cells(r):
    if r["error"]:
        return ["error: " + r["error"][:60], "", "", "", "", "", ""]
    peak = ", ".join(f"{p} {n}" for p, n in sorted(r["peak"].items())) or "-"
    pending = "; ".join(f"{n}: {m}" for n, m in sorted(r["pending"].items())) or "-"
    down = f"{r['down']} s" if isinstance(r["down"], int) else (r["down"] or "-")
    return [", ".join(r["scale_ups"]) or "-", peak,
            "-" if r["first_node"] is None else f"{r['first_node']} s",
            "-" if r["running"] is None else f"{r['running']} s", pending,
            "-" if r["nodes_after"] is None else str(r["nodes_after"]), down]


HEADER = ["scenario", "engine", "scale-ups", "peak nodes", "first node", "pods Running",
          "left pending", "nodes after", "scale-down"]


def print_table(rows, markdown):
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "---|" * len(HEADER))
        for row in rows:
            print("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        return
    widths = [max(len(r[i]) for r in rows + [HEADER]) for i in range(len(HEADER))]
    for row in [HEADER] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tidepool", required=True)
    ap.add_argument("--ca", default=DEFAULT_CA)
    ap.add_argument("--speed", type=float, default=20)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--engines", nargs="*", default=["tidepool", "ca"])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--v", type=int, default=2, help="both autoscalers' log verbosity")
    ap.add_argument("--keep", help="keep each run's logs under this directory")
    args = ap.parse_args()
    if "ca" in args.engines and not os.access(args.ca, os.X_OK):
        print(f"SKIP: no Cluster Autoscaler externalgrpc binary at {args.ca}")
        return 77
    rows, failed = [], False
    for sc in SCENARIOS:
        if args.only and sc["name"] not in args.only:
            continue
        for engine in args.engines:
            work = tempfile.mkdtemp(prefix=f"tidepool-diff-{sc['name']}-{engine}.")
            run = Run(sc, engine, args, work)
            began = time.time()
            try:
                run.run()
            except Exception as e:  # a run that cannot finish is reported, the others go on
                run.result["error"] = str(e)
                failed = True
            finally:
                run.stop()
                run.collect_scale_ups()
            print(f"# {sc['name']} / {engine}: {time.time() - began:.0f} s real"
                  + (f" ({run.result['error']})" if run.result["error"] else ""),
                  file=sys.stderr, flush=True)
            if args.keep:
                shutil.copytree(work, os.path.join(args.keep, f"{sc['name']}-{engine}"),
                                dirs_exist_ok=True)
            shutil.rmtree(work, ignore_errors=True)
            rows.append([sc["name"], engine] + cells(run.result))
    print_table(rows, args.markdown)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
