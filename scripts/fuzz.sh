#!/usr/bin/env bash
# Builds the fuzz build (build-fuzz/: clang, ASan + UBSan + libFuzzer; idempotent) and runs
# the libFuzzer targets of fuzz/ (FUZZING.md), one after the other.
#
#   scripts/fuzz.sh [--seconds N | --runs N] [--quick] [--no-build] [TARGET...]
#
#   TARGET       json, codec, ..., apiserver_http (fuzz/targets.cmake); default: every target
#   --seconds N  run each target for N seconds (default 60)
#   --runs N     run each target for N executions instead
#   --quick      the test suite's short run: 5 seconds (TIDEPOOL_FUZZ_SECONDS), seed corpora
#                only, new inputs into a temporary directory, a fixed random seed
#   --no-build   do not build; exit 77 ("skipped") when the fuzz build is absent
#   --build-only build (and write the generated seeds), run nothing
#
# Corpora: build-fuzz/fuzz/corpus/<target>/ is the working corpus (grows from run to run), read
# with the hand-written seeds fuzz/corpus/<target>/ and the generated ones
# build-fuzz/fuzz/seeds/<target>/ (fuzz/make_seeds.cc, from the repository's manifests).
# Dictionaries: fuzz/dicts/<target>.dict when present. A crash (uncaught exception, sanitizer
# report, leak, timeout over 10 s, RSS over 2 GB, failed oracle) stops that target; its input is
# written to build-fuzz/fuzz/crashes/<target>-crash-<sha1> (replay: build-fuzz/fuzz/<target>_fuzzer
# <file>), its log to build-fuzz/fuzz/logs/<target>.log. Prints per target: executions, crashes,
# reproducer. Exits 1 if any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
seconds=60
runs=""
quick=0
build=1
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; runs=""; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --quick) quick=1; seconds="${TIDEPOOL_FUZZ_SECONDS:-5}"; shift ;;
    --no-build) build=0; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

if [ "$build" = 1 ]; then
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    CXX="${FUZZ_CXX:-clang++-16}" cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
      -DTIDEPOOL_FUZZ=ON -DTIDEPOOL_BUILD_BENCH=OFF >/dev/null
  fi
  ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}" fuzzers
  "$BUILD_DIR/fuzz/make_seeds" "$ROOT" "$BUILD_DIR/fuzz/seeds" >/dev/null
fi
[ "$build_only" = 1 ] && exit 0

if [ "${#targets[@]}" -eq 0 ]; then
  targets=($(sed -n 's/^  \([a-z_]*\) .*#.*/\1/p' fuzz/targets.cmake))
fi

OUT="$BUILD_DIR/fuzz"
mkdir -p "$OUT/crashes" "$OUT/logs"
crashed=0
for t in "${targets[@]}"; do
  bin="$OUT/${t}_fuzzer"
  if [ ! -x "$bin" ]; then
    if [ "$build" = 0 ]; then
      echo "fuzz: $t: $bin is not built (run scripts/fuzz.sh --runs 1 to build it); skipped"
      exit 77
    fi
    echo "fuzz: $t: no such target" >&2
    exit 2
  fi
  if [ ! -d "$OUT/seeds/$t" ] && [ -x "$OUT/make_seeds" ]; then
    "$OUT/make_seeds" "$ROOT" "$OUT/seeds" >/dev/null
  fi
  args=(-print_final_stats=1 -timeout=10 -rss_limit_mb=2048 "-artifact_prefix=$OUT/crashes/$t-")
  [ -f "fuzz/dicts/$t.dict" ] && args+=("-dict=fuzz/dicts/$t.dict")
  if [ -n "$runs" ]; then args+=("-runs=$runs"); else args+=("-max_total_time=$seconds"); fi
  tmp=""
  if [ "$quick" = 1 ]; then
    tmp="$(mktemp -d)"
    corpus="$tmp"
    args+=(-seed=1)
  else
    corpus="$OUT/corpus/$t"
    mkdir -p "$corpus"
  fi
  dirs=("$corpus")
  [ -d "fuzz/corpus/$t" ] && dirs+=("fuzz/corpus/$t")
  [ -d "$OUT/seeds/$t" ] && dirs+=("$OUT/seeds/$t")
  log="$OUT/logs/$t.log"
  start=$(date +%s)
  rc=0
  "$bin" "${args[@]}" "${dirs[@]}" </dev/null >"$log" 2>&1 || rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[^0-9].*/\1/p' "$log" | tail -1)
  size=$(ls "$corpus" | wc -l)
  [ -n "$tmp" ] && rm -rf "$tmp"
  if [ "$rc" = 0 ]; then
    echo "fuzz: $t: ${execs:-?} executions in ${elapsed} s, 0 crashes (corpus $size files)"
  else
    crashed=1
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "fuzz: $t: ${execs:-?} executions in ${elapsed} s, 1 crash (exit $rc); reproducer: ${repro:-none}; log: $log"
    grep -m 3 -E 'ERROR: |runtime error|fuzz oracle failed|terminate called|what\(\)' "$log" | sed 's/^/  /' || true
  fi
done
exit "$crashed"
