#!/usr/bin/env bash
# Issue 17: ResourceQuotas as kube-apiserver's admission and kube-controller-manager's
# resourcequota controller have them, with the real kubectl - a per-team GPU quota:
#   1. `kubectl create quota` with requests.nvidia.com/gpu, pods, requests.cpu and an object
#      count; the controller fills status (hard, used); `kubectl get quota` / `describe quota`
#      print kube's columns;
#   2. a Deployment asking for more GPUs than the quota gets only what fits: the ReplicaSet's
#      FailedCreate event carries kube's "exceeded quota" text, and a bare pod is refused with
#      it; a pod without a cpu request is refused with "must specify"; an object count is
#      enforced; invalid quotas are refused in kube's words;
#   3. a pod that goes frees its share, and the Deployment's next pod gets it.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 37

k create namespace team-a >/dev/null
# A new namespace holds one ConfigMap already: kube-root-ca.crt (kcm's root-ca-cert-publisher).
out=$(k create quota gpu -n team-a --hard=requests.nvidia.com/gpu=1,pods=4,count/configmaps=2 2>&1) ||
  fail "kubectl create quota" "$out"
expect_in "$out" "resourcequota/gpu created"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get quota gpu -n team-a -o jsonpath='{.status.used}' | grep -q '\"count/configmaps\":\"1\"'" ||
  fail "the controller writes status.used" "$(k get quota gpu -n team-a -o yaml)"
out=$(k get quota -n team-a)
expect_match "$out" '^NAME +AGE +REQUEST +LIMIT'
expect_match "$out" '^gpu +[0-9]+s +count/configmaps: 1/2, pods: 0/4, requests.nvidia.com/gpu: 0/1 *$'
out=$(k describe quota gpu -n team-a)
expect_match "$out" '^Resource +Used +Hard$'
expect_match "$out" '^requests.nvidia.com/gpu +0 +1$'
pass "kubectl create quota; status filled by the controller; get and describe"

k apply -n team-a -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  replicas: 2
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec:
      containers:
      - name: cuda
        image: nvidia/cuda:12.2.0-base-ubuntu22.04
        resources: {limits: {nvidia.com/gpu: 1}}
YAML
wait_for 30 bash -c "kubectl --cache-dir '$WORK/kube-cache' get events -n team-a | grep -q 'exceeded quota: gpu'" ||
  fail "the ReplicaSet's FailedCreate event" "$(k get events -n team-a)"
out=$(k get events -n team-a)
expect_match "$out" 'FailedCreate +replicaset/infer-[a-z0-9]+ +Error creating: pods "infer-[a-z0-9]+-[a-z0-9]*" is forbidden: exceeded quota: gpu, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1'
got=$(k get pods -n team-a -l app=infer -o jsonpath='{range .items[*]}{.spec.containers[0].resources.limits.nvidia\.com/gpu}{"\n"}{end}' | grep -c 1)
[ "$got" = 1 ] || fail "one GPU pod fits the quota" "$(k get pods -n team-a -o wide)"
expect_match "$(k get quota gpu -n team-a)" 'requests.nvidia.com/gpu: 1/1'
out=$(k run extra -n team-a --image=x --overrides='{"spec":{"containers":[{"name":"extra","image":"x","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}' 2>&1) &&
  fail "a pod over the quota is refused" "$out"
expect_in "$out" 'Error from server (Forbidden): pods "extra" is forbidden: exceeded quota: gpu, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1'
pass "a Deployment gets the GPUs its quota allows; the rest are refused in kube's words"

k create quota compute -n team-a --hard=requests.cpu=4,limits.memory=8Gi >/dev/null
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get quota compute -n team-a -o jsonpath='{.status.used}' | grep -q cpu" ||
  fail "compute quota synced" "$(k get quota compute -n team-a -o yaml)"
out=$(k run bare -n team-a --image=x 2>&1) && fail "a pod without requests is refused" "$out"
expect_in "$out" 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: bare; requests.cpu for: bare'
k create configmap one -n team-a >/dev/null
out=$(k create configmap two -n team-a 2>&1) && fail "the configmap count is enforced" "$out"
expect_in "$out" 'configmaps "two" is forbidden: exceeded quota: gpu, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2'
out=$(k create quota bad -n team-a --hard=gpus=1,pods=-1 2>&1) && fail "invalid quota refused" "$out"
expect_in "$out" 'ResourceQuota "bad" is invalid: [spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified, spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota, spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0]'
pass "must specify; object counts; quota validation"

k delete quota compute -n team-a >/dev/null
gpu_pod=$(k get pods -n team-a -l app=infer -o name | head -1)
k delete -n team-a "$gpu_pod" --grace-period=0 --force >/dev/null 2>&1
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get pods -n team-a -l app=infer -o name | grep -v '${gpu_pod#pod/}' | grep -q pod/" ||
  fail "the freed GPU goes to the Deployment's next pod" "$(k get pods -n team-a; k get quota -n team-a; k get events -n team-a | tail -5)"
expect_match "$(k get quota gpu -n team-a)" 'requests.nvidia.com/gpu: 1/1'
pass "a pod that goes frees its share for the next one"

# LimitRanges: defaults for containers that state nothing, so a compute quota admits them;
# min/max per container enforced in kube's words.
k create namespace team-b >/dev/null
k apply -n team-b -f - >/dev/null <<'YAML'
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 250m, memory: 256Mi}
    max: {cpu: "2"}
YAML
expect_match "$(k get limits -n team-b)" '^NAME +CREATED AT'
expect_match "$(k describe limits defaults -n team-b)" '^Container +cpu +- +2 +250m +500m +-'
k create quota compute -n team-b --hard=requests.cpu=1,limits.memory=2Gi >/dev/null
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get quota compute -n team-b -o jsonpath='{.status.used}' | grep -q cpu" ||
  fail "compute quota synced" "$(k get quota compute -n team-b -o yaml)"
out=$(k run plain -n team-b --image=x 2>&1) || fail "a pod without requests gets the defaults" "$out"
got=$(k get pod plain -n team-b -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.memory} {.metadata.annotations.kubernetes\.io/limit-ranger}')
[ "$got" = "250m 512Mi LimitRanger plugin set: cpu, memory request for container plain; cpu, memory limit for container plain" ] ||
  fail "LimitRanger's defaults and annotation" "$got"
expect_match "$(k get quota compute -n team-b)" 'requests.cpu: 250m/1 +limits.memory: 512Mi/2Gi'
out=$(k run big -n team-b --image=x --overrides='{"spec":{"containers":[{"name":"big","image":"x","resources":{"limits":{"cpu":"3"}}}]}}' 2>&1) &&
  fail "a container over the max is refused" "$out"
expect_in "$out" 'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 3'
pass "LimitRange defaults (annotated) let a compute quota admit a bare pod; max enforced"
