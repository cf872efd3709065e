#!/usr/bin/python3
"""The Kubernetes Python client from Debian (python3-kubernetes) against `tidepool up`:
list pods, watch them and create one. Usage: python_client_test.py KUBECONFIG"""
import sys
import threading

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()

pods = v1.list_pod_for_all_namespaces()
names = [p.metadata.name for p in pods.items]
assert any(n.startswith("cluster-autoscaler-") for n in names), names
assert pods.metadata.resource_version, "a list carries its resourceVersion"
nodes = v1.list_node()
assert len(nodes.items) == 3, [n.metadata.name for n in nodes.items]
ready = [c.status for n in nodes.items for c in n.status.conditions if c.type == "Ready"]
assert ready == ["True"] * 3, ready

seen = []
done = threading.Event()


def watcher():
    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_pod, namespace="default",
                          resource_version=pods.metadata.resource_version, timeout_seconds=60):
        seen.append((event["type"], event["object"].metadata.name, event["object"].status.phase))
        if event["object"].status.phase == "Running":
            w.stop()
    done.set()


t = threading.Thread(target=watcher)
t.start()
pod = client.V1Pod(
    metadata=client.V1ObjectMeta(name="py-pod", labels={"made-by": "python"}),
    spec=client.V1PodSpec(containers=[client.V1Container(
        name="c", image="busybox:1.36", command=["sleep", "3600"],
        resources=client.V1ResourceRequirements(requests={"cpu": "100m"}))]))
created = v1.create_namespaced_pod("default", pod)
assert created.metadata.uid and created.metadata.resource_version
assert created.spec.tolerations and len(created.spec.tolerations) == 2  # defaulted
done.wait(60)
assert ("ADDED", "py-pod", "Pending") in seen, seen
assert seen[-1][2] == "Running", seen
got = v1.list_namespaced_pod("default", label_selector="made-by=python")
assert [p.metadata.name for p in got.items] == ["py-pod"], got.items
print("ok: python client list, watch, create", len(seen), "events")

# Deletions answer as kube's registries do: a ConfigMap's is a Status (the generated client's
# V1Status), a pod's is the pod.
v1.create_namespaced_config_map("default", client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name="py-cm"), data={"k": "v"}))
gone = v1.delete_namespaced_config_map("py-cm", "default")
assert gone.status == "Success" and gone.details.name == "py-cm", gone
assert gone.details.kind == "configmaps" and gone.details.uid, gone.details
deleted = v1.delete_namespaced_pod("py-pod", "default")
assert deleted.kind == "Pod" and deleted.metadata.deletion_timestamp, deleted.kind
print("ok: python client deletes: a Status for a ConfigMap, the Pod for a pod")
