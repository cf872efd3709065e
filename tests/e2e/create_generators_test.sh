#!/usr/bin/env bash
# Issue 16 item 3: every `kubectl create <generator>` whose resource tidepool serves, with the
# real kubectl 1.32 (which sends them as application/vnd.kubernetes.protobuf, without a JSON
# fallback), and the Pods `kubectl debug` creates the same way: each request succeeds and the
# stored object is what a real cluster stores (the fields kubectl set and the API server's
# defaults). `kubectl run` (JSON) is here too, for completeness.
source "$(dirname "$0")/lib.sh"

start_up --speed 60
wait_for 60 k get nodes

# expect_jp <resource> <jsonpath> <want>: the stored object's field.
expect_jp() {
  local got
  got=$(k get "$1" -o jsonpath="$2") || fail "kubectl get $1"
  [ "$got" = "$3" ] || fail "$1 $2: want '$3', got '$got'" "$(k get "$1" -o yaml)"
}
# create <kubectl create args...>: the command succeeds (no 415 for the protobuf body).
create() {
  local out
  out=$(k create "$@" 2>&1) || fail "kubectl create $*" "$out"
}

# ---- apps/v1 and batch/v1 ----------------------------------------------------------------------
create deployment gpu-infer --image=nginx --replicas=3
expect_jp deploy/gpu-infer '{.spec.replicas}' 3
expect_jp deploy/gpu-infer '{.spec.selector.matchLabels.app}' gpu-infer
expect_jp deploy/gpu-infer '{.spec.template.metadata.labels.app}' gpu-infer
expect_jp deploy/gpu-infer '{.spec.template.spec.containers[0].name}/{.spec.template.spec.containers[0].image}' nginx/nginx
expect_jp deploy/gpu-infer '{.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} {.spec.strategy.rollingUpdate.maxUnavailable}' 'RollingUpdate 25% 25%'
expect_jp deploy/gpu-infer '{.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds}' '10 600'
expect_jp deploy/gpu-infer '{.spec.template.spec.restartPolicy} {.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.dnsPolicy}' 'Always 30 ClusterFirst'
expect_jp deploy/gpu-infer '{.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.containers[0].terminationMessagePath}' 'Always /dev/termination-log'
pass "create deployment --replicas=3 (stored with replicas 3 and the defaults)"

# The scale subresource (autoscaling/v1 Scale): kubectl scale's merge patch, and with
# --current-replicas its GET and PUT.
out=$(k scale deployment gpu-infer --replicas=6 2>&1) || fail "kubectl scale" "$out"
expect_jp deploy/gpu-infer '{.spec.replicas}' 6
out=$(k scale deployment gpu-infer --current-replicas=6 --replicas=2 2>&1) || fail "kubectl scale --current-replicas" "$out"
expect_jp deploy/gpu-infer '{.spec.replicas}' 2
out=$(k scale deployment gpu-infer --current-replicas=5 --replicas=1 2>&1) && fail "a wrong --current-replicas was accepted" "$out"
expect_in "$out" "Expected replicas to be 5, was 2"
scale=$(k get --raw /apis/apps/v1/namespaces/default/deployments/gpu-infer/scale)
# status.replicas is the Deployment's (its controller's count, 0 to 6 while it scales).
expect_match "$scale" '"spec":\{"replicas":2\},"status":\{"replicas":[0-9],"selector":"app=gpu-infer"\}'
# kube-apiserver records the scale as kubectl's write to the subresource, in the Deployment's
# terms: spec.replicas, taken from kubectl-create.
out=$(k get deploy gpu-infer -o json --show-managed-fields | /usr/bin/python3 -c '
import json, sys
for e in json.load(sys.stdin)["metadata"]["managedFields"]:
    print(e["manager"], e["operation"], e["apiVersion"], e.get("subresource", "-"), json.dumps(e["fieldsV1"].get("f:spec", {}).get("f:replicas")))')
expect_in "$out" 'kubectl Update apps/v1 scale {}'
expect_in "$out" 'kubectl-create Update apps/v1 - null'
pass "kubectl scale deployment (deployments/scale: PATCH, GET and PUT)"

create deployment web --image=busybox:1.36 --port=8080 -- sleep 3600
expect_jp deploy/web '{.spec.replicas}' 1
expect_jp deploy/web '{.spec.template.spec.containers[0].command}' '["sleep","3600"]'
expect_jp deploy/web '{.spec.template.spec.containers[0].ports[0].containerPort} {.spec.template.spec.containers[0].ports[0].protocol}' '8080 TCP'
expect_jp deploy/web '{.spec.template.spec.containers[0].imagePullPolicy}' IfNotPresent
pass "create deployment --port -- command"

create job pi --image=perl:5.34 -- perl -Mbignum=bpi -wle 'print bpi(20)'
expect_jp job/pi '{.spec.template.spec.containers[0].command}' '["perl","-Mbignum=bpi","-wle","print bpi(20)"]'
expect_jp job/pi '{.spec.template.spec.restartPolicy}' Never
expect_jp job/pi '{.spec.backoffLimit} {.spec.completions} {.spec.parallelism} {.spec.completionMode}' '6 1 1 NonIndexed'
expect_jp job/pi '{.spec.template.metadata.labels.job-name}' pi
pass "create job -- command"

# ---- core/v1 Services ---------------------------------------------------------------------------
create service clusterip my-cs --tcp=5678:8080 --tcp=443:https
expect_jp svc/my-cs '{.spec.type}' ClusterIP
expect_jp svc/my-cs '{.spec.selector.app}' my-cs
expect_jp svc/my-cs '{range .spec.ports[*]}{.name}:{.port}:{.targetPort}:{.protocol} {end}' '5678-8080:5678:8080:TCP 443-https:443:https:TCP '
create service clusterip headless --clusterip=None
expect_jp svc/headless '{.spec.clusterIP}' None
create service nodeport my-np --tcp=5678:8080 --node-port=30080
expect_jp svc/my-np '{.spec.type} {.spec.ports[0].nodePort} {.spec.ports[0].targetPort}' 'NodePort 30080 8080'
create service loadbalancer my-lb --tcp=80:8080
expect_jp svc/my-lb '{.spec.type} {.spec.ports[0].port}' 'LoadBalancer 80'
create service externalname my-en --external-name=bar.example.com
expect_jp svc/my-en '{.spec.type} {.spec.externalName}' 'ExternalName bar.example.com'
pass "create service clusterip|nodeport|loadbalancer|externalname (IntOrString targetPort as a number and a name)"

# ---- policy/v1, scheduling.k8s.io/v1 ------------------------------------------------------------
create poddisruptionbudget my-pdb --selector=app=rails --min-available=1
expect_jp pdb/my-pdb '{.spec.minAvailable} {.spec.selector.matchLabels.app}' '1 rails'
create poddisruptionbudget my-pdb2 --selector='app in (web,api)' --max-unavailable=50%
expect_jp pdb/my-pdb2 '{.spec.maxUnavailable}' '50%'
expect_jp pdb/my-pdb2 '{.spec.selector.matchExpressions[0].key} {.spec.selector.matchExpressions[0].operator} {.spec.selector.matchExpressions[0].values}' 'app In ["api","web"]'
pass "create poddisruptionbudget --min-available / --max-unavailable"

create priorityclass high-priority --value=1000 --description="high priority"
expect_jp pc/high-priority '{.value} {.description} {.preemptionPolicy}' '1000 high priority PreemptLowerPriority'
create priorityclass default-never --value=0 --global-default=true --preemption-policy=Never
expect_jp pc/default-never '{.value} {.globalDefault} {.preemptionPolicy}' '0 true Never'
pass "create priorityclass (value 0 kept, globalDefault, preemptionPolicy)"

# ---- rbac.authorization.k8s.io/v1 ---------------------------------------------------------------
create role pod-reader --verb=get --verb=list --resource=pods --resource-name=readablepod --resource=deployments.apps
expect_jp role/pod-reader '{range .rules[*]}{.apiGroups}{.resources}{.resourceNames}{.verbs} {end}' \
  '[""]["pods"]["readablepod"]["get","list"] ["apps"]["deployments"]["readablepod"]["get","list"] '
create clusterrole node-reader --verb=get,list,watch --resource=nodes
expect_jp clusterrole/node-reader '{.rules[0].verbs} {.rules[0].resources}' '["get","list","watch"] ["nodes"]'
create clusterrole log-reader --verb=get --non-resource-url='/logs/*'
expect_jp clusterrole/log-reader '{.rules[0].nonResourceURLs}' '["/logs/*"]'
create clusterrole monitoring --aggregation-rule="rbac.example.com/aggregate-to-monitoring=true"
expect_jp clusterrole/monitoring '{.aggregationRule.clusterRoleSelectors[0].matchLabels}' '{"rbac.example.com/aggregate-to-monitoring":"true"}'
create rolebinding admin-rb --clusterrole=admin --user=user1 --group=group1 --serviceaccount=default:sa
expect_jp rolebinding/admin-rb '{.roleRef.apiGroup} {.roleRef.kind} {.roleRef.name}' 'rbac.authorization.k8s.io ClusterRole admin'
expect_jp rolebinding/admin-rb '{range .subjects[*]}{.kind}:{.name}:{.namespace} {end}' 'User:user1: Group:group1: ServiceAccount:sa:default '
create clusterrolebinding root-crb --clusterrole=cluster-admin --user=root
expect_jp clusterrolebinding/root-crb '{.roleRef.name} {.subjects[0].apiGroup} {.subjects[0].kind} {.subjects[0].name}' 'cluster-admin rbac.authorization.k8s.io User root'
pass "create role|clusterrole (aggregation, non-resource URLs)|rolebinding|clusterrolebinding"

# ---- core/v1 Secrets, ConfigMaps, Namespaces, ServiceAccounts -----------------------------------
create secret docker-registry regcred --docker-server=gcr.io --docker-username=u --docker-password=p --docker-email=u@example.com
expect_jp secret/regcred '{.type}' kubernetes.io/dockerconfigjson
cfg=$(k get secret regcred -o jsonpath='{.data.\.dockerconfigjson}' | base64 -d)
expect_in "$cfg" '"gcr.io":{"username":"u","password":"p","email":"u@example.com","auth":"dTpw"}'
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/tls.key" -out "$WORK/tls.crt" -days 1 \
  -subj "/CN=tidepool.test" >/dev/null 2>&1
create secret tls tls-cert --cert="$WORK/tls.crt" --key="$WORK/tls.key"
expect_jp secret/tls-cert '{.type}' kubernetes.io/tls
[ "$(k get secret tls-cert -o jsonpath='{.data.tls\.crt}' | base64 -d)" = "$(cat "$WORK/tls.crt")" ] ||
  fail "tls.crt differs"
create secret generic db --from-literal=password=s3cr3t
expect_jp secret/db '{.type} {.data.password}' 'Opaque czNjcjN0'
create configmap gpu-config --from-literal=mode=mig
expect_jp cm/gpu-config '{.data.mode}' mig
create namespace ml
expect_jp ns/ml '{.status.phase}' Active
create serviceaccount builder
expect_jp sa/builder '{.metadata.namespace}' default
pass "create secret docker-registry|tls|generic, configmap, namespace, serviceaccount"

# ---- Pods: kubectl run (JSON) and kubectl debug (protobuf) --------------------------------------
out=$(k run p --image=nginx 2>&1) || fail "kubectl run" "$out"
expect_jp pod/p '{.spec.containers[0].image} {.metadata.labels.run} {.spec.restartPolicy}' 'nginx p Always'
node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
out=$(k debug node/"$node" --image=busybox --profile=sysadmin 2>&1) || fail "kubectl debug node" "$out"
dbg=$(k get pods -o name | grep "node-debugger-$node" | sed -n 1p)
[ -n "$dbg" ] || fail "no node debugger pod" "$(k get pods)"
expect_jp "$dbg" '{.spec.nodeName} {.spec.hostPID} {.spec.hostNetwork} {.spec.containers[0].securityContext.privileged} {.spec.volumes[0].hostPath.path}' "$node true true true /"
cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: rich}
spec:
  terminationGracePeriodSeconds: 0
  securityContext: {runAsUser: 0, supplementalGroups: [4000]}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoExecute, tolerationSeconds: 0}]
  containers:
  - name: main
    image: nginx
    env:
    - name: POD
      valueFrom: {fieldRef: {fieldPath: metadata.name}}
    resources: {limits: {cpu: 500m, memory: 1Gi}}
    readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 5}
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes: [{name: scratch, emptyDir: {sizeLimit: 1Gi}}]
YAML
out=$(k debug rich --copy-to=rich-copy --image=busybox --container=debugger --keep-readiness 2>&1) ||
  fail "kubectl debug --copy-to" "$out"
expect_jp pod/rich-copy '{.spec.terminationGracePeriodSeconds} {.spec.securityContext.runAsUser} {.spec.tolerations[0].tolerationSeconds}' '0 0 0'
expect_jp pod/rich-copy '{.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath} {.spec.containers[0].resources.limits.memory} {.spec.containers[0].readinessProbe.httpGet.port}' 'metadata.name 1Gi 80'
expect_jp pod/rich-copy '{.spec.volumes[0].emptyDir.sizeLimit} {.spec.containers[1].name} {.spec.containers[1].image}' '1Gi debugger busybox'
pass "kubectl run, kubectl debug node/... and debug --copy-to (Pods as protobuf)"
