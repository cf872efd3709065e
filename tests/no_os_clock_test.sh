#!/usr/bin/env bash
# Time is injected: only src/common/real_clock.cc may read the operating system's clock.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='(system_clock|steady_clock|high_resolution_clock)::now|\btime\(nullptr\)|\btime\(NULL\)|gettimeofday|clock_gettime'
hits=$(grep -rnE "$pattern" src app --include='*.cc' --include='*.h' | grep -v '^src/common/real_clock.cc:' || true)
if [ -n "$hits" ]; then
  echo "the OS clock is read outside src/common/real_clock.cc:"
  echo "$hits"
  exit 1
fi
echo "ok: only src/common/real_clock.cc reads the OS clock"
