/* gpu_staging.cuh - part of gpu_stage.cu's translation unit (included
 * there, after the stage and its timed phases): a decoded plane's samples
 * down to pageable host memory through pinned chunks of the stage's own. */
#ifndef GJ2K_GPU_STAGING_CUH
#define GJ2K_GPU_STAGING_CUH

/* Through two pinned chunks of the stage's own (made at its first large
 * download, kept till the stage closes): the copy engine fills one chunk
 * while this thread copies the other out. A download into pageable memory
 * goes through the driver's staging instead, which the workers sharing a
 * GPU take in turn: 16 workers on one H100 spent 9-11 s in the copies of
 * 200 photos (docs/gpu-notes.md, tenth session). Registering the planes
 * for the copy cost more than it saved (measured there, reverted).
 * Downloads under kStagedLeast go as they are. */
constexpr size_t kStagingChunk = (size_t)4 << 20;
constexpr size_t kStagedLeast = (size_t)1 << 20;

static cudaError_t staged_download(gpu_stage *g, void *to, const void *from, size_t bytes)
{
    size_t chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
    auto chunk_bytes = [&](size_t k) { return std::min(kStagingChunk, bytes - k * kStagingChunk); };
    auto buffer = [&](size_t k) { return (uint8_t *)g->staging + (k & 1) * kStagingChunk; };
    cudaError_t e = cudaSuccess;
    phase_begin(g, GPU_PHASE_COPIES, g->copies);
    /* chunk k comes down while chunk k - 1 is copied out of the other buffer */
    for (size_t k = 0; k <= chunks && e == cudaSuccess; k++) {
        if (k < chunks) {
            e = cudaMemcpyAsync(buffer(k), (const uint8_t *)from + k * kStagingChunk,
                                chunk_bytes(k), cudaMemcpyDeviceToHost, g->copies);
            if (e == cudaSuccess)
                e = cudaEventRecord(g->staged[k & 1], g->copies);
            if (k + 1 == chunks)
                phase_end(g, g->copies);
        }
        if (k > 0 && e == cudaSuccess)
            e = cudaEventSynchronize(g->staged[(k - 1) & 1]);
        if (k > 0 && e == cudaSuccess)
            std::memcpy((uint8_t *)to + (k - 1) * kStagingChunk, buffer(k - 1), chunk_bytes(k - 1));
    }
    return e;
}

#endif
