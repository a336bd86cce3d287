/* tile_decoder.c - see tile_decoder.h. */
#include "tile_decoder.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "component_transform.h"
#include "dwt.h"
#include "error.h"
#include "level_shift.h"
#include "parallel_pool.h"
#include "plane_gate.h"
#include "quantization.h"
#include "tier1.h"
#include "tier2_decode.h"
#include "tile_structure.h"

/* One tile-component on its way from code-blocks to samples. */
typedef struct tile_plane {
    j2k_tile_component_params params;
    tile_component structure;
    bool has_structure;
    dwt_rect rect;         /* the tile-component at the reduced resolution */
    unsigned levels;       /* decomposition levels to invert: NL - reduce */
    bool reversible;
    uint32_t precision;
    bool is_signed;
    int32_t *integers;     /* 5/3 coefficients, then the samples of either path */
    float *floats;         /* 9/7 coefficients */
    uint8_t magnitude_bits[J2K_MAX_SUBBANDS]; /* Mb (E.1), plus the ROI shift (H.1) */
    dwt_rect wanted;       /* the part of the plane the image asks for */
    void *packed;          /* GPU path: the samples at storage width, packed_bytes each */
    unsigned packed_bytes;
    /* GPU path: integers holds each coefficient in signed half steps and the
     * GPU dequantizes as it loads them (gpu_inverse_plane.halves; for 9/7
     * with Delta / 2 of each subband in half_steps). */
    bool halves;
    float half_steps[J2K_MAX_SUBBANDS];
    uint64_t charged;      /* bytes of integers, floats and packed taken from the budget */
} tile_plane;

/* What the code-block workers share. */
typedef struct block_work {
    const tier2_block *blocks;
    tile_plane *planes;
    plane_gate *gate;              /* GPU path: each plane's code-blocks counted down; else NULL */
    unsigned reduce;
    tier1_workspace **workspaces;  /* one per worker */
    int32_t **coefficients;        /* TIER1_MAX_SAMPLES per worker */
    uint8_t **lowest_planes;       /* TIER1_MAX_SAMPLES per worker */
    atomic_uint damaged_blocks;
} block_work;

static size_t rect_area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* Writes one decoded code-block's reconstructed values into its plane
 * (E.1.1.2 with r = 1/2 below the lowest decoded bit-plane; H.2 for ROI). */
static void dequantize_block(const tier2_block *b, const tile_plane *plane, unsigned reduce,
                             const int32_t *coefficients, const uint8_t *lowest_planes)
{
    uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
    dwt_rect band = dwt_band_rect(plane->structure.rect, b->level, b->band);
    uint32_t px, py, pw, ph;
    dwt_band_placement(plane->rect, b->level - reduce, b->band, &px, &py, &pw, &ph);
    size_t stride = plane->rect.x1 - plane->rect.x0;
    size_t origin = (size_t)(py + b->rect.y0 - band.y0) * stride + (px + b->rect.x0 - band.x0);
    unsigned roi = plane->params.roi_shift;
    float delta = 1.0f;
    if (!plane->reversible)
        delta = (float)quant_step_size(plane->params.steps[b->subband_index],
                                       quant_dynamic_range(plane->precision, b->band));
    for (uint32_t y = 0; y < height; y++) {
        for (uint32_t x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            int32_t q = coefficients[i];
            uint64_t magnitude = q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
            unsigned lowest = lowest_planes[i] < 32 ? lowest_planes[i] : 31;
            /* In half steps: the decoded magnitude plus the reconstruction
             * offset r = 1/2 of the lowest decoded plane (E.1.1.2). */
            uint64_t halves = magnitude ? 2 * magnitude + ((uint64_t)1 << lowest) : 0;
            /* ROI (H.2): magnitudes at or above 2^s belong to the region and
             * were scaled up by 2^s. The shift comes after the offset, as in
             * OpenJPEG, so fully decoded region coefficients reconstruct with
             * r = 0 (E.1.1.2 leaves r to the decoder). */
            if (roi != 0 && roi < 32 && magnitude >= ((uint64_t)1 << roi))
                halves >>= roi;
            size_t at = origin + (size_t)y * stride + x;
            if (plane->halves) { /* < 2^31: Mb <= 30 (plan_gpu_dequantization) */
                plane->integers[at] = q < 0 ? -(int32_t)halves : (int32_t)halves;
            } else if (plane->reversible) {
                int32_t v = (int32_t)((halves / 2) & 0x7fffffffu);
                plane->integers[at] = q < 0 ? -v : v;
            } else {
                float v = (float)halves * 0.5f * delta;
                plane->floats[at] = q < 0 ? -v : v;
            }
        }
    }
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

/* Whether the block can affect the part of its plane the image wants
 * (decoding a region: opj_decompress -d). */
static bool block_is_needed(const tier2_block *b, const tile_plane *plane, unsigned reduce)
{
    unsigned levels = b->level - reduce;
    bool high_x = b->band == DWT_BAND_HL || b->band == DWT_BAND_HH;
    bool high_y = b->band == DWT_BAND_LH || b->band == DWT_BAND_HH;
    return band_range_reaches(b->rect.x0, b->rect.x1, levels, high_x, plane->wanted.x0,
                              plane->wanted.x1) &&
           band_range_reaches(b->rect.y0, b->rect.y1, levels, high_y, plane->wanted.y0,
                              plane->wanted.y1);
}

static gj2k_status decode_block_data(block_work *work, size_t index, unsigned worker)
{
    const tier2_block *b = &work->blocks[index];
    uint32_t width = b->rect.x1 - b->rect.x0, height = b->rect.y1 - b->rect.y0;
    if (width == 0 || height == 0 || b->num_planes == 0 || b->num_segments == 0)
        return GJ2K_OK; /* nothing coded: the plane's zeros stand */
    if (!block_is_needed(b, &work->planes[b->component], work->reduce))
        return GJ2K_OK; /* outside the region asked for, filter support included */
    tier1_decode_request request = {.data = b->data, .size = b->size, .segments = b->segments,
                                    .num_segments = b->num_segments, .num_planes = b->num_planes,
                                    .width = width, .height = height, .band = b->band,
                                    .style = b->style};
    tier1_decode_result result = {0};
    gj2k_status status = tier1_decode_block(&request, work->workspaces[worker],
                                            work->coefficients[worker], width,
                                            work->lowest_planes[worker], &result);
    if (status == GJ2K_ERROR_INVALID_ARGUMENT || status == GJ2K_ERROR_UNSUPPORTED) {
        atomic_fetch_add(&work->damaged_blocks, 1);
        return GJ2K_OK;
    }
    if (status != GJ2K_OK || result.segmentation_errors != 0)
        atomic_fetch_add(&work->damaged_blocks, 1);
    dequantize_block(b, &work->planes[b->component], work->reduce, work->coefficients[worker],
                     work->lowest_planes[worker]);
    return GJ2K_OK;
}

static gj2k_status decode_block(void *context, size_t index, unsigned worker)
{
    block_work *work = context;
    gj2k_status status = decode_block_data(work, index, worker);
    if (status == GJ2K_OK && work->gate != NULL)
        plane_gate_done(work->gate, work->blocks[index].component);
    return status;
}

static gj2k_status inverse_transform_plane(void *context, size_t index, unsigned worker)
{
    (void)worker;
    tile_plane *plane = &((tile_plane *)context)[index];
    size_t stride = plane->rect.x1 - plane->rect.x0;
    if (rect_area(plane->rect) == 0)
        return GJ2K_OK;
    if (plane->reversible)
        return dwt_inverse_53(plane->integers, stride, plane->rect, plane->levels);
    return dwt_inverse_97_interop(plane->floats, stride, plane->rect, plane->levels);
}

/* Whether components 0..2 go back through a component transform (Annex
 * G.2/G.3): the tile uses one and they agree in size and wavelet. */
static bool uses_component_transform(const tile_plane *planes, uint32_t count,
                                     const tile_decode_settings *settings, uint32_t tile)
{
    if (count < 3 || planes[0].params.mct == 0)
        return false;
    size_t n = rect_area(planes[0].rect);
    for (int c = 1; c < 3; c++) {
        if (rect_area(planes[c].rect) != n || planes[c].rect.x0 != planes[0].rect.x0 ||
            planes[c].rect.y0 != planes[0].rect.y0 || planes[c].reversible != planes[0].reversible) {
            gj2k_warn(settings->warning, settings->warning_user,
                      "tile %u: component transform skipped: components 0-2 differ in size or "
                      "wavelet", tile);
            return false;
        }
    }
    return true;
}

/* Annex G.2/G.3: components 0..2 back from YUV/YCbCr. */
static void inverse_component_transform(tile_plane *planes)
{
    size_t n = rect_area(planes[0].rect);
    if (planes[0].reversible)
        rct_inverse(planes[0].integers, planes[1].integers, planes[2].integers, n);
    else
        ict_inverse(planes[0].floats, planes[1].floats, planes[2].floats, n);
}

/* The inverse DWT, component transform and level shift of the tile on the
 * GPU (gpu_stage.h), the same bits as the CPU's: components 0..2 together
 * when they take the component transform, the others one by one. */
typedef struct plane_wait {
    plane_gate *gate;
    uint32_t first;        /* the plane gpu_inverse calls 0 */
} plane_wait;

static bool wait_for_plane(void *user, uint32_t plane)
{
    plane_wait *w = user;
    return plane_gate_wait(w->gate, w->first + plane);
}

static gj2k_status inverse_on_gpu(gpu_stage *gpu, tile_plane *planes, uint32_t n, bool mct,
                                  plane_gate *gate, memory_budget *memory, gj2k_error *error)
{
    gj2k_status status = GJ2K_OK;
    for (uint32_t c = 0; c < n && status == GJ2K_OK;) {
        uint32_t group = mct && c == 0 ? 3 : 1;
        gpu_inverse_plane jobs[3];
        for (uint32_t k = 0; k < group; k++) {
            tile_plane *p = &planes[c + k];
            size_t area = rect_area(p->rect);
            p->packed_bytes = gpu_input_bytes(p->precision);
            if (p->packed_bytes < 4) {
                uint64_t bytes = (uint64_t)area * p->packed_bytes;
                status = memory_budget_take(memory, bytes, "a plane's samples from the GPU", error);
                if (status != GJ2K_OK)
                    return status;
                p->charged += bytes;
                if ((p->packed = malloc(area ? area * p->packed_bytes : 1)) == NULL)
                    return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
            }
            jobs[k] = (gpu_inverse_plane){.rect = p->rect, .levels = p->levels,
                                          .precision = p->precision, .is_signed = p->is_signed,
                                          .samples = p->integers, .floats = p->floats,
                                          .halves = p->halves,
                                          .half_steps = p->halves ? p->half_steps : NULL,
                                          .output = p->packed, .output_bytes = p->packed_bytes};
        }
        plane_wait wait = {gate, c};
        status = gpu_inverse(gpu, jobs, group, planes[c].reversible, group == 3, wait_for_plane,
                             &wait, error);
        c += group;
    }
    return status;
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

/* The part of `r` inside the image's component; false when none. */
static bool overlap(dwt_rect r, const gj2k_component *component, dwt_rect *out)
{
    uint64_t cx1 = (uint64_t)component->x0 + component->width;
    uint64_t cy1 = (uint64_t)component->y0 + component->height;
    *out = (dwt_rect){r.x0 > component->x0 ? r.x0 : component->x0,
                      r.y0 > component->y0 ? r.y0 : component->y0,
                      r.x1 < cx1 ? r.x1 : (uint32_t)cx1, r.y1 < cy1 ? r.y1 : (uint32_t)cy1};
    return out->x1 > out->x0 && out->y1 > out->y0 && component->samples != NULL;
}

/* The component's sample at (x, y), a point inside it. */
static int32_t *sample_at(gj2k_component *component, uint32_t x, uint32_t y)
{
    return component->samples + (size_t)(y - component->y0) * component->width +
           (x - component->x0);
}

/* Copies the part of the plane inside the image's component. */
static void place_plane(const tile_plane *plane, gj2k_component *component)
{
    dwt_rect r = plane->rect, o;
    if (!overlap(r, component, &o))
        return;
    size_t stride = r.x1 - r.x0, count = o.x1 - o.x0;
    for (uint32_t y = o.y0; y < o.y1; y++) {
        int32_t *to = sample_at(component, o.x0, y);
        size_t from = (size_t)(y - r.y0) * stride + (o.x0 - r.x0);
        if (plane->packed == NULL)
            memcpy(to, plane->integers + from, count * sizeof(int32_t));
        else if (plane->packed_bytes == 1 && plane->is_signed)
            for (size_t i = 0; i < count; i++)
                to[i] = ((const int8_t *)plane->packed)[from + i];
        else if (plane->packed_bytes == 1)
            for (size_t i = 0; i < count; i++)
                to[i] = ((const uint8_t *)plane->packed)[from + i];
        else if (plane->is_signed)
            for (size_t i = 0; i < count; i++)
                to[i] = ((const int16_t *)plane->packed)[from + i];
        else
            for (size_t i = 0; i < count; i++)
                to[i] = ((const uint16_t *)plane->packed)[from + i];
    }
}

/* Component c's coding parameters in the tile, and the sample format;
 * fails on what the decoder cannot do. */
static gj2k_status resolve_plane(const j2k_codestream *cs, const j2k_tile *tile,
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

/* Resolves the parameters and builds the structure of every tile-component. */
static gj2k_status prepare_planes(const j2k_codestream *cs, const j2k_tile *tile,
                                  uint32_t tile_index, unsigned reduce, const gj2k_image *image,
                                  bool on_gpu, memory_budget *memory, tile_plane *planes,
                                  gj2k_error *error)
{
    const j2k_siz *siz = &cs->siz;
    dwt_rect tile_rect = j2k_tile_rect(siz, tile_index);
    for (uint32_t c = 0; c < siz->num_components; c++) {
        tile_plane *plane = &planes[c];
        gj2k_status status = resolve_plane(cs, tile, tile_index, c, reduce, plane, error);
        if (status != GJ2K_OK)
            return status;
        const j2k_component_coding *coding = &plane->params.coding;
        status = tile_component_init(&plane->structure, tile_rect, siz->components[c].dx,
                                     siz->components[c].dy, coding, reduce, error);
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
        if (on_gpu)
            plan_gpu_dequantization(plane);
        bool floats = !plane->reversible && !plane->halves;
        size_t area = rect_area(plane->rect);
        uint64_t bytes = (uint64_t)area * (floats ? 8u : 4u);
        char what[64];
        snprintf(what, sizeof what, "tile %u component %u", tile_index, c);
        status = memory_budget_take(memory, bytes, what, error);
        if (status != GJ2K_OK)
            return status;
        plane->charged = bytes;
        plane->integers = calloc(area ? area : 1, sizeof *plane->integers);
        if (floats)
            plane->floats = calloc(area ? area : 1, sizeof *plane->floats);
        if (plane->integers == NULL || (floats && plane->floats == NULL))
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                             "out of memory for tile %u component %u", tile_index, c);
    }
    return GJ2K_OK;
}

/* Tier-1 on every code-block, on all threads. */
static gj2k_status decode_blocks(const tier2_block *blocks, size_t count, tile_plane *planes,
                                 plane_gate *gate, const tile_decode_settings *settings,
                                 uint32_t tile_index, gj2k_error *error)
{
    unsigned threads = parallel_pool_workers(settings->pool, count);
    block_work work = {.blocks = blocks, .planes = planes, .gate = gate,
                       .reduce = settings->reduce};
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
    if (status == GJ2K_OK)
        status = parallel_for(settings->pool, count, decode_block, &work);
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

/* Tier-2 over the tile's packets, then the list of code-blocks to decode. */
static gj2k_status read_packets(const j2k_codestream *cs, const uint8_t *data, const j2k_tile *tile,
                                uint32_t tile_index, tile_plane *planes,
                                const tile_decode_settings *settings, tier2_block **blocks,
                                size_t *count, gj2k_error *error)
{
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
    for (size_t p = 0; p < num_parts; p++)
        parts[p] = (j2k_bytes){data + tile->parts[p].data_start,
                               tile->parts[p].data_end - tile->parts[p].data_start};
    for (uint32_t c = 0; c < n; c++) {
        structures[c] = planes[c].structure; /* moved back below */
        magnitude_bits[c] = planes[c].magnitude_bits;
    }
    const j2k_tile_component_params *p0 = &planes[0].params;
    tier2_decode_params params = {
        .tile_parts = parts, .num_tile_parts = num_parts,
        .packed_headers = tile && tile->has_packed_headers ? tile->packed_headers : NULL,
        .packed_headers_size = tile && tile->has_packed_headers ? tile->packed_headers_size : 0,
        .num_layers = p0->layers, .progression = p0->progression, .changes = p0->pocs,
        .num_changes = p0->num_pocs, .use_sop = p0->use_sop, .use_eph = p0->use_eph,
        .max_layers = settings->max_layers, .tile_index = tile_index,
        .warning = settings->warning, .warning_user = settings->warning_user};
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

/* A tile between its two halves: code-blocks decoded and dequantized into
 * planes, the inverse transforms still to come. */
struct tile_decoding {
    uint32_t tile_index;
    memory_budget *memory; /* what the planes took is given back to it */
    bool on_gpu;           /* the second half runs on settings->gpu, beside Tier-1, and
                              waits at `gate` for each plane's code-blocks */
    plane_gate gate;
    uint32_t num_planes;
    tile_plane *planes;
    tier2_block *blocks;
    size_t num_blocks;
};

void tile_decoding_free(tile_decoding *work)
{
    if (work == NULL)
        return;
    if (work->on_gpu)
        plane_gate_destroy(&work->gate);
    free(work->blocks);
    for (uint32_t c = 0; work->planes != NULL && c < work->num_planes; c++) {
        if (work->planes[c].has_structure)
            tile_component_free(&work->planes[c].structure);
        free(work->planes[c].integers);
        free(work->planes[c].floats);
        free(work->planes[c].packed);
        memory_budget_give(work->memory, work->planes[c].charged);
    }
    free(work->planes);
    free(work);
}

/* The GPU path's gate: each plane's code-blocks, counted. */
static gj2k_status gate_init(tile_decoding *work, gj2k_error *error)
{
    size_t *blocks = calloc(work->num_planes ? work->num_planes : 1, sizeof *blocks);
    if (blocks == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < work->num_blocks; i++)
        blocks[work->blocks[i].component]++;
    gj2k_status status = plane_gate_init(&work->gate, work->num_planes, blocks, error);
    free(blocks);
    work->on_gpu = status == GJ2K_OK;
    return status;
}

gj2k_status tile_decode_begin(const j2k_codestream *codestream, const uint8_t *data,
                              uint32_t tile_index, const tile_decode_settings *settings,
                              const gj2k_image *image, tile_decoding **out, gj2k_error *error)
{
    *out = NULL;
    uint32_t n = codestream->siz.num_components;
    const j2k_tile *tile = j2k_codestream_tile(codestream, tile_index);
    tile_decoding *work = calloc(1, sizeof *work);
    if (work == NULL || (work->planes = calloc(n, sizeof *work->planes)) == NULL) {
        free(work);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u", tile_index);
    }
    work->tile_index = tile_index;
    work->memory = settings->memory;
    work->num_planes = n;
    /* With a GPU stage, it takes every tile (decoder.c). */
    gj2k_status status = prepare_planes(codestream, tile, tile_index, settings->reduce, image,
                                        settings->gpu != NULL, settings->memory, work->planes,
                                        error);
    if (status == GJ2K_OK)
        status = read_packets(codestream, data, tile, tile_index, work->planes, settings,
                              &work->blocks, &work->num_blocks, error);
    if (status == GJ2K_OK && settings->gpu != NULL)
        status = gate_init(work, error);
    if (status != GJ2K_OK) {
        if (error != NULL && error->status == GJ2K_OK)
            gj2k_fail(error, status, "tile %u: %s", tile_index, gj2k_status_name(status));
        tile_decoding_free(work);
        return status;
    }
    *out = work;
    return GJ2K_OK;
}

gj2k_status tile_decode_blocks(tile_decoding *work, const tile_decode_settings *settings,
                               gj2k_error *error)
{
    plane_gate *gate = work->on_gpu ? &work->gate : NULL;
    gj2k_status status = decode_blocks(work->blocks, work->num_blocks, work->planes, gate,
                                       settings, work->tile_index, error);
    if (status != GJ2K_OK && gate != NULL)
        plane_gate_fail(gate);
    return status;
}

static gj2k_status tile_decode_coefficients(const j2k_codestream *codestream,
                                            const uint8_t *data, uint32_t tile_index,
                                            const tile_decode_settings *settings,
                                            const gj2k_image *image, tile_decoding **out,
                                            gj2k_error *error)
{
    gj2k_status status = tile_decode_begin(codestream, data, tile_index, settings, image, out,
                                           error);
    if (status == GJ2K_OK && (status = tile_decode_blocks(*out, settings, error)) != GJ2K_OK) {
        tile_decoding_free(*out);
        *out = NULL;
    }
    return status;
}

gj2k_status tile_decode_samples(tile_decoding *work, const tile_decode_settings *settings,
                                gj2k_image *image, gj2k_error *error)
{
    tile_plane *planes = work->planes;
    uint32_t n = work->num_planes, tile_index = work->tile_index;
    gj2k_status status = GJ2K_OK;
    bool mct = uses_component_transform(planes, n, settings, tile_index);
    bool on_gpu = work->on_gpu; /* else Tier-1 is done: tile_decode_blocks came first */
    if (on_gpu)
        status = inverse_on_gpu(settings->gpu, planes, n, mct, &work->gate, settings->memory,
                                error);
    if (status == GJ2K_OK && !on_gpu)
        status = parallel_for(settings->pool, n, inverse_transform_plane, planes);
    if (status == GJ2K_OK && !on_gpu) {
        if (mct)
            inverse_component_transform(planes);
        for (uint32_t c = 0; c < n; c++) {
            tile_plane *plane = &planes[c];
            size_t area = rect_area(plane->rect);
            if (plane->reversible)
                level_shift_inverse(plane->integers, area, plane->precision, plane->is_signed);
            else
                level_shift_inverse_float(plane->floats, plane->integers, area, plane->precision,
                                          plane->is_signed);
        }
    }
    for (uint32_t c = 0; status == GJ2K_OK && c < n; c++)
        place_plane(&planes[c], &image->components[c]);
    if (status != GJ2K_OK && error != NULL && error->status == GJ2K_OK)
        gj2k_fail(error, status, "tile %u: %s", tile_index, gj2k_status_name(status));
    return status;
}

gj2k_status tile_decode(const j2k_codestream *codestream, const uint8_t *data, uint32_t tile_index,
                        const tile_decode_settings *settings, gj2k_image *image,
                        gj2k_error *error)
{
    tile_decoding *work = NULL;
    gj2k_status status = tile_decode_coefficients(codestream, data, tile_index, settings, image,
                                                  &work, error);
    if (status == GJ2K_OK)
        status = tile_decode_samples(work, settings, image, error);
    tile_decoding_free(work);
    return status;
}

gj2k_status tile_decode_missing(const j2k_codestream *codestream, uint32_t tile_index,
                                const tile_decode_settings *settings, gj2k_image *image,
                                gj2k_error *error)
{
    for (uint32_t c = 0; c < codestream->siz.num_components; c++) {
        tile_plane plane = {0};
        gj2k_status status = resolve_plane(codestream, NULL, tile_index, c, settings->reduce,
                                           &plane, error);
        if (status != GJ2K_OK)
            return status;
        /* Zero coefficients invert to zero samples (F.3, G.2, G.3), which
         * the level shift (G.1.2) moves to 2^(B-1), or leaves when signed. */
        int32_t value = 0;
        level_shift_inverse(&value, 1, plane.precision, plane.is_signed);
        /* The tile-component at the reduced resolution (eq. B-14). */
        dwt_rect r = dwt_band_rect(j2k_tile_component_rect(&codestream->siz, tile_index, c),
                                   settings->reduce, DWT_BAND_LL), o;
        gj2k_component *component = &image->components[c];
        if (!overlap(r, component, &o))
            continue;
        for (uint32_t y = o.y0; y < o.y1; y++) {
            int32_t *row = sample_at(component, o.x0, y);
            for (uint32_t x = o.x0; x < o.x1; x++)
                row[x - o.x0] = value;
        }
    }
    return GJ2K_OK;
}
