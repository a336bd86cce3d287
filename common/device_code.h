/* device_code.h - code written once for the host and the GPU: functions
 * marked GJ2K_HD compile as ordinary C for the host, and under nvcc also
 * as CUDA device code, so that the CPU build (and CI, without a GPU) tests
 * the very code the GPU runs. GJ2K_DEVICE_BUILD is set while nvcc compiles
 * the device side, where tables must come from device memory. */
#ifndef GJ2K_DEVICE_CODE_H
#define GJ2K_DEVICE_CODE_H

#if defined(__CUDACC__)
#define GJ2K_HD __host__ __device__
#else
#define GJ2K_HD
#endif

#if defined(__CUDA_ARCH__)
#define GJ2K_DEVICE_BUILD 1
#endif

/* Inlined into its callers on both sides. */
#if defined(__CUDACC__)
#define GJ2K_HD_INLINE static __forceinline__ __host__ __device__
#elif defined(__GNUC__)
#define GJ2K_HD_INLINE static inline __attribute__((always_inline))
#else
#define GJ2K_HD_INLINE static inline
#endif

/* A branch rarely taken: its code laid out of the hot path. */
#if defined(__GNUC__) || defined(__CUDACC__)
#define GJ2K_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define GJ2K_UNLIKELY(x) (x)
#endif

/* A function of its own on both sides (the compiler may still inline it);
 * no warning where one side never calls it. */
#if defined(__GNUC__)
#define GJ2K_HD_STATIC static GJ2K_HD __attribute__((unused))
#else
#define GJ2K_HD_STATIC static GJ2K_HD
#endif

/* Kept out of line on the host, where inlining it costs the caller more
 * (measured: scripts/callgrind_codec.sh); the GPU side decides itself. */
#if defined(__CUDA_ARCH__) || !defined(__GNUC__)
#define GJ2K_HOST_NOINLINE
#else
#define GJ2K_HOST_NOINLINE __attribute__((noinline))
#endif

#endif
