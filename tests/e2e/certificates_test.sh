#!/usr/bin/env bash
# Issue 17: certificates.k8s.io/v1 CertificateSigningRequests with the real kubectl, as kubectl's
# test-cmd certificate.sh and the impersonation part of authorization.sh use them: a CSR records
# who created it (the requester, or whom kubectl --as/--as-group impersonates); `kubectl
# certificate approve|deny` writes its condition through the approval subresource; the columns
# are kube's; kube's validation texts; and impersonation headers without a user are refused.
source "$(dirname "$0")/lib.sh"
start_up --no-autoscaler

# An ECDSA P-256 request for CN=kube-admin (openssl req -new).
REQUEST=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIUU1IY0NBUUF3RlRFVE1CRUdBMVVFQXd3S2EzVmlaUzFoWkcxcGJqQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxRwpTTTQ5QXdFSEEwSUFCSFZ0S1MzRHFQYWF6aitTR2ZBQmgycjdXZTIrcUNMdURvdVNjRDBYa3ZJZ0sycjJJTWtGCktrVis4bC9DSXZNeUlENmEyTnppR3hLZGZqK21nU1RNTisrZ0FEQUtCZ2dxaGtqT1BRUURBZ05KQURCR0FpRUEKNlkzL05USnlhT2VIMUpxOGZSc2tFZWtpRnpRd2JIdUFEcnFUQ2Nra0dQOENJUUNwQktCSW1IY0tkUXExb2FnNQpteVpDMzhrNjZUZVg5Ykh6and0c1N2aHQ1UT09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=
csr() {  # csr <name> [<usages>]: a CSR manifest
  cat <<YAML
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: $1}
spec:
  request: $REQUEST
  signerName: kubernetes.io/kube-apiserver-client
  usages: [${2:-digital signature, key encipherment, client auth}]
YAML
}

csr foo >"$WORK/foo.yaml"
expect_in "$(k create -f "$WORK/foo.yaml")" "certificatesigningrequest.certificates.k8s.io/foo created"
expect_match "$(k get csr)" '^NAME +AGE +SIGNERNAME +REQUESTOR +REQUESTEDDURATION +CONDITION$'
expect_match "$(k get csr foo)" '^foo +[0-9]+s +kubernetes\.io/kube-apiserver-client +[a-z:-]+ +<none> +Pending$'
expect_in "$(k get csr foo -o go-template='{{range .status.conditions}}{{.type}}{{end}}:{{.status}}')" ":map[]"
expect_in "$(k certificate approve foo)" "certificatesigningrequest.certificates.k8s.io/foo approved"
got=$(k get csr foo -o go-template='{{range .status.conditions}}{{.type}} {{.status}} {{.reason}} {{.message}} {{.lastTransitionTime}}{{end}}')
expect_match "$got" '^Approved True KubectlApprove This CSR was approved by kubectl certificate approve\. 20[0-9-]+T[0-9:]+Z$'
expect_match "$(k get csr foo)" ' Approved$'
out=$(k certificate deny foo 2>&1) && fail "deny after approve is refused" "$out"
expect_in "$out" 'error: certificate signing request "foo" is already Approved'
expect_in "$(k delete -f "$WORK/foo.yaml")" 'certificatesigningrequest.certificates.k8s.io "foo" deleted'
k create -f "$WORK/foo.yaml" >/dev/null
expect_in "$(k certificate deny -f "$WORK/foo.yaml")" "certificatesigningrequest.certificates.k8s.io/foo denied"
expect_match "$(k get csr foo)" ' Denied$'
expect_in "$(k get csr --field-selector spec.signerName=kubernetes.io/kube-apiserver-client -o name)" "certificatesigningrequest.certificates.k8s.io/foo"
k delete csr foo >/dev/null
pass "create, approve, deny (by name and -f), columns, field selector"

# Who created it: spec.username/groups are the requester's, or whom kubectl impersonates.
k create -f "$WORK/foo.yaml" --as=user1 --as-group=group2 --as-group=group1 --as-group=,,,chameleon >/dev/null
expect_in "$(k get csr foo -o go-template='{{.spec.username}}|{{range .spec.groups}}{{.}} {{end}}')" \
  "user1|group2 group1 ,,,chameleon system:authenticated "
expect_match "$(k get csr foo)" '^foo +[0-9]+s +kubernetes\.io/kube-apiserver-client +user1 +<none> +Pending$'
k delete csr foo >/dev/null
whoami=$(k auth whoami --as=system:serviceaccount:ns1:builder)
expect_match "$whoami" 'Username +system:serviceaccount:ns1:builder'
expect_in "$whoami" "[system:serviceaccounts system:serviceaccounts:ns1 system:authenticated]"
port=$(cat "$WORK/port")
out=$(curl -s -H "Impersonate-Group: foo" "http://127.0.0.1:$port/api/v1/pods")
expect_in "$out" '"code":400'
expect_in "$out" '"message":"requested [{Group  foo    }] without impersonating a user"'
pass "impersonation: --as/--as-group recorded in spec.username/groups, whoami; headers without a user refused"

# kube's validation texts.
csr bad "client auth, bogus, client auth" | sed 's/^  request: .*/  request: YWJj/' >"$WORK/bad.yaml"
out=$(k create -f "$WORK/bad.yaml" 2>&1) && fail "an invalid CSR is refused" "$out"
expect_in "$out" 'The CertificateSigningRequest "bad" is invalid:'
expect_in "$out" 'spec.request: Invalid value: []byte{0x61, 0x62, 0x63}: PEM block type must be CERTIFICATE REQUEST'
expect_in "$out" 'spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign",'
expect_in "$out" 'spec.usages[2]: Duplicate value: "client auth"'
csr signer | sed 's|kubernetes.io/kube-apiserver-client|kubernetes.io/legacy-unknown|' >"$WORK/legacy.yaml"
out=$(k create -f "$WORK/legacy.yaml" 2>&1) && fail "the legacy signer is refused" "$out"
expect_in "$out" 'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version'
pass "validation: request, usages, signer"
