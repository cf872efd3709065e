#!/usr/bin/env bash
# The real kubectl (the Google Cloud SDK's dispatcher, which picks kubectl 1.32 from the
# server's /version) against a fresh `tidepool up`: every command of issue 4's list, asserted on
# what kubectl prints, the way a person reads it.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --config "$SRC/examples/up/gpu-cluster.yaml" --seed 7

# --- version, discovery
out=$(k version 2>&1)
expect_in "$out" "Server Version: v1.32.4-gke.1106006"
# kubectl get componentstatuses: deprecated (kubectl prints the API's warning), still served.
out=$(k get cs 2>&1)
expect_in "$out" "Warning: v1 ComponentStatus is deprecated in v1.19+"
expect_match "$out" '^etcd-0 +Healthy +ok *$'
expect_match "$out" '^scheduler +Healthy +ok *$'
# The health endpoints' checks (kubectl get --raw='/readyz?verbose').
out=$(k get --raw='/readyz?verbose&exclude=etcd')
expect_in "$out" "[+]etcd excluded: ok"
expect_in "$out" "[+]poststarthook/rbac/bootstrap-roles ok"
expect_in "$out" "readyz check passed"
[ "$(k get --raw=/livez/ping)" = ok ] || fail "/livez/ping" "$(k get --raw=/livez/ping 2>&1)"
pass "kubectl version"

# --- the cluster as it starts
out=$(k get nodes)
expect_match "$out" '^NAME +STATUS +ROLES +AGE +VERSION$'
[ "$(grep -c 'gke-tidepool-default-pool-.* Ready .*v1.32.4-gke' <<<"$out")" = 3 ] || fail "3 Ready default-pool nodes" "$out"
out=$(k get nodes -o wide)
expect_match "$out" 'INTERNAL-IP +EXTERNAL-IP +OS-IMAGE +KERNEL-VERSION +CONTAINER-RUNTIME'
expect_in "$out" "Container-Optimized OS from Google"
out=$(k get namespaces)
for ns in default kube-node-lease kube-public kube-system; do expect_match "$out" "^$ns +Active"; done
out=$(k get pods -n kube-system)
expect_match "$out" '^cluster-autoscaler-[a-z0-9]+-[a-z0-9]+ +1/1 +Running +0'
ca_pod=$(k get pods -n kube-system -o name | grep cluster-autoscaler | cut -d/ -f2)
out=$(k get pods -A)
expect_match "$out" '^NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE$'
expect_match "$out" '^kube-system +kube-dns-'
pass "get nodes / -o wide / namespaces / pods -A"

# --- the seed's typo'd manifest: refused with kube-apiserver's exact text
out=$(k apply -f "$SRC/examples/seed/02-typo-manifest.yaml" 2>&1 || true)
expect_in "$out" 'Error from server (BadRequest): error when creating "'"$SRC"'/examples/seed/02-typo-manifest.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.tolerations[0].important"'
out=$(k apply --validate=false -f "$SRC/examples/seed/02-typo-manifest.yaml" 2>&1 || true)
expect_in "$out" 'The Pod "gpu-test-pod" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'
pass "typo'd manifest refused (strict, and --validate=false)"
# Onto an existing pod (a strategic-merge PATCH): kube-apiserver's 422 on field "patch".
# (a CPU pod, so that it does not trigger a scale-up of its own)
sed 's/name: gpu-test-pod/name: typo-existing/; s|nvidia.com/gpu: 1|cpu: 100m|' "$SRC/examples/seed/03-gpu-test-pod.yaml" >"$WORK/typo-existing.yaml"
k apply -f "$WORK/typo-existing.yaml" >/dev/null
sed 's/name: gpu-test-pod/name: typo-existing/; s|nvidia.com/gpu: 1|cpu: 100m|' "$SRC/examples/seed/02-typo-manifest.yaml" >"$WORK/typo-existing-bad.yaml"
out=$(k apply -f "$WORK/typo-existing-bad.yaml" 2>&1 || true)
expect_match "$out" '^The request is invalid: patch: Invalid value: "map\[.*\]": strict decoding error: unknown field "spec.tolerations\[0\].important"$'
k delete pod typo-existing --wait=false >/dev/null
pass "typo'd manifest onto an existing pod: 422 on field patch"

# --- steps 3-5 of the walkthrough
k get nodes -w >"$WORK/nodes-watch.txt" 2>&1 &
k get pods -w >"$WORK/pods-watch.txt" 2>&1 &
out=$(k apply -f "$SRC/examples/seed/03-gpu-test-pod.yaml")
expect_in "$out" "pod/gpu-test-pod created"
out=$(k get pods)
expect_match "$out" '^gpu-test-pod +0/1 +Pending +0 '
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' describe pod gpu-test-pod | grep -q FailedScheduling"
out=$(k describe pod gpu-test-pod)
expect_match "$out" 'Warning +FailedScheduling +[0-9a-z]+ +default-scheduler +0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.'
expect_in "$out" "nvidia.com/gpu=present:NoSchedule"
pass "pod Pending with FailedScheduling in describe"
timeout 60 kubectl --cache-dir "$WORK/kube-cache" logs -f "$ca_pod" -n kube-system >"$WORK/ca.log" 2>&1 &
logs_pid=$!
wait_for 60 grep -q "Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)" "$WORK/ca.log"
expect_in "$(cat "$WORK/ca.log")" "gpu-test-pod"
pass "autoscaler log (kubectl logs -f) shows the scale-up of gpu-pool from 0 to 1"
# The kubelet's log options: lines stamped as written, --since, --timestamps, --limit-bytes.
out=$(k logs "$ca_pod" -n kube-system --since=1h --timestamps --tail=3)
[ "$(grep -c . <<<"$out")" = 3 ] || fail "--tail=3 with --timestamps" "$out"
expect_match "$out" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z [IWE][0-9]{4} '
[ "$(k logs "$ca_pod" -n kube-system --limit-bytes=10 | wc -c)" = 10 ] || fail "--limit-bytes=10"
out=$(k logs "$ca_pod" -n kube-system --previous 2>&1) && fail "--previous of a container that never restarted" "$out"
expect_in "$out" "previous terminated container \"cluster-autoscaler\" in pod \"$ca_pod\" not found"
pass "kubectl logs --since --timestamps --tail --limit-bytes --previous"
k wait --for=condition=Ready pod/gpu-test-pod --timeout=120s >/dev/null
out=$(k get pods -o wide)
expect_match "$out" '^gpu-test-pod +1/1 +Running +0 +[0-9a-z]+ +10\.[0-9.]+ +gke-tidepool-gpu-pool-'
gpu_node=$(k get pod gpu-test-pod -o jsonpath='{.spec.nodeName}')
nodes_seen=$(cat "$WORK/nodes-watch.txt")
expect_match "$nodes_seen" "^$gpu_node +NotReady "
expect_match "$nodes_seen" "^$gpu_node +Ready "
pods_seen=$(cat "$WORK/pods-watch.txt")
expect_match "$pods_seen" '^gpu-test-pod +0/1 +Pending '
expect_match "$pods_seen" '^gpu-test-pod +0/1 +ContainerCreating '
expect_match "$pods_seen" '^gpu-test-pod +1/1 +Running '
pass "node NotReady -> Ready in get nodes -w; pod Pending -> ContainerCreating -> Running in get pods -w"

out=$(k describe node "$gpu_node")
expect_in "$out" "nvidia.com/gpu:     1"
expect_in "$out" "Taints:             nvidia.com/gpu=present:NoSchedule"
expect_in "$out" "default                     gpu-test-pod"
expect_in "$out" "  HolderIdentity:  $gpu_node"
expect_not_in "$out" "Failed to get lease"
pass "describe node"

# --- get events, -o yaml preserving what the user wrote
out=$(k get events)
expect_match "$out" 'LAST SEEN +TYPE +REASON +OBJECT +MESSAGE'
expect_match "$out" 'Normal +TriggeredScaleUp +pod/gpu-test-pod +pod triggered scale-up: \[\{gpu-pool 0->1 \(max: 5\)\}\]'
expect_match "$out" 'Normal +Scheduled +pod/gpu-test-pod +Successfully assigned default/gpu-test-pod to '
out=$(k get pod gpu-test-pod -o yaml)
expect_in "$out" 'kubectl.kubernetes.io/last-applied-configuration'
expect_in "$out" '- /bin/bash'
expect_in "$out" 'sleep 3600'
expect_in "$out" 'phase: Running'
pass "get events; get -o yaml"

# --- re-apply unchanged and changed; server-side apply
out=$(k apply -f "$SRC/examples/seed/03-gpu-test-pod.yaml")
expect_match "$out" 'pod/gpu-test-pod (unchanged|configured)'
sed 's/name: gpu-test-pod/name: gpu-test-pod\n  labels: {team: ml}/' "$SRC/examples/seed/03-gpu-test-pod.yaml" >"$WORK/pod2.yaml"
out=$(k apply -f "$WORK/pod2.yaml")
expect_in "$out" "pod/gpu-test-pod configured"
out=$(k get pods --show-labels)
expect_match "$out" 'gpu-test-pod .*team=ml'
cat >"$WORK/ssa.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa-demo
data:
  mode: mig
YAML
# Client-side first, then server-side: kubectl migrates the last-applied annotation's owner
# (apply patches from two field managers plus a JSON patch of managedFields).
expect_in "$(k apply -f "$WORK/ssa.yaml")" "configmap/ssa-demo created"
out=$(k apply --server-side -f "$WORK/ssa.yaml")
expect_in "$out" "configmap/ssa-demo serverside-applied"
sed -i 's/mode: mig/mode: full/' "$WORK/ssa.yaml"
expect_in "$(k apply --server-side -f "$WORK/ssa.yaml")" "configmap/ssa-demo serverside-applied"
[ "$(k get configmap ssa-demo -o jsonpath='{.data.mode}')" = full ] || fail "server-side apply changed data"
out=$(k get configmap ssa-demo -o yaml --show-managed-fields)
expect_in "$out" "manager: kubectl"
expect_in "$out" "operation: Apply"
sed 's/name: gpu-test-pod/name: ssa-pod/' "$SRC/examples/seed/03-gpu-test-pod.yaml" | sed 's/nvidia.com\/gpu: 1/cpu: 100m/' >"$WORK/ssa-pod.yaml"
expect_in "$(k apply --server-side -f "$WORK/ssa-pod.yaml")" "pod/ssa-pod serverside-applied"
expect_in "$(k apply --server-side -f "$WORK/ssa-pod.yaml")" "pod/ssa-pod serverside-applied"
out=$(k get pod ssa-pod -o jsonpath='{.spec.containers[0].image}')
[ "$out" = "nvidia/cuda:11.4.2-base-ubuntu20.04" ] || fail "server-side apply kept the pod" "$out"
pass "apply unchanged/changed, --server-side"

# --- subresources in managedFields; server-side apply to status (a controller's way of
# reporting): the kubelet's status writes are an entry of their own, an apply to status
# changes status only and meets the kubelet's fields as kube-apiserver words it
k wait --for=condition=Ready pod/ssa-pod --timeout=60s >/dev/null
out=$(k get pod ssa-pod -o yaml --show-managed-fields)
expect_match "$out" 'manager: kubelet'
expect_match "$out" 'subresource: status'
cat >"$WORK/ssa-status.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: ssa-pod
spec:
  nodeName: elsewhere
status:
  conditions:
  - type: example.com/Calibrated
    status: "True"
YAML
out=$(k apply --server-side --subresource=status --field-manager=calibrator -f "$WORK/ssa-status.yaml")
expect_in "$out" "pod/ssa-pod serverside-applied"
out=$(k get pod ssa-pod -o jsonpath='{.status.conditions[?(@.type=="example.com/Calibrated")].status} {.spec.nodeName}')
[ "${out%% *}" = True ] || fail "apply to status set the condition" "$out"
[ "${out#* }" != elsewhere ] || fail "apply to status left spec alone" "$out"
out=$(k get pod ssa-pod -o json --show-managed-fields | /usr/bin/python3 -c '
import json, sys
for e in json.load(sys.stdin)["metadata"]["managedFields"]:
    if e["manager"] == "calibrator":
        print(e["operation"], e.get("subresource"), sorted(e["fieldsV1"]))')
[ "$out" = "Apply status ['f:status']" ] || fail "the applier's entry" "$out"
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: ssa-pod\nstatus:\n  phase: Failed\n' >"$WORK/ssa-phase.yaml"
out=$(k apply --server-side --subresource=status --field-manager=calibrator -f "$WORK/ssa-phase.yaml" 2>&1 || true)
expect_in "$out" 'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.phase'
out=$(sed 's/name: ssa-pod/name: no-such-pod/' "$WORK/ssa-status.yaml" |
  k apply --server-side --subresource=status -f - 2>&1 || true)
expect_in "$out" 'pods "no-such-pod" not found'
pass "managedFields of subresources; apply --server-side --subresource=status"

# --- Events of both APIs are one resource: one written through events.k8s.io/v1 (as
# client-go's new events recorder writes them) is the pod's event for `describe` and `get
# events`; core's are listed through events.k8s.io
uid=$(k get pod ssa-pod -o jsonpath='{.metadata.uid}')
cat >"$WORK/ev.yaml" <<YAML
apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: ssa-pod.calibrated
eventTime: "$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)"
reportingController: example.com/calibrator
reportingInstance: calibrator-0
action: Calibrate
reason: Calibrated
type: Normal
regarding: {kind: Pod, namespace: default, name: ssa-pod, uid: $uid}
note: GPU calibration passed
YAML
expect_in "$(k create -f "$WORK/ev.yaml")" "event.events.k8s.io/ssa-pod.calibrated created"
expect_match "$(k describe pod ssa-pod)" 'Normal +Calibrated +.* +example.com/calibrator +GPU calibration passed'
expect_match "$(k get events --field-selector involvedObject.name=ssa-pod)" 'Normal +Calibrated +pod/ssa-pod +GPU calibration passed'
out=$(k get events.v1.events.k8s.io --field-selector regarding.name=ssa-pod -o jsonpath='{range .items[*]}{.reason}:{.note}{"\n"}{end}')
expect_in "$out" 'Calibrated:GPU calibration passed'
expect_in "$out" 'Scheduled:Successfully assigned default/ssa-pod to'
pass "events.k8s.io/v1 and core/v1 Events are one resource"

# --- label, taint, cordon/uncordon, configmaps
node=$(k get nodes -o name | grep default-pool | awk 'NR==1' | cut -d/ -f2)
expect_in "$(k label node "$node" accelerator=none)" "node/$node labeled"
expect_in "$(k get node "$node" --show-labels)" "accelerator=none"
expect_in "$(k taint nodes "$node" dedicated=ml:NoSchedule)" "node/$node tainted"
expect_in "$(k describe node "$node")" "dedicated=ml:NoSchedule"
expect_in "$(k taint nodes "$node" dedicated=ml:NoSchedule-)" "node/$node untainted"
expect_in "$(k cordon "$node")" "node/$node cordoned"
expect_match "$(k get node "$node")" "Ready,SchedulingDisabled"
expect_in "$(k uncordon "$node")" "node/$node uncordoned"
# The kubelet's events of both (recordNodeSchedulableEvent), on its node.
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get events --field-selector involvedObject.name=$node | grep -q 'NodeSchedulable .*status is now: NodeSchedulable'" ||
  fail "NodeNotSchedulable / NodeSchedulable events" "$(k get events --field-selector involvedObject.name="$node")"
expect_match "$(k describe node "$node")" "Normal +NodeNotSchedulable +.* +kubelet +Node $node status is now: NodeNotSchedulable"
expect_in "$(k create configmap gpu-config --from-literal=mode=mig --from-literal=count=8)" "configmap/gpu-config created"
out=$(k create configmap gpu-config --from-literal=mode=mig 2>&1 || true)
expect_in "$out" 'error: failed to create configmap: configmaps "gpu-config" already exists'
out=$(k get configmap gpu-config -o jsonpath='{.data.count}')
[ "$out" = 8 ] || fail "configmap data" "$out"
expect_match "$(k get configmaps)" '^gpu-config +2 +'
pass "label, taint, cordon/uncordon, create configmap"

# --- drain: a default-pool node without kube-system's pods (they have no controller that
# would recreate them)
ca_host=$(k get pod -n kube-system "$ca_pod" -o jsonpath='{.spec.nodeName}')
host=$(k get nodes -o name | grep default-pool | cut -d/ -f2 | grep -v "^$ca_host\$" | tail -1)
cat >"$WORK/standalone.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: standalone-1
spec:
  nodeName: $host
  containers:
  - name: c
    image: busybox:1.36
YAML
k apply -f "$WORK/standalone.yaml" >/dev/null
k wait --for=condition=Ready pod/standalone-1 --timeout=60s >/dev/null
out=$(k drain "$host" --ignore-daemonsets 2>&1 || true)
expect_in "$out" "cannot delete Pods that declare no controller (use --force to override): default/standalone-1"
out=$(k drain "$host" --ignore-daemonsets --force 2>&1)
expect_in "$out" "evicting pod default/standalone-1"
expect_in "$out" "pod/standalone-1 evicted"
expect_in "$out" "node/$host drained"
k uncordon "$host" >/dev/null
pass "drain --ignore-daemonsets"

# --- step 5: delete, and the pool back to 0
out=$(k delete -f "$SRC/examples/seed/03-gpu-test-pod.yaml")
expect_in "$out" 'pod "gpu-test-pod" deleted'
out=$(k get pod gpu-test-pod 2>&1 || true)
expect_in "$out" 'Error from server (NotFound): pods "gpu-test-pod" not found'
wait_for 90 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get nodes | grep -q gpu-pool"
expect_in "$(k get events)" "ScaleDown"
pass "delete -f waits until gone; the GPU node is removed (pool back to 0)"
out=$(k get configmap cluster-autoscaler-status -n kube-system -o jsonpath='{.data.status}')
expect_in "$out" "autoscalerStatus: Running"
expect_in "$out" "name: gpu-pool"
pass "CA's status ConfigMap"
out=$(k get pods -A -o json)
expect_in "$out" '"kind": "List"'
expect_in "$out" '"namespace": "kube-system"'
expect_match "$(k get ns -o name)" '^namespace/kube-node-lease$'
pass "-o json, -o name"
# kubectl explain reads the OpenAPI v3 component schemas of every built-in kind.
out=$(k explain pod.spec.tolerations 2>&1) || fail "kubectl explain pod.spec.tolerations" "$out"
expect_in "$out" "FIELD: tolerations <[]Toleration>"
expect_in "$out" "If specified, the pod's tolerations."
expect_match "$out" '^  tolerationSeconds	<integer>$'
out=$(k explain deployment.spec.strategy.rollingUpdate 2>&1) || fail "explain a Deployment field" "$out"
expect_in "$out" "GROUP:      apps"
expect_match "$out" '^  maxSurge	<IntOrString>$'
expect_in "$(k explain pod.spec.containers.resources.limits 2>&1)" "FIELD: limits <map[string]Quantity>"
expect_match "$(k explain hpa.spec 2>&1)" '^  maxReplicas	<integer> -required-$'
for kind in node service configmap job cronjob daemonset statefulset pdb priorityclass lease \
    storageclass crd role clusterrolebinding; do
  out=$(k explain "$kind" 2>&1) || fail "kubectl explain $kind" "$out"
  expect_in "$out" "DESCRIPTION:"
done
pass "kubectl explain for the built-in kinds"
# Discovery's raw text as kube-apiserver writes it (kubectl's test-cmd discovery.sh greps it).
out=$(k get --raw=/api/v1)
expect_in "$out" '{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="}'
expect_in "$(grep -o '"name":"pods"[^}]*}' <<<"$out")" '"categories":["all"]'
pass "discovery: APIResource members in kube's order, storageVersionHash"
# /openapi/v2: the Swagger 2.0 document (test-cmd's run_swagger_tests greps these texts), in
# JSON and in the gnostic protobuf form client-go asks for.
api_url=$(k config view --raw -o jsonpath='{.clusters[0].cluster.server}')
api_token=$(k config view --raw -o jsonpath='{.users[0].user.token}')
curl -kfsS -H "Authorization: Bearer $api_token" "$api_url/openapi/v2" >"$WORK/swagger.json" ||
  fail "GET /openapi/v2" "$(head -c 300 "$WORK/swagger.json")"
for text in "list of returned" "List of services" "Watch for changes to the described resources"; do
  grep -q "$text" "$WORK/swagger.json" || fail "/openapi/v2 has \"$text\"" ""
done
/usr/bin/python3 - "$WORK/swagger.json" <<'EOF_SWAGGER' || fail "/openapi/v2's operations" ""
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["swagger"] == "2.0"
op = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"]["get"]
assert op["operationId"] == "listAppsV1NamespacedDeployment", op["operationId"]
assert op["responses"]["200"]["schema"]["$ref"] == "#/definitions/io.k8s.api.apps.v1.DeploymentList"
refs = json.dumps(doc).count('"#/definitions/')
assert refs > 1000, refs
EOF_SWAGGER
out=$(curl -ks -o /dev/null -w '%{http_code} %{content_type}' -H "Authorization: Bearer $api_token" \
  -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf' "$api_url/openapi/v2")
expect_in "$out" "200 application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
expect_in "$(k get --raw /openapi/v2 | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["swagger"])')" "2.0"
pass "/openapi/v2: Swagger 2.0 with kube's operations and texts, JSON and protobuf"
# kubectl validates a List's items against the protobuf document (client-side): a List is
# created, and an unknown field in an item is refused with kubectl's text before any request.
cat >"$WORK/list.yaml" <<'EOF_LIST'
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: list-cm}, data: {a: "1"}}
- {apiVersion: v1, kind: Service, metadata: {name: list-svc}, spec: {ports: [{port: 80}]}}
EOF_LIST
expect_in "$(k create -f "$WORK/list.yaml")" "service/list-svc created"
sed 's/data: {a: "1"}/data: {a: "1"}, bogus: 1/; s/list-cm/list-cm2/; s/list-svc/list-svc2/' "$WORK/list.yaml" >"$WORK/list-bad.yaml"
out=$(k create -f "$WORK/list-bad.yaml" 2>&1) && fail "a List item with an unknown field is refused" "$out"
expect_in "$out" 'error validating data: ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap'
k get configmap list-cm2 >/dev/null 2>&1 && fail "nothing of the refused List is created" ""
# Client-side apply computes its strategic merge patch from the same document: a container
# and an env var dropped from the manifest are removed, the rest merged by name.
cat >"$WORK/csa.yaml" <<'EOF_CSA'
apiVersion: apps/v1
kind: Deployment
metadata: {name: csa}
spec:
  replicas: 0
  selector: {matchLabels: {app: csa}}
  template:
    metadata: {labels: {app: csa}}
    spec:
      containers:
      - {name: a, image: nginx, env: [{name: KEEP, value: "1"}, {name: DROP, value: "2"}]}
      - {name: b, image: busybox}
EOF_CSA
k apply -f "$WORK/csa.yaml" >/dev/null
sed -e '/name: b, image: busybox/d' -e 's/, {name: DROP, value: "2"}//' "$WORK/csa.yaml" >"$WORK/csa2.yaml"
k apply -f "$WORK/csa2.yaml" >/dev/null
expect_in "$(k get deploy csa -o jsonpath='{range .spec.template.spec.containers[*]}{.name}={.env[*].name};{end}')" "a=KEEP;"
k delete deploy csa >/dev/null
pass "kubectl create -f of a List validated client-side; client-side apply merges lists by key"
# A Secret's stringData overwrites data's keys and is not stored.
k create -f - >/dev/null <<'EOF_SECRET'
{"kind":"Secret","apiVersion":"v1","metadata":{"name":"secret-string-data"},
 "data":{"k1":"djE=","k2":""},"stringData":{"k2":"v2"}}
EOF_SECRET
expect_in "$(k get secret secret-string-data -o go-template='{{.data}}')" 'map[k1:djE= k2:djI=]'
expect_in "$(k get secret secret-string-data -o go-template='{{.stringData}}')" '<no value>'
pass "a Secret's stringData merged into data"
# A stale resourceVersion is a Conflict before validation (test-cmd apps.sh); "0" is none.
k create deployment rv-web --image=nginx >/dev/null
k get deployment rv-web -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
d["metadata"]["resourceVersion"] = "99"
d["spec"]["selector"]["matchLabels"]["app"] = "rv-web2"
d["spec"]["template"]["metadata"]["labels"]["app"] = "rv-web2"
print(json.dumps(d))' >"$WORK/rv-web-stale.json"
out=$(k replace -f "$WORK/rv-web-stale.json" 2>&1) && fail "a stale resourceVersion is refused" "$out"
expect_in "$out" 'Error from server (Conflict): error when replacing "'"$WORK"'/rv-web-stale.json": Operation cannot be fulfilled on deployments.apps "rv-web": the object has been modified; please apply your changes to the latest version and try again'
k get deployment rv-web -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
d["metadata"]["resourceVersion"] = "0"
d["metadata"].setdefault("annotations", {})["unconditional"] = "yes"
print(json.dumps(d))' | k replace -f - >/dev/null || fail "resourceVersion 0 is an unconditional update"
expect_in "$(k get deployment rv-web -o jsonpath='{.metadata.annotations.unconditional}')" yes
k delete deployment rv-web >/dev/null
pass "a stale resourceVersion is a Conflict before validation; \"0\" is unconditional"

# Response compression as kube-apiserver's: a list over 128 KiB is gzipped for a client that
# accepts gzip (Go's transport asks, decodes, and leaves Vary), left alone for one that does not.
big=$(head -c 60000 /dev/urandom | base64 -w0)
for n in a b c; do k create configmap "big-$n" --from-literal=k="$big" >/dev/null; done
expect_in "$(k get configmaps -o json --v=8 2>&1)" "Vary: Accept-Encoding"
headers=$(curl -s -o "$WORK/plain.json" -D - -H "Authorization: Bearer $(k config view --raw -o jsonpath='{.users[0].user.token}')" "$(k config view --raw -o jsonpath='{.clusters[0].cluster.server}')/api/v1/namespaces/default/configmaps" -k)
expect_not_in "$headers" "Content-Encoding"
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["items"]) >= 3' "$WORK/plain.json" || fail "the plain list" "$headers"
gz=$(curl -s -o "$WORK/gz.bin" -D - -H "Accept-Encoding: gzip" -H "Authorization: Bearer $(k config view --raw -o jsonpath='{.users[0].user.token}')" "$(k config view --raw -o jsonpath='{.clusters[0].cluster.server}')/api/v1/namespaces/default/configmaps" -k)
expect_in "$gz" "Content-Encoding: gzip"
# (The lists' own resourceVersion moves with the cluster: compare the items.)
gunzip -c "$WORK/gz.bin" >"$WORK/gz.json"
python3 -c 'import json,sys; a,b=(json.load(open(f))["items"] for f in sys.argv[1:]); assert a==b' "$WORK/gz.json" "$WORK/plain.json" ||
  fail "the gzipped list is the plain list" "$(head -c 300 "$WORK/gz.json")"
k delete configmap big-a big-b big-c >/dev/null
pass "a 240 KB list is gzipped for a client that accepts gzip, plain for one that does not"

# RBAC's bootstrap policy, and kcm's aggregation: view gathers the aggregate-to-view roles, a
# role of ours labelled so joins it (and, through edit and admin, those too).
expect_match "$(k get clusterroles)" "^cluster-admin +[0-9TZ:-]+$"
expect_match "$(k get clusterrolebinding cluster-admin -o wide)" "^cluster-admin +ClusterRole/cluster-admin .* system:masters"
view_rules() { k get clusterrole "$1" -o go-template='{{len .rules}}'; }
[ "$(view_rules view) $(view_rules edit) $(view_rules admin)" = "10 23 25" ] ||
  fail "aggregated rules of view, edit, admin" "$(k get clusterrole view edit admin -o yaml)"
k create clusterrole widget-viewer --verb=get,list --resource=configmaps --resource-name=widgets >/dev/null
k label clusterrole widget-viewer rbac.authorization.k8s.io/aggregate-to-view=true >/dev/null
wait_for 20 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get clusterrole admin -o go-template="{{len .rules}}")" = 26 ]' ||
  fail "admin aggregates the new view rule" "$(k get clusterrole view -o yaml)"
expect_in "$(k get clusterrole view -o jsonpath='{.rules[*].resourceNames}')" "widgets"
k delete clusterrole widget-viewer >/dev/null
wait_for 20 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get clusterrole view -o go-template="{{len .rules}}")" = 10 ]' ||
  fail "view loses the deleted role's rule" "$(k get clusterrole view -o yaml)"
pass "bootstrap ClusterRoles; view/edit/admin aggregated (10/23/25), a labelled role joins and leaves"
# --- pods whose ConfigMap or Secret is missing: the volume does not mount (FailedMount), the
# environment cannot be made (CreateContainerConfigError); both run once the objects exist.
cat >"$WORK/config-pods.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: needs-volume}
spec:
  containers:
  - {name: app, image: nginx:1.27, volumeMounts: [{name: cfg, mountPath: /etc/app}]}
  volumes: [{name: cfg, configMap: {name: app-config}}]
---
apiVersion: v1
kind: Pod
metadata: {name: needs-env}
spec:
  containers:
  - name: app
    image: nginx:1.27
    env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: app-secret, key: token}}}]
EOF
k apply -f "$WORK/config-pods.yaml" >/dev/null
# describe_has <pod> <text>: kubectl describe shows the text (retried by wait_for).
describe_has() { kubectl --cache-dir "$WORK/kube-cache" describe pod "$1" | grep -qF -- "$2"; }
export -f describe_has
export WORK
wait_for 30 describe_has needs-env 'Error: secret "app-secret" not found' ||
  fail "needs-env: Failed" "$(k describe pod needs-env)"
wait_for 30 describe_has needs-volume 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found' ||
  fail "needs-volume: FailedMount" "$(k describe pod needs-volume)"
out=$(k get pods needs-env needs-volume)
expect_match "$out" '^needs-env +0/1 +CreateContainerConfigError +0 '
expect_match "$out" '^needs-volume +0/1 +ContainerCreating +0 '
out=$(k describe pod needs-volume)
expect_match "$out" 'PodReadyToStartContainers +False'
expect_not_in "$out" "Pulling"
expect_match "$(k describe pod needs-env)" 'Reason: +CreateContainerConfigError'
k create secret generic app-secret --from-literal=other=x >/dev/null
wait_for 30 describe_has needs-env "couldn't find key token in Secret default/app-secret" ||
  fail "needs-env: the missing key" "$(k describe pod needs-env)"
k create configmap app-config --from-literal=mode=fast >/dev/null
k patch secret app-secret -p '{"stringData":{"token":"abc"}}' >/dev/null
phases() { kubectl --cache-dir "$WORK/kube-cache" get pod needs-env needs-volume -o jsonpath='{.items[*].status.phase}'; }
export -f phases
wait_for 60 bash -c '[ "$(phases)" = "Running Running" ]' ||
  fail "both run once their objects exist" "$(k get pods needs-env needs-volume; k describe pod needs-env needs-volume)"
k delete pod needs-env needs-volume --wait=false >/dev/null
k delete configmap app-config >/dev/null
k delete secret app-secret >/dev/null
pass "a missing ConfigMap or Secret: FailedMount, CreateContainerConfigError; running once they exist"
# --- storage: GKE's classes; a pod whose claim is missing is not scheduled (VolumeBinding's
# text, and the autoscaler does not scale up for it); the claim, given the default class and
# pvc-protection, lets it run; deleted while the pod uses it, the claim waits for the pod.
out=$(k get storageclass)
expect_match "$out" '^premium-rwo +pd\.csi\.storage\.gke\.io +Delete +WaitForFirstConsumer +true '
expect_match "$out" '^standard +kubernetes\.io/gce-pd +Delete +Immediate +true '
expect_match "$out" '^standard-rwo \(default\) +pd\.csi\.storage\.gke\.io +Delete +WaitForFirstConsumer +true '
cat >"$WORK/claim-pod.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: needs-claim}
spec:
  containers:
  - {name: app, image: nginx:1.27, volumeMounts: [{name: data, mountPath: /data}]}
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
EOF
k apply -f "$WORK/claim-pod.yaml" >/dev/null
wait_for 30 describe_has needs-claim 'persistentvolumeclaim "data" not found. preemption: ' ||
  fail "needs-claim: FailedScheduling" "$(k describe pod needs-claim)"
wait_for 30 describe_has needs-claim "pod didn't trigger scale-up:" ||
  fail "needs-claim: NotTriggerScaleUp" "$(k describe pod needs-claim)"
expect_match "$(k describe pod needs-claim)" "pod didn't trigger scale-up: [0-9]+ persistentvolumeclaim \"data\" not found"
cat >"$WORK/claim.yaml" <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 10Gi}}
EOF
k apply -f "$WORK/claim.yaml" >/dev/null
# Pending, or already Bound: the pod that waited for it is scheduled at once.
expect_match "$(k get pvc data)" '^data +(Pending|Bound) .* standard-rwo '
expect_in "$(k get pvc data -o jsonpath='{.metadata.finalizers}')" 'kubernetes.io/pvc-protection'
wait_for 60 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pod needs-claim -o jsonpath={.status.phase})" = Running ]' ||
  fail "needs-claim runs once its claim exists" "$(k describe pod needs-claim)"
# The scheduler names the claim's node; the PD driver provisions pvc-<uid> in that node's zone;
# the PV controller binds it.
wait_for 30 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pvc data -o jsonpath={.status.phase})" = Bound ]' ||
  fail "the claim is provisioned and bound" "$(k describe pvc data; k get pv)"
uid=$(k get pvc data -o jsonpath='{.metadata.uid}')
node=$(k get pod needs-claim -o jsonpath='{.spec.nodeName}')
zone=$(k get node "$node" -o jsonpath='{.metadata.labels.topology\.gke\.io/zone}')
expect_match "$(k get pvc data)" "^data +Bound +pvc-$uid +10Gi +RWO +standard-rwo "
expect_match "$(k get pv "pvc-$uid")" "^pvc-$uid +10Gi +RWO +Delete +Bound +default/data +standard-rwo "
expect_in "$(k get pvc data -o jsonpath='{.metadata.annotations}')" "\"volume.kubernetes.io/selected-node\":\"$node\""
expect_in "$(k get pv "pvc-$uid" -o jsonpath='{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]} {.spec.csi.volumeHandle}')" \
  "$zone projects/"
# The pod is bound only once its volume is (VolumeBinding's PreBind waits for it): in the
# order the API stored them, Scheduled follows ProvisioningSucceeded.
order=$(k get events -o jsonpath='{range .items[*]}{.metadata.resourceVersion} {.reason} {.involvedObject.name}{"\n"}{end}' |
  sort -n | awk '$2 " " $3 == "ProvisioningSucceeded data" || $2 " " $3 == "Scheduled needs-claim" {printf "%s ", $2}')
[ "$order" = "ProvisioningSucceeded Scheduled " ] ||
  fail "the pod is bound after its volume is provisioned" "$order"
# A claim's spec is immutable, with kube-apiserver's message and diff.
out=$(k patch pvc data --type=merge -p '{"spec":{"storageClassName":"premium-rwo"}}' 2>&1 || true)
expect_in "$out" 'The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'
expect_in "$out" '+ "StorageClassName": "premium-rwo",'
out=$(k describe pvc data)
expect_in "$out" 'ExternalProvisioning'
expect_in "$out" 'External provisioner is provisioning volume for claim "default/data"'
expect_in "$out" "Successfully provisioned volume pvc-$uid"
# An Immediate class (standard, in-tree gce-pd migrated to the PD driver): bound with no pod.
k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: now}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
EOF
wait_for 30 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pvc now -o jsonpath={.status.phase})" = Bound ]' ||
  fail "an Immediate claim is bound" "$(k describe pvc now)"
expect_in "$(k get pvc now -o jsonpath='{.metadata.annotations.volume\.kubernetes\.io/storage-provisioner}')" 'pd.csi.storage.gke.io'
now_pv=$(k get pvc now -o jsonpath='{.spec.volumeName}')
k delete pvc now >/dev/null
wait_for 30 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get pv '$now_pv' >/dev/null 2>&1" ||
  fail "a released volume of reclaim policy Delete is deleted" "$(k get pv "$now_pv" -o yaml)"
# A local volume on one node (no provisioner, WaitForFirstConsumer): the pod goes to that
# node, and the scheduler binds the claim to the volume.
lnode=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
lhost=$(k get node "$lnode" -o jsonpath='{.metadata.labels.kubernetes\.io/hostname}')
k apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-storage}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: local-pv}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local-storage
  local: {path: /mnt/disks/ssd1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: ["$lhost"]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: local-data}
spec:
  storageClassName: local-storage
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: needs-local}
spec:
  containers: [{name: app, image: nginx:1.27, volumeMounts: [{name: d, mountPath: /d}]}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: local-data}}]
EOF
wait_for 30 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pvc local-data -o jsonpath={.status.phase})" = Bound ]' ||
  fail "the local claim is bound" "$(k describe pvc local-data; k describe pod needs-local)"
expect_match "$(k get pvc local-data)" '^local-data +Bound +local-pv +5Gi +RWO +local-storage '
expect_in "$(k get pod needs-local -o jsonpath='{.spec.nodeName}')" "$lnode"
k delete pod needs-local --grace-period=0 --force >/dev/null 2>&1
k delete pvc local-data >/dev/null
wait_for 30 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pv local-pv -o jsonpath={.status.phase})" = Released ]' ||
  fail "a retained local volume is Released" "$(k get pv local-pv -o yaml)"
k delete pv/local-pv storageclass/local-storage --wait=false >/dev/null
k delete pvc data --wait=false >/dev/null
sleep 2
expect_match "$(k get pvc data)" "^data +Terminating +pvc-$uid +10Gi +RWO +standard-rwo "
k delete pod needs-claim --grace-period=0 --force >/dev/null 2>&1
wait_for 30 bash -c '! kubectl --cache-dir "$WORK/kube-cache" get pvc data >/dev/null 2>&1' ||
  fail "the claim goes with its last pod" "$(k get pvc data -o yaml)"
wait_for 30 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get pv 'pvc-$uid' >/dev/null 2>&1" ||
  fail "and its volume with it" "$(k get pv "pvc-$uid" -o yaml)"
# A claim bound to a volume in another zone (us-central1-b; the GPU pool is in -a): the
# scheduler and the autoscaler both say why, and the pool is not scaled up for it.
k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: PersistentVolume
metadata: {name: zone-b-pv}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  claimRef: {namespace: default, name: zone-b-data}
  csi: {driver: pd.csi.storage.gke.io, volumeHandle: projects/tidepool-local/zones/us-central1-b/disks/zone-b}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.gke.io/zone, operator: In, values: [us-central1-b]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: zone-b-data}
spec:
  storageClassName: ""
  volumeName: zone-b-pv
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: zone-b-trainer}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - {name: app, image: nginx:1.27, resources: {limits: {nvidia.com/gpu: 1}}, volumeMounts: [{name: d, mountPath: /d}]}
  volumes: [{name: d, persistentVolumeClaim: {claimName: zone-b-data}}]
EOF
wait_for 30 bash -c '[ "$(kubectl --cache-dir "$WORK/kube-cache" get pvc zone-b-data -o jsonpath={.status.phase})" = Bound ]' ||
  fail "a claim pre-bound to a volume is bound" "$(k describe pvc zone-b-data)"
# The scheduler's own event (the GPU pool is at 0, so no node has a GPU: its first filter to
# fail is NodeResourcesFit); the autoscaler's names the volume, for the pool's template node.
sched_events() {
  kubectl --cache-dir "$WORK/kube-cache" get events \
    --field-selector involvedObject.name=zone-b-trainer,reason=FailedScheduling \
    -o jsonpath='{range .items[*]}{.source.component}: {.message}{"\n"}{end}'
}
export -f sched_events
# (The first may be VolumeBinding's "pod has unbound immediate PersistentVolumeClaims", before
# the PV controller binds the claim.)
wait_for 30 bash -c 'sched_events | grep -qE "^default-scheduler: 0/[0-9]+ nodes are available: .*(Insufficient nvidia.com/gpu|volume node affinity conflict)"' ||
  fail "zone-b-trainer: FailedScheduling" "$(k describe pod zone-b-trainer)"
wait_for 30 describe_has zone-b-trainer "pod didn't trigger scale-up:" ||
  fail "zone-b-trainer: NotTriggerScaleUp" "$(k describe pod zone-b-trainer)"
expect_match "$(k describe pod zone-b-trainer)" "pod didn't trigger scale-up: ([^,]*, )*1 node\(s\) had volume node affinity conflict"
expect_not_in "$(k describe pod zone-b-trainer)" 'TriggeredScaleUp'
k delete pod zone-b-trainer --grace-period=0 --force >/dev/null 2>&1
k delete pvc zone-b-data --wait=false >/dev/null
k delete pv zone-b-pv --wait=false >/dev/null
pass "storage classes; a missing claim: FailedScheduling, NotTriggerScaleUp; provisioning, binding, pvc-protection, reclaim; a volume in another zone"
kill $logs_pid 2>/dev/null || true
echo "ok: kubectl e2e"
