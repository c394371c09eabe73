// Counting allocator for the benchmark. glibc (2.34 and later) has no malloc hooks; defining
// malloc and friends in the executable interposes them for the whole process, and glibc exports
// __libc_malloc and friends to forward to.
#include "alloc_count.h"

#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic uint64_t allocations;

uint64_t jolt_alloc_count(void) { return atomic_load(&allocations); }

void *malloc(size_t n) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_realloc(p, n);
}

void free(void *p) { __libc_free(p); }

int posix_memalign(void **out, size_t alignment, size_t n) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    void *p = __libc_memalign(alignment, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t n) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_memalign(alignment, n);
}

void *memalign(size_t alignment, size_t n) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_memalign(alignment, n);
}
