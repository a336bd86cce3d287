/* tier1_decode_gpu.cu - see tier1_gpu.h. One thread a code-block runs
 * tier1_decode_block.h's decoder, its flags and magnitudes in global
 * scratch; the tables it reads are device copies made from the host's
 * initializers (tier1_tables.h). Every CUDA call and launch is checked;
 * failures become GJ2K_ERROR_DEVICE. */
#include <cstring>
#include <new>

#include "tier1_gpu_common.cuh"
#include "tier1_decode_block.h"
#include "tier1_gpu.h"

namespace {

using tier1_cuda::Buffer;
using tier1_cuda::device_fail;
using tier1_cuda::kThreads;

/* A block as the kernel sees it: the host's, plus its scratch. */
struct DeviceBlock {
    tier1_gpu_block block;
    uint64_t scratch_offset; /* flags, then magnitudes */
    uint32_t run;            /* 0: refused on the host, leave it */
};

__global__ void decode_blocks(const uint8_t *data, const tier1_segment *segments,
                              const DeviceBlock *blocks, uint32_t count, uint32_t lanes,
                              uint32_t *scratch,
                              int32_t *coefficients, uint8_t *lowest, tier1_gpu_result *results)
{
    /* the decoder's state, its contexts indexed by symbol: shared memory */
    extern __shared__ __align__(16) unsigned char shared[];
    uint32_t i = tier1_cuda::block_of_thread(blockIdx.x * blockDim.x + threadIdx.x, lanes, count);
    if (i >= count || !blocks[i].run)
        return;
    const tier1_gpu_block b = blocks[i].block;
    tier1_decode_request request;
    request.data = b.size ? data + b.data_offset : NULL;
    request.size = (size_t)b.size;
    request.segments = segments + b.first_segment;
    request.num_segments = b.num_segments;
    request.num_planes = b.num_planes;
    request.width = b.width;
    request.height = b.height;
    request.band = (dwt_band)b.band;
    request.style = b.style;
    uint32_t *flags = scratch + blocks[i].scratch_offset;
    uint32_t *magnitudes = flags + (size_t)(b.width + 2) * (b.height + 2);
    tier1_decode_result result = {0, 0};
    tier1_block_decoder *decoder = (tier1_block_decoder *)shared + tier1_cuda::state_slot(lanes);
    gj2k_status status = tier1_decode_block_in(&request, decoder, flags, magnitudes,
                                               coefficients + b.output_offset, b.width,
                                               lowest + b.output_offset, &result);
    results[i].status = status;
    results[i].passes_decoded = result.passes_decoded;
    results[i].segmentation_errors = result.segmentation_errors;
}

} // namespace

struct tier1_gpu {
    cudaStream_t stream = nullptr;
    uint64_t decoded = 0; /* blocks run */
    unsigned lanes = tier1_cuda::kDefaultLanes;
    Buffer data, segments, blocks, scratch, coefficients, lowest, results;
};

extern "C" gj2k_status tier1_gpu_create(tier1_gpu **out, gj2k_error *error)
{
    return tier1_cuda::create_coder(out, error);
}

extern "C" void tier1_gpu_set_lanes(tier1_gpu *gpu, unsigned lanes)
{
    gpu->lanes = tier1_cuda::valid_lanes(lanes);
}

extern "C" uint64_t tier1_gpu_blocks(const tier1_gpu *gpu) { return gpu ? gpu->decoded : 0; }

extern "C" void tier1_gpu_destroy(tier1_gpu *gpu) { tier1_cuda::destroy_coder(gpu); }

/* What tier1_decode_block checks before it decodes, and what the batch
 * must hold for the block; its status when refused, else GJ2K_OK. */
static gj2k_status check_block(const tier1_gpu_block *b, size_t data_size, size_t num_segments,
                               size_t samples)
{
    if (!tier1_block_is_valid(b->width, b->height, (dwt_band)b->band, b->style) ||
        (uint64_t)b->first_segment + b->num_segments > num_segments ||
        b->data_offset > data_size || b->size > data_size - b->data_offset ||
        b->output_offset > samples ||
        (uint64_t)b->width * b->height > samples - b->output_offset)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    if (b->num_planes > TIER1_MAX_PLANES)
        return GJ2K_ERROR_UNSUPPORTED;
    return GJ2K_OK;
}

extern "C" gj2k_status tier1_gpu_decode(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                                        const tier1_segment *segments, size_t num_segments,
                                        const tier1_gpu_block *blocks, size_t count,
                                        int32_t *coefficients, uint8_t *lowest, size_t samples,
                                        tier1_gpu_result *results, gj2k_error *error)
{
    if (count == 0)
        return GJ2K_OK;
    if (count > UINT32_MAX / 2)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "GPU Tier-1: %zu blocks in one batch", count);
    DeviceBlock *host = new (std::nothrow) DeviceBlock[count];
    if (host == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    uint64_t scratch = 0;
    for (size_t i = 0; i < count; i++) {
        host[i].block = blocks[i];
        host[i].scratch_offset = scratch;
        gj2k_status refused = check_block(&blocks[i], data_size, num_segments, samples);
        host[i].run = refused == GJ2K_OK;
        gpu->decoded += host[i].run;
        results[i] = tier1_gpu_result{refused, 0, 0};
        if (host[i].run)
            scratch += (uint64_t)(blocks[i].width + 2) * (blocks[i].height + 2) +
                       (uint64_t)blocks[i].width * blocks[i].height;
    }
    cudaStream_t s = gpu->stream;
    cudaError_t e = cudaSuccess;
    const char *what = "allocation";
    if ((e = gpu->data.reserve(data_size)) == cudaSuccess &&
        (e = gpu->segments.reserve(num_segments * sizeof(tier1_segment))) == cudaSuccess &&
        (e = gpu->blocks.reserve(count * sizeof(DeviceBlock))) == cudaSuccess &&
        (e = gpu->scratch.reserve(scratch * sizeof(uint32_t))) == cudaSuccess &&
        (e = gpu->coefficients.reserve(samples * sizeof(int32_t))) == cudaSuccess &&
        (e = gpu->lowest.reserve(samples)) == cudaSuccess &&
        (e = gpu->results.reserve(count * sizeof(tier1_gpu_result))) == cudaSuccess) {
        what = "upload";
        /* outputs start as the caller's: blocks left alone keep their values */
        if ((data_size == 0 ||
             (e = cudaMemcpyAsync(gpu->data.data, data, data_size, cudaMemcpyHostToDevice, s)) ==
                 cudaSuccess) &&
            (num_segments == 0 ||
             (e = cudaMemcpyAsync(gpu->segments.data, segments,
                                  num_segments * sizeof(tier1_segment), cudaMemcpyHostToDevice,
                                  s)) == cudaSuccess) &&
            (e = cudaMemcpyAsync(gpu->blocks.data, host, count * sizeof(DeviceBlock),
                                 cudaMemcpyHostToDevice, s)) == cudaSuccess &&
            (e = cudaMemcpyAsync(gpu->coefficients.data, coefficients, samples * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, s)) == cudaSuccess &&
            (e = cudaMemcpyAsync(gpu->lowest.data, lowest, samples, cudaMemcpyHostToDevice, s)) ==
                cudaSuccess &&
            (e = cudaMemcpyAsync(gpu->results.data, results, count * sizeof(tier1_gpu_result),
                                 cudaMemcpyHostToDevice, s)) == cudaSuccess) {
            what = "kernel";
            decode_blocks<<<tier1_cuda::grid_for(count, gpu->lanes), kThreads,
                            tier1_cuda::shared_bytes(gpu->lanes, sizeof(tier1_block_decoder)),
                            s>>>(
                (const uint8_t *)gpu->data.data, (const tier1_segment *)gpu->segments.data,
                (const DeviceBlock *)gpu->blocks.data, (uint32_t)count, gpu->lanes,
                (uint32_t *)gpu->scratch.data, (int32_t *)gpu->coefficients.data,
                (uint8_t *)gpu->lowest.data, (tier1_gpu_result *)gpu->results.data);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess) {
            what = "download";
            if ((e = cudaMemcpyAsync(coefficients, gpu->coefficients.data,
                                     samples * sizeof(int32_t), cudaMemcpyDeviceToHost, s)) ==
                    cudaSuccess &&
                (e = cudaMemcpyAsync(lowest, gpu->lowest.data, samples, cudaMemcpyDeviceToHost,
                                     s)) == cudaSuccess &&
                (e = cudaMemcpyAsync(results, gpu->results.data,
                                     count * sizeof(tier1_gpu_result), cudaMemcpyDeviceToHost,
                                     s)) == cudaSuccess)
                e = cudaStreamSynchronize(s);
        }
    }
    delete[] host;
    if (e != cudaSuccess) {
        cudaStreamSynchronize(s);
        return device_fail(error, e, what);
    }
    return GJ2K_OK;
}
