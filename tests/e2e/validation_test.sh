#!/usr/bin/env bash
# Issue 14: what kube-apiserver refuses, tidepool up refuses, with its texts, seen through the
# real kubectl: apps/batch/policy rules (replicas range, selectors matching templates, restart
# policies, immutable selectors, PDB budgets), the 256 KiB annotations limit, and etcd's
# object size limit (a pod of 10,000 containers). Objects the emulated cluster stored itself
# (the GPU operator's DaemonSet) still validate on update, and the server stays up.
source "$(dirname "$0")/lib.sh"
start_up --config "$SRC/examples/up/gpu-cluster.yaml" --seed 7

deployment() {  # deployment <name> <replicas> <selector app> <template app> [restartPolicy]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
spec:
  replicas: $2
  selector:
    matchLabels:
      app: $3
  template:
    metadata:
      labels:
        app: $4
    spec:
      restartPolicy: ${5:-Always}
      containers:
      - name: web
        image: nginx:1.27
YAML
}

# --- Deployments
out=$(deployment neg -5 web web | k apply -f - 2>&1 || true)
expect_in "$out" 'The Deployment "neg" is invalid: spec.replicas: Invalid value: -5: must be greater than or equal to 0'
out=$(deployment mismatch 1 a b | k apply -f - 2>&1 || true)
expect_in "$out" 'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`'
out=$(deployment never 1 web web Never | k apply -f - 2>&1 || true)
expect_in "$out" 'The Deployment "never" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'
deployment web 1 web web | k apply -f - >/dev/null
out=$(k get deployment web -o jsonpath='{.spec.strategy.rollingUpdate.maxSurge} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds}')
[ "$out" = "25% 10 600" ] || fail "deployment defaults" "$out"
out=$(deployment web 1 other other | k apply -f - 2>&1 || true)
expect_in "$out" 'The Deployment "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'
k patch deployment web -p '{"spec":{"replicas":2}}' >/dev/null
out=$(k patch deployment web -p '{"spec":{"replicas":-1}}' 2>&1 || true)
expect_in "$out" 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'
pass "deployments: replicas, selector, restartPolicy, defaults, immutable selector"

# --- Jobs
job() {  # job <name> <restartPolicy>
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
spec:
  template:
    spec:
      restartPolicy: $2
      containers:
      - name: pi
        image: perl:5.34
YAML
}
out=$(job always Always | k apply -f - 2>&1 || true)
expect_in "$out" 'The Job "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
job pi Never | k apply -f - >/dev/null
uid=$(k get job pi -o jsonpath='{.metadata.uid}')
out=$(k get job pi -o jsonpath='{.spec.selector.matchLabels.batch\.kubernetes\.io/controller-uid} {.spec.template.metadata.labels.job-name} {.spec.completions} {.spec.backoffLimit} {.spec.completionMode} {.spec.manualSelector}')
[ "$out" = "$uid pi 1 6 NonIndexed false" ] || fail "job defaults and generated selector ($uid)" "$out"
pass "jobs: restartPolicy, defaults, generated selector"

# --- PodDisruptionBudget
out=$(k apply -f - 2>&1 <<'YAML' || true
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: both
spec:
  minAvailable: 1
  maxUnavailable: 1
  selector:
    matchLabels:
      app: web
YAML
)
expect_match "$out" '^The PodDisruptionBudget "both" is invalid: spec: Invalid value: policy\.PodDisruptionBudgetSpec\{MinAvailable:\(\*intstr\.IntOrString\)\(0x[0-9a-f]+\), .*\}: minAvailable and maxUnavailable cannot be both set$'
pass "pdb: minAvailable and maxUnavailable"

# --- RBAC
out=$(k apply -f - 2>&1 <<'YAML' || true
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: wrong-kind
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: reader
subjects:
- kind: ServiceAccount
  name: default
  namespace: default
YAML
)
expect_in "$out" 'The ClusterRoleBinding "wrong-kind" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'
pass "rbac: a ClusterRoleBinding to a Role"

# --- 300 KiB of annotations
big=$(head -c 307200 /dev/zero | tr '\0' a)
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  annotations:\n    example.com/big: "%s"\n' "$big" >"$WORK/big.yaml"
out=$(k create -f "$WORK/big.yaml" 2>&1 || true)
expect_in "$out" 'The ConfigMap "big" is invalid: metadata.annotations: Too long: must have at most 262144 bytes'
pass "annotations over 256 KiB"

# --- a pod of 10,000 containers: over etcd's request limit once defaulted
python3 - "$WORK/many.json" <<'PY'
import json, sys
containers = [{"name": "c%05d" % i, "image": "busybox:1.36"} for i in range(10000)]
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "many"},
       "spec": {"containers": containers}}
json.dump(pod, open(sys.argv[1], "w"))
PY
out=$(k create -f "$WORK/many.json" 2>&1 || true)
expect_in "$out" 'Error from server: error when creating "'"$WORK"'/many.json": etcdserver: request is too large'
pass "10,000 containers: etcdserver: request is too large"

# --- what the emulated cluster stored itself still validates on update; the server is up
k label daemonset -n gpu-operator nvidia-device-plugin-daemonset example.com/checked=yes >/dev/null
out=$(k get pods -A)
expect_match "$out" '^kube-system +kube-dns-'
out=$(k get deployment web -o jsonpath='{.metadata.uid}')
[ -n "$out" ] || fail "the deployment created earlier is still there"
pass "system objects update; server up"
echo "validation e2e: all passed"
