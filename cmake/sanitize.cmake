# Sanitized builds (TIDEPOOL_SANITIZE, TIDEPOOL_FUZZ), each configured in its own build
# directory by scripts/fuzz.sh or scripts/sanitize-tests.sh; the normal g++ build never includes
# this file.
#   - AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer on every translation
#     unit, and every report fatal (-fno-sanitize-recover=all): a report is a crash, as in the
#     fuzz targets' oracle.
#   - TIDEPOOL_FUZZ adds libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link) to
#     every library; the fuzz targets link libFuzzer itself (-fsanitize=fuzzer, fuzz/).
#   - -O1 with line tables only: fast enough to fuzz, quick to compile, stacks with file:line.
#     NDEBUG is not defined, so nlohmann/json's assertions (e.g. a const operator[] on a missing
#     key, undefined behaviour in the release build) abort here.
# Needs clang (Debian's clang-16 and libclang-rt-16-dev, scripts/install-deps.sh).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TIDEPOOL_SANITIZE / TIDEPOOL_FUZZ need clang "
                      "(-DCMAKE_CXX_COMPILER=clang++-16), not ${CMAKE_CXX_COMPILER_ID}")
endif()
# project() has already made the build type's flags an empty cache entry.
if(CMAKE_CXX_FLAGS_SANITIZE STREQUAL "")
  set(CMAKE_CXX_FLAGS_SANITIZE "-O1 -gline-tables-only" CACHE STRING
      "Flags of the Sanitize build type" FORCE)
endif()
set(TIDEPOOL_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
add_compile_options(${TIDEPOOL_SANITIZER_FLAGS})
add_link_options(-fsanitize=address,undefined)
if(TIDEPOOL_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
