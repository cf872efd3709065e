#!/usr/bin/env bash
# capture.sh NAME kubectl-args...: runs the real kubectl against the cluster of $KUBECONFIG (a
# `tidepool up`) with -v=10 and saves the protobuf body of the request it sends as NAME.pb, and
# what kubectl prints for the same command with --dry-run=client -o json as NAME.json (skipped
# with NO_DRY_RUN=1, for commands that have no client dry run). The test data of decode_test.cc
# was made with it; see README.md.
set -euo pipefail
name=$1
shift
dir="$(cd "$(dirname "$0")" && pwd)"
# Flags go before a `--` (after it come the container's command and arguments).
args=() rest=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
rest=("$@")
if [ -z "${NO_DRY_RUN:-}" ]; then
  kubectl "${args[@]}" --dry-run=client -o json "${rest[@]}" >"$dir/$name.json"
fi
# client-go logs a binary body as a hex dump ("\t00000000  6b 38 73 00 ...  |k8s.|") between
# `"Request Body" body=<` and ` >`; keep the first one that starts with the protobuf magic.
extract='
import re, sys
bodies, cur = [], None
for line in sys.stdin:
    if "\"Request Body\" body=<" in line:
        cur = bytearray()
        continue
    if cur is not None:
        m = re.match(r"\s*[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2})+)\s*\|", line)
        if m:
            cur += bytes.fromhex(m.group(1).replace(" ", ""))
        else:
            bodies.append(bytes(cur))
            cur = None
pb = [b for b in bodies if b.startswith(b"k8s\x00")]
if not pb:
    sys.exit("no protobuf request body in the log")
open(sys.argv[1], "wb").write(pb[0])
print(sys.argv[1], len(pb[0]), "bytes")
'
kubectl "${args[@]}" -v=10 "${rest[@]}" 2>&1 >/dev/null | python3 -c "$extract" "$dir/$name.pb"
