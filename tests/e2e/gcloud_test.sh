#!/usr/bin/env bash
# End-to-end: the real gcloud (and kubectl) against `tidepool up`'s GKE API.
#   - the seed walkthrough's step-1 command verbatim (placeholders filled), list / describe;
#   - update --enable-autoscaling, clusters resize --node-pool (VMs in `compute instances list`,
#     nodes in kubectl), node-pools delete (nodes drained and removed);
#   - clusters list / describe, operations list, get-credentials -> kubectl over HTTPS;
#   - errors: already exists, not found, min > max, unknown machine type / accelerator,
#     GPU quota (QUOTA_EXCEEDED), stockout (ZONE_RESOURCE_POOL_EXHAUSTED).
# Usage: TIDEPOOL_BIN=path/to/tidepool bash tests/e2e/gcloud_test.sh
source "$(dirname "$0")/lib.sh"

cat >"$WORK/cluster.yaml" <<'EOF'
cluster: {project: tidepool-local, name: tidepool, zone: us-central1-a}
# gcloud's commands, not the autoscaler, are under test here: pools resized by hand keep their
# nodes however slowly gcloud runs on a loaded machine.
autoscaler:
  scale-down-enabled: false
cloud:
  faults:
    stockout: [{accelerator: nvidia-tesla-p4}]
    stockoutDelay: 60s
    gpuQuota: {NVIDIA_V100_GPUS: 0}
nodePools:
- name: default-pool
  machineType: e2-standard-4
  initialNodeCount: 3
EOF
start_up --speed 60 --config "$WORK/cluster.yaml" --gcloud-config "$CLOUDSDK_CONFIG"
expect_in "$(cat "$WORK/up.log")" "export CLOUDSDK_CONFIG=$CLOUDSDK_CONFIG"
expect_in "$(cat "$CLOUDSDK_CONFIG/configurations/config_default")" \
  "container = http://127.0.0.1:$PORT/"

# g <args>: gcloud with a timeout; stdout+stderr captured in $OUT, exit code in $RC.
g() {
  set +e
  OUT=$(timeout 60 gcloud "$@" 2>&1)
  RC=$?
  set -e
}
ok() { [ "$RC" -eq 0 ] || fail "gcloud $1: rc=$RC" "$OUT"; }
err() { [ "$RC" -ne 0 ] || fail "gcloud $1: expected a failure" "$OUT"; }
L=(--cluster tidepool --zone us-central1-a)

# --- The seed's step 1, verbatim ---
g container node-pools create gpu-pool \
  --project "tidepool-local" \
  --cluster "tidepool" \
  --zone "us-central1-a" \
  --machine-type "n1-standard-4" \
  --accelerator "type=nvidia-tesla-t4,count=1" \
  --enable-autoscaling \
  --min-nodes "0" \
  --max-nodes "5" \
  --node-taints "nvidia.com/gpu=present:NoSchedule" \
  --node-labels "app-type=gpu-workloads"
ok "node-pools create"
expect_in "$OUT" "Creating node pool gpu-pool..."
expect_match "$OUT" "gpu-pool +n1-standard-4 +100 +1.32.4-gke.1106006"
expect_in "$OUT" "Created [http://127.0.0.1:$PORT/v1/projects/tidepool-local/zones/us-central1-a/clusters/tidepool/nodePools/gpu-pool]."
pass "seed step 1: node-pools create gpu-pool"

g container node-pools list "${L[@]}"
ok "node-pools list"
expect_match "$OUT" "default-pool +e2-standard-4 +100"
expect_match "$OUT" "gpu-pool +n1-standard-4 +100"
pass "node-pools list"

g container node-pools describe gpu-pool "${L[@]}"
ok "node-pools describe"
for want in "enabled: true" "maxNodeCount: 5" "minNodeCount: 0" "acceleratorType: nvidia-tesla-t4" \
  "acceleratorCount: '1'" "app-type: gpu-workloads" "effect: NO_SCHEDULE" "key: nvidia.com/gpu" \
  "value: present" "initialNodeCount: 0" "status: RUNNING"; do
  expect_in "$OUT" "$want"
done
pass "node-pools describe: autoscaling 0..5, T4, label, NO_SCHEDULE taint, 0 nodes, RUNNING"

# The pool is the autoscaler's node group with Kubernetes' taint form; no node yet.
[ -z "$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name)" ] ||
  fail "gpu-pool should start with no node" "$(k get nodes)"

g container node-pools update gpu-pool "${L[@]}" --enable-autoscaling --min-nodes 0 --max-nodes 10
ok "node-pools update"
expect_in "$OUT" "Updating node pool gpu-pool..."
expect_in "$OUT" "Updated [http://127.0.0.1:$PORT/v1/projects/tidepool-local/zones/us-central1-a/clusters/tidepool/nodePools/gpu-pool]."
g container node-pools describe gpu-pool "${L[@]}" --format "value(autoscaling.maxNodeCount)"
[ "$OUT" = "10" ] || fail "max after update" "$OUT"
pass "node-pools update --enable-autoscaling --max-nodes 10"

g container clusters resize tidepool --node-pool gpu-pool --num-nodes 2 --zone us-central1-a --quiet
ok "clusters resize"
expect_in "$OUT" "Resizing tidepool..."
expect_in "$OUT" "Updated [http://127.0.0.1:$PORT/v1/projects/tidepool-local/zones/us-central1-a/clusters/tidepool]."
g compute instances list
ok "compute instances list"
[ "$(grep -cE '^gke-tidepool-gpu-pool-[0-9a-f]{8}-[a-z0-9]{4} +us-central1-a +n1-standard-4 .*RUNNING' <<<"$OUT")" = 2 ] ||
  fail "two gpu-pool VMs RUNNING" "$OUT"
expect_match "$OUT" "gke-tidepool-default-pool-.* +us-central1-a +e2-standard-4 +10\.128\.[0-9]+\.[0-9]+ +RUNNING"
wait_for 30 bash -c "[ \$(kubectl --cache-dir '$WORK/kube-cache' get nodes -l cloud.google.com/gke-nodepool=gpu-pool --no-headers | grep -c ' Ready ') = 2 ]"
taints=$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o jsonpath='{.items[0].spec.taints}')
expect_in "$taints" '"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"'
labels=$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o jsonpath='{.items[0].metadata.labels}')
expect_in "$labels" '"app-type":"gpu-workloads"'
expect_in "$labels" '"cloud.google.com/gke-accelerator":"nvidia-tesla-t4"'
pass "clusters resize --node-pool gpu-pool --num-nodes 2: 2 VMs, 2 Ready nodes tainted NoSchedule"

g container node-pools update gpu-pool --cluster tidepool --zone us-central1-a --node-labels team=ml --quiet
ok "node-pools update --node-labels"
expect_in "$OUT" "Updating node pool gpu-pool..."
g container node-pools update gpu-pool --cluster tidepool --zone us-central1-a --node-taints dedicated=ml:NoSchedule --quiet
ok "node-pools update --node-taints"
wait_for 10 bash -c "[ \$(kubectl --cache-dir '$WORK/kube-cache' get nodes -l team=ml --no-headers | wc -l) = 2 ]"
taints=$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o jsonpath='{.items[0].spec.taints}')
expect_in "$taints" '"effect":"NoSchedule","key":"dedicated","value":"ml"'
expect_not_in "$taints" '"key":"nvidia.com/gpu"'
g container node-pools describe gpu-pool --cluster tidepool --zone us-central1-a --format "yaml(config.labels,config.taints)"
ok "node-pools describe"
expect_in "$OUT" "team: ml"
expect_in "$OUT" "key: dedicated"
pass "node-pools update --node-labels / --node-taints: the pool's nodes relabelled and retainted"

g container clusters list
ok "clusters list"
expect_match "$OUT" "tidepool +us-central1-a +1.32.4-gke.1106006 +127.0.0.1:[0-9]+ +e2-standard-4 +1.32.4-gke.1106006 +[0-9]+ +RUNNING"
g container clusters describe tidepool --zone us-central1-a
ok "clusters describe"
expect_in "$OUT" "clusterCaCertificate:"
g container operations list
ok "operations list"
expect_match "$OUT" "CREATE_NODE_POOL +us-central1-a +gpu-pool +DONE"
expect_match "$OUT" "SET_NODE_POOL_SIZE +us-central1-a +gpu-pool +DONE"
pass "clusters list / describe, operations list"

# get-credentials: gcloud writes server: https://<endpoint> and the gke-gcloud-auth-plugin user;
# the real kubectl uses it (TLS to tidepool's CA, the access token through the plugin).
g container clusters get-credentials tidepool --zone us-central1-a
ok "get-credentials"
expect_in "$OUT" "kubeconfig entry generated for tidepool."
expect_in "$(kubectl config view)" "server: https://127.0.0.1:"
expect_in "$(kubectl config current-context)" "gke_tidepool-local_us-central1-a_tidepool"
nodes=$(k get nodes)
expect_match "$nodes" "gke-tidepool-default-pool-.* +Ready"
k config use-context tidepool >/dev/null
pass "clusters get-credentials -> kubectl get nodes over HTTPS"

# --- Errors ---
g container node-pools create gpu-pool "${L[@]}" --machine-type n1-standard-4
err "create again"
expect_in "$OUT" "ResponseError: code=409, message=Already exists: projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools/gpu-pool."
g container node-pools describe nope "${L[@]}"
err "describe nope"
expect_in "$OUT" "ResponseError: code=404, message=Not found: projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools/nope."
g container node-pools update gpu-pool "${L[@]}" --enable-autoscaling --min-nodes 5 --max-nodes 1
err "update min > max"
expect_in "$OUT" "code=400, message=Autoscaling min_node_count (5) must be less than or equal to max_node_count (1)."
g container node-pools create bad "${L[@]}" --machine-type n9-huge-1
err "unknown machine type"
expect_in "$OUT" "code=400, message=Invalid value for field 'resource.machineType': 'zones/us-central1-a/machineTypes/n9-huge-1'."
g container node-pools create bad "${L[@]}" --machine-type n1-standard-4 --accelerator type=nvidia-tesla-z9,count=1
err "unknown accelerator"
expect_in "$OUT" 'code=400, message=Accelerator type "nvidia-tesla-z9" does not exist in zone us-central1-a.'
g container node-pools create v100 "${L[@]}" --machine-type n1-standard-8 --accelerator type=nvidia-tesla-v100,count=1 --num-nodes 1
err "quota"
expect_in "$OUT" "finished with error: Insufficient quota to satisfy the request: Quota 'NVIDIA_V100_GPUS' exceeded.  Limit: 0.0 in region us-central1."
g container node-pools create p4 "${L[@]}" --machine-type n1-standard-4 --accelerator type=nvidia-tesla-p4,count=1 --num-nodes 1
err "stockout"
expect_in "$OUT" "Current errors: [ZONE_RESOURCE_POOL_EXHAUSTED]: Instance 'gke-tidepool-p4-"
expect_in "$OUT" "does not have enough resources available to fulfill the request."
g container node-pools describe p4 "${L[@]}" --format "value(status)"
[ "$OUT" = "ERROR" ] || fail "p4 status" "$OUT"
g container clusters resize tidepool --node-pool nope --num-nodes 1 --zone us-central1-a --quiet
err "resize nope"
expect_in "$OUT" "No node pool named 'nope' in tidepool."
pass "errors: 409, 404, min > max, unknown machine / accelerator, QUOTA_EXCEEDED, ZONE_RESOURCE_POOL_EXHAUSTED"

# --- GKE GPU time-sharing: the pool's GPUSharingConfig, each GPU two nvidia.com/gpu ---
g container node-pools create t4-shared "${L[@]}" --machine-type n1-standard-4 --num-nodes 1 \
  --accelerator type=nvidia-tesla-t4,count=1,gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=2
ok "node-pools create t4-shared (time-sharing)"
g container node-pools describe t4-shared "${L[@]}" \
  --format "value(config.accelerators[0].gpuSharingConfig.gpuSharingStrategy,config.accelerators[0].gpuSharingConfig.maxSharedClientsPerGpu)"
ok "describe t4-shared"
expect_match "$OUT" "^TIME_SHARING[[:space:]]+2$"
shared_gpus() {
  k get nodes -l cloud.google.com/gke-gpu-sharing-strategy=time-sharing,cloud.google.com/gke-max-shared-clients-per-gpu=2 \
    -o jsonpath='{.items[*].status.allocatable.nvidia\.com/gpu}'
}
two_shared_gpus() { [ "$(shared_gpus)" = "2" ]; }
wait_for 120 two_shared_gpus || fail "a time-sharing node with 2 nvidia.com/gpu" "$(k get nodes --show-labels)"
g container node-pools create bad "${L[@]}" --machine-type n1-standard-4 \
  --accelerator type=nvidia-tesla-t4,count=1,gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=49
err "max-shared-clients-per-gpu 49"
expect_in "$OUT" "max_shared_clients_per_gpu\": 49: must be between 2 and 48."
g container node-pools delete t4-shared "${L[@]}" --quiet
ok "node-pools delete t4-shared"
pass "GPU time-sharing: gpuSharingConfig round-trips, the node has the sharing labels and 2 nvidia.com/gpu per T4"

# --- Delete: STOPPING while the nodes drain, then gone ---
g container node-pools delete gpu-pool "${L[@]}" --quiet
ok "node-pools delete"
expect_in "$OUT" "Deleting node pool gpu-pool..."
expect_in "$OUT" "Deleted [http://127.0.0.1:$PORT/v1/projects/tidepool-local/zones/us-central1-a/clusters/tidepool/nodePools/gpu-pool]."
[ -z "$(k get nodes -l cloud.google.com/gke-nodepool=gpu-pool -o name)" ] ||
  fail "gpu-pool nodes should be gone" "$(k get nodes)"
g container node-pools list "${L[@]}"
expect_not_in "$OUT" "gpu-pool"
g compute instances list
expect_not_in "$OUT" "gpu-pool"
pass "node-pools delete: nodes removed, pool gone"
