#!/usr/bin/env bash
# Builds every library and unit test with clang, AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer in build-asan/ (cmake/sanitize.cmake; idempotent), then runs the
# test suite there, but for the end-to-end tests (tests/e2e/) and the fuzz targets' short runs.
# Any sanitizer report fails its test (-fno-sanitize-recover=all). FUZZING.md has the figures.
#
#   scripts/sanitize-tests.sh [ctest arguments...]     e.g. -R apiserver
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${ASAN_BUILD_DIR:-build-asan}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CXX="${SANITIZE_CXX:-clang++-16}" cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    -DTIDEPOOL_SANITIZE=ON -DTIDEPOOL_BUILD_BENCH=OFF >/dev/null
fi
ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 900 \
  -E '^(e2e_|fuzz_)' "$@"
