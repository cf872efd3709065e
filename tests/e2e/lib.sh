# Shared helpers for end-to-end tests that drive the real kubectl against `tidepool up`.
# Each test sources this file, calls `start_up <args>`, and gets:
#   - its own scratch directory $WORK (KUBECONFIG, kubectl's --cache-dir, logs);
#   - an isolated KUBECONFIG written by tidepool up (context "tidepool");
#   - `k ...` = kubectl with a fresh discovery cache;
#   - `expect_in <text> <needle>` / `expect_match <text> <regex>` assertions that print what
#     was seen;
#   - cleanup on exit that kills only the tidepool process this test started.
set -euo pipefail

TIDEPOOL_BIN="${TIDEPOOL_BIN:?set TIDEPOOL_BIN to the tidepool binary}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tidepool-e2e.XXXXXX")"
UP_PID=""
export KUBECONFIG="$WORK/kubeconfig"
export CLOUDSDK_CONFIG="$WORK/gcloud"
export HOME="$WORK/home"
mkdir -p "$HOME"

cleanup() {
  local rc=$?
  if [ -n "$UP_PID" ] && kill -0 "$UP_PID" 2>/dev/null; then
    kill -TERM "$UP_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$UP_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$UP_PID" 2>/dev/null || true
  fi
  # Background jobs of this test (watchers) only.
  local jobs_pids
  jobs_pids=$(jobs -p || true)
  [ -n "$jobs_pids" ] && kill $jobs_pids 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    echo "--- tidepool up output (last 60 lines):"
    tail -n 60 "$WORK/up.log" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

# start_up [tidepool up flags...]: starts tidepool up on a free loopback port and waits until
# it is ready.
start_up() {
  rm -f "$WORK/port"
  "$TIDEPOOL_BIN" up --port 0 --port-file "$WORK/port" --kubeconfig "$KUBECONFIG" "$@" \
    >"$WORK/up.log" 2>&1 &
  UP_PID=$!
  for _ in $(seq 1 300); do
    [ -s "$WORK/port" ] && break
    kill -0 "$UP_PID" 2>/dev/null || { echo "tidepool up exited"; cat "$WORK/up.log"; return 1; }
    sleep 0.1
  done
  [ -s "$WORK/port" ] || { echo "tidepool up did not become ready"; return 1; }
  PORT=$(cat "$WORK/port")
}

k() { kubectl --cache-dir "$WORK/kube-cache" --request-timeout=30s "$@"; }

fail() {
  echo "FAIL: $1"
  shift
  [ $# -gt 0 ] && printf '%s\n' "--- seen:" "$@"
  exit 1
}
expect_in() {  # expect_in "<text>" "<needle>" [what]
  grep -qF -- "$2" <<<"$1" || fail "${3:-expected to see}: $2" "$1"
}
expect_not_in() {
  if grep -qF -- "$2" <<<"$1"; then fail "${3:-expected not to see}: $2" "$1"; fi
}
expect_match() {  # expect_match "<text>" "<extended regex>"
  grep -qE -- "$2" <<<"$1" || fail "expected a line matching: $2" "$1"
}
# wait_for <seconds> <command...>: retries the command (quietly) until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*"; "$@" || true; return 1; }
    sleep 0.5
  done
}
pass() { echo "ok: $1"; }
