#!/usr/bin/env bash
# Issue 14: no input kills tidepool up. Sends the wrong-type table and the issue's reproductions
# (tests/e2e/bad_input.py) to a fresh `tidepool up`, then checks with the real kubectl that the
# cluster still answers and an object created before is unchanged.
source "$(dirname "$0")/lib.sh"

start_up --gcloud-config "$WORK/gcloud"
token_file=$(find "$WORK/gcloud" -name '*token*' -type f 2>/dev/null | head -1 || true)
out=$(/usr/bin/python3 "$SRC/tests/e2e/bad_input.py" "$PORT" "$token_file" 2>&1) || {
  echo "$out"
  fail "bad_input.py reported failures"
}
echo "$out"
kill -0 "$UP_PID" || fail "tidepool up is gone"
pods=$(k get pods 2>&1)
expect_in "$pods" "canary"
pass "every bad input got a 4xx; tidepool up still serves kubectl"
