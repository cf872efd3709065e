#!/usr/bin/env bash
# Issue 14, bounded memory: 100 watchers that never read while 10 clients write. tidepool up
# must close each of them as kube-apiserver closes an unresponsive watcher, stay under 1 GB of
# resident memory all along (it reached 7.3 GB before), and answer afterwards: kubectl still
# lists, an object written before keeps its uid, and a new `kubectl get -w` sees new writes.
source "$(dirname "$0")/lib.sh"

start_up
k create configmap before --from-literal=k=v >/dev/null
UID_BEFORE=$(k get configmap before -o jsonpath='{.metadata.uid}')

# No time limit of its own: it writes until the log shows all 100 watchers closed (or fails
# after 400,000 writes); SLOW_WATCHERS_SETTLE is how long it leaves the server after closing
# its sockets before the last check.
OUT=$(SLOW_WATCHERS_SETTLE=2 python3 "$SRC/tests/e2e/slow_watchers.py" --port "$PORT" \
  --pid "$UP_PID" --log "$WORK/up.log" --watchers 100 --writers 10 --rss-limit-mb 1024) ||
  fail "slow watchers" "$OUT"
echo "$OUT"
expect_in "$OUT" "100 of 100 watchers closed"
# The namespace's configmaps: what the writers left, "before", and kube-root-ca.crt.
expect_match "$OUT" "GET configmaps 200 \(20[12] items\)"
expect_match "$(grep -m1 'watcher close due to unresponsiveness' "$WORK/up.log")" \
  '^Forcing configmaps watcher close due to unresponsiveness: key: "/configmaps/"\. [0-9]+ events waiting \(limit 65536\), [0-9]+ bytes of writes behind \(limit 67108864\)$'
pass "100 watchers that never read were closed; the peak stayed under 1 GB"

kill -0 "$UP_PID" || fail "tidepool up exited"
expect_in "$(k get configmap before -o jsonpath='{.metadata.uid}')" "$UID_BEFORE"
expect_in "$(k get pods -A)" "kube-dns"
# A watch that reads is served as before.
k get configmaps -w --output-watch-events -o name >"$WORK/watch.out" 2>&1 &
WATCH=$!
wait_for 30 grep -q "configmap/before" "$WORK/watch.out"
k create configmap after --from-literal=k=v >/dev/null
wait_for 30 grep -q "configmap/after" "$WORK/watch.out"
kill $WATCH 2>/dev/null || true
pass "the server answers afterwards; a reading watcher sees new writes"

# A watch from a revision the history no longer holds: 410 Expired, kube's text.
OLD=$(curl -s "http://127.0.0.1:$PORT/api/v1/configmaps?watch=true&resourceVersion=2&timeoutSeconds=1")
expect_in "$OLD" '"code":410'
expect_match "$OLD" '"message":"too old resource version: 2 \([0-9]+\)"'
expect_in "$OLD" '"reason":"Expired"'
LIST=$(curl -s "http://127.0.0.1:$PORT/api/v1/configmaps?resourceVersion=2&resourceVersionMatch=Exact")
expect_in "$LIST" '"message":"The resourceVersion for the provided list is too old."'
expect_in "$LIST" '"code":410'
pass "410 Expired for a watch and an exact list from before the history"
echo "PASS"
