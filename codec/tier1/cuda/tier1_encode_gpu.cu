/* tier1_encode_gpu.cu - see tier1_gpu.h. One block a warp runs
 * tier1_encode_block.h's encoder (HT blocks, T.814: ht_encode_block.h's
 * cleanup pass at plane 0, their scratch where the flags go): the coefficients become sign-magnitude
 * words in scratch (the input stays, for a block the host must code), the
 * flags and the coder's snapshots live in global scratch, the bytes go to
 * a slot of fixed room per block. A second kernel gathers every block's
 * bytes and passes, back to back in block order, for one download each.
 * Every CUDA call and launch is checked; failures become GJ2K_ERROR_DEVICE. */
#include <cstdlib>
#include <cstring>
#include <new>

#include "tier1_gpu_common.cuh"
#include "ht_encode_block.h"
#include "tier1_encode_block.h"
#include "tier1_gpu.h"

namespace {

using tier1_cuda::Buffer;
using tier1_cuda::device_fail;
using tier1_cuda::kThreads;

constexpr unsigned kDefaultRoom = 4; /* bytes a sample: twice what noise at 16 planes takes */

/* A block as the kernels see it. */
struct DeviceBlock {
    uint64_t input;          /* its first coefficient in the batch */
    uint64_t slot, room;     /* its bytes' slot */
    uint64_t flags;          /* its flags in the scratch */
    uint32_t width, height, band, style;
    uint32_t fractions;      /* 1: its fractions are in the batch's */
    uint32_t run;            /* 0: refused on the host */
};

__global__ void encode_blocks(const DeviceBlock *blocks, uint32_t count, uint32_t lanes,
                              const int32_t *coefficients, uint32_t *words,
                              const uint8_t *fractions, uint8_t *slots, uint32_t *flags,
                              tier1_pass_info *passes, mq_snapshot *snapshots,
                              const ht_encode_tables *ht, tier1_gpu_encoded *results)
{
    /* the encoder's state, its contexts indexed by symbol: shared memory */
    extern __shared__ __align__(16) unsigned char shared[];
    uint32_t i = tier1_cuda::block_of_thread(blockIdx.x * blockDim.x + threadIdx.x, lanes, count);
    if (i >= count)
        return;
    const DeviceBlock d = blocks[i];
    tier1_gpu_encoded r = {GJ2K_OK, 0, 0, 0, 0, 0};
    if (!d.run) { /* refused on the host */
        r.status = GJ2K_ERROR_INVALID_ARGUMENT;
        results[i] = r;
        return;
    }
    if (d.style & TIER1_STYLE_HT) {
        const int32_t *c = coefficients + d.input;
        const uint8_t *f = d.fractions ? fractions + d.input : NULL;
        uint32_t all = 0;
        for (uint32_t k = 0; k < d.width * d.height; k++)
            all |= c[k] < 0 ? 0u - (uint32_t)c[k] : (uint32_t)c[k];
        size_t length = 0;
        if (all >= 1u << 30) {
            r.status = GJ2K_ERROR_LIMIT; /* the host says so too */
        } else if (all != 0) {
            r.status = ht_encode_cleanup_in(c, d.width, d.width, d.height, 0, ht, slots + d.slot,
                                            (size_t)d.room, (uint8_t *)(flags + d.flags), &length);
            if (r.status == GJ2K_OK) {
                tier1_pass_info *p = passes + (size_t)i * TIER1_MAX_PASSES;
                p->length = length;
                p->distortion_reduction = ht_plane0_reduction(c, f, d.width, d.width, d.height);
                p->ends_segment = true;
                r.num_planes = ht_bits_of(all);
                r.num_passes = 1;
                r.size = length;
            }
        }
        results[i] = r;
        return;
    }
    uint32_t *magnitudes = words + d.input;
    bool bad = false;
    unsigned planes = tier1_planes_of(
        tier1_encode_load(coefficients + d.input, d.width, d.width, d.height, magnitudes, &bad));
    if (bad || planes > TIER1_MAX_PLANES) {
        r.status = GJ2K_ERROR_INVALID_ARGUMENT;
    } else if (planes > 0) {
        tier1_block_encoder_state *state =
            (tier1_block_encoder_state *)shared + tier1_cuda::state_slot(lanes);
        tier1_block_encoder *b = &state->block;
        b->mag = magnitudes;
        b->width = d.width;
        b->height = d.height;
        b->zero_context = TIER1_ZERO_CONTEXT[d.band];
        b->causal = (d.style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0;
        b->fractions = d.fractions ? fractions + d.input : NULL;
        b->half_at_zero = d.fractions != 0;
        b->measure = true;
        mq_encoder_begin(&b->mq, state->contexts, slots + d.slot, (size_t)d.room);
        tier1_encode_passes(b, flags + d.flags, planes, d.style,
                            passes + (size_t)i * TIER1_MAX_PASSES,
                            snapshots + (size_t)i * TIER1_MAX_PASSES);
        if (b->mq.out_of_memory) {
            r.status = GJ2K_ERROR_LIMIT;
        } else {
            r.num_planes = planes;
            r.num_passes = 3 * planes - 2;
            r.size = b->mq.length;
        }
    }
    results[i] = r;
}

/* One CUDA block a code-block: its bytes and passes to where the host's
 * offsets put them. */
__global__ void gather_blocks(const DeviceBlock *blocks, const tier1_gpu_encoded *results,
                              const uint8_t *slots, const tier1_pass_info *passes, uint8_t *data,
                              tier1_pass_info *passes_out)
{
    uint32_t i = blockIdx.x;
    const tier1_gpu_encoded r = results[i];
    if (!blocks[i].run || r.status != GJ2K_OK)
        return;
    const uint8_t *from = slots + blocks[i].slot;
    for (uint64_t k = threadIdx.x; k < r.size; k += blockDim.x)
        data[r.data_offset + k] = from[k];
    for (uint32_t k = threadIdx.x; k < r.num_passes; k += blockDim.x)
        passes_out[r.passes_offset + k] = passes[(size_t)i * TIER1_MAX_PASSES + k];
}

} // namespace

struct tier1_gpu_encoder {
    cudaStream_t stream = nullptr;
    int device = 0;
    stream_memory memory = {}; /* the buffers' (before them: freed after them) */
    unsigned room = kDefaultRoom;
    unsigned lanes = tier1_cuda::kDefaultLanes;
    Buffer coefficients, fractions, words, blocks, slots, flags, passes, snapshots, results, data,
        passes_out;
    Buffer ht; /* the HT encoder's CxtVLC tables, uploaded with the first HT block */
    pinned_staging staging; /* the batches' copies' host side (stream_memory.cuh) */
};

extern "C" gj2k_status tier1_gpu_encoder_create(unsigned device, tier1_gpu_encoder **out,
                                                gj2k_error *error)
{
    return tier1_cuda::create_coder(device, 0, out, error);
}

extern "C" gj2k_status tier1_gpu_encoder_create_ranked(unsigned device, unsigned rank,
                                                       tier1_gpu_encoder **out, gj2k_error *error)
{
    return tier1_cuda::create_coder(device, rank, out, error);
}

extern "C" void tier1_gpu_encoder_destroy(tier1_gpu_encoder *gpu) { tier1_cuda::destroy_coder(gpu); }

extern "C" void tier1_gpu_encoder_set_lanes(tier1_gpu_encoder *gpu, unsigned lanes)
{
    gpu->lanes = tier1_cuda::valid_lanes(lanes);
}

extern "C" void tier1_gpu_encoder_set_room(tier1_gpu_encoder *gpu, unsigned bytes_per_sample)
{
    gpu->room = bytes_per_sample ? bytes_per_sample : kDefaultRoom;
}

extern "C" gj2k_status tier1_gpu_encoder_input(tier1_gpu_encoder *gpu, size_t samples,
                                               bool fractions, int32_t **coefficients,
                                               uint8_t **fraction_bytes, gj2k_error *error)
{
    TIER1_USE_DEVICE(gpu->device);
    cudaError_t e = gpu->coefficients.reserve(gpu->memory, samples * sizeof(int32_t));
    if (e == cudaSuccess)
        e = gpu->fractions.reserve(gpu->memory, fractions ? samples : 0);
    if (e != cudaSuccess)
        return device_fail(error, e, "allocation");
    *coefficients = gpu->coefficients.as<int32_t>();
    *fraction_bytes = fractions ? gpu->fractions.as<uint8_t>() : nullptr;
    return GJ2K_OK;
}

/* Copies between the input memory and the host, either way. */
static gj2k_status copy_input(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                              int32_t *host_coefficients, uint8_t *host_fractions, bool down,
                              gj2k_error *error)
{
    if ((offset + count) * sizeof(int32_t) > gpu->coefficients.capacity ||
        (host_fractions != nullptr && offset + count > gpu->fractions.capacity))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "GPU Tier-1: outside the input");
    TIER1_USE_DEVICE(gpu->device);
    int32_t *device = gpu->coefficients.as<int32_t>() + offset;
    uint8_t *device_fractions = gpu->fractions.as<uint8_t>() + offset;
    cudaMemcpyKind kind = down ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    cudaError_t e = cudaMemcpyAsync(down ? (void *)host_coefficients : (void *)device,
                                    down ? (const void *)device : (const void *)host_coefficients,
                                    count * sizeof(int32_t), kind, gpu->stream);
    if (e == cudaSuccess && host_fractions != nullptr)
        e = cudaMemcpyAsync(down ? (void *)host_fractions : (void *)device_fractions,
                            down ? (const void *)device_fractions : (const void *)host_fractions,
                            count, kind, gpu->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(gpu->stream);
    return e == cudaSuccess ? GJ2K_OK : device_fail(error, e, down ? "download" : "upload");
}

extern "C" gj2k_status tier1_gpu_encoder_fetch(tier1_gpu_encoder *gpu, size_t offset,
                                               size_t count, int32_t *coefficients,
                                               uint8_t *fractions, gj2k_error *error)
{
    return copy_input(gpu, offset, count, coefficients, fractions, true, error);
}

extern "C" gj2k_status tier1_gpu_encoder_put(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                                             const int32_t *coefficients,
                                             const uint8_t *fractions, gj2k_error *error)
{
    return copy_input(gpu, offset, count, const_cast<int32_t *>(coefficients),
                      const_cast<uint8_t *>(fractions), false, error);
}

/* The host's side of a batch: the blocks as the kernels see them, the
 * spans' places in the batch and the scratch each needs. */
struct batch_plan {
    DeviceBlock *blocks = nullptr;
    uint64_t *span_base = nullptr;
    uint64_t samples = 0, slots = 0, flags = 0;
    bool fractions = false, ht = false;
    ~batch_plan()
    {
        delete[] blocks;
        delete[] span_base;
    }
};

static gj2k_status plan_batch(const tier1_gpu_encoder *gpu, const tier1_gpu_span *spans,
                              size_t num_spans, const tier1_gpu_encode_block *blocks, size_t count,
                              tier1_gpu_encoded *results, batch_plan *plan)
{
    plan->blocks = new (std::nothrow) DeviceBlock[count];
    plan->span_base = new (std::nothrow) uint64_t[num_spans ? num_spans : 1];
    if (plan->blocks == nullptr || plan->span_base == nullptr)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    for (size_t s = 0; s < num_spans; s++) {
        plan->span_base[s] = plan->samples;
        plan->samples += spans[s].samples;
        plan->fractions = plan->fractions || (spans[s].resident ? spans[s].resident_fractions
                                                                : spans[s].fractions != nullptr);
    }
    for (size_t i = 0; i < count; i++) {
        const tier1_gpu_encode_block *k = &blocks[i];
        uint64_t area = (uint64_t)k->width * k->height;
        /* HT blocks (T.814): of the Part 1 bits only vertically causal may join */
        bool ht = (k->style & TIER1_STYLE_HT) != 0;
        unsigned part1 = ht ? k->style & ~(TIER1_STYLE_HT | TIER1_STYLE_VERTICALLY_CAUSAL)
                            : k->style;
        bool run = (!ht || part1 == 0) &&
                   tier1_block_is_valid(k->width, k->height, (dwt_band)k->band, part1) &&
                   k->span < num_spans && k->offset <= spans[k->span].samples &&
                   area <= spans[k->span].samples - k->offset;
        DeviceBlock d = {};
        d.run = run;
        results[i] = tier1_gpu_encoded{run ? GJ2K_OK : GJ2K_ERROR_INVALID_ARGUMENT, 0, 0, 0, 0, 0};
        if (run) {
            d.input = plan->span_base[k->span] + k->offset;
            d.slot = plan->slots;
            d.room = area * gpu->room + TIER1_GPU_ROOM_PER_BLOCK;
            d.flags = plan->flags;
            d.width = k->width;
            d.height = k->height;
            d.band = k->band;
            d.style = k->style;
            d.fractions = spans[k->span].resident ? spans[k->span].resident_fractions
                                                  : spans[k->span].fractions != nullptr;
            plan->slots += d.room;
            plan->flags += ht ? (ht_encode_scratch_bytes(k->width) + 3) / 4
                              : (uint64_t)(k->width + 2) * (k->height + 2);
            plan->ht = plan->ht || ht;
        }
        plan->blocks[i] = d;
    }
    return GJ2K_OK;
}

/* Uploads the spans, encodes, and brings back each block's result. */
static cudaError_t encode_on_device(tier1_gpu_encoder *gpu, const tier1_gpu_span *spans,
                                    size_t num_spans, size_t count, const batch_plan *plan,
                                    tier1_gpu_encoded *results, const char **what)
{
    cudaStream_t s = gpu->stream;
    cudaError_t e;
    *what = "allocation";
    if ((e = gpu->coefficients.reserve(gpu->memory, plan->samples * sizeof(int32_t))) != cudaSuccess ||
        (e = gpu->fractions.reserve(gpu->memory, plan->fractions ? plan->samples : 0)) != cudaSuccess ||
        (e = gpu->words.reserve(gpu->memory, plan->samples * sizeof(uint32_t))) != cudaSuccess ||
        (e = gpu->blocks.reserve(gpu->memory, count * sizeof(DeviceBlock))) != cudaSuccess ||
        (e = gpu->slots.reserve(gpu->memory, plan->slots)) != cudaSuccess ||
        (e = gpu->flags.reserve(gpu->memory, plan->flags * sizeof(uint32_t))) != cudaSuccess ||
        (e = gpu->passes.reserve(gpu->memory, count * TIER1_MAX_PASSES * sizeof(tier1_pass_info))) !=
            cudaSuccess ||
        (e = gpu->snapshots.reserve(gpu->memory, count * TIER1_MAX_PASSES * sizeof(mq_snapshot))) !=
            cudaSuccess ||
        (e = gpu->results.reserve(gpu->memory, count * sizeof(tier1_gpu_encoded))) != cudaSuccess)
        return e;
    if (plan->ht && gpu->ht.data == nullptr) {
        ht_encode_tables *host = new (std::nothrow) ht_encode_tables;
        if (host == nullptr)
            return cudaErrorMemoryAllocation;
        ht_encode_tables_build(host);
        e = gpu->ht.reserve(gpu->memory, sizeof *host);
        *what = "upload";
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(gpu->ht.data, host, sizeof *host, cudaMemcpyHostToDevice, s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s);
        delete host;
        if (e != cudaSuccess)
            return e;
    }
    *what = "upload";
    for (size_t k = 0; k < num_spans; k++) {
        uint64_t base = plan->span_base[k];
        if (spans[k].samples == 0 || spans[k].resident)
            continue;
        e = pinned_staging_upload(&gpu->staging, gpu->coefficients.as<int32_t>() + base,
                                  spans[k].coefficients, spans[k].samples * sizeof(int32_t), s);
        if (e == cudaSuccess && spans[k].fractions != nullptr)
            e = pinned_staging_upload(&gpu->staging, gpu->fractions.as<uint8_t>() + base,
                                      spans[k].fractions, spans[k].samples, s);
        if (e != cudaSuccess)
            return e;
    }
    if ((e = pinned_staging_upload(&gpu->staging, gpu->blocks.data, plan->blocks,
                                   count * sizeof(DeviceBlock), s)) != cudaSuccess)
        return e;
    *what = "kernel";
    encode_blocks<<<tier1_cuda::grid_for(count, gpu->lanes), kThreads,
                    tier1_cuda::shared_bytes(gpu->lanes, sizeof(tier1_block_encoder_state)), s>>>(
        gpu->blocks.as<DeviceBlock>(), (uint32_t)count, gpu->lanes, gpu->coefficients.as<int32_t>(),
        gpu->words.as<uint32_t>(),
        gpu->fractions.as<uint8_t>(), gpu->slots.as<uint8_t>(), gpu->flags.as<uint32_t>(),
        gpu->passes.as<tier1_pass_info>(), gpu->snapshots.as<mq_snapshot>(),
        gpu->ht.as<const ht_encode_tables>(), gpu->results.as<tier1_gpu_encoded>());
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    *what = "download"; /* landed when it returns */
    return pinned_staging_download(&gpu->staging, results, gpu->results.data,
                                   count * sizeof(tier1_gpu_encoded), s);
}

/* Gathers the blocks' bytes and passes at the offsets set in results, and
 * brings them back. */
static cudaError_t gather_on_device(tier1_gpu_encoder *gpu, size_t count,
                                    const tier1_gpu_encoded *results, uint8_t *data,
                                    size_t data_size, tier1_pass_info *passes, size_t num_passes,
                                    const char **what)
{
    cudaStream_t s = gpu->stream;
    cudaError_t e;
    *what = "allocation";
    if ((e = gpu->data.reserve(gpu->memory, data_size)) != cudaSuccess ||
        (e = gpu->passes_out.reserve(gpu->memory, num_passes * sizeof(tier1_pass_info))) != cudaSuccess)
        return e;
    *what = "upload";
    if ((e = pinned_staging_upload(&gpu->staging, gpu->results.data, results,
                                   count * sizeof(tier1_gpu_encoded), s)) != cudaSuccess)
        return e;
    *what = "kernel";
    gather_blocks<<<(unsigned)count, 128, 0, s>>>(
        gpu->blocks.as<DeviceBlock>(), gpu->results.as<tier1_gpu_encoded>(),
        gpu->slots.as<uint8_t>(), gpu->passes.as<tier1_pass_info>(), gpu->data.as<uint8_t>(),
        gpu->passes_out.as<tier1_pass_info>());
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    *what = "download"; /* each landed when it returns */
    if ((e = pinned_staging_download(&gpu->staging, data, gpu->data.data, data_size, s)) !=
        cudaSuccess)
        return e;
    if ((e = pinned_staging_download(&gpu->staging, passes, gpu->passes_out.data,
                                     num_passes * sizeof(tier1_pass_info), s)) != cudaSuccess)
        return e;
    return cudaStreamSynchronize(s); /* the kernel's faults, when nothing came down */
}

extern "C" gj2k_status tier1_gpu_encode(tier1_gpu_encoder *gpu, const tier1_gpu_span *spans,
                                        size_t num_spans, const tier1_gpu_encode_block *blocks,
                                        size_t count, tier1_gpu_encoded *results, uint8_t **data,
                                        size_t *data_size, tier1_pass_info **passes,
                                        size_t *num_passes, gj2k_error *error)
{
    *data = nullptr;
    *passes = nullptr;
    *data_size = *num_passes = 0;
    if (count == 0)
        return GJ2K_OK;
    TIER1_USE_DEVICE(gpu->device);
    if (count > UINT32_MAX / 2)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "GPU Tier-1: %zu blocks in one batch", count);
    batch_plan plan;
    if (plan_batch(gpu, spans, num_spans, blocks, count, results, &plan) != GJ2K_OK)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; k < num_spans; k++)
        if (spans[k].resident &&
            ((plan.span_base[k] + spans[k].samples) * sizeof(int32_t) >
                 gpu->coefficients.capacity ||
             (spans[k].resident_fractions &&
              plan.span_base[k] + spans[k].samples > gpu->fractions.capacity)))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "GPU Tier-1: span %zu lies outside the input memory", k);
    const char *what = "";
    cudaError_t e = encode_on_device(gpu, spans, num_spans, count, &plan, results, &what);
    size_t bytes = 0, total_passes = 0;
    for (size_t i = 0; e == cudaSuccess && i < count; i++) {
        if (results[i].status != GJ2K_OK)
            continue;
        results[i].data_offset = bytes;
        results[i].passes_offset = total_passes;
        bytes += results[i].size;
        total_passes += results[i].num_passes;
    }
    uint8_t *out = nullptr;
    tier1_pass_info *out_passes = nullptr;
    if (e == cudaSuccess && (bytes > 0 || total_passes > 0)) {
        out = (uint8_t *)malloc(bytes ? bytes : 1);
        out_passes = (tier1_pass_info *)malloc((total_passes ? total_passes : 1) *
                                               sizeof(tier1_pass_info));
        if (out == nullptr || out_passes == nullptr) {
            free(out);
            free(out_passes);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        e = gather_on_device(gpu, count, results, out, bytes, out_passes, total_passes, &what);
    }
    if (e != cudaSuccess) {
        cudaStreamSynchronize(gpu->stream);
        free(out);
        free(out_passes);
        return device_fail(error, e, what);
    }
    *data = out;
    *data_size = bytes;
    *passes = out_passes;
    *num_passes = total_passes;
    return GJ2K_OK;
}
