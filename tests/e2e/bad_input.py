#!/usr/bin/python3
"""Sends tidepool up the inputs that used to kill it (issue 14) and checks each answer.

Usage: bad_input.py PORT [GKE_TOKEN_FILE]

1. The wrong-type table: every top-level and nested field of a Pod, a Node, a Deployment and
   the GKE node-pool body (as gcloud sends it for the seed walkthrough) set to each JSON type it
   does not have (and to null). Every answer must be a complete HTTP response below 500; a
   refused body must be a 4xx whose message names the field's path.
2. The reproductions of the issue, each with the status and text kube-apiserver or GKE gives.

Prints one line per failure and a summary; exits 1 when anything failed or the server stopped
answering. Standard library only (urllib, http.client).
"""
import copy
import http.client
import json
import sys

PORT = int(sys.argv[1])
TOKEN = open(sys.argv[2]).read().strip() if len(sys.argv) > 2 and sys.argv[2] else ""
failures = []
counts = {"cases": 0, "refused": 0, "accepted": 0}


def request(method, path, body=None, headers=None, raw=None):
    """(status, text) of one request on a fresh connection; (None, error) when the server did
    not answer."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    h = {"Content-Type": "application/json", "Accept": "application/json"}
    if TOKEN and path.startswith(("/v1/", "/v1beta1/", "/compute/")):
        h["Authorization"] = "Bearer " + TOKEN
    h.update(headers or {})
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    try:
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    except Exception as e:  # noqa: BLE001 - any failure to answer is what we look for
        return None, repr(e)
    finally:
        conn.close()


def fail(what, status, text):
    failures.append(f"{what}: got {status}: {text[:300]}")


def expect(what, got, status, *parts):
    code, text = got
    if code != status or any(p not in text for p in parts):
        fail(what + f" (want {status} with {parts})", code, text)


# ---- 1. every field, every wrong type --------------------------------------------------------

WRONG = [("number", 5), ("fraction", 1.5), ("string", "str"), ("bool", True), ("array", [1]),
         ("object", {"a": 1}), ("null", None)]


def kind_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def paths(v, prefix=()):
    """Every path to a member of an object (and to the first element of an array)."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield prefix + (k,)
            yield from paths(x, prefix + (k,))
    elif isinstance(v, list) and v:
        yield prefix + (0,)
        yield from paths(v[0], prefix + (0,))


def with_value(obj, path, value):
    out = copy.deepcopy(obj)
    cur = out
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return out


def dotted(path):
    return ".".join(str(p) for p in path if not isinstance(p, int))


POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "wt", "labels": {"app": "wt"}, "annotations": {"note": "x"}},
       "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                                "resources": {"limits": {"cpu": "1", "nvidia.com/gpu": "1"}}}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                 "effect": "NoExecute", "tolerationSeconds": 30}],
                "nodeSelector": {"app-type": "gpu"}, "priority": 0,
                "terminationGracePeriodSeconds": 5, "restartPolicy": "Always"}}
NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "wt", "labels": {"zone": "a"}},
        "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
                 "unschedulable": False, "providerID": "gce://p/z/wt"},
        "status": {"capacity": {"cpu": "4", "memory": "16Gi"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "wt", "labels": {"app": "wt"}},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "wt"}},
                       "strategy": {"type": "RollingUpdate",
                                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
                       "template": {"metadata": {"labels": {"app": "wt"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
NODE_POOL = {"nodePool": {"autoscaling": {"enabled": True, "maxNodeCount": 5, "minNodeCount": 0},
                          "config": {"accelerators": [{"acceleratorCount": "1",
                                                       "acceleratorType": "nvidia-tesla-t4"}],
                                     "labels": {"app-type": "gpu-workloads"},
                                     "machineType": "n1-standard-4",
                                     "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu",
                                                 "value": "present"}]},
                          "initialNodeCount": 0, "name": "wt"},
             "parent": "projects/tidepool-local/locations/us-central1-a/clusters/tidepool"}

GKE = "/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool"


def wrong_type_table(name, base, path_of, set_name, delete_path):
    for i, p in enumerate(paths(base)):
        for label, value in WRONG:
            orig = base
            for q in p:
                orig = orig[q]
            if label == "fraction":  # only where an integer belongs
                if not isinstance(orig, int) or isinstance(orig, bool):
                    continue
            elif kind_of(value) == kind_of(orig):
                continue
            obj = set_name(with_value(base, p, value), f"wt-{name.lower()}-{counts['cases']}")
            counts["cases"] += 1
            code, text = request("POST", path_of, obj)
            what = f"{name} {dotted(p) or p} = {label}"
            if code is None or code >= 500:
                fail(what, code, text)
                continue
            if code >= 400:
                counts["refused"] += 1
                continue
            counts["accepted"] += 1
            target = delete_path(obj, text)
            if target:
                request("DELETE", target)


def k8s_name(obj, n):
    if isinstance(obj.get("metadata"), dict) and isinstance(obj["metadata"].get("name"), str):
        obj["metadata"]["name"] = n
    return obj


def gke_name(obj, n):
    if isinstance(obj.get("nodePool"), dict) and isinstance(obj["nodePool"].get("name"), str):
        obj["nodePool"]["name"] = n
    return obj


def k8s_delete(base_path):
    def f(obj, text):
        try:
            return base_path + "/" + json.loads(text)["metadata"]["name"] + "?gracePeriodSeconds=0"
        except Exception:  # noqa: BLE001
            return None
    return f


def gke_delete(obj, text):
    try:
        return GKE + "/nodePools/" + json.loads(text)["targetLink"].rsplit("/", 1)[1]
    except Exception:  # noqa: BLE001
        return None


# ---- 2. the reproductions --------------------------------------------------------------------

def reproductions():
    pods = "/api/v1/namespaces/default/pods"
    deps = "/apis/apps/v1/namespaces/default/deployments"
    expect("metadata.name a number", request("POST", pods, with_value(POD, ("metadata", "name"), 5)),
           400, "Pod in version \\\"v1\\\" cannot be handled as a Pod: json: cannot unmarshal "
           "number into Go struct field ObjectMeta.metadata.name of type string")
    expect("metadata not an object", request("POST", pods, with_value(POD, ("metadata",), "m")),
           400, "cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta")
    expect("spec null", request("POST", pods, k8s_name(with_value(POD, ("spec",), None), "nul")),
           422, "spec.containers: Required value")
    expect("container name null",
           request("POST", pods, k8s_name(with_value(POD, ("spec", "containers", 0, "name"), None),
                                          "cn")),
           422, "spec.containers[0].name: Required value")
    expect("resources a number",
           request("POST", pods, with_value(POD, ("spec", "containers", 0, "resources"), 123)),
           400, "Go struct field Container.spec.containers.resources of type "
           "v1.ResourceRequirements")
    expect("tolerations a string",
           request("POST", pods, with_value(POD, ("spec", "tolerations"), "str")),
           400, "Go struct field PodSpec.spec.tolerations of type []v1.Toleration")
    expect("replicas a string",
           request("POST", deps, with_value(DEPLOYMENT, ("spec", "replicas"), "x")),
           400, "Go struct field DeploymentSpec.spec.replicas of type int32")
    expect("apiVersion a number", request("POST", pods, with_value(POD, ("apiVersion",), 1)),
           400, "couldn't get version/kind; json parse error: json: cannot unmarshal number "
           "into Go struct field .apiVersion of type string")
    expect("malformed JSON says where", request("POST", pods, raw=b'{"kind": "Pod",}'),
           400, "couldn't get version/kind; json parse error: invalid character '}' looking "
           "for beginning of object key string")
    expect("duplicate keys with Strict",
           request("POST", pods + "?fieldValidation=Strict",
                   raw=b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup","name":"dup2"},'
                       b'"spec":{"containers":[{"name":"c","image":"i"}]}}'),
           400, 'strict decoding error: duplicate field \\"metadata.name\\"')
    expect("server-side apply without fieldManager",
           request("PATCH", pods + "/ssa", POD,
                   headers={"Content-Type": "application/apply-patch+yaml"}),
           400, "fieldManager is required for apply requests")
    # The six bytes that crashed libfyaml (SEGV), the YAML library before libyaml: one such
    # apply body killed `tidepool up` (FUZZING.md); the next request must still be answered.
    expect("apply-patch+yaml that crashed libfyaml",
           request("PATCH", pods + "/ssa?fieldManager=e2e", raw=b"? 8:\t:",
                   headers={"Content-Type": "application/apply-patch+yaml"}),
           400, "error decoding YAML: yaml: line 1, column 3: mapping keys must be scalars")
    expect("apply-patch+yaml with yes, on and 1e1 read as kubectl reads them (true, true, 10)",
           request("PATCH", pods + "/yaml11?fieldManager=e2e",
                   raw=b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: yaml11\n"
                       b"  labels: {app: x}\n  annotations: {a: 'yes'}\nspec:\n"
                       b"  terminationGracePeriodSeconds: 1e1\n  containers:\n"
                       b"  - {name: c, image: i, tty: yes, stdin: on}\n",
                   headers={"Content-Type": "application/apply-patch+yaml"}),
           201, '"terminationGracePeriodSeconds":10', '"tty":true', '"stdin":true')
    expect("merge patch of a wrong type",
           request("PATCH", pods + "/canary", {"spec": {"priority": "high"}},
                   headers={"Content-Type": "application/merge-patch+json"}),
           422, "cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32")
    expect("strategic merge patch of a wrong type",
           request("PATCH", pods + "/canary", {"metadata": {"labels": "x"}},
                   headers={"Content-Type": "application/strategic-merge-patch+json"}),
           422, "cannot restore map from string")
    expect("GKE pool name a number",
           request("POST", GKE + "/nodePools", with_value(NODE_POOL, ("nodePool", "name"), 5)),
           400, "Invalid value at 'node_pool.name' (TYPE_STRING), 5")
    expect("GKE machine type a list",
           request("POST", GKE + "/nodePools",
                   with_value(NODE_POOL, ("nodePool", "config", "machineType"), ["a"])),
           400, "Proto field is not repeating, cannot start list.")
    expect("GKE accelerator type a number",
           request("POST", GKE + "/nodePools",
                   with_value(NODE_POOL, ("nodePool", "config", "accelerators", 0,
                                          "acceleratorType"), 7)),
           400, "Invalid value at 'node_pool.config.accelerators[0].accelerator_type' "
           "(TYPE_STRING), 7")
    expect("GKE taint key an object",
           request("POST", GKE + "/nodePools",
                   with_value(NODE_POOL, ("nodePool", "config", "taints", 0, "key"), {"a": 1})),
           400, "Invalid value at 'node_pool.config.taints[0].key' (TYPE_STRING)")
    expect("GKE setAutoscaling enabled yes",
           request("POST", GKE + "/nodePools/default-pool:setAutoscaling",
                   {"autoscaling": {"enabled": "yes"}}),
           400, "Invalid value at 'autoscaling.enabled' (TYPE_BOOL), \\\"yes\\\"")


def main():
    code, text = request("POST", "/api/v1/namespaces/default/pods", k8s_name(copy.deepcopy(POD),
                                                                          "canary"))
    if code != 201:
        print(f"FAIL: could not create the canary pod: {code} {text[:300]}")
        return 1
    canary_uid = json.loads(text)["metadata"]["uid"]

    wrong_type_table("Pod", POD, "/api/v1/namespaces/default/pods", k8s_name,
                     k8s_delete("/api/v1/namespaces/default/pods"))
    wrong_type_table("Node", NODE, "/api/v1/nodes", k8s_name, k8s_delete("/api/v1/nodes"))
    wrong_type_table("Deployment", DEPLOYMENT, "/apis/apps/v1/namespaces/default/deployments",
                     k8s_name, k8s_delete("/apis/apps/v1/namespaces/default/deployments"))
    wrong_type_table("NodePool", NODE_POOL, GKE + "/nodePools", gke_name, gke_delete)
    reproductions()

    code, text = request("GET", "/api/v1/namespaces/default/pods/canary")
    if code != 200 or json.loads(text)["metadata"]["uid"] != canary_uid:
        fail("the canary pod is still there with its uid", code, text)
    print(f"wrong-type cases: {counts['cases']} ({counts['refused']} refused with a 4xx, "
          f"{counts['accepted']} accepted); failures: {len(failures)}")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
