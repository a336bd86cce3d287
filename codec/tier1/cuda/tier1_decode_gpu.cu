/* tier1_decode_gpu.cu - see tier1_gpu.h. One thread a code-block runs
 * tier1_decode_block.h's decoder (ht_decode_block.h's for HT blocks, T.814), its flags and magnitudes in global
 * scratch (in shared memory, the flags measured slower: fewer blocks fit
 * an SM; docs/gpu-notes.md); the tables it reads are device copies made
 * from the host's initializers (tier1_tables.h). The outputs come back, or a second kernel
 * dequantizes them into a tile's planes in device memory (dequantize.h,
 * one CUDA block a code-block). Every CUDA call and launch is checked;
 * failures become GJ2K_ERROR_DEVICE. */
#include <cstring>
#include <new>

#include "tier1_gpu_common.cuh"
#include "dequantize.h"
#include "ht_decode_block.h"
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
                              uint32_t *scratch, const ht_lookup *ht,
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
    gj2k_status status;
    if (b.style & TIER1_STYLE_HT) { /* its scratch in the flags' room (4 (w + 2) (h + 2) bytes) */
        status = ht_decode_block_in(&request, ht, coefficients + b.output_offset, b.width,
                                    lowest + b.output_offset, (uint8_t *)flags, &result);
    } else {
        tier1_block_decoder_state *decoder =
            (tier1_block_decoder_state *)shared + tier1_cuda::state_slot(lanes);
        status = tier1_decode_block_in(&request, decoder, flags, magnitudes,
                                       coefficients + b.output_offset, b.width,
                                       lowest + b.output_offset, &result);
    }
    results[i].status = status;
    results[i].passes_decoded = result.passes_decoded;
    results[i].segmentation_errors = result.segmentation_errors;
}

/* Each decoded block's coefficients dequantized into its place in the
 * planes (E.1.1.2, H.2): CUDA block i places code-block i, its threads
 * along the rows. Refused blocks leave the planes alone. */
__global__ void place_blocks(const DeviceBlock *blocks, const tier1_gpu_placement *placements,
                             const tier1_gpu_result *results, const int32_t *coefficients,
                             const uint8_t *lowest, int32_t *const *sets)
{
    uint32_t i = blockIdx.x;
    if (!blocks[i].run)
        return;
    gj2k_status status = results[i].status;
    if (status == GJ2K_ERROR_INVALID_ARGUMENT || status == GJ2K_ERROR_UNSUPPORTED)
        return;
    const uint32_t width = blocks[i].block.width, height = blocks[i].block.height;
    const uint64_t from = blocks[i].block.output_offset;
    const tier1_gpu_placement at = placements[i];
    int32_t *planes = sets[at.set];
    for (uint32_t k = threadIdx.x; k < width * height; k += blockDim.x) {
        uint32_t y = k / width, x = k - y * width;
        int32_t q = coefficients[from + k];
        uint64_t magnitude = q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
        uint64_t halves = dequantize_halves(magnitude, lowest[from + k], at.roi_shift);
        planes[at.origin + (uint64_t)y * at.stride + x] = q < 0 ? -(int32_t)halves
                                                                : (int32_t)halves;
    }
}

constexpr unsigned kPlaceThreads = 128;

} // namespace

struct tier1_gpu_planes {
    int32_t *data = nullptr;
    size_t samples = 0;
    int device = 0;       /* its decoder's */
    stream_memory memory; /* its decoder's pool and stream, which outlive it */
};

struct tier1_gpu {
    cudaStream_t stream = nullptr;
    int device = 0;
    stream_memory memory = {}; /* the buffers' (before them: freed after them) */
    uint64_t decoded = 0; /* blocks run */
    unsigned lanes = tier1_cuda::kDefaultLanes;
    Buffer data, segments, blocks, scratch, coefficients, lowest, results, placements, sets;
    Buffer ht; /* the HT decoder's look-up tables, uploaded with the first HT block */
    /* the batches' copies' host side (stream_memory.cuh); not the tables' or planes_copy's */
    pinned_staging staging;
};

extern "C" gj2k_status tier1_gpu_create(unsigned device, tier1_gpu **out, gj2k_error *error)
{
    return tier1_cuda::create_coder(device, 0, out, error);
}

extern "C" gj2k_status tier1_gpu_create_ranked(unsigned device, unsigned rank, tier1_gpu **out,
                                               gj2k_error *error)
{
    return tier1_cuda::create_coder(device, rank, out, error);
}

extern "C" void tier1_gpu_set_lanes(tier1_gpu *gpu, unsigned lanes)
{
    gpu->lanes = tier1_cuda::valid_lanes(lanes);
}

extern "C" uint64_t tier1_gpu_blocks(const tier1_gpu *gpu) { return gpu ? gpu->decoded : 0; }

extern "C" void tier1_gpu_destroy(tier1_gpu *gpu) { tier1_cuda::destroy_coder(gpu); }

/* What tier1_decode_block checks before it decodes, and what the batch
 * must hold for the block; its status when refused, else GJ2K_OK. With
 * `samples` 0 the outputs are the batch's own (placed), not the caller's. */
static gj2k_status check_block(const tier1_gpu_block *b, size_t data_size, size_t num_segments,
                               size_t samples)
{
    /* HT blocks (T.814): the Part 1 style bits besides it are the decoder's to judge */
    unsigned style = (b->style & TIER1_STYLE_HT) ? 0u : b->style;
    if (!tier1_block_is_valid(b->width, b->height, (dwt_band)b->band, style) ||
        (uint64_t)b->first_segment + b->num_segments > num_segments ||
        b->data_offset > data_size || b->size > data_size - b->data_offset ||
        (samples != 0 && (b->output_offset > samples ||
                          (uint64_t)b->width * b->height > samples - b->output_offset)))
        return GJ2K_ERROR_INVALID_ARGUMENT;
    if (b->num_planes > TIER1_MAX_PLANES)
        return GJ2K_ERROR_UNSUPPORTED;
    return GJ2K_OK;
}

/* Whether a block of width x height at `p` lies inside its planes. */
static bool placement_fits(const tier1_gpu_block *b, const tier1_gpu_placement *p,
                           tier1_gpu_planes *const *sets, size_t num_sets)
{
    if (p->set >= num_sets || sets[p->set] == nullptr)
        return false;
    size_t samples = sets[p->set]->samples;
    if (b->width > p->stride || p->origin > samples || p->stride > samples)
        return false;
    uint64_t last_row = p->origin + (uint64_t)(b->height - 1) * p->stride; /* height >= 1 */
    return last_row <= samples && b->width <= samples - last_row;
}

/* A batch as the kernels see it: each block checked (refusals in results),
 * its scratch and, when `placed`, its outputs in the batch's own buffers. */
struct Batch {
    DeviceBlock *blocks = nullptr;
    uint64_t scratch = 0;  /* elements of flags and magnitudes */
    uint64_t samples = 0;  /* output elements */
    bool ht = false;       /* some block to run is HT */
    ~Batch() { delete[] blocks; }
};

static gj2k_status describe_batch(tier1_gpu *gpu, const tier1_gpu_block *blocks, size_t count,
                                  size_t data_size, size_t num_segments, size_t samples,
                                  const tier1_gpu_placement *placements,
                                  tier1_gpu_planes *const *sets, size_t num_sets,
                                  tier1_gpu_result *results, Batch *batch, gj2k_error *error)
{
    if (count > UINT32_MAX / 2)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "GPU Tier-1: %zu blocks in one batch", count);
    batch->blocks = new (std::nothrow) DeviceBlock[count];
    if (batch->blocks == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    batch->samples = samples;
    for (size_t i = 0; i < count; i++) {
        DeviceBlock *d = &batch->blocks[i];
        d->block = blocks[i];
        d->scratch_offset = batch->scratch;
        gj2k_status refused = check_block(&blocks[i], data_size, num_segments,
                                          placements ? 0 : samples);
        if (refused == GJ2K_OK && placements != nullptr &&
            !placement_fits(&blocks[i], &placements[i], sets, num_sets))
            refused = GJ2K_ERROR_INVALID_ARGUMENT;
        d->run = refused == GJ2K_OK;
        gpu->decoded += d->run;
        results[i] = tier1_gpu_result{refused, 0, 0};
        if (!d->run)
            continue;
        batch->ht |= (blocks[i].style & TIER1_STYLE_HT) != 0;
        uint64_t area = (uint64_t)blocks[i].width * blocks[i].height;
        batch->scratch += (uint64_t)(blocks[i].width + 2) * (blocks[i].height + 2) + area;
        if (placements != nullptr) {
            d->block.output_offset = batch->samples;
            batch->samples += area;
        }
    }
    return GJ2K_OK;
}

/* Reserves the batch's buffers and queues the uploads of its bytes,
 * segments, blocks and results (the refusals) and the decoding kernel;
 * `what` says which failed. */
static cudaError_t queue_decoding(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                                  const tier1_segment *segments, size_t num_segments,
                                  const Batch &batch, size_t count,
                                  const tier1_gpu_result *results, const char **what)
{
    cudaStream_t s = gpu->stream;
    cudaError_t e;
    *what = "allocation";
    if ((e = gpu->data.reserve(gpu->memory, data_size)) != cudaSuccess ||
        (e = gpu->segments.reserve(gpu->memory, num_segments * sizeof(tier1_segment))) != cudaSuccess ||
        (e = gpu->blocks.reserve(gpu->memory, count * sizeof(DeviceBlock))) != cudaSuccess ||
        (e = gpu->scratch.reserve(gpu->memory, batch.scratch * sizeof(uint32_t))) != cudaSuccess ||
        (e = gpu->coefficients.reserve(gpu->memory, batch.samples * sizeof(int32_t))) != cudaSuccess ||
        (e = gpu->lowest.reserve(gpu->memory, batch.samples)) != cudaSuccess ||
        (e = gpu->results.reserve(gpu->memory, count * sizeof(tier1_gpu_result))) != cudaSuccess)
        return e;
    if (batch.ht && gpu->ht.data == nullptr) {
        ht_lookup host; /* copied before it goes out of scope: synchronized below */
        ht_lookup_build(&host);
        if ((e = gpu->ht.reserve(gpu->memory, sizeof host)) != cudaSuccess)
            return e;
        *what = "upload";
        if ((e = cudaMemcpyAsync(gpu->ht.data, &host, sizeof host, cudaMemcpyHostToDevice, s)) !=
                cudaSuccess ||
            (e = cudaStreamSynchronize(s)) != cudaSuccess)
            return e;
    }
    *what = "upload";
    pinned_staging *staging = &gpu->staging;
    if ((e = pinned_staging_upload(staging, gpu->data.data, data, data_size, s)) != cudaSuccess ||
        (e = pinned_staging_upload(staging, gpu->segments.data, segments,
                                   num_segments * sizeof(tier1_segment), s)) != cudaSuccess ||
        (e = pinned_staging_upload(staging, gpu->blocks.data, batch.blocks,
                                   count * sizeof(DeviceBlock), s)) != cudaSuccess ||
        /* the refusals made here: the kernel writes only the blocks it runs */
        (e = pinned_staging_upload(staging, gpu->results.data, results,
                                   count * sizeof(tier1_gpu_result), s)) != cudaSuccess)
        return e;
    *what = "kernel";
    decode_blocks<<<tier1_cuda::grid_for(count, gpu->lanes), kThreads,
                    tier1_cuda::shared_bytes(gpu->lanes, sizeof(tier1_block_decoder_state)), s>>>(
        gpu->data.as<const uint8_t>(), gpu->segments.as<const tier1_segment>(),
        gpu->blocks.as<const DeviceBlock>(), (uint32_t)count, gpu->lanes,
        gpu->scratch.as<uint32_t>(), gpu->ht.as<const ht_lookup>(),
        gpu->coefficients.as<int32_t>(), gpu->lowest.as<uint8_t>(),
        gpu->results.as<tier1_gpu_result>());
    return cudaGetLastError();
}

/* After a failure: the stream drained, the error recorded. */
static gj2k_status decoding_failed(tier1_gpu *gpu, cudaError_t e, const char *what,
                                   gj2k_error *error)
{
    cudaStreamSynchronize(gpu->stream);
    return device_fail(error, e, what);
}

extern "C" gj2k_status tier1_gpu_decode(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                                        const tier1_segment *segments, size_t num_segments,
                                        const tier1_gpu_block *blocks, size_t count,
                                        int32_t *coefficients, uint8_t *lowest, size_t samples,
                                        tier1_gpu_result *results, gj2k_error *error)
{
    if (count == 0)
        return GJ2K_OK;
    TIER1_USE_DEVICE(gpu->device);
    Batch batch;
    gj2k_status status = describe_batch(gpu, blocks, count, data_size, num_segments, samples,
                                        nullptr, nullptr, 0, results, &batch, error);
    if (status != GJ2K_OK)
        return status;
    cudaStream_t s = gpu->stream;
    const char *what = "allocation";
    /* outputs start as the caller's: blocks left alone keep their values */
    cudaError_t e = gpu->coefficients.reserve(gpu->memory, samples * sizeof(int32_t));
    if (e == cudaSuccess)
        e = gpu->lowest.reserve(gpu->memory, samples);
    if (e == cudaSuccess) {
        what = "upload";
        if ((e = pinned_staging_upload(&gpu->staging, gpu->coefficients.data, coefficients,
                                       samples * sizeof(int32_t), s)) == cudaSuccess &&
            (e = pinned_staging_upload(&gpu->staging, gpu->lowest.data, lowest, samples, s)) ==
                cudaSuccess)
            e = queue_decoding(gpu, data, data_size, segments, num_segments, batch, count, results,
                               &what);
    }
    if (e == cudaSuccess) {
        what = "download";
        if ((e = pinned_staging_download(&gpu->staging, coefficients, gpu->coefficients.data,
                                         samples * sizeof(int32_t), s)) == cudaSuccess &&
            (e = pinned_staging_download(&gpu->staging, lowest, gpu->lowest.data, samples, s)) ==
                cudaSuccess &&
            (e = pinned_staging_download(&gpu->staging, results, gpu->results.data,
                                         count * sizeof(tier1_gpu_result), s)) == cudaSuccess)
            e = cudaStreamSynchronize(s);
    }
    return e == cudaSuccess ? GJ2K_OK : decoding_failed(gpu, e, what, error);
}

extern "C" gj2k_status tier1_gpu_decode_placed(tier1_gpu *gpu, const uint8_t *data,
                                               size_t data_size, const tier1_segment *segments,
                                               size_t num_segments, const tier1_gpu_block *blocks,
                                               size_t count,
                                               const tier1_gpu_placement *placements,
                                               tier1_gpu_planes *const *sets, size_t num_sets,
                                               tier1_gpu_result *results, gj2k_error *error)
{
    if (count == 0)
        return GJ2K_OK;
    TIER1_USE_DEVICE(gpu->device);
    Batch batch;
    gj2k_status status = describe_batch(gpu, blocks, count, data_size, num_segments, 0,
                                        placements, sets, num_sets, results, &batch, error);
    if (status != GJ2K_OK)
        return status;
    int32_t **pointers = new (std::nothrow) int32_t *[num_sets ? num_sets : 1];
    if (pointers == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; k < num_sets; k++)
        pointers[k] = sets[k] != nullptr ? sets[k]->data : nullptr;
    cudaStream_t s = gpu->stream;
    const char *what = "allocation";
    cudaError_t e = gpu->placements.reserve(gpu->memory, count * sizeof(tier1_gpu_placement));
    if (e == cudaSuccess)
        e = gpu->sets.reserve(gpu->memory, (num_sets ? num_sets : 1) * sizeof(int32_t *));
    if (e == cudaSuccess) {
        what = "upload";
        if ((e = pinned_staging_upload(&gpu->staging, gpu->placements.data, placements,
                                       count * sizeof(tier1_gpu_placement), s)) == cudaSuccess &&
            (e = pinned_staging_upload(&gpu->staging, gpu->sets.data, pointers,
                                       num_sets * sizeof(int32_t *), s)) == cudaSuccess)
            e = queue_decoding(gpu, data, data_size, segments, num_segments, batch, count, results,
                               &what);
    }
    if (e == cudaSuccess) {
        what = "placing";
        place_blocks<<<(unsigned)count, kPlaceThreads, 0, s>>>(
            gpu->blocks.as<const DeviceBlock>(), gpu->placements.as<const tier1_gpu_placement>(),
            gpu->results.as<const tier1_gpu_result>(), gpu->coefficients.as<const int32_t>(),
            gpu->lowest.as<const uint8_t>(), gpu->sets.as<int32_t *const>());
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        what = "download";
        if ((e = pinned_staging_download(&gpu->staging, results, gpu->results.data,
                                         count * sizeof(tier1_gpu_result), s)) == cudaSuccess)
            e = cudaStreamSynchronize(s);
    }
    gj2k_status done = e == cudaSuccess ? GJ2K_OK : decoding_failed(gpu, e, what, error);
    delete[] pointers; /* after the synchronization: its upload is done */
    return done;
}

/* ------------------------------------------------------------- planes */

extern "C" gj2k_status tier1_gpu_planes_create(tier1_gpu *gpu, size_t samples,
                                               tier1_gpu_planes **out, gj2k_error *error)
{
    *out = nullptr; /* on the decoder's device, from its pool: no wait for the device */
    TIER1_USE_DEVICE(gpu->device);
    tier1_gpu_planes *planes = new (std::nothrow) tier1_gpu_planes;
    if (planes == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    planes->device = gpu->device;
    planes->memory = gpu->memory;
    size_t bytes = (samples ? samples : 1) * sizeof(int32_t);
    cudaError_t e = stream_memory_alloc(&planes->memory, (void **)&planes->data, bytes);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(planes->data, 0, bytes, gpu->stream);
    if (e == cudaSuccess) /* ready for any stream */
        e = cudaStreamSynchronize(gpu->stream);
    if (e != cudaSuccess) {
        tier1_gpu_planes_destroy(planes);
        return device_fail(error, e, "planes");
    }
    planes->samples = samples;
    *out = planes;
    return GJ2K_OK;
}

extern "C" void tier1_gpu_planes_destroy(tier1_gpu_planes *planes)
{
    if (planes == nullptr)
        return;
    cudaSetDevice(planes->device);
    stream_memory_free(&planes->memory, planes->data); /* every use is complete */
    delete planes;
    cudaGetLastError();
}

extern "C" int32_t *tier1_gpu_planes_data(const tier1_gpu_planes *planes)
{
    return planes ? planes->data : nullptr;
}

/* `count` elements at `offset` to the host (`host` written) or from it. */
static gj2k_status planes_copy(tier1_gpu_planes *planes, size_t offset, size_t count, void *host,
                               bool to_host, gj2k_error *error)
{
    if (offset > planes->samples || count > planes->samples - offset)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "GPU Tier-1: %zu elements at %zu outside planes of %zu", count, offset,
                         planes->samples);
    TIER1_USE_DEVICE(planes->device);
    size_t bytes = count * sizeof(int32_t);
    int32_t *device = planes->data + offset;
    cudaError_t e = count == 0 ? cudaSuccess
                    : to_host  ? cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost)
                               : cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? GJ2K_OK : device_fail(error, e, "planes copy");
}

extern "C" gj2k_status tier1_gpu_planes_fetch(tier1_gpu_planes *planes, size_t offset,
                                              size_t count, int32_t *to, gj2k_error *error)
{
    return planes_copy(planes, offset, count, to, true, error);
}

extern "C" gj2k_status tier1_gpu_planes_put(tier1_gpu_planes *planes, size_t offset,
                                            size_t count, const int32_t *from, gj2k_error *error)
{
    return planes_copy(planes, offset, count, const_cast<int32_t *>(from), false, error);
}
