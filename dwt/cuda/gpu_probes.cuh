/* gpu_probes.cuh - what `gj2k bench` and the GPU tests ask of the stage
 * beside its work: pinned host memory measured, the device's copy
 * bandwidth, buffers poisoned. Included by gpu_stage.cu. */
#ifndef GJ2K_GPU_PROBES_CUH
#define GJ2K_GPU_PROBES_CUH

static double milliseconds_since(const timespec &start)
{
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start.tv_sec) * 1e3 + (double)(now.tv_nsec - start.tv_nsec) * 1e-6;
}

/* Device buffers of at least `bytes` bytes each (work[0], work[1]): the
 * probes' own size, which the device may not afford. */
static gj2k_status reserve_bytes(gpu_stage *g, size_t bytes, gj2k_error *error)
{
    gj2k_status status = ensure_capacity(g, (bytes + 3) / 4, error);
    if (status == GJ2K_OK && g->capacity * 4 < bytes)
        return device_fail(error, cudaErrorMemoryAllocation, "probe buffers");
    return status;
}

/* The best of three wall-clock runs of `once` (returning a cudaError_t),
 * as GB/s for `bytes` moved; stops at the first error. */
template <typename Once>
static cudaError_t best_of_three(size_t bytes, double *gbps, Once once)
{
    double best = 1e30;
    cudaError_t e = cudaSuccess;
    for (int repeat = 0; repeat < 3 && e == cudaSuccess; repeat++) {
        timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        e = once();
        double ms = milliseconds_since(start);
        best = ms < best ? ms : best;
    }
    *gbps = (double)bytes / (best * 1e6);
    return e;
}

/* The best of three uploads of `bytes` from `source`, in GB/s. */
static cudaError_t upload_rate(gpu_stage *g, const void *source, size_t bytes, double *gbps)
{
    return best_of_three(bytes, gbps, [&] {
        cudaError_t e = cudaMemcpyAsync(g->work[0], source, bytes, cudaMemcpyHostToDevice, g->stream);
        return e == cudaSuccess ? cudaStreamSynchronize(g->stream) : e;
    });
}

extern "C" gj2k_status gpu_stage_probe_pinned(gpu_stage *g, size_t bytes, gpu_pinned_probe *probe,
                                              gj2k_error *error)
{
    *probe = gpu_pinned_probe{};
    GPU_USE_DEVICE(g->device);
    gj2k_status status = reserve_bytes(g, bytes, error);
    if (status != GJ2K_OK)
        return status;
    void *pinned = nullptr, *pageable = std::malloc(bytes);
    if (pageable == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the probe");
    std::memset(pageable, 1, bytes);
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    cudaError_t e = cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault);
    probe->allocate_ms = milliseconds_since(start);
    if (e == cudaSuccess) {
        std::memset(pinned, 1, bytes);
        e = upload_rate(g, pinned, bytes, &probe->pinned_gbps);
        if (e == cudaSuccess)
            e = upload_rate(g, pageable, bytes, &probe->pageable_gbps);
        if (e == cudaSuccess)
            best_of_three(bytes, &probe->memcpy_gbps, [&] {
                std::memcpy(pinned, pageable, bytes);
                return cudaSuccess;
            });
        cudaFreeHost(pinned);
    }
    if (e == cudaSuccess) {
        clock_gettime(CLOCK_MONOTONIC, &start);
        e = cudaHostRegister(pageable, bytes, cudaHostRegisterDefault);
        probe->register_ms = milliseconds_since(start);
        if (e == cudaSuccess) {
            e = upload_rate(g, pageable, bytes, &probe->registered_gbps);
            cudaHostUnregister(pageable);
        }
    }
    std::free(pageable);
    if (e != cudaSuccess)
        return device_fail(error, e, "pinned memory probe");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_stage_copy_bandwidth(gpu_stage *g, size_t bytes, double *gbps,
                                                gj2k_error *error)
{
    GPU_USE_DEVICE(g->device);
    gj2k_status status = reserve_bytes(g, bytes, error);
    if (status != GJ2K_OK)
        return status;
    cudaEvent_t start = nullptr, stop = nullptr;
    GPU_CHECK(cudaEventCreate(&start), "event");
    cudaError_t e = cudaEventCreate(&stop);
    float best = 1e30f;
    for (int repeat = 0; repeat < 5 && e == cudaSuccess; repeat++) {
        cudaEventRecord(start, g->stream);
        e = cudaMemcpyAsync(g->work[0], g->work[1], bytes, cudaMemcpyDeviceToDevice, g->stream);
        cudaEventRecord(stop, g->stream);
        float ms = 0.0f;
        if (e == cudaSuccess)
            e = cudaEventSynchronize(stop);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, start, stop);
        best = ms < best ? ms : best;
    }
    cudaEventDestroy(start);
    if (stop != nullptr)
        cudaEventDestroy(stop);
    if (e != cudaSuccess)
        return device_fail(error, e, "copy bandwidth");
    *gbps = 2.0 * (double)bytes / ((double)best * 1e6);
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_stage_poison(gpu_stage *g, gj2k_error *error)
{
    GPU_USE_DEVICE(g->device);
    size_t bytes = g->capacity * 4;
    for (int i = 0; i < 3 && bytes > 0; i++) {
        GPU_CHECK(cudaMemsetAsync(g->planes[i], 0xFF, bytes, g->stream), "poison");
        GPU_CHECK(cudaMemsetAsync(g->work[i], 0xFF, bytes, g->stream), "poison");
    }
    for (int i = 0; i < 2 && bytes > 0; i++) {
        GPU_CHECK(cudaMemsetAsync(g->values[i], 0xFF, bytes, g->stream), "poison");
        GPU_CHECK(cudaMemsetAsync(g->fractions[i], 0xFF, g->capacity, g->stream), "poison");
    }
    GPU_CHECK(cudaStreamSynchronize(g->stream), "poison");
    return GJ2K_OK;
}

#endif
