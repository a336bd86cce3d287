/* large_buffer.h - zeroed buffers of whole planes (tens of MiB each), asked
 * for huge pages (Linux transparent huge pages in "madvise" mode): a 4K
 * photo's planes otherwise take some 80,000 page faults, a fifth of a
 * one-thread decode. Freed with free(); the advice is only advice. Measured
 * (docs/gpu-notes.md): decoding a 4K photo 4-23% faster on average, but
 * where memory is fragmented a fault may wait for the kernel to compact it
 * (a run now and then up to 40% slower); the encoder's planes, which gained
 * nothing on average, are left out. */
#ifndef GJ2K_LARGE_BUFFER_H
#define GJ2K_LARGE_BUFFER_H

#include <stddef.h>

/* calloc(count, size), its whole 2 MiB pages (when at least 4 MiB) advised
 * huge (madvise MADV_HUGEPAGE) before first use. */
void *large_buffer_calloc(size_t count, size_t size);
/* Advises the 2 MiB pages wholly inside [p, p + bytes) huge, when that
 * is at least 4 MiB: for memory not yet touched. */
void large_buffer_advise(void *p, size_t bytes);

#endif
