#!/usr/bin/env bash
# Issue 19: the HTML report of a trace replay, opened in a real headless Chromium (Debian's).
# `tidepool simulate` replays 3 days of Alibaba's DLRM serving trace (its GPU instances, one in
# ten, ../shared/data/traces) on an L4 pool that starts at 0, writes --report report.html and
# prints the summary as JSON. Chromium loads the page from disk (no server, no network) with
# its console logged: no console message at all is allowed (the page runs no script). It takes
# a screenshot, kept as the test's artifact (build/test-artifacts/report.png, or
# $TEST_ARTIFACTS). The plots' data (the page's inert JSON block) is checked against the JSON
# output: GPU-hours and cost integrated from the plotted series equal the summary's, and each
# pool's plotted node count ends at the pool's size.
source "$(dirname "$0")/lib.sh"

trace="$SRC/../shared/data/traces/alibaba_v2025_disaggregated_DLRM_trace.csv"
[ -f "$trace" ] || fail "the DLRM trace is at ../shared/data/traces (see ../shared/data/README.md)" "$trace"
sed -e "s|file: .*|file: $trace|" -e "s|^runFor: .*|runFor: 72h|" \
  "$SRC/examples/dlrm-gpu-replay.yaml" >"$WORK/replay.yaml"

"$TIDEPOOL_BIN" simulate "$WORK/replay.yaml" --summary --output json --report "$WORK/report.html" \
  >"$WORK/summary.json" 2>"$WORK/simulate.err" || fail "tidepool simulate" "$(cat "$WORK/simulate.err")"
grep -q '"kind": "summary"' "$WORK/summary.json" || fail "a JSON summary" "$(head -40 "$WORK/summary.json")"
pass "simulate wrote the report ($(wc -c <"$WORK/report.html") bytes) and the JSON summary"

command -v chromium >/dev/null || fail "Debian's chromium is installed (scripts/install-deps.sh)" ""
artifacts="${TEST_ARTIFACTS:-$SRC/build/test-artifacts}"
mkdir -p "$artifacts"
rm -f "$artifacts/report.png"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$WORK/chromium" --enable-logging=stderr --v=0 --window-size=960,2000 \
  --screenshot="$artifacts/report.png" "file://$WORK/report.html" >"$WORK/chromium.log" 2>&1 ||
  fail "chromium renders the page" "$(tail -20 "$WORK/chromium.log")"
[ -s "$artifacts/report.png" ] || fail "a screenshot" "$(tail -20 "$WORK/chromium.log")"
if grep -q ':CONSOLE' "$WORK/chromium.log"; then
  fail "no console message" "$(grep ':CONSOLE' "$WORK/chromium.log")"
fi
pass "headless Chromium loaded it without a console message; screenshot $artifacts/report.png"

/usr/bin/python3 - "$WORK/report.html" "$WORK/summary.json" <<'PY' || fail "the plots' data agree with the JSON summary" ""
import json, re, sys
html = open(sys.argv[1]).read()
summary = json.load(open(sys.argv[2]))
m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
assert m, "no data block"
data = json.loads(m.group(1))
total = next(e for e in summary if e.get("object") == "cluster")
pools = {e["nodePool"]: e for e in summary if e.get("object", "").startswith("nodepool/")}
classes = {e["class"]: e for e in summary if e.get("object", "").startswith("class/")}
end = data["simulatedSeconds"]

def integral(points):  # a step function's area, in value-hours
    area = 0.0
    for (t, v), (t2, _) in zip(points, points[1:] + [[end, 0]]):
        area += v * (t2 - t) / 3600
    return area

def close(a, b, what, tol):
    if abs(a - b) > tol:
        sys.exit(f"{what}: plotted {a:.3f}, summary {b:.3f}")
    print(f"ok: {what}: plotted {a:.2f}, summary {b:.2f}")

s = data["series"]
close(integral(s["gpusAllocated"]), total["gpuHoursAllocated"], "GPU-hours allocated", 0.05)
close(integral(s["gpusProvisioned"]), total["gpuHoursProvisioned"], "GPU-hours provisioned", 0.05)
close(integral(s["costPerHour"]), total["cost"], "cost (USD)", 0.05)
assert data["cluster"]["cost"] == total["cost"], (data["cluster"], total)
for name, p in pools.items():
    plotted = s["nodesPerPool"][name][-1][1]
    assert plotted == p["size"], f"{name}: plotted {plotted} nodes at the end, summary {p['size']}"
    assert any(x["nodePool"] == name and x["cost"] == p["cost"] for x in data["pools"]), name
for name, c in classes.items():
    d = next(x for x in data["classes"] if x["class"] == name)
    for k in ("pods", "scheduled", "p50Seconds", "p90Seconds", "p99Seconds", "maxSeconds"):
        assert d[k] == c[k], (name, k, d[k], c[k])
assert total["gpuHoursAllocated"] > 0 and len(s["gpusAllocated"]) > 10, "a replay that did nothing"
print(f"ok: {len(pools)} pools and {len(classes)} classes as in the JSON output")
PY
pass "the plots' data agree with the JSON summary"
