#!/usr/bin/env bash
# kube-controller-manager's taint-eviction-controller in `tidepool up`, seen with the real
# kubectl: `kubectl taint nodes N key=value:NoExecute` deletes the pods on N that do not
# tolerate it at once (with the DisruptionTarget condition and a TaintManagerEviction event),
# those that tolerate it for tolerationSeconds once that has passed (object time: real
# seconds whatever --speed), and none that tolerate it for ever; removing the taint cancels
# the deletions still scheduled.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --seed 5

node=$(k get nodes -o name | grep default-pool | awk 'NR==1' | cut -d/ -f2)
[ -n "$node" ] || fail "a default-pool node" "$(k get nodes)"
# victim keeps a finalizer, so that it stays (Terminating) to be looked at once deleted.
pod() {  # pod NAME [TOLERATION-SECONDS|forever] [finalizer]
  local tol=""
  case "${2:-}" in
    "") ;;
    forever) tol='"tolerations": [{"key": "key1", "operator": "Exists", "effect": "NoExecute"}],' ;;
    *) tol='"tolerations": [{"key": "key1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": '"$2"'}],' ;;
  esac
  local fin=""
  [ -n "${3:-}" ] && fin='"finalizers": ["example.com/keep"],'
  k create -f - <<JSON
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", $fin "labels": {"app": "te"}},
 "spec": {$tol "nodeSelector": {"kubernetes.io/hostname": "$node"},
          "containers": [{"name": "c", "image": "nginx"}]}}
JSON
}
expect_in "$(pod victim "" keep)" "pod/victim created"
expect_in "$(pod tolerant forever)" "pod/tolerant created"
expect_in "$(pod patient 20)" "pod/patient created"
expect_in "$(pod cancelled 120)" "pod/cancelled created"
wait_for 60 bash -c "[ \"\$(kubectl --cache-dir '$WORK/kube-cache' get pods -l app=te --field-selector status.phase=Running -o name | grep -c .)\" = 4 ]"
pass "four pods running on $node"

# The API server gave every pod the not-ready and unreachable tolerations of 300 s.
out=$(k get pod victim -o jsonpath='{range .spec.tolerations[*]}{.key}:{.effect}:{.tolerationSeconds}{"\n"}{end}')
expect_in "$out" "node.kubernetes.io/not-ready:NoExecute:300"
expect_in "$out" "node.kubernetes.io/unreachable:NoExecute:300"
pass "DefaultTolerationSeconds"

expect_in "$(k taint nodes "$node" key1=value1:NoExecute)" "node/$node tainted"
tainted=$SECONDS
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get pod victim -o jsonpath='{.metadata.deletionTimestamp}' | grep -q ."
out=$(k get pod victim -o jsonpath='{range .status.conditions[?(@.type=="DisruptionTarget")]}{.status} {.reason} {.message}{end}')
expect_in "$out" "True DeletionByTaintManager Taint manager: deleting due to NoExecute taint"
out=$(k get events --field-selector involvedObject.name=victim)
expect_match "$out" 'Normal +TaintManagerEviction +pod/victim +Marking for deletion Pod default/victim'
pass "a pod that does not tolerate the taint: deleted at once, with kcm's condition and event"

# patient: still there before its 20 s are up, gone (its kubelet ends it) after.
sleep $((tainted + 12 - SECONDS > 0 ? tainted + 12 - SECONDS : 0))
out=$(k get pod patient -o jsonpath='{.metadata.deletionTimestamp}')
[ -z "$out" ] || fail "patient kept for its tolerationSeconds" "deleted at $out"
wait_for 40 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get pod patient >/dev/null 2>&1"
[ $((SECONDS - tainted)) -ge 19 ] || fail "patient deleted after 20 s" "$((SECONDS - tainted)) s"
expect_in "$(k get events --field-selector involvedObject.name=patient)" "Marking for deletion Pod default/patient"
pass "tolerationSeconds 20: deleted once they passed"

# The taint goes: cancelled's deletion (due 120 s after the taint) is cancelled.
expect_in "$(k taint nodes "$node" key1=value1:NoExecute-)" "node/$node untainted"
wait_for 20 bash -c "kubectl --cache-dir '$WORK/kube-cache' get events --field-selector involvedObject.name=cancelled | grep -q 'Cancelling deletion of Pod default/cancelled'"
out=$(k get pods -l app=te)
expect_match "$out" 'cancelled +1/1 +Running'
expect_match "$out" 'tolerant +1/1 +Running'
[ -z "$(k get pod tolerant -o jsonpath='{.metadata.deletionTimestamp}')" ] || fail "tolerant kept" "$out"
pass "a removed taint cancels the scheduled deletion; a toleration for ever keeps its pod"

expect_in "$(k patch pod victim --type=merge -p '{"metadata":{"finalizers":null}}')" "pod/victim patched"
wait_for 30 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get pod victim >/dev/null 2>&1"
pass "victim gone once its finalizer is"
