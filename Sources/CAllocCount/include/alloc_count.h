// Counts heap allocations in the process, for the benchmark's "no allocation per sample" check.
// The benchmark binary links this in: its malloc, calloc, realloc, posix_memalign and
// aligned_alloc count each call and hand it to glibc's own (__libc_malloc and friends).
#ifndef JOLT_ALLOC_COUNT_H
#define JOLT_ALLOC_COUNT_H

#include <stdint.h>

/// Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) so far.
uint64_t jolt_alloc_count(void);

#endif
