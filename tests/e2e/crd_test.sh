#!/usr/bin/env bash
# Issue 17: CustomResourceDefinitions with the real kubectl. The Cluster Autoscaler's
# ProvisioningRequest CRD (autoscaling.x-k8s.io, written from its published schema in
# kubernetes/autoscaler cluster-autoscaler/apis/config/crd/
# autoscaling.x-k8s.io_provisioningrequests.yaml, release 1.32; descriptions left out, its
# x-kubernetes-validations kept: accepted, not evaluated) and a CronTab CRD with printer columns:
#   1. the definition applies, is Established, and `kubectl get crd` / `api-resources` list it
#      with its short names; its resources are created, listed (printer columns), read in both
#      versions, patched (merge, JSON, server-side apply, status subresource), watched;
#   2. an invalid custom resource is refused with kube-apiserver's message; an unknown field is
#      refused by kubectl's strict validation and pruned without it; defaults are applied;
#   3. `kubectl explain` reads the schema; a strategic merge patch is refused as kube refuses it;
#   4. deleting a namespace deletes its custom resources; deleting the definition deletes the
#      rest and stops serving them.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 23

cat > "$WORK/provreq-crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: provisioningrequests.autoscaling.x-k8s.io
  annotations:
    controller-gen.kubebuilder.io/version: v0.16.2
spec:
  group: autoscaling.x-k8s.io
  names:
    kind: ProvisioningRequest
    listKind: ProvisioningRequestList
    plural: provisioningrequests
    shortNames: [provreq, provreqs]
    singular: provisioningrequest
  scope: Namespaced
  versions:
  - &version
    name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {jsonPath: .metadata.creationTimestamp, name: Age, type: date}
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        description: ProvisioningRequest is a way to express additional capacity that we would like to provision in the cluster.
        type: object
        required: [spec]
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            description: Spec contains specification of the ProvisioningRequest object.
            type: object
            required: [podSets, provisioningClassName]
            properties:
              parameters:
                type: object
                maxProperties: 100
                additionalProperties: {type: string, maxLength: 255}
                x-kubernetes-validations:
                - {message: Value is immutable, rule: self == oldSelf}
              podSets:
                description: PodSets lists groups of pods for which we would like to provision resources.
                type: array
                minItems: 1
                maxItems: 32
                x-kubernetes-validations:
                - {message: Value is immutable, rule: self == oldSelf}
                items:
                  type: object
                  required: [count, podTemplateRef]
                  properties:
                    count:
                      description: Count contains the number of pods that will be created with a given template.
                      type: integer
                      format: int32
                      minimum: 1
                    podTemplateRef:
                      type: object
                      required: [name]
                      properties:
                        name:
                          type: string
                          maxLength: 253
                          pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
              provisioningClassName:
                description: ProvisioningClassName describes the different modes of provisioning the resources.
                type: string
                maxLength: 253
                pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
                x-kubernetes-validations:
                - {message: Value is immutable, rule: self == oldSelf}
          status:
            type: object
            properties:
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [lastTransitionTime, message, reason, status, type]
                  properties:
                    lastTransitionTime: {type: string, format: date-time}
                    message: {type: string, maxLength: 32768}
                    observedGeneration: {type: integer, format: int64, minimum: 0}
                    reason: {type: string, maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'}
                    status: {type: string, enum: ["True", "False", Unknown]}
                    type: {type: string, maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'}
              provisioningClassDetails:
                type: object
                maxProperties: 64
                additionalProperties: {type: string, maxLength: 32768}
  - <<: *version
    name: v1beta1
    storage: false
YAML
out=$(k apply -f "$WORK/provreq-crd.yaml" 2>&1) || fail "apply the ProvisioningRequest CRD" "$out"
expect_in "$out" "customresourcedefinition.apiextensions.k8s.io/provisioningrequests.autoscaling.x-k8s.io created"
out=$(k wait --for condition=established --timeout=20s crd/provisioningrequests.autoscaling.x-k8s.io 2>&1) ||
  fail "the CRD becomes Established" "$out"
expect_match "$(k get crd)" '^NAME +CREATED AT'
expect_match "$(k get crd)" '^provisioningrequests\.autoscaling\.x-k8s\.io +20[0-9-]+T'
expect_match "$(k api-resources --api-group=autoscaling.x-k8s.io)" '^provisioningrequests +provreq,provreqs +autoscaling\.x-k8s\.io/v1 +true +ProvisioningRequest'
got=$(k get crd provisioningrequests.autoscaling.x-k8s.io -o jsonpath='{.status.acceptedNames.kind} {.status.storedVersions} {.spec.conversion.strategy} {.status.conditions[?(@.type=="NamesAccepted")].reason}')
[ "$got" = 'ProvisioningRequest ["v1"] None NoConflicts' ] ||
  fail "the CRD's status and defaults" "$got"
pass "the ProvisioningRequest CRD applies, is Established and discovered"

k create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: PodTemplate
metadata: {name: gpu-burst}
template:
  spec:
    containers:
    - name: train
      image: nvidia/cuda:12.2.0-base-ubuntu22.04
      resources: {limits: {nvidia.com/gpu: 1}}
YAML
out=$(k apply -f - 2>&1 <<'YAML'
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: burst}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  podSets:
  - count: 4
    podTemplateRef: {name: gpu-burst}
YAML
) || fail "create a ProvisioningRequest" "$out"
expect_in "$out" "provisioningrequest.autoscaling.x-k8s.io/burst created"
expect_match "$(k get provreq)" '^NAME +AGE'
expect_match "$(k get provreq)" '^burst +[0-9]+s'
got=$(k get provisioningrequests.v1beta1.autoscaling.x-k8s.io burst -o jsonpath='{.apiVersion} {.spec.podSets[0].count} {.metadata.generation}')
[ "$got" = "autoscaling.x-k8s.io/v1beta1 4 1" ] || fail "read in v1beta1" "$got"
expect_not_in "$(k get all 2>&1)" "provisioningrequest"
pass "a ProvisioningRequest is created, listed with its columns and read in both versions"

out=$(k apply -f - 2>&1 <<'YAML'
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: bad}
spec:
  provisioningClassName: Check_Capacity
  podSets:
  - count: 0
    podTemplateRef: {name: gpu-burst}
YAML
) && fail "an invalid ProvisioningRequest is refused" "$out"
expect_in "$out" 'The ProvisioningRequest "bad" is invalid: '
expect_in "$out" '* spec.podSets[0].count: Invalid value: 0: spec.podSets[0].count in body should be greater than or equal to 1'
expect_in "$out" "* spec.provisioningClassName: Invalid value: \"Check_Capacity\": spec.provisioningClassName in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\$'"
out=$(printf 'apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: typo}\nspec:\n  provisioningClassName: x\n  podSets: [{count: 1, podTemplateRef: {name: gpu-burst}}]\n  priority: 5\n' |
  k apply -f - 2>&1) && fail "kubectl's strict validation refuses an unknown field" "$out"
expect_in "$out" 'ProvisioningRequest in version "v1" cannot be handled as a ProvisioningRequest: strict decoding error: unknown field "spec.priority"'
out=$(printf 'apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: typo}\nspec:\n  provisioningClassName: x\n  podSets: [{count: 1, podTemplateRef: {name: gpu-burst}}]\n  priority: 5\n' |
  k apply --validate=false -f - 2>&1) || fail "without validation the unknown field is pruned" "$out"
[ -z "$(k get provreq typo -o jsonpath='{.spec.priority}')" ] || fail "spec.priority pruned" "$(k get provreq typo -o yaml)"
pass "invalid resources refused in kube's words; unknown fields refused (strict) or pruned"

out=$(k patch provreq burst --type=merge -p '{"spec":{"parameters":{"maxRunDurationSeconds":"3600"}}}' 2>&1) ||
  fail "merge patch" "$out"
out=$(k patch provreq burst --type=json -p '[{"op":"replace","path":"/spec/podSets/0/count","value":6}]' 2>&1) ||
  fail "JSON patch" "$out"
got=$(k get provreq burst -o jsonpath='{.spec.parameters.maxRunDurationSeconds} {.spec.podSets[0].count} {.metadata.generation}')
[ "$got" = "3600 6 3" ] || fail "patches applied, generation counted" "$got"
out=$(k patch provreq burst -p '{"spec":{"parameters":{"a":"b"}}}' 2>&1) && fail "strategic merge refused" "$out"
expect_in "$out" 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
out=$(k patch provreq burst --subresource=status --type=merge -p "{\"status\":{\"conditions\":[{\"type\":\"Provisioned\",\"status\":\"True\",\"reason\":\"CapacityIsProvisioned\",\"message\":\"ok\",\"lastTransitionTime\":\"$now\"}]}}" 2>&1) ||
  fail "status subresource patch" "$out"
got=$(k get provreq burst -o jsonpath='{.status.conditions[0].type}={.status.conditions[0].status} {.metadata.generation}')
[ "$got" = "Provisioned=True 3" ] || fail "status written, generation kept" "$got"
out=$(k patch provreq burst --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"Failed","status":"Maybe","reason":"x","message":"m","lastTransitionTime":"'"$now"'"}]}}' 2>&1) &&
  fail "an invalid status is refused" "$out"
expect_in "$out" 'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"'
out=$(k apply --server-side --field-manager=planner -f - 2>&1 <<'YAML'
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: ssa, labels: {team: ml}}
spec:
  provisioningClassName: best-effort-atomic-scale-up.autoscaling.x-k8s.io
  podSets: [{count: 2, podTemplateRef: {name: gpu-burst}}]
YAML
) || fail "server-side apply" "$out"
expect_in "$out" "provisioningrequest.autoscaling.x-k8s.io/ssa serverside-applied"
expect_in "$(k get provreq ssa -o jsonpath='{.metadata.managedFields[0].manager}')" "planner"
k get provreq --watch-only -o name > "$WORK/watch.out" 2>&1 &
watcher=$!
sleep 2
k label provreq ssa stage=two >/dev/null
wait_for 10 grep -q provisioningrequest.autoscaling.x-k8s.io/ssa "$WORK/watch.out" || fail "watch sees the label" "$(cat "$WORK/watch.out")"
kill "$watcher" 2>/dev/null || true
pass "merge, JSON, status and server-side apply patches; strategic merge refused; watch"

out=$(k explain provisioningrequest.spec 2>&1) || fail "kubectl explain" "$out"
expect_in "$out" "KIND:       ProvisioningRequest"
expect_in "$out" "Spec contains specification of the ProvisioningRequest object."
expect_match "$out" 'podSets.*<\[\]Object> -required-'
out=$(k explain provisioningrequest.spec.podSets 2>&1) || fail "kubectl explain an array's items" "$out"
expect_match "$out" 'count.*<integer> -required-'
expect_in "$out" "Count contains the number of pods that will be created with a given"
pass "kubectl explain reads the CRD's schema"

cat <<'YAML' | k apply -f - >/dev/null || fail "apply the CronTab CRD"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Image, type: string, jsonPath: .spec.image, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
YAML
k wait --for condition=established --timeout=20s crd/crontabs.stable.example.com >/dev/null
k create namespace cron-team >/dev/null
printf 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: nightly, namespace: cron-team}\nspec: {cronSpec: "0 3 * * *", image: trainer:v2}\n' | k apply -f - >/dev/null ||
  fail "create a CronTab"
out=$(k get ct -n cron-team)
expect_match "$out" '^NAME +SPEC +REPLICAS +AGE'
expect_match "$out" '^nightly +0 3 \* \* \* +1 +[0-9]+s'
expect_match "$(k get ct -n cron-team -o wide)" '^nightly +0 3 \* \* \* +1 +trainer:v2 +[0-9]+s'
out=$(k scale ct nightly -n cron-team --replicas=3 2>&1) || fail "kubectl scale a custom resource" "$out"
expect_in "$out" "crontab.stable.example.com/nightly scaled"
[ "$(k get ct nightly -n cron-team -o jsonpath='{.spec.replicas}')" = 3 ] || fail "scaled through /scale" "$(k get ct nightly -n cron-team -o yaml)"
k delete namespace cron-team >/dev/null
k get ct -n cron-team nightly >/dev/null 2>&1 && fail "the namespace's CronTabs are deleted" "$(k get ct -A)"
pass "printer columns (with -o wide), defaults, kubectl scale; a namespace's custom resources go with it"

out=$(k delete crd provisioningrequests.autoscaling.x-k8s.io 2>&1) || fail "delete the CRD" "$out"
out=$(k get provisioningrequests.autoscaling.x-k8s.io 2>&1) && fail "no longer served" "$out"
expect_in "$out" "the server doesn't have a resource type"
k apply -f "$WORK/provreq-crd.yaml" >/dev/null
k wait --for condition=established --timeout=20s crd/provisioningrequests.autoscaling.x-k8s.io >/dev/null
out=$(k get provreq 2>&1)
expect_in "$out" "No resources found in default namespace."
pass "deleting the CRD deletes its resources and stops serving them"

# A deprecated version: kubectl prints apiextensions' warning on every request to it.
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: deprecateds.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: deprecateds, kind: DeprecatedKind}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1beta1, served: true, storage: false, deprecated: true, schema: {openAPIV3Schema: {type: object}}}
YAML
k wait --for condition=established --timeout=20s crd/deprecateds.example.com >/dev/null
out=$(k get deprecateds.v1beta1.example.com 2>&1)
expect_in "$out" "Warning: example.com/v1beta1 DeprecatedKind is deprecated"
out=$(k get deprecateds.v1.example.com 2>&1)
expect_not_in "$out" "is deprecated"
pass "a deprecated custom resource version warns"

# An IntOrString field as controller-gen writes it (x-kubernetes-int-or-string with anyOf
# integer/string: structural, as apiextensions-apiserver allows); values of either type pass,
# any other is refused with kube's text.
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: probes.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: probes, kind: Probe}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              port:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
YAML
k wait --for condition=established --timeout=20s crd/probes.example.com >/dev/null
for port in 80 '"http"'; do
  out=$(k create -f - 2>&1 <<JSON
{"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"generateName": "p-"}, "spec": {"port": $port}}
JSON
) || fail "a Probe with port $port" "$out"
done
out=$(k create -f - 2>&1 <<'JSON'
{"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "bad"}, "spec": {"port": true}}
JSON
) && fail "a boolean port is refused" "$out"
expect_in "$out" 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'
pass "an int-or-string field (anyOf integer/string) is structural and validates"

# The garbage collector watches a resource defined after it started: a custom resource deleted
# with --cascade=orphan goes (its orphan finalizer is carried out; kubectl waits for that) and
# leaves its dependent, one deleted in the background takes its dependent with it.
for cascade in orphan background; do
  k create -f - >/dev/null <<JSON
{"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "owner-$cascade"}, "spec": {"port": 1}}
JSON
  uid=$(k get probe "owner-$cascade" -o jsonpath='{.metadata.uid}')
  k create -f - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dep-$cascade", "ownerReferences":
 [{"apiVersion": "example.com/v1", "kind": "Probe", "name": "owner-$cascade", "uid": "$uid"}]}}
JSON
  sleep 1
  out=$(timeout 30 kubectl --cache-dir "$WORK/kube-cache" delete probe "owner-$cascade" --cascade=$cascade 2>&1) ||
    fail "kubectl delete probe --cascade=$cascade returns" "$out"
  expect_in "$out" "probe.example.com \"owner-$cascade\" deleted"
done
expect_in "$(k get configmap dep-orphan -o jsonpath='{.metadata.ownerReferences}')" ""
k get configmap dep-orphan >/dev/null || fail "the orphaned dependent stays" ""
wait_for 20 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get configmap dep-background >/dev/null 2>&1"
pass "the garbage collector handles a custom resource defined after start-up (orphan, background)"
