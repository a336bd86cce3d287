/* vector_clones.h - GJ2K_VECTOR_CLONES marks a hot loop's function to be
 * compiled twice, for the baseline x86-64 (SSE2) and for AVX2, the better
 * one picked once at load time (GCC's target_clones, an ifunc): the
 * compiler vectorises each from the same C, so both compute the same bits
 * (integer code exactly; float code without FMA or reassociation, as the
 * build's -ffp-contract=off and no -ffast-math keep it). Elsewhere (other
 * CPUs, Clang, whose version 14 links external clones wrongly, nvcc,
 * GJ2K_NO_VECTOR_CLONES) it is nothing: one ordinary copy. */
#ifndef GJ2K_VECTOR_CLONES_H
#define GJ2K_VECTOR_CLONES_H

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__CUDACC__) && !defined(GJ2K_NO_VECTOR_CLONES)
#define GJ2K_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GJ2K_VECTOR_CLONES
#endif

#endif
