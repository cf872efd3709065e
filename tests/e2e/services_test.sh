#!/usr/bin/env bash
# Issue 17: Services and Endpoints as a real cluster has them, with the real kubectl: the
# default namespace's kubernetes Service (the first address of GKE's default service range,
# 34.118.224.0/20) and its Endpoints; cluster IPs and node ports allocated on create (a taken
# IP refused in kube's words); kube-controller-manager's endpoints and endpointslice
# controllers keeping a Deployment's Service's Endpoints and EndpointSlices as its pods come
# and go.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler --seed 41 --speed 10

expect_match "$(k get svc kubernetes)" '^kubernetes +ClusterIP +34\.118\.224\.1 +<none> +443/TCP +'
expect_match "$(k get endpoints kubernetes)" '^kubernetes +172\.16\.0\.2:443 +'
expect_match "$(k get svc kube-dns -n kube-system)" '^kube-dns +ClusterIP +34\.118\.224\.10 +<none> +53/UDP,53/TCP +'
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get endpoints kube-dns -n kube-system -o jsonpath='{.subsets[0].addresses[0].ip}' | grep -q ." ||
  fail "kube-dns's Endpoints list its pods" "$(k get endpoints -n kube-system kube-dns -o yaml; k get pods -n kube-system -o wide)"
expect_in "$(k cluster-info)" "KubeDNS is running at"
pass "the kubernetes and kube-dns Services and their Endpoints; kubectl cluster-info"

k create deployment web --image=nginx --replicas=2 --port=8080 >/dev/null
out=$(k expose deployment web --port=80 --target-port=8080 2>&1) || fail "kubectl expose" "$out"
expect_match "$(k get svc web)" '^web +ClusterIP +34\.118\.224\.[0-9]+ +<none> +80/TCP +'
got=$(k get svc web -o jsonpath='{.spec.clusterIPs[0]}={.spec.clusterIP} {.spec.ipFamilyPolicy} {.spec.sessionAffinity} {.spec.internalTrafficPolicy}')
expect_match "$got" '^(34\.118\.224\.[0-9]+)=\1 SingleStack None Cluster$'
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get endpoints web -o jsonpath='{.subsets[0].addresses[*].ip}' | grep -Eq '^[0-9.]+ [0-9.]+$'" ||
  fail "the endpoints controller lists both pods" "$(k get endpoints web -o yaml; k get pods -o wide)"
expect_match "$(k get endpoints web)" '^web +[0-9.]+:8080,[0-9.]+:8080 +'
k scale deployment web --replicas=1 >/dev/null
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get endpoints web -o jsonpath='{.subsets[0].addresses[*].ip}' | grep -Eq '^[0-9.]+$'" ||
  fail "a pod that goes leaves the Endpoints" "$(k get endpoints web -o yaml)"
pass "kubectl expose: a cluster IP; the Endpoints follow the Deployment's pods"

# discovery.k8s.io/v1 EndpointSlices, kcm's endpointslice controller's: what `kubectl describe
# service` reads (it never falls back to Endpoints).
wait_for 60 bash -c "kubectl --cache-dir '$WORK/kube-cache' get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{.items[0].endpoints[*].addresses[0]}' | grep -Eq '^[0-9.]+$'" ||
  fail "the web Service's EndpointSlice lists its pod" "$(k get endpointslices -o yaml)"
out=$(k get endpointslices -l kubernetes.io/service-name=web)
expect_match "$out" '^NAME +ADDRESSTYPE +PORTS +ENDPOINTS +AGE$'
expect_match "$out" '^web-[a-z0-9]{5} +IPv4 +8080 +[0-9.]+ +[0-9]+s$'
got=$(k get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{.items[0].metadata.labels.endpointslice\.kubernetes\.io/managed-by} {.items[0].metadata.ownerReferences[0].kind}/{.items[0].metadata.ownerReferences[0].name} {.items[0].endpoints[0].conditions.ready} {.items[0].endpoints[0].zone}')
expect_match "$got" '^endpointslice-controller\.k8s\.io Service/web true us-central1-[a-z]$'
expect_match "$(k describe svc web)" '^Endpoints: +[0-9.]+:8080$'
pass "EndpointSlices as kcm writes them; kubectl describe service shows their endpoints"

out=$(k create service nodeport np --tcp=80:8080 2>&1) || fail "a NodePort service" "$out"
expect_match "$(k get svc np)" '^np +NodePort +34\.118\.224\.[0-9]+ +<none> +80:3[0-9]{4}/TCP +'
ip=$(k get svc web -o jsonpath='{.spec.clusterIP}')
out=$(k create service clusterip taken --tcp=80 --clusterip="$ip" 2>&1) && fail "a taken cluster IP is refused" "$out"
expect_in "$out" "Service \"taken\" is invalid: spec.clusterIPs: Invalid value: []string{\"$ip\"}: failed to allocate IP $ip: provided IP is already allocated"
np=$(k get svc np -o jsonpath='{.spec.ports[0].nodePort}')
out=$(k create service nodeport np2 --tcp=80:80 --node-port="$np" 2>&1) && fail "a taken node port is refused" "$out"
expect_in "$out" "Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: $np: provided port is already allocated"
out=$(k create service nodeport np3 --tcp=80:80 --node-port=40000 2>&1) && fail "a node port out of range is refused" "$out"
expect_in "$out" 'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767'
# kube's initNodePorts: two port numbers may not share a node port; one port's TCP and UDP do.
out=$(printf '%s\n' 'apiVersion: v1' 'kind: Service' 'metadata: {name: np4}' \
  'spec: {type: NodePort, ports: [{name: a, port: 80, nodePort: 32080}, {name: b, port: 81, nodePort: 32080}]}' |
  k create -f - 2>&1) && fail "two port numbers sharing a node port are refused" "$out"
expect_in "$out" 'spec.ports[1].nodePort: Invalid value: 32080: provided port is already allocated'
printf '%s\n' 'apiVersion: v1' 'kind: Service' 'metadata: {name: dns}' \
  'spec: {type: NodePort, ports: [{name: tcp, port: 53, protocol: TCP, nodePort: 32053}, {name: udp, port: 53, protocol: UDP}]}' |
  k create -f - >/dev/null || fail "a port's TCP and UDP share its node port"
[ "$(k get svc dns -o jsonpath='{.spec.ports[*].nodePort}')" = "32053 32053" ] ||
  fail "the UDP entry gets the TCP entry's node port" "$(k get svc dns -o yaml)"
out=$(k run badport --image=nginx --port=99999 2>&1) && fail "a container port out of range is refused" "$out"
expect_in "$out" 'The Pod "badport" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive'
k delete svc web >/dev/null
wait_for 20 bash -c "! kubectl --cache-dir '$WORK/kube-cache' get endpoints web >/dev/null 2>&1" ||
  fail "a deleted Service's Endpoints go" "$(k get endpoints)"
pass "node ports; a taken IP, a taken or out-of-range node port and a container port out of range refused; a deleted Service's Endpoints go"

# A LoadBalancer Service: EXTERNAL-IP <pending>, then the cloud's address (45 emulated seconds,
# divided by start_up's --speed) with the service controller's events; deleted, its load
# balancer goes first (the finalizer), then the Service.
k create deployment lbweb --image=nginx >/dev/null
out=$(k expose deployment lbweb --type=LoadBalancer --port=80 2>&1) || fail "kubectl expose --type=LoadBalancer" "$out"
expect_match "$(k get svc lbweb)" '^lbweb +LoadBalancer +34\.118\.224\.[0-9]+ +<pending> +80:3[0-9]{4}/TCP'
wait_for 120 bash -c "kubectl --cache-dir '$WORK/kube-cache' get svc lbweb -o jsonpath='{.status.loadBalancer.ingress[0].ip}' | grep -q ." ||
  fail "the LoadBalancer gets its address" "$(k get svc lbweb -o yaml)"
expect_match "$(k get svc lbweb)" '^lbweb +LoadBalancer +34\.118\.224\.[0-9]+ +34\.41\.0\.[0-9]+ +80:3[0-9]{4}/TCP'
[ "$(k get svc lbweb -o jsonpath='{.status.loadBalancer.ingress[0].ipMode} {.metadata.finalizers}')" = 'VIP ["service.kubernetes.io/load-balancer-cleanup"]' ] ||
  fail "ipMode VIP and the cleanup finalizer" "$(k get svc lbweb -o yaml)"
events=$(k describe svc lbweb)
expect_match "$events" 'LoadBalancer Ingress: +34\.41\.0\.[0-9]+ \(VIP\)'
expect_match "$events" 'Normal +EnsuringLoadBalancer +.* +service-controller +Ensuring load balancer'
expect_match "$events" 'Normal +EnsuredLoadBalancer +.* +service-controller +Ensured load balancer'
k delete svc lbweb --timeout=60s >/dev/null || fail "the LoadBalancer Service is deleted" "$(k get svc lbweb -o yaml)"
events=$(k get events --field-selector involvedObject.kind=Service,involvedObject.name=lbweb)
expect_match "$events" 'Normal +DeletingLoadBalancer +service/lbweb +Deleting load balancer'
expect_match "$events" 'Normal +DeletedLoadBalancer +service/lbweb +Deleted load balancer'
pass "LoadBalancer Services: <pending>, then the cloud's address (ipMode VIP) with the service controller's events and finalizer; deleted after their load balancer"

# A cluster IP may not change once set (kubectl test-cmd apply.sh: headless -> an address).
cat >"$WORK/svc-a.yaml" <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: a}
spec: {clusterIP: None, ports: [{port: 80}]}
YAML
k apply -f "$WORK/svc-a.yaml" >/dev/null
sed -i 's/clusterIP: None/clusterIP: 10.0.0.12/' "$WORK/svc-a.yaml"
out=$(k apply -f "$WORK/svc-a.yaml" 2>&1) && fail "a cluster IP may not change" "$out"
expect_in "$out" 'The Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.12"}: may not change once set'
pass "a Service's cluster IP may not change once set"

# networking.k8s.io/v1 Ingresses and IngressClasses: kubectl's generator (a protobuf body), kube's
# columns, validation, and `kubectl apply --prune` (whose default list includes Ingress).
out=$(k create ingress simple --rule="foo.com/bar=svc1:8080,tls=my-cert" 2>&1) || fail "kubectl create ingress" "$out"
expect_in "$out" "ingress.networking.k8s.io/simple created"
k create ingress catch --class=default --default-backend=defaultsvc:http --rule="/path=svc:port" >/dev/null
out=$(k get ingress)
expect_match "$out" '^NAME +CLASS +HOSTS +ADDRESS +PORTS +AGE$'
expect_match "$out" '^catch +default +\* +80 +[0-9]+s$'
expect_match "$out" '^simple +<none> +foo\.com +80, 443 +[0-9]+s$'
expect_in "$(k get ing simple -o jsonpath='{.spec.rules[0].http.paths[0].pathType}')" Exact
cat >"$WORK/ing-bad.yaml" <<'YAML'
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad}
spec:
  rules:
  - http:
      paths:
      - path: /x
        backend: {service: {name: svc, port: {number: 80}}}
YAML
out=$(k apply -f "$WORK/ing-bad.yaml" 2>&1) && fail "an Ingress path without pathType is refused" "$out"
expect_in "$out" 'The Ingress "bad" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified'
k apply -f - >/dev/null <<'YAML'
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx, parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}}
YAML
expect_match "$(k get ingressclass)" '^nginx +k8s\.io/ingress-nginx +IngressParameters\.k8s\.example\.com/external-lb +[0-9]+s$'
mkdir -p "$WORK/prune"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, labels: {prune: "yes"}}\n' >"$WORK/prune/keep.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gone, labels: {prune: "yes"}}\n' >"$WORK/prune/gone.yaml"
k apply --prune -l prune=yes -f "$WORK/prune" >/dev/null 2>&1 || fail "apply --prune" "$(k apply --prune -l prune=yes -f "$WORK/prune" 2>&1)"
rm "$WORK/prune/gone.yaml"
out=$(k apply --prune -l prune=yes -f "$WORK/prune" 2>&1) || fail "apply --prune prunes" "$out"
expect_in "$out" "configmap/gone pruned"
pass "Ingresses and IngressClasses: create, columns, validation; apply --prune"
kill "$UP_PID"
wait "$UP_PID" 2>/dev/null || true

# Another service range, as kube-apiserver's --service-cluster-ip-range (test-cmd's 10.0.0.0/24)
# or the config's cluster.servicesIpv4Cidr: the system Services take its first and tenth
# addresses, an address in it is allocated as asked, one outside is refused naming the range,
# and GKE's API reports it.
out=$("$TIDEPOOL_BIN" up --port 0 --service-cluster-ip-range 10.0.0.0/8 2>&1) && fail "a /8 service range is refused" "$out"
expect_in "$out" "error: --service-cluster-ip-range: specified service range is too large; for 32-bit addresses, the mask must be >= 12"
printf 'cluster: {servicesIpv4Cidr: 10.0.0/24}\nnodePools: [{name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}]\n' >"$WORK/bad-range.yaml"
out=$("$TIDEPOOL_BIN" up --port 0 --config "$WORK/bad-range.yaml" 2>&1) && fail "a malformed servicesIpv4Cidr is refused" "$out"
expect_in "$out" "cluster.servicesIpv4Cidr: invalid CIDR address: 10.0.0/24"
start_up --no-autoscaler --service-cluster-ip-range 10.0.0.0/24 --gcloud-config "$WORK/gcloud"
expect_match "$(k get svc kubernetes)" '^kubernetes +ClusterIP +10\.0\.0\.1 +<none> +443/TCP +'
expect_match "$(k get svc kube-dns -n kube-system)" '^kube-dns +ClusterIP +10\.0\.0\.10 +'
k create service clusterip fixed --tcp=80 --clusterip=10.0.0.12 >/dev/null
expect_match "$(k get svc fixed)" '^fixed +ClusterIP +10\.0\.0\.12 +'
out=$(k create service clusterip outside --tcp=80 --clusterip=34.118.224.12 2>&1) && fail "an address outside the range is refused" "$out"
expect_in "$out" 'failed to allocate IP 34.118.224.12: the provided IP (34.118.224.12) is not in the valid range. The range of valid IPs is 10.0.0.0/24'
expect_in "$(CLOUDSDK_CONFIG="$WORK/gcloud" timeout 60 gcloud container clusters describe tidepool --zone us-central1-a --format 'value(servicesIpv4Cidr)' 2>&1)" "10.0.0.0/24"
pass "--service-cluster-ip-range / cluster.servicesIpv4Cidr: the service range, validated and reported"
