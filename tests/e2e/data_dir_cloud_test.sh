#!/usr/bin/env bash
# `tidepool up --data-dir` keeps the emulated cloud too (issue 14, item 5), checked with the real
# gcloud and kubectl: kill -9 while a scale-up's VM is still being created, restart (another
# seed, so nothing can come back by chance): the same pools, the same VMs and nodes, no
# duplicate VM, and the pending pod gets exactly one node.
source "$(dirname "$0")/lib.sh"
DATA="$WORK/data"
# A VM takes 12 minutes to boot (12 s at --speed 60): the kill lands while it is PROVISIONING.
# It must stay under CA's max-node-provision-time (15 min): the restarted autoscaler counts the
# VM as unregistered from its own start, as CA does, and deletes one still unregistered 15 min
# later (a 20-minute boot made the test depend on how fast the restart was).
cat >"$WORK/cluster.yaml" <<'YAML'
cluster: {project: tidepool-local, name: tidepool, zone: us-central1-a}
cloud:
  delays: {provisioning: 12m}
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 2}
YAML
UP=(--data-dir "$DATA" --speed 60 --config "$WORK/cluster.yaml" --gcloud-config "$CLOUDSDK_CONFIG")
start_up "${UP[@]}" --seed 5
create_gpu_pool 5
gpu_pod gpu-a | k apply -f - >/dev/null
# The autoscaler asks for one GPU node; its VM is PROVISIONING.
vms() { gcloud compute instances list --format='value(name,status)' 2>/dev/null | sort; }
wait_for 60 bash -c "gcloud compute instances list --format='value(name,status)' 2>/dev/null | grep -q 'gpu-pool.*PROVISIONING'"
# What kubectl sees first: each gcloud call takes seconds on a loaded machine (two e2e tests at
# once), and the VM boots 12 s after it was asked for.
nodes_before=$(k get nodes -o name | sort)
expect_in "$(k get pod gpu-a)" "Pending"
pools_before=$(gcloud container node-pools list --cluster tidepool --zone us-central1-a 2>&1)
vms_before=$(vms)
gpu_vm=$(grep gpu-pool <<<"$vms_before" | awk '{print $1}')
[ "$(grep -c gpu-pool <<<"$vms_before")" = 1 ] || fail "one GPU VM before the kill" "$vms_before"
[ "$(grep -c default-pool <<<"$vms_before")" = 2 ] || fail "two default-pool VMs" "$vms_before"

echo "before kill -9:"; sed 's/^/  /' <<<"$vms_before"
kill -9 "$UP_PID"
wait "$UP_PID" 2>/dev/null || true
start_up "${UP[@]}" --seed 6
expect_in "$(cat "$WORK/up.log")" "storage in $DATA"

# The same pools (as gcloud lists them), the same VMs (the GPU one maybe booted by now), the
# same nodes.
# The same nodes (the GPU VM may have registered since: only as the node of that same VM).
nodes_after=$(k get nodes -o name | sort)
[ "$(grep -v "node/$gpu_vm\$" <<<"$nodes_after")" = "$nodes_before" ] ||
  fail "the same nodes" "$nodes_before" "$nodes_after"
echo "after the restart:"; vms | sed 's/^/  /'
pools_after=$(gcloud container node-pools list --cluster tidepool --zone us-central1-a 2>&1)
[ "$pools_before" = "$pools_after" ] || fail "node pools after the restart" "$pools_before" "$pools_after"
[ "$(vms | awk '{print $1}')" = "$(awk '{print $1}' <<<"$vms_before")" ] ||
  fail "the same VMs after the restart" "$vms_before" "$(vms)"
expect_match "$(gcloud container operations list 2>&1)" "CREATE_NODE_POOL +us-central1-a +gpu-pool +DONE"
pass "restart: the same pools, VMs, nodes and operations"

# The VM in flight boots, registers, and the pod runs on it: one node, no second VM.
wait_for 120 bash -c "kubectl --cache-dir $WORK/kube-cache get pod gpu-a -o jsonpath='{.status.phase}' | grep -q Running"
node=$(k get pod gpu-a -o jsonpath='{.spec.nodeName}')
[ "$node" = "$gpu_vm" ] || fail "gpu-a runs on the VM asked for before the kill ($gpu_vm)" "$node"
sleep 3  # a few more autoscaler loops
[ "$(gpu_nodes)" = 1 ] || fail "exactly one GPU node" "$(k get nodes)"
gpu_vms=$(vms | grep gpu-pool)
[ "$(grep -c . <<<"$gpu_vms")" = 1 ] || fail "exactly one GPU VM" "$gpu_vms"
ca_pod=$(k get pods -n kube-system -o name | grep cluster-autoscaler- | cut -d/ -f2)
expect_not_in "$(k logs -n kube-system "$ca_pod")" "Scale-up: setting group gpu-pool" \
  "no scale-up after the restart"
pass "kill -9 during a scale-up, restart: the pending pod got exactly one node ($node)"
echo "ok: data-dir cloud e2e"
