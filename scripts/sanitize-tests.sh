#!/usr/bin/env bash
# Builds every library and unit test with clang, AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer, and runs the test suite with them, but for the end-to-end tests
# (tests/e2e/) and the fuzz targets' short runs. Any sanitizer report fails its test
# (-fno-sanitize-recover=all). FUZZING.md has the figures.
#
# It shares build-fuzz/ with scripts/fuzz.sh (tests switched on there): the libraries are
# compiled once, with libFuzzer's coverage instrumentation too (harmless in a test, a little
# slower), so this costs only the tests, the app and the libraries the fuzz targets do not link.
#
#   scripts/sanitize-tests.sh [ctest arguments...]     e.g. -R apiserver
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  export CXX="${FUZZ_CXX:-clang++-16}"
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DTIDEPOOL_FUZZ=ON \
  -DTIDEPOOL_BUILD_TESTS=ON -DTIDEPOOL_BUILD_BENCH=OFF >/dev/null
ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 900 \
  -E '^(e2e_|fuzz_)' "$@"
