#!/usr/bin/env bash
# Issue 17: HorizontalPodAutoscalers in autoscaling/v2 (stored, preferred) and autoscaling/v1,
# with the real kubectl:
#   1. `kubectl autoscale` (which writes autoscaling/v1) makes an HPA that `kubectl get hpa` lists
#      with kubectl's columns and reads in v2 (the preferred version) with the CPU target as a
#      Resource metric; `kubectl get all` lists HPAs;
#   2. a v2 HPA with a GPU-utilization-style External metric and a behavior reads in v1 with
#      kube's round-trip annotations, and a v1 edit keeps them;
#   3. validation in kube's words; --dry-run=server writes nothing.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 17

k create deployment web --image=nginx --replicas=1 >/dev/null
out=$(k autoscale deployment web --max=5 --cpu-percent=60 2>&1) || fail "kubectl autoscale" "$out"
expect_in "$out" "horizontalpodautoscaler.autoscaling/web autoscaled"
out=$(k get hpa)
expect_match "$out" '^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE'
expect_match "$out" '^web +Deployment/web +cpu: <unknown>/60% +1 +5 +0 +'
got=$(k get hpa web -o jsonpath='{.apiVersion} {.spec.metrics[0].resource.name} {.spec.metrics[0].resource.target.averageUtilization} {.spec.minReplicas}')
[ "$got" = "autoscaling/v2 cpu 60 1" ] || fail "read in v2: the CPU target as a Resource metric" "$got"
got=$(k get horizontalpodautoscalers.v1.autoscaling web -o jsonpath='{.apiVersion} {.spec.targetCPUUtilizationPercentage}')
[ "$got" = "autoscaling/v1 60" ] || fail "read in v1: targetCPUUtilizationPercentage" "$got"
expect_in "$(k get all -v=6 2>&1)" "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
pass "kubectl autoscale (v1) read in v2 and v1; kubectl get hpa / get all"

cat <<'YAML' | k apply -f - >/dev/null
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: infer}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 8
  metrics:
  - type: External
    external:
      metric: {name: dcgm_gpu_utilization}
      target: {type: AverageValue, averageValue: "70"}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 120}
YAML
ann=$(k get horizontalpodautoscalers.v1.autoscaling infer -o jsonpath='{.metadata.annotations.autoscaling\.alpha\.kubernetes\.io/metrics}')
[ "$ann" = '[{"type":"External","external":{"metricName":"dcgm_gpu_utilization","targetAverageValue":"70"}}]' ] ||
  fail "v1 carries the External metric in kube's annotation" "$ann"
expect_match "$(k get hpa infer)" '^infer +Deployment/web +<unknown>/70 \(avg\) +1 +8 +0 +'
behavior=$(k get hpa infer -o jsonpath='{.spec.behavior.scaleDown.stabilizationWindowSeconds} {.spec.behavior.scaleUp.selectPolicy}')
[ "$behavior" = "120 Max" ] || fail "behavior kept, its missing rules defaulted" "$behavior"
k get horizontalpodautoscalers.v1.autoscaling infer -o json | sed 's/"maxReplicas": 8/"maxReplicas": 6/' | k replace -f - >/dev/null
got=$(k get hpa infer -o jsonpath='{.spec.maxReplicas} {.spec.metrics[0].external.metric.name} {.spec.behavior.scaleDown.stabilizationWindowSeconds}')
[ "$got" = "6 dcgm_gpu_utilization 120" ] || fail "a v1 replace keeps the v2 metric and behavior" "$got"
# The round-trip annotations are read back, not stored (kubectl replace does keep its
# last-applied-configuration annotation, which holds the v1 object it sent).
stored=$(k get hpa infer -o jsonpath='{.metadata.annotations.autoscaling\.alpha\.kubernetes\.io/metrics}{.metadata.annotations.autoscaling\.alpha\.kubernetes\.io/behavior}')
[ -z "$stored" ] || fail "no round-trip annotations stored in v2" "$stored"
pass "v2 metrics and behavior round-trip through v1"

out=$(printf 'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: bad}\nspec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  minReplicas: 5\n  maxReplicas: 3\n' |
  k apply -f - 2>&1) && fail "min above max refused" "$out"
expect_in "$out" 'The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`'
out=$(k autoscale deployment web --name=dry --max=3 --dry-run=server 2>&1) || fail "a server dry run" "$out"
k get hpa dry >/dev/null 2>&1 && fail "a server dry run writes nothing" "$(k get hpa)"
pass "validation in kube's words; --dry-run=server writes nothing"
