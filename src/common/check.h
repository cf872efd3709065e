// File: check.h
//
// Invariant checks (Envoy's triad). Use them for "should never happen", not for bad input:
//   TIDEPOOL_CHECK(cond)   always fatal;
//   TIDEPOOL_DCHECK(cond)  fatal in debug builds, compiled out with NDEBUG.
#pragma once

#include <cstdio>
#include <cstdlib>

#define TIDEPOOL_CHECK(cond)                                                           \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

#ifdef NDEBUG
#define TIDEPOOL_DCHECK(cond) \
  do {                        \
  } while (0)
#else
#define TIDEPOOL_DCHECK(cond) TIDEPOOL_CHECK(cond)
#endif
