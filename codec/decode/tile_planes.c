/* tile_planes.c - see tile_planes.h. */
#include "tile_planes.h"
#include "vector_clones.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dequantize.h"
#include "error.h"
#include "large_buffer.h"
#include "parallel_pool.h"
#include "quantization.h"
#include "ht_decode.h"
#include "tier1.h"
#include "tier1_gpu.h"

GJ2K_VECTOR_CLONES
void tile_block_dequantize(const tier2_block *b, const tile_plane *plane,
                             const int32_t *coefficients, const uint8_t *lowest_planes,
                             tile_block_target to)
{
    uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
    unsigned roi = plane->params.roi_shift;
    float delta = 1.0f;
    if (!plane->reversible)
        delta = (float)quant_step_size(plane->params.steps[b->subband_index],
                                       quant_dynamic_range(plane->precision, b->band));
    if (plane->reversible && !plane->halves && roi == 0) {
        /* dequantize_halves / 2 without its 64-bit detour: |q| + 2^(lowest - 1)
         * (nothing at lowest 0, every plane known), masked as below */
        for (uint32_t y = 0; y < height; y++) {
            const int32_t *row = coefficients + (size_t)y * width;
            const uint8_t *lowest = lowest_planes + (size_t)y * width;
            int32_t *target = to.integers + to.origin + (size_t)y * to.stride;
            unsigned any = 0; /* a row known to plane 0 throughout: the values as they are */
            for (uint32_t x = 0; x < width; x++)
                any |= lowest[x];
            if (any == 0) {
                memcpy(target, row, width * sizeof *target);
                continue;
            }
            for (uint32_t x = 0; x < width; x++) {
                int32_t q = row[x];
                uint32_t magnitude = q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
                unsigned l = lowest[x] < 32 ? lowest[x] : 31;
                uint32_t v = magnitude ? (magnitude + ((1u << l) >> 1)) & 0x7fffffffu : 0;
                target[x] = q < 0 ? -(int32_t)v : (int32_t)v;
            }
        }
        return;
    }
    for (uint32_t y = 0; y < height; y++) {
        for (uint32_t x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            int32_t q = coefficients[i];
            uint64_t magnitude = q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
            uint64_t halves = dequantize_halves(magnitude, lowest_planes[i], roi);
            size_t at = to.origin + (size_t)y * to.stride + x;
            if (plane->halves) { /* < 2^31: Mb <= 30 (plan_gpu_dequantization) */
                to.integers[at] = q < 0 ? -(int32_t)halves : (int32_t)halves;
            } else if (plane->reversible) {
                int32_t v = (int32_t)((halves / 2) & 0x7fffffffu);
                to.integers[at] = q < 0 ? -v : v;
            } else {
                float v = (float)halves * 0.5f * delta;
                to.floats[at] = q < 0 ? -v : v;
            }
        }
    }
}

tile_block_target tile_plane_whole_target(const tile_plane *plane, const tier2_block *b,
                                          unsigned reduce)
{
    dwt_rect band = dwt_band_rect(plane->structure.rect, b->level, b->band);
    uint32_t px, py, pw, ph;
    dwt_band_placement(plane->rect, b->level - reduce, b->band, &px, &py, &pw, &ph);
    size_t stride = plane->rect.x1 - plane->rect.x0;
    size_t origin = (size_t)(py + b->rect.y0 - band.y0) * stride + (px + b->rect.x0 - band.x0);
    return (tile_block_target){plane->integers, plane->floats, stride, origin};
}

/* Whether a coefficient range [u0, u1) of a band `levels` levels down, high-
 * pass when `high`, can reach samples in [w0, w1) after the inverse DWT
 * (Annex F.3): a band index u sits near sample 2^n u (+2^(n-1) for high
 * pass), and each level's synthesis filters reach at most 4 samples further
 * (9/7; 2 for 5/3), 4 (2^n - 1) in all: 5 * 2^n is a safe margin. */
static bool band_range_reaches(uint32_t u0, uint32_t u1, unsigned levels, bool high, uint32_t w0,
                               uint32_t w1)
{
    if (levels == 0)
        return u0 < w1 && w0 < u1;
    uint64_t scale = (uint64_t)1 << (levels < 40 ? levels : 40);
    uint64_t centre_offset = high ? scale / 2 : 0, margin = 5 * scale;
    uint64_t first = (uint64_t)u0 * scale + centre_offset;
    uint64_t last = (uint64_t)u1 * scale + centre_offset;
    uint64_t reach0 = first > margin ? first - margin : 0, reach1 = last + margin;
    return reach0 < w1 && w0 < reach1;
}

bool tile_block_is_needed(const tier2_block *b, const tile_plane *plane, unsigned reduce)
{
    unsigned levels = b->level - reduce;
    bool high_x = b->band == DWT_BAND_HL || b->band == DWT_BAND_HH;
    bool high_y = b->band == DWT_BAND_LH || b->band == DWT_BAND_HH;
    return band_range_reaches(b->rect.x0, b->rect.x1, levels, high_x, plane->wanted.x0,
                              plane->wanted.x1) &&
           band_range_reaches(b->rect.y0, b->rect.y1, levels, high_y, plane->wanted.y0,
                              plane->wanted.y1);
}

/* What the code-block workers share. */
typedef struct block_work {
    const tier2_block *blocks;
    const size_t *list;
    const tile_block_target *targets;
    tile_plane *planes;
    void (*done)(void *user, uint32_t component);
    void *user;
    unsigned reduce;
    tier1_workspace **workspaces;  /* one per worker */
    int32_t **coefficients;        /* TIER1_MAX_SAMPLES per worker */
    uint8_t **lowest_planes;       /* TIER1_MAX_SAMPLES per worker */
    ht_lookup *ht_lookup;          /* the HT decoder's VLC tables, shared */
    progress_meter *progress;
    atomic_uint damaged_blocks;
} block_work;

static void decode_block_data(block_work *work, size_t index, unsigned worker)
{
    const tier2_block *b = &work->blocks[work->list ? work->list[index] : index];
    const tile_plane *plane = &work->planes[b->component];
    uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
    if (width == 0 || height == 0 || b->num_planes == 0 || b->num_segments == 0)
        return; /* nothing coded: the zeros stand */
    if (!tile_block_is_needed(b, plane, work->reduce))
        return; /* outside the region asked for, filter support included */
    tier1_decode_request request = {.data = b->data, .size = b->size, .segments = b->segments,
                                    .num_segments = b->num_segments, .num_planes = b->num_planes,
                                    .width = width, .height = height, .band = b->band,
                                    .style = b->style};
    tier1_decode_result result = {0};
    gj2k_status status =
        (b->style & TIER1_STYLE_HT)
            ? ht_decode_block(&request, work->ht_lookup, work->coefficients[worker], width,
                              work->lowest_planes[worker], &result)
            : tier1_decode_block(&request, work->workspaces[worker], work->coefficients[worker],
                                 width, work->lowest_planes[worker], &result);
    if (status == GJ2K_ERROR_INVALID_ARGUMENT || status == GJ2K_ERROR_UNSUPPORTED) {
        atomic_fetch_add(&work->damaged_blocks, 1);
        return;
    }
    if (status != GJ2K_OK || result.segmentation_errors != 0)
        atomic_fetch_add(&work->damaged_blocks, 1);
    tile_block_target to = work->targets ? work->targets[index]
                                         : tile_plane_whole_target(plane, b, work->reduce);
    tile_block_dequantize(b, plane, work->coefficients[worker], work->lowest_planes[worker], to);
}

static gj2k_status decode_block(void *context, size_t index, unsigned worker)
{
    block_work *work = context;
    if (progress_meter_cancelled(work->progress))
        return GJ2K_ERROR_CANCELLED;
    decode_block_data(work, index, worker);
    const dwt_rect r = work->blocks[work->list ? work->list[index] : index].rect;
    progress_meter_add(work->progress, (uint64_t)(r.x1 - r.x0) * (r.y1 - r.y0));
    if (work->done != NULL)
        work->done(work->user, work->blocks[work->list ? work->list[index] : index].component);
    return GJ2K_OK;
}

static gj2k_status decode_blocks_on_cpu(const tier2_block *blocks, const size_t *list,
                                        size_t count, const tile_block_target *targets,
                                        tile_plane *planes,
                                        void (*done)(void *user, uint32_t component), void *user,
                                        const tile_decode_settings *settings, uint32_t tile_index,
                                        gj2k_error *error)
{
    unsigned threads = parallel_pool_workers(settings->pool, count);
    block_work work = {.blocks = blocks, .list = list, .targets = targets, .planes = planes,
                       .done = done, .user = user, .reduce = settings->reduce,
                       .progress = settings->progress};
    atomic_init(&work.damaged_blocks, 0);
    work.workspaces = calloc(threads, sizeof *work.workspaces);
    work.coefficients = calloc(threads, sizeof *work.coefficients);
    work.lowest_planes = calloc(threads, sizeof *work.lowest_planes);
    gj2k_status status = GJ2K_OK;
    if (!work.workspaces || !work.coefficients || !work.lowest_planes)
        status = GJ2K_ERROR_OUT_OF_MEMORY;
    for (unsigned t = 0; t < threads && status == GJ2K_OK; t++) {
        work.workspaces[t] = tier1_workspace_create();
        work.coefficients[t] = malloc(TIER1_MAX_SAMPLES * sizeof(int32_t));
        work.lowest_planes[t] = malloc(TIER1_MAX_SAMPLES);
        if (!work.workspaces[t] || !work.coefficients[t] || !work.lowest_planes[t])
            status = GJ2K_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < count && status == GJ2K_OK && work.ht_lookup == NULL; i++)
        if (blocks[list ? list[i] : i].style & TIER1_STYLE_HT) {
            work.ht_lookup = malloc(sizeof *work.ht_lookup);
            if (work.ht_lookup == NULL)
                status = GJ2K_ERROR_OUT_OF_MEMORY;
            else
                ht_lookup_build(work.ht_lookup);
        }
    if (status == GJ2K_OK)
        status = parallel_for(settings->pool, count, decode_block, &work);
    free(work.ht_lookup);
    for (unsigned t = 0; t < threads; t++) {
        if (work.workspaces)
            tier1_workspace_destroy(work.workspaces[t]);
        if (work.coefficients)
            free(work.coefficients[t]);
        if (work.lowest_planes)
            free(work.lowest_planes[t]);
    }
    free(work.workspaces);
    free(work.coefficients);
    free(work.lowest_planes);
    if (status != GJ2K_OK)
        return gj2k_fail(error, status, "tile %u: code-block decoding failed (%s)", tile_index,
                         gj2k_status_name(status));
    unsigned damaged = atomic_load(&work.damaged_blocks);
    if (damaged != 0)
        gj2k_warn(settings->warning, settings->warning_user,
                  "tile %u: %u code-block%s damaged or truncated, decoded as far as possible",
                  tile_index, damaged, damaged == 1 ? "" : "s");
    return GJ2K_OK;
}

gj2k_status tile_planes_decode_blocks(const tier2_block *blocks, const size_t *list, size_t count,
                                      const tile_block_target *targets, tile_plane *planes,
                                      void (*done)(void *user, uint32_t component), void *user,
                                      const tile_decode_settings *settings, uint32_t tile_index,
                                      gj2k_error *error)
{
    if (settings->tier1_gpu == NULL)
        return decode_blocks_on_cpu(blocks, list, count, targets, planes, done, user, settings,
                                    tile_index, error);
    tile_block_set set = {.blocks = blocks, .list = list, .count = count, .targets = targets,
                          .planes = planes, .tile_index = tile_index};
    gj2k_status status = tile_blocks_decode_on_gpu(&set, 1, settings, error);
    for (size_t i = 0; done != NULL && i < count; i++) /* each block counted down, done or not */
        done(user, blocks[list ? list[i] : i].component);
    return status;
}

bool tile_planes_use_component_transform(const tile_plane *planes, uint32_t count,
                                         const tile_decode_settings *settings, uint32_t tile)
{
    if (count < 3 || planes[0].params.mct == 0)
        return false;
    dwt_rect r = planes[0].rect;
    for (int c = 1; c < 3; c++) {
        dwt_rect o = planes[c].rect;
        if (o.x0 != r.x0 || o.y0 != r.y0 || o.x1 != r.x1 || o.y1 != r.y1 ||
            planes[c].reversible != planes[0].reversible) {
            gj2k_warn(settings->warning, settings->warning_user,
                      "tile %u: component transform skipped: components 0-2 differ in size or "
                      "wavelet", tile);
            return false;
        }
    }
    return true;
}

/* On the GPU path, a plane whose coefficients fit in half steps (Mb <= 30:
 * 2 |q| + 2^lowest < 2^31) leaves dequantization to the GPU: Tier-1 writes
 * half steps into `integers` (no `floats`), and for 9/7 the step sizes go
 * along halved. */
static void plan_gpu_dequantization(tile_plane *plane)
{
    unsigned largest = 0;
    for (unsigned s = 0; s < 3u * plane->levels + 1u; s++) /* the subbands decoded (-r) */
        largest = plane->magnitude_bits[s] > largest ? plane->magnitude_bits[s] : largest;
    if (largest > 30)
        return;
    plane->halves = true;
    for (unsigned s = 0; !plane->reversible && s < 3u * plane->levels + 1u; s++) {
        dwt_band band = dwt_subband_band(s);
        float delta = (float)quant_step_size(plane->params.steps[s],
                                             quant_dynamic_range(plane->precision, band));
        plane->half_steps[s] = delta * 0.5f;
    }
}

bool tile_component_overlap(dwt_rect r, const gj2k_component *component, dwt_rect *out)
{
    uint64_t cx1 = (uint64_t)component->x0 + component->width;
    uint64_t cy1 = (uint64_t)component->y0 + component->height;
    *out = (dwt_rect){r.x0 > component->x0 ? r.x0 : component->x0,
                      r.y0 > component->y0 ? r.y0 : component->y0,
                      r.x1 < cx1 ? r.x1 : (uint32_t)cx1, r.y1 < cy1 ? r.y1 : (uint32_t)cy1};
    return out->x1 > out->x0 && out->y1 > out->y0 && component->samples != NULL;
}

gj2k_status tile_plane_resolve(const j2k_codestream *cs, const j2k_tile *tile,
                               uint32_t tile_index, uint32_t c, unsigned reduce,
                               tile_plane *plane, gj2k_error *error)
{
    gj2k_status status = j2k_resolve_tile_component(&cs->main_header, tile ? &tile->header : NULL,
                                                    c, &plane->params, error);
    if (status != GJ2K_OK)
        return status;
    if (reduce > plane->params.coding.levels)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "cannot discard %u resolution levels: tile %u component %u has %u",
                         reduce, tile_index, c, plane->params.coding.levels);
    plane->precision = cs->siz.components[c].precision;
    plane->is_signed = cs->siz.components[c].is_signed;
    if (plane->precision > GJ2K_MAX_NARROW_PRECISION)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "component %u: %u-bit samples are not supported (at most %d)", c,
                         plane->precision, GJ2K_MAX_NARROW_PRECISION);
    return GJ2K_OK;
}

gj2k_status tile_planes_prepare(const j2k_codestream *cs, uint32_t tile_index, unsigned reduce,
                                const gj2k_image *image, tile_plane_buffers buffers,
                                memory_budget *memory, tile_plane *planes, gj2k_error *error)
{
    const j2k_siz *siz = &cs->siz;
    const j2k_tile *tile = j2k_codestream_tile(cs, tile_index);
    dwt_rect tile_rect = j2k_tile_rect(siz, tile_index);
    for (uint32_t c = 0; c < siz->num_components; c++) {
        tile_plane *plane = &planes[c];
        gj2k_status status = tile_plane_resolve(cs, tile, tile_index, c, reduce, plane, error);
        if (status != GJ2K_OK)
            return status;
        const j2k_component_coding *coding = &plane->params.coding;
        status = tile_component_init_counted(&plane->structure, tile_rect,
                                             siz->components[c].dx, siz->components[c].dy,
                                             coding, reduce, memory, error);
        if (status != GJ2K_OK)
            return status;
        plane->has_structure = true;
        plane->levels = coding->levels - reduce;
        plane->rect = plane->structure.resolutions[plane->levels].rect;
        plane->reversible = coding->transform == J2K_TRANSFORM_53;
        const gj2k_component *out = &image->components[c];
        plane->wanted = (dwt_rect){out->x0, out->y0, out->x0 + out->width, out->y0 + out->height};
        unsigned subbands = 3u * coding->levels + 1u;
        for (unsigned s = 0; s < subbands; s++) {
            unsigned bits = quant_magnitude_bits(plane->params.quantization.guard_bits,
                                                 plane->params.steps[s]) + plane->params.roi_shift;
            plane->magnitude_bits[s] = (uint8_t)(bits > 255 ? 255 : bits);
        }
        if (buffers == TILE_PLANES_WHOLE_GPU || buffers == TILE_PLANES_DEVICE)
            plan_gpu_dequantization(plane);
    }
    if (buffers == TILE_PLANES_WHOLE || buffers == TILE_PLANES_WHOLE_GPU)
        return tile_planes_allocate(planes, siz->num_components, tile_index, memory, error);
    return GJ2K_OK;
}

gj2k_status tile_planes_allocate(tile_plane *planes, uint32_t count, uint32_t tile_index,
                                 memory_budget *memory, gj2k_error *error)
{
    for (uint32_t c = 0; c < count; c++) {
        tile_plane *plane = &planes[c];
        bool floats = !plane->reversible && !plane->halves;
        size_t area = tile_rect_area(plane->rect);
        uint64_t bytes = (uint64_t)area * (floats ? 8u : 4u);
        char what[64];
        snprintf(what, sizeof what, "tile %u component %u", tile_index, c);
        gj2k_status status = memory_budget_take(memory, bytes, what, error);
        if (status != GJ2K_OK)
            return status;
        plane->charged += bytes;
        plane->integers = large_buffer_calloc(area ? area : 1, sizeof *plane->integers);
        if (floats)
            plane->floats = large_buffer_calloc(area ? area : 1, sizeof *plane->floats);
        if (plane->integers == NULL || (floats && plane->floats == NULL))
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                             "out of memory for tile %u component %u", tile_index, c);
    }
    return GJ2K_OK;
}

void tile_planes_free(tile_plane *planes, uint32_t count, memory_budget *memory)
{
    for (uint32_t c = 0; planes != NULL && c < count; c++) {
        if (planes[c].has_structure)
            tile_component_free(&planes[c].structure);
        free(planes[c].integers);
        free(planes[c].floats);
        free(planes[c].packed);
        memory_budget_give(memory, planes[c].charged);
    }
}

gj2k_status tile_planes_read_packets(const j2k_codestream *cs, const uint8_t *data,
                                     uint32_t tile_index, tile_plane *planes,
                                     const tile_decode_settings *settings, tier2_block **blocks,
                                     size_t *count, gj2k_error *error)
{
    const j2k_tile *tile = j2k_codestream_tile(cs, tile_index);
    uint32_t n = cs->siz.num_components;
    size_t num_parts = tile ? tile->num_parts : 0;
    j2k_bytes *parts = calloc(num_parts ? num_parts : 1, sizeof *parts);
    tile_component *structures = calloc(n, sizeof *structures);
    const uint8_t **magnitude_bits = calloc(n, sizeof *magnitude_bits);
    gj2k_status status = GJ2K_OK;
    if (!parts || !structures || !magnitude_bits) {
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    uint64_t coded = 0; /* Tier-2 copies each code-block's bytes out of these */
    tier2_decode_params params = tier2_decode_params_of(tile, data, parts, &planes[0].params);
    params.max_layers = settings->max_layers;
    params.tile_index = tile_index;
    params.warning = settings->warning;
    params.warning_user = settings->warning_user;
    for (size_t p = 0; p < num_parts; p++)
        coded += parts[p].size;
    status = memory_budget_take(settings->memory, coded, "the tile's coded data", error);
    if (status != GJ2K_OK)
        goto done;
    planes[0].charged += coded; /* given back with the planes */
    for (uint32_t c = 0; c < n; c++) {
        structures[c] = planes[c].structure; /* moved back below */
        magnitude_bits[c] = planes[c].magnitude_bits;
    }
    status = tier2_decode_tile(structures, n, &params, NULL, error);
    if (status == GJ2K_OK)
        status = tier2_collect_blocks(structures, n, magnitude_bits, settings->warning,
                                      settings->warning_user, blocks, count, error);
    for (uint32_t c = 0; c < n; c++)
        planes[c].structure = structures[c];
done:
    free(parts);
    free(structures);
    free(magnitude_bits);
    return status;
}
