#!/usr/bin/env bash
# Installs every Debian package tidepool's build, tests and benchmarks use.
# clang-16 and libclang-rt-16-dev (libFuzzer, ASan and UBSan runtimes) are for the sanitized
# builds (FUZZING.md); clang 14 cannot compile std::source_location with libstdc++ 12.
# Idempotent: installs only what is missing; safe to run again.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libboost1.81-dev libboost-json1.81-dev libssl-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-dev
  libcli11-dev libspdlog-dev libfmt-dev prometheus-cpp-dev libsqlite3-dev libjemalloc-dev
  libhowardhinnant-date-dev tzdata libre2-dev zlib1g-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  python3-kubernetes
  chromium
  clang-16 libclang-rt-16-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
