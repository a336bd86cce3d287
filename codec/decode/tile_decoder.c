/* tile_decoder.c - see tile_decoder.h. */
#include "tile_decoder.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "component_transform.h"
#include "error.h"
#include "level_shift.h"
#include "parallel_pool.h"
#include "plane_gate.h"
#include "tier1_gpu.h"
#include "tile_planes.h"

/* The planes' inverse DWTs, each free to share its rows and columns out
 * to the pool's threads. */
typedef struct inverse_planes {
    tile_plane *planes;
    parallel_pool *pool;
} inverse_planes;

static gj2k_status inverse_transform_plane(void *context, size_t index, unsigned worker)
{
    (void)worker;
    inverse_planes *work = context;
    tile_plane *plane = &work->planes[index];
    size_t stride = plane->rect.x1 - plane->rect.x0;
    if (tile_rect_area(plane->rect) == 0)
        return GJ2K_OK;
    if (plane->reversible)
        return dwt_inverse_53_on(work->pool, plane->integers, stride, plane->rect, plane->levels);
    return dwt_inverse_97_interop_on(work->pool, plane->floats, stride, plane->rect,
                                     plane->levels);
}

/* Annex G.2/G.3: components 0..2 back from YUV/YCbCr. */
static void inverse_component_transform(tile_plane *planes)
{
    size_t n = tile_rect_area(planes[0].rect);
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
            size_t area = tile_rect_area(p->rect);
            p->packed_bytes = gpu_input_bytes(p->precision);
            /* the samples come back packed, or at 4 bytes into `integers` */
            bool packed = p->packed_bytes < 4;
            if (packed || p->integers == NULL) {
                uint64_t bytes = (uint64_t)area * (packed ? p->packed_bytes : 4u);
                status = memory_budget_take(memory, bytes, "a plane's samples from the GPU", error);
                if (status != GJ2K_OK)
                    return status;
                p->charged += bytes;
                void *samples = malloc(bytes ? (size_t)bytes : 1);
                if (samples == NULL)
                    return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
                if (packed)
                    p->packed = samples;
                else
                    p->integers = samples;
            }
            jobs[k] = (gpu_inverse_plane){.rect = p->rect, .levels = p->levels,
                                          .precision = p->precision, .is_signed = p->is_signed,
                                          .samples = p->integers, .floats = p->floats,
                                          .halves = p->halves,
                                          .half_steps = p->halves ? p->half_steps : NULL,
                                          .output = p->packed, .output_bytes = p->packed_bytes,
                                          .device_input = p->device == NULL ? NULL
                                              : tier1_gpu_planes_data(p->device) + p->device_offset};
        }
        plane_wait wait = {gate, c};
        status = gpu_inverse(gpu, jobs, group, planes[c].reversible, group == 3, wait_for_plane,
                             &wait, error);
        c += group;
    }
    return status;
}

/* The component's sample at (x, y), a point inside it. */
static int32_t *sample_at(gj2k_component *component, uint32_t x, uint32_t y)
{
    return component->samples + (size_t)(y - component->y0) * component->width +
           (x - component->x0);
}

/* Copies rows [y0, y1) of the part of the plane inside the image's
 * component (those rows of the overlap o). */
static void place_rows(const tile_plane *plane, gj2k_component *component, dwt_rect o,
                       uint32_t y0, uint32_t y1)
{
    dwt_rect r = plane->rect;
    size_t stride = r.x1 - r.x0, count = o.x1 - o.x0;
    for (uint32_t y = y0; y < y1; y++) {
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

/* The planes' samples into the image, in bands of rows on the pool's
 * threads (one thread widens a 4K frame's bytes in ~10 ms). */
#define PLACE_ROWS 64
typedef struct placing {
    tile_plane *planes;
    gj2k_image *image;
    dwt_rect *overlap;   /* of each plane with its component */
    size_t *first_band;  /* plane c's bands start here; [count]: all of them */
} placing;

static gj2k_status place_band(void *context, size_t index, unsigned worker)
{
    (void)worker;
    placing *p = context;
    uint32_t c = 0;
    while (index >= p->first_band[c + 1])
        c++;
    dwt_rect o = p->overlap[c];
    uint64_t y0 = o.y0 + (uint64_t)(index - p->first_band[c]) * PLACE_ROWS;
    uint32_t y1 = y0 + PLACE_ROWS < o.y1 ? (uint32_t)(y0 + PLACE_ROWS) : o.y1;
    place_rows(&p->planes[c], &p->image->components[c], o, (uint32_t)y0, y1);
    return GJ2K_OK;
}

static gj2k_status place_planes(tile_plane *planes, uint32_t n, gj2k_image *image,
                                parallel_pool *pool)
{
    placing p = {.planes = planes, .image = image, .overlap = calloc(n, sizeof *p.overlap),
                 .first_band = calloc(n + 1, sizeof *p.first_band)};
    gj2k_status status = GJ2K_ERROR_OUT_OF_MEMORY;
    if (p.overlap != NULL && p.first_band != NULL) {
        for (uint32_t c = 0; c < n; c++) {
            size_t bands = 0;
            if (tile_component_overlap(planes[c].rect, &image->components[c], &p.overlap[c]))
                bands = (p.overlap[c].y1 - p.overlap[c].y0 + PLACE_ROWS - 1) / PLACE_ROWS;
            p.first_band[c + 1] = p.first_band[c] + bands;
        }
        status = parallel_for(pool, p.first_band[n], place_band, &p);
    }
    free(p.overlap);
    free(p.first_band);
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
    tier1_gpu_planes *device; /* the planes in device memory (tile_plane.device), or NULL */
    uint32_t num_planes;
    tile_plane *planes;
    tier2_block *blocks;
    size_t num_blocks;
    /* now_seconds() at each step's start and end */
    double begun, read, blocks_started, blocks_done, samples_started, samples_done;
};

void tile_decoding_add_times(const tile_decoding *work, tile_decode_times *times)
{
    if (times == NULL)
        return;
    times->tier2_ms += (work->read - work->begun) * 1e3;
    times->tier1_ms += (work->blocks_done - work->blocks_started) * 1e3;
    /* on the GPU path the samples start first and wait for Tier-1 */
    double from = work->samples_started > work->blocks_done ? work->samples_started
                                                            : work->blocks_done;
    if (work->samples_done > from)
        times->transform_ms += (work->samples_done - from) * 1e3;
}

void tile_decoding_free(tile_decoding *work)
{
    if (work == NULL)
        return;
    if (work->on_gpu)
        plane_gate_destroy(&work->gate);
    free(work->blocks);
    tile_planes_free(work->planes, work->num_planes, work->memory);
    tier1_gpu_planes_destroy(work->device); /* after the planes' last use on the GPU */
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

/* On the GPU path the planes lie in device memory, where the GPU's Tier-1
 * dequantizes the code-blocks and the inverse transforms read them, when
 * every plane takes half steps and fits the stage whole; true if so. */
static bool planes_on_device(tile_decoding *work, const tile_decode_settings *settings)
{
    size_t total = 0, largest = 0;
    for (uint32_t c = 0; c < work->num_planes; c++) {
        const tile_plane *plane = &work->planes[c];
        size_t area = tile_rect_area(plane->rect);
        if (!plane->halves || total > SIZE_MAX / 4 - area)
            return false;
        total += area;
        largest = area > largest ? area : largest;
    }
    gj2k_error unused = {0};
    if (settings->tier1_gpu == NULL || !gpu_stage_fits(settings->gpu, largest) ||
        tier1_gpu_planes_create(settings->tier1_gpu, total, &work->device, &unused) != GJ2K_OK)
        return false;
    size_t offset = 0;
    for (uint32_t c = 0; c < work->num_planes; c++) {
        work->planes[c].device = work->device;
        work->planes[c].device_offset = offset;
        offset += tile_rect_area(work->planes[c].rect);
    }
    return true;
}

gj2k_status tile_decode_begin(const j2k_codestream *codestream, const uint8_t *data,
                              uint32_t tile_index, const tile_decode_settings *settings,
                              const gj2k_image *image, tile_decoding **out, gj2k_error *error)
{
    *out = NULL;
    double begun = now_seconds();
    uint32_t n = codestream->siz.num_components;
    tile_decoding *work = calloc(1, sizeof *work);
    if (work == NULL || (work->planes = calloc(n, sizeof *work->planes)) == NULL) {
        free(work);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u", tile_index);
    }
    work->begun = begun;
    work->tile_index = tile_index;
    work->memory = settings->memory;
    work->num_planes = n;
    /* With a GPU stage, it takes every tile (decoder.c). */
    gj2k_status status = tile_planes_prepare(
        codestream, tile_index, settings->reduce, image,
        settings->gpu != NULL ? TILE_PLANES_DEVICE : TILE_PLANES_WHOLE, settings->memory,
        work->planes, error);
    if (status == GJ2K_OK && settings->gpu != NULL && !planes_on_device(work, settings))
        status = tile_planes_allocate(work->planes, n, tile_index, settings->memory, error);
    if (status == GJ2K_OK)
        status = tile_planes_read_packets(codestream, data, tile_index, work->planes, settings,
                                          &work->blocks, &work->num_blocks, error);
    if (status == GJ2K_OK && settings->gpu != NULL)
        status = gate_init(work, error);
    if (status != GJ2K_OK) {
        if (error != NULL && error->status == GJ2K_OK)
            gj2k_fail(error, status, "tile %u: %s", tile_index, gj2k_status_name(status));
        tile_decoding_free(work);
        return status;
    }
    work->read = now_seconds();
    *out = work;
    return GJ2K_OK;
}

/* A plane's code-block is done: its count at the gate goes down. */
static void count_down(void *gate, uint32_t component) { plane_gate_done(gate, component); }

gj2k_status tile_decode_blocks(tile_decoding *work, const tile_decode_settings *settings,
                               gj2k_error *error)
{
    plane_gate *gate = work->on_gpu ? &work->gate : NULL;
    work->blocks_started = now_seconds();
    gj2k_status status = tile_planes_decode_blocks(work->blocks, NULL, work->num_blocks, NULL,
                                                   work->planes, gate ? count_down : NULL, gate,
                                                   settings, work->tile_index, error);
    work->blocks_done = now_seconds();
    if (status != GJ2K_OK && gate != NULL)
        plane_gate_fail(gate);
    return status;
}

bool tile_decoding_on_device(const tile_decoding *work) { return work->device != NULL; }

uint64_t tile_decoding_samples(const tile_decoding *work)
{
    uint64_t samples = 0;
    for (uint32_t c = 0; c < work->num_planes; c++)
        samples += tile_rect_area(work->planes[c].rect);
    return samples;
}

void tile_decoding_abandon(tile_decoding *work)
{
    if (work->on_gpu)
        plane_gate_fail(&work->gate);
}

gj2k_status tile_decode_blocks_together(tile_decoding **works, size_t count,
                                        const tile_decode_settings *settings, gj2k_error *error)
{
    bool together = count > 1;
    for (size_t i = 0; i < count; i++)
        together = together && works[i]->on_gpu && works[i]->device != NULL;
    if (!together) {
        gj2k_status status = GJ2K_OK;
        for (size_t i = 0; i < count; i++) {
            if (status == GJ2K_OK)
                status = tile_decode_blocks(works[i], settings, error);
            else
                tile_decoding_abandon(works[i]);
        }
        return status;
    }
    tile_block_set *sets = calloc(count, sizeof *sets);
    if (sets == NULL) {
        for (size_t i = 0; i < count; i++)
            tile_decoding_abandon(works[i]);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < count; i++)
        sets[i] = (tile_block_set){.blocks = works[i]->blocks, .count = works[i]->num_blocks,
                                   .planes = works[i]->planes,
                                   .tile_index = works[i]->tile_index};
    double started = now_seconds();
    gj2k_status status = tile_blocks_decode_on_gpu(sets, count, settings, error);
    double done = now_seconds();
    free(sets);
    for (size_t i = 0; i < count; i++) {
        /* Once its last gate opens, a tile may finish and be freed by the
           next tile's thread: nothing of it is touched after that. */
        tile_decoding *work = works[i];
        work->blocks_started = i == 0 ? started : done;
        work->blocks_done = done;
        if (status != GJ2K_OK) {
            plane_gate_fail(&work->gate);
            continue;
        }
        plane_gate *gate = &work->gate;
        const tier2_block *blocks = work->blocks;
        size_t n = work->num_blocks;
        for (size_t b = 0; b < n; b++)
            plane_gate_done(gate, blocks[b].component);
    }
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
    work->samples_started = now_seconds();
    tile_plane *planes = work->planes;
    uint32_t n = work->num_planes, tile_index = work->tile_index;
    gj2k_status status = GJ2K_OK;
    bool mct = tile_planes_use_component_transform(planes, n, settings, tile_index);
    bool on_gpu = work->on_gpu; /* else Tier-1 is done: tile_decode_blocks came first */
    if (on_gpu)
        status = inverse_on_gpu(settings->gpu, planes, n, mct, &work->gate, settings->memory,
                                error);
    inverse_planes inverse = {planes, settings->pool};
    if (status == GJ2K_OK && !on_gpu)
        status = parallel_for(settings->pool, n, inverse_transform_plane, &inverse);
    if (status == GJ2K_OK && !on_gpu) {
        if (mct)
            inverse_component_transform(planes);
        for (uint32_t c = 0; c < n; c++) {
            tile_plane *plane = &planes[c];
            size_t area = tile_rect_area(plane->rect);
            if (plane->reversible)
                level_shift_inverse(plane->integers, area, plane->precision, plane->is_signed);
            else
                level_shift_inverse_float(plane->floats, plane->integers, area, plane->precision,
                                          plane->is_signed);
        }
    }
    if (status == GJ2K_OK)
        status = place_planes(planes, n, image, settings->pool);
    work->samples_done = now_seconds();
    if (status != GJ2K_OK && error != NULL && error->status == GJ2K_OK)
        gj2k_fail(error, status, "tile %u: %s", tile_index, gj2k_status_name(status));
    return status;
}

gj2k_status tile_decode(const j2k_codestream *codestream, const uint8_t *data, uint32_t tile_index,
                        const tile_decode_settings *settings, gj2k_image *image,
                        tile_decode_times *times, gj2k_error *error)
{
    tile_decoding *work = NULL;
    gj2k_status status = tile_decode_coefficients(codestream, data, tile_index, settings, image,
                                                  &work, error);
    if (status == GJ2K_OK)
        status = tile_decode_samples(work, settings, image, error);
    if (status == GJ2K_OK)
        tile_decoding_add_times(work, times);
    tile_decoding_free(work);
    return status;
}

gj2k_status tile_decode_missing(const j2k_codestream *codestream, uint32_t tile_index,
                                const tile_decode_settings *settings, gj2k_image *image,
                                gj2k_error *error)
{
    for (uint32_t c = 0; c < codestream->siz.num_components; c++) {
        tile_plane plane = {0};
        gj2k_status status = tile_plane_resolve(codestream, NULL, tile_index, c, settings->reduce,
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
        if (!tile_component_overlap(r, component, &o))
            continue;
        for (uint32_t y = o.y0; y < o.y1; y++) {
            int32_t *row = sample_at(component, o.x0, y);
            for (uint32_t x = o.x0; x < o.x1; x++)
                row[x - o.x0] = value;
        }
    }
    return GJ2K_OK;
}
