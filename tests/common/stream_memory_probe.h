/* stream_memory_probe.h - common/stream_memory.cuh (the page-locked halves
 * a coder's copies go through, ranked streams) behind a plain C interface,
 * for test_stream_memory.c. Each returns false with `why` filled when what
 * it checks does not hold or a CUDA call fails. */
#ifndef GJ2K_TESTS_STREAM_MEMORY_PROBE_H
#define GJ2K_TESTS_STREAM_MEMORY_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether CUDA sees a GPU. */
bool stream_memory_probe_has_gpu(void);

/* Each of sizes[0..count) bytes of random data (from `seed`) up to a
 * poisoned device buffer and back to a poisoned host one through one
 * pinned_staging, the source overwritten as soon as the upload returns;
 * the download on a second stream (ordered by an event) with two_streams;
 * the staging released and made again between sizes with
 * release_between. Checks the bytes, and that nothing past them was
 * written on either side. */
bool stream_memory_round_trip(const size_t *sizes, size_t count, uint64_t seed, bool two_streams,
                              bool release_between, char *why, size_t why_size);

/* stream_create_ranked for ranks 0..ranks-1: rank 0 at the device's
 * default priority, rank r at r levels above it, round the levels. */
bool stream_memory_ranked_priorities(unsigned ranks, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
