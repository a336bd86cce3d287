/* large_buffer.c - see large_buffer.h. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, beside the build's _POSIX_C_SOURCE */
#include "large_buffer.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

void large_buffer_advise(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p == NULL || bytes < 2 * HUGE_PAGE)
        return;
    /* glibc maps such a block afresh (untouched): advise its aligned
       interior, the edges stay in small pages */
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

void *large_buffer_calloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p != NULL)
        large_buffer_advise(p, count * size); /* calloc checked the product */
    return p;
}
