/* tile_blocks_gpu.c - Tier-1 of one or several tiles' code-blocks on the
 * GPU in one batch (tile_planes.h: tile_blocks_decode_on_gpu): their bytes
 * and segments gathered for tier1_gpu.h, then dequantized on the GPU into
 * the planes' device memory, or on the CPU threads into host buffers. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "parallel_pool.h"
#include "tier1_gpu.h"
#include "tile_planes.h"

/* A batch: the blocks to decode (batch block k is block index[k] of set
 * set_of[k]), their bytes and segments copied together, and the outputs. */
typedef struct gpu_batch {
    const tile_block_set *sets;
    size_t num_sets;
    unsigned reduce;
    bool placed;                      /* into the planes' device memory */
    uint32_t *set_of;
    size_t *index;                    /* into the set's list (or blocks when list is NULL) */
    tier1_gpu_block *gpu_blocks;
    tier1_gpu_result *results;
    size_t count;
    size_t bytes, num_segments, samples; /* the batch's totals */
    uint8_t *data;
    tier1_segment *segments;
    int32_t *coefficients;            /* not placed: the outputs come back here */
    uint8_t *lowest;
    tier1_gpu_placement *placements;  /* placed: where each block goes */
    tier1_gpu_planes **devices;       /* placed: each set's planes */
    atomic_uint *damaged;             /* each set's damaged blocks */
} gpu_batch;

static void gpu_batch_free(gpu_batch *g)
{
    free(g->set_of);
    free(g->index);
    free(g->gpu_blocks);
    free(g->results);
    free(g->data);
    free(g->segments);
    free(g->coefficients);
    free(g->lowest);
    free(g->placements);
    free(g->devices);
    free(g->damaged);
}

/* Batch block k's Tier-2 block and its set. */
static const tier2_block *block_of(const gpu_batch *g, size_t k, const tile_block_set **set)
{
    *set = &g->sets[g->set_of[k]];
    size_t at = g->index[k];
    return &(*set)->blocks[(*set)->list ? (*set)->list[at] : at];
}

/* Counts batch block k as damaged when its result says so; false when it
 * was refused (its zeros stand). */
static bool count_damage(gpu_batch *g, size_t k)
{
    gj2k_status status = g->results[k].status;
    if (status != GJ2K_OK || g->results[k].segmentation_errors != 0)
        atomic_fetch_add(&g->damaged[g->set_of[k]], 1);
    return status != GJ2K_ERROR_INVALID_ARGUMENT && status != GJ2K_ERROR_UNSUPPORTED;
}

/* Dequantizes batch block k into its target (on the pool's threads). */
static gj2k_status place_on_host(void *context, size_t k, unsigned worker)
{
    (void)worker;
    gpu_batch *g = context;
    const tile_block_set *set;
    const tier2_block *b = block_of(g, k, &set);
    if (!count_damage(g, k))
        return GJ2K_OK;
    const tile_plane *plane = &set->planes[b->component];
    tile_block_target to = set->targets ? set->targets[g->index[k]]
                                        : tile_plane_whole_target(plane, b, g->reduce);
    size_t offset = g->gpu_blocks[k].output_offset;
    tile_block_dequantize(b, plane, g->coefficients + offset, g->lowest + offset, to);
    return GJ2K_OK;
}

/* Where batch block k goes in its planes' device memory. */
static tier1_gpu_placement device_placement(const gpu_batch *g, size_t k)
{
    const tile_block_set *set;
    const tier2_block *b = block_of(g, k, &set);
    const tile_plane *plane = &set->planes[b->component];
    tile_block_target to = tile_plane_whole_target(plane, b, g->reduce);
    return (tier1_gpu_placement){.origin = plane->device_offset + to.origin, .stride = to.stride,
                                 .set = g->set_of[k], .roi_shift = plane->params.roi_shift};
}

/* Lists the blocks to decode and copies their bytes and segments; when
 * placed, says where each goes on the device, else makes room for the
 * outputs in host memory. */
static gj2k_status gpu_batch_build(gpu_batch *g, memory_budget *memory, uint64_t *charged,
                                   gj2k_error *error)
{
    size_t total = 0, bytes = 0, segments = 0, samples = 0, n = 0;
    for (size_t s = 0; s < g->num_sets; s++)
        total += g->sets[s].count;
    g->set_of = malloc((total ? total : 1) * sizeof *g->set_of);
    g->index = malloc((total ? total : 1) * sizeof *g->index);
    g->damaged = calloc(g->num_sets ? g->num_sets : 1, sizeof *g->damaged);
    g->devices = calloc(g->num_sets ? g->num_sets : 1, sizeof *g->devices);
    if (!g->set_of || !g->index || !g->damaged || !g->devices)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t s = 0; s < g->num_sets; s++) {
        const tile_block_set *set = &g->sets[s];
        g->devices[s] = set->planes[0].device;
        atomic_init(&g->damaged[s], 0);
        for (size_t i = 0; i < set->count; i++) {
            const tier2_block *b = &set->blocks[set->list ? set->list[i] : i];
            uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
            if (width == 0 || height == 0 || b->num_planes == 0 || b->num_segments == 0 ||
                !tile_block_is_needed(b, &set->planes[b->component], g->reduce))
                continue; /* its zeros stand */
            g->set_of[n] = (uint32_t)s;
            g->index[n++] = i;
            bytes += b->size;
            segments += b->num_segments;
            samples += (size_t)width * height;
        }
    }
    g->count = n;
    g->bytes = bytes;
    g->num_segments = segments;
    g->samples = samples;
    uint64_t outputs = g->placed ? n * sizeof *g->placements : (uint64_t)samples * 5;
    *charged = (uint64_t)bytes + segments * sizeof *g->segments + outputs +
               n * (sizeof *g->gpu_blocks + sizeof *g->results);
    gj2k_status status = memory_budget_take(memory, *charged, "the GPU's code-blocks", error);
    if (status != GJ2K_OK) {
        *charged = 0;
        return status;
    }
    g->gpu_blocks = malloc((n ? n : 1) * sizeof *g->gpu_blocks);
    g->results = malloc((n ? n : 1) * sizeof *g->results);
    g->data = malloc(bytes ? bytes : 1);
    g->segments = malloc((segments ? segments : 1) * sizeof *g->segments);
    if (g->placed) {
        g->placements = malloc((n ? n : 1) * sizeof *g->placements);
    } else {
        g->coefficients = malloc((samples ? samples : 1) * sizeof *g->coefficients);
        g->lowest = malloc(samples ? samples : 1);
    }
    if (!g->gpu_blocks || !g->results || !g->data || !g->segments ||
        (g->placed ? !g->placements : !g->coefficients || !g->lowest))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the GPU's blocks");
    bytes = segments = samples = 0;
    for (size_t k = 0; k < n; k++) {
        const tile_block_set *set;
        const tier2_block *b = block_of(g, k, &set);
        uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
        if (b->size)
            memcpy(g->data + bytes, b->data, b->size);
        memcpy(g->segments + segments, b->segments, b->num_segments * sizeof *g->segments);
        g->gpu_blocks[k] = (tier1_gpu_block){
            .data_offset = bytes, .size = b->size, .first_segment = (uint32_t)segments,
            .num_segments = b->num_segments, .num_planes = b->num_planes, .width = width,
            .height = height, .band = b->band, .style = b->style, .output_offset = samples};
        if (g->placed)
            g->placements[k] = device_placement(g, k);
        bytes += b->size;
        segments += b->num_segments;
        samples += (size_t)width * height;
    }
    return GJ2K_OK;
}

/* Whether the batch goes to the planes' device memory: every set's planes
 * lie there, and the sets name whole planes (no list, no targets). */
static bool all_placed(const tile_block_set *sets, size_t num_sets)
{
    for (size_t s = 0; s < num_sets; s++)
        if (sets[s].planes[0].device == NULL || sets[s].list != NULL || sets[s].targets != NULL)
            return false;
    return num_sets > 0;
}

gj2k_status tile_blocks_decode_on_gpu(const tile_block_set *sets, size_t num_sets,
                                      const tile_decode_settings *settings, gj2k_error *error)
{
    gpu_batch g = {.sets = sets, .num_sets = num_sets, .reduce = settings->reduce,
                   .placed = all_placed(sets, num_sets)};
    if (num_sets > 1 && !g.placed)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "GPU Tier-1: tiles batched together must lie on the device");
    uint64_t charged = 0;
    if (progress_meter_cancelled(settings->progress))
        return gj2k_fail(error, GJ2K_ERROR_CANCELLED, "decode cancelled by its progress callback");
    gj2k_status status = gpu_batch_build(&g, settings->memory, &charged, error);
    if (status == GJ2K_OK && g.count != 0 && g.placed) {
        status = tier1_gpu_decode_placed(settings->tier1_gpu, g.data, g.bytes, g.segments,
                                         g.num_segments, g.gpu_blocks, g.count, g.placements,
                                         g.devices, num_sets, g.results, error);
        for (size_t k = 0; status == GJ2K_OK && k < g.count; k++)
            count_damage(&g, k);
    } else if (status == GJ2K_OK && g.count != 0) {
        status = tier1_gpu_decode(settings->tier1_gpu, g.data, g.bytes, g.segments,
                                  g.num_segments, g.gpu_blocks, g.count, g.coefficients, g.lowest,
                                  g.samples, g.results, error);
        if (status == GJ2K_OK)
            status = parallel_for(settings->pool, g.count, place_on_host, &g);
    }
    for (size_t k = 0; status == GJ2K_OK && k < g.count; k++)
        progress_meter_add(settings->progress, (uint64_t)g.gpu_blocks[k].width * g.gpu_blocks[k].height);
    for (size_t s = 0; status == GJ2K_OK && s < num_sets; s++) {
        unsigned damaged = atomic_load(&g.damaged[s]);
        if (damaged != 0)
            gj2k_warn(settings->warning, settings->warning_user,
                      "tile %u: %u code-block%s damaged or truncated, decoded as far as possible",
                      sets[s].tile_index, damaged, damaged == 1 ? "" : "s");
    }
    gpu_batch_free(&g);
    memory_budget_give(settings->memory, charged);
    return status;
}
