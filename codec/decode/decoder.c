/* decoder.c - a decode job (decode_job.h; the public calls are decode_api.c):
 * a JP2 file or a raw codestream in, an image out. Parses the codestream (Annex A), refuses an incomplete one
 * unless partial images are allowed, decodes the tiles that meet the
 * requested area (tile_decoder.c) within the memory limit, then renders the
 * image (decode_render.c): JP2 palette, channel definitions and colour space
 * (Annex I), components kept, upsampling, conversion to sRGB, precision. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_buffer.h"
#include "clock.h"
#include "codestream.h"
#include "dwt.h"
#include "error.h"
#include "gpu_context.h"
#include "gpu_stage.h"
#include "gj2k.h"
#include "image_formats.h"
#include "decode_render.h"
#include "jp2_file.h"
#include "memory_budget.h"
#include "tile_decoder.h"
#include "tier1_gpu.h"
#include "clock.h"
#include "decode_job.h"

/* Tile-components to decode per byte, besides a fixed allowance: each one
 * holding samples carries at least one packet, a byte at least (B.9, B.10.1),
 * so a whole codestream stays below; each costs set-up work even without
 * data, and an almost empty codestream claiming 65535 tiles of 16384
 * components would otherwise keep the decoder busy for hours. */
#define DECODER_TILE_COMPONENTS_PER_BYTE 1u
#define DECODER_TILE_COMPONENT_ALLOWANCE (1u << 16)

static dwt_rect intersect(dwt_rect a, dwt_rect b)
{
    dwt_rect r = {a.x0 > b.x0 ? a.x0 : b.x0, a.y0 > b.y0 ? a.y0 : b.y0,
                  a.x1 < b.x1 ? a.x1 : b.x1, a.y1 < b.y1 ? a.y1 : b.y1};
    if (r.x1 < r.x0)
        r.x1 = r.x0;
    if (r.y1 < r.y0)
        r.y1 = r.y0;
    return r;
}

/* The area to decode on the reference grid: the image, within the region
 * and the tile asked for. */
static gj2k_status decoded_area(const j2k_siz *siz, const gj2k_decode_options *options,
                                dwt_rect *area, gj2k_error *error)
{
    *area = (dwt_rect){siz->image_x0, siz->image_y0, siz->image_x1, siz->image_y1};
    if (options->use_tile) {
        if (options->tile >= siz->num_tiles)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "tile %u does not exist (the image has %u tiles)", options->tile,
                             siz->num_tiles);
        *area = intersect(*area, j2k_tile_rect(siz, options->tile));
    }
    if (options->use_region) {
        dwt_rect region = {options->region_x0, options->region_y0, options->region_x1,
                           options->region_y1};
        *area = intersect(*area, region);
        if (area->x1 == area->x0 || area->y1 == area->y0)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "region %u,%u,%u,%u lies outside the image %u,%u,%u,%u",
                             region.x0, region.y0, region.x1, region.y1, siz->image_x0,
                             siz->image_y0, siz->image_x1, siz->image_y1);
    }
    return GJ2K_OK;
}

/* Refuses to set up more tile-components over `area` than the codestream's
 * size can justify. */
static gj2k_status check_tile_components(const j2k_siz *siz, dwt_rect area, size_t codestream_size,
                                         gj2k_error *error)
{
    /* The tile columns and rows that meet the area (eq. B-6); it is not
     * empty and XTOsiz <= XOsiz <= area.x0, likewise for y. */
    uint64_t columns = (area.x1 - 1u - siz->tile_x0) / siz->tile_width -
                       (area.x0 - siz->tile_x0) / siz->tile_width + 1u;
    uint64_t rows = (area.y1 - 1u - siz->tile_y0) / siz->tile_height -
                    (area.y0 - siz->tile_y0) / siz->tile_height + 1u;
    uint64_t count = columns * rows * siz->num_components;
    uint64_t budget = (uint64_t)codestream_size * DECODER_TILE_COMPONENTS_PER_BYTE +
                      DECODER_TILE_COMPONENT_ALLOWANCE;
    if (count > budget)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "%llu tiles of %u components to decode, more than the limit of %llu "
                         "tile-components for a %zu-byte codestream",
                         (unsigned long long)(columns * rows), siz->num_components,
                         (unsigned long long)budget, codestream_size);
    return GJ2K_OK;
}

/* Component c's geometry in the decoded image. */
static gj2k_component_info *component_info(const j2k_siz *siz)
{
    gj2k_component_info *info = calloc(siz->num_components, sizeof *info);
    for (uint32_t c = 0; info != NULL && c < siz->num_components; c++)
        info[c] = (gj2k_component_info){.dx = siz->components[c].dx, .dy = siz->components[c].dy,
                                        .precision = siz->components[c].precision,
                                        .is_signed = siz->components[c].is_signed};
    return info;
}

/* Refuses an image of more samples than options->max_samples, or none. */
static gj2k_status check_samples(const j2k_siz *siz, dwt_rect reduced,
                                 const gj2k_decode_options *options, gj2k_error *error)
{
    gj2k_component_info *info = component_info(siz);
    if (info == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    uint64_t samples = image_sample_count(reduced.x0, reduced.y0, reduced.x1, reduced.y1,
                                          siz->num_components, info);
    free(info);
    if (samples == UINT64_MAX)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "the image area is empty at this reduction");
    if (options->max_samples != 0 && samples > options->max_samples)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "the image would hold %llu samples, more than the limit of %llu",
                         (unsigned long long)samples, (unsigned long long)options->max_samples);
    return GJ2K_OK;
}

/* What gj2k_image_create allocates for the components over `rows` (saturating). */
static uint64_t image_bytes(const j2k_siz *siz, const gj2k_component_info *info, dwt_rect rows)
{
    uint64_t bytes = 0;
    for (uint32_t c = 0; c < siz->num_components; c++) {
        uint64_t n = image_sample_count(rows.x0, rows.y0, rows.x1, rows.y1, 1, &info[c]);
        uint64_t each = image_sample_bytes(info[c].precision);
        n = n == UINT64_MAX ? 0 : n;
        bytes = n > (UINT64_MAX - bytes) / each ? UINT64_MAX : bytes + n * each;
    }
    return bytes;
}

uint64_t decode_job_image_bytes(const decode_job *job, dwt_rect rows)
{
    gj2k_component_info *info = component_info(&job->cs->siz);
    uint64_t bytes = info != NULL ? image_bytes(&job->cs->siz, info, rows) : UINT64_MAX;
    free(info);
    return bytes;
}

gj2k_status decode_job_create_image(decode_job *job, dwt_rect rows, const char *what,
                                    gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    const j2k_siz *siz = &job->cs->siz;
    gj2k_component_info *info = component_info(siz);
    if (info == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    uint64_t bytes = image_bytes(siz, info, rows);
    gj2k_status status = memory_budget_take(&job->memory, bytes, what, error);
    if (status == GJ2K_OK) {
        status = gj2k_image_create(out, rows.x0, rows.y0, rows.x1, rows.y1, siz->num_components,
                                   info, error);
        if (status != GJ2K_OK)
            memory_budget_give(&job->memory, bytes);
    }
    free(info);
    return status;
}

/* The second half of a tile (tile_decode_samples) on its own thread, which
 * starts before the tile's Tier-1 (tile_decode_blocks) and waits for each
 * plane in turn. The GPU stage takes one tile at a time, so each tile's
 * thread first joins the one before it; joining the last joins them all. */
typedef struct tile_pipeline {
    const tile_decode_settings *settings;
    gj2k_image *image;
    tile_decoding *work;
    struct tile_pipeline *previous; /* joined first, then freed */
    pthread_t thread;
    bool threaded;
    gj2k_status status;             /* the first failure of this tile or those before */
    gj2k_error error;
    uint32_t *tiles_done;           /* counted as each tile's samples are placed (the
                                       joins order the threads, so no lock) */
    tile_decode_times *times;       /* each tile's added as it is freed (the same) */
} tile_pipeline;

/* Waits for the tile and those before it; frees them all. */
static gj2k_status pipeline_finish(tile_pipeline *p, gj2k_error *error)
{
    if (p == NULL)
        return GJ2K_OK;
    if (p->threaded)
        pthread_join(p->thread, NULL);
    gj2k_status status = p->status;
    if (status != GJ2K_OK && error != NULL)
        *error = p->error;
    if (status == GJ2K_OK)
        tile_decoding_add_times(p->work, p->times);
    tile_decoding_free(p->work);
    free(p);
    return status;
}

static void pipeline_run(tile_pipeline *p)
{
    gj2k_error before = {0};
    gj2k_status status = pipeline_finish(p->previous, &before);
    p->previous = NULL;
    if (status != GJ2K_OK) {
        p->status = status;
        p->error = before;
        return;
    }
    p->status = tile_decode_samples(p->work, p->settings, p->image, &p->error);
    *p->tiles_done += p->status == GJ2K_OK;
}

static void *pipeline_thread(void *argument)
{
    pipeline_run(argument);
    return NULL;
}

/* Starts the second half of `work` on its own thread, after `previous`
 * (may be NULL). Where no thread can be made, (*out)->threaded is false and
 * the caller runs it (pipeline_run) after tile_decode_blocks. */
static gj2k_status pipeline_start(const tile_decode_settings *settings, gj2k_image *image,
                                  tile_decoding *work, tile_pipeline *previous,
                                  uint32_t *tiles_done, tile_decode_times *times,
                                  tile_pipeline **out, gj2k_error *error)
{
    tile_pipeline *p = calloc(1, sizeof *p);
    if (p == NULL) {
        tile_decoding_free(work);
        *out = previous;
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    *p = (tile_pipeline){.settings = settings, .image = image, .work = work, .previous = previous,
                         .tiles_done = tiles_done, .times = times};
    p->threaded = pthread_create(&p->thread, NULL, pipeline_thread, p) == 0;
    *out = p;
    return GJ2K_OK;
}

/* Tiles that wait for their Tier-1, to share one GPU batch: once they hold
 * this many samples they go (2^24: some 4,000 code-blocks of 64x64, enough
 * to give each SM of an H100 the 30 or so warps it needs, one block a
 * warp; a 3840x2160 RGB tile alone is 2^24.6). */
#define TILE_GROUP_SAMPLES ((uint64_t)1 << 24)

typedef struct tile_group {
    tile_decoding **works;
    size_t count, capacity;
    uint64_t samples;
} tile_group;

static gj2k_status tile_group_add(tile_group *g, tile_decoding *work, gj2k_error *error)
{
    if (g->count == g->capacity) {
        size_t capacity = g->capacity ? 2 * g->capacity : 16;
        tile_decoding **grown = realloc(g->works, capacity * sizeof *grown);
        if (grown == NULL) {
            tile_decoding_abandon(work);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        g->works = grown;
        g->capacity = capacity;
    }
    g->works[g->count++] = work;
    g->samples += tile_decoding_samples(work);
    return GJ2K_OK;
}

/* Tier-1 of the waiting tiles, in one batch (each fails with it). */
static gj2k_status tile_group_flush(tile_group *g, const tile_decode_settings *settings,
                                    gj2k_error *error)
{
    gj2k_status status = tile_decode_blocks_together(g->works, g->count, settings, error);
    g->count = 0;
    g->samples = 0;
    return status;
}

/* Fails the tiles still waiting (their threads give up); frees the list. */
static void tile_group_abandon(tile_group *g)
{
    for (size_t i = 0; i < g->count; i++)
        tile_decoding_abandon(g->works[i]);
    free(g->works);
    *g = (tile_group){0};
}

static uint64_t image_samples(const gj2k_image *image)
{
    uint64_t samples = 0;
    for (uint32_t c = 0; c < image->num_components; c++)
        samples += (uint64_t)image->components[c].width * image->components[c].height;
    return samples;
}

/* Bounds on the width and height of component c's tile-components in the
 * decoded image (at the reduced resolution): a tile spans at most
 * min(XTsiz, Xsiz - XOsiz) of the grid, and a component's share of that,
 * divided by dx 2^reduce, at most one more than the quotient. */
static void plane_bounds(const j2k_siz *siz, unsigned reduce, uint32_t c, uint64_t *w, uint64_t *h)
{
    uint64_t span_x = siz->image_x1 - siz->image_x0, span_y = siz->image_y1 - siz->image_y0;
    span_x = siz->tile_width < span_x ? siz->tile_width : span_x;
    span_y = siz->tile_height < span_y ? siz->tile_height : span_y;
    uint64_t scale = (uint64_t)1 << (reduce < 32 ? reduce : 32);
    *w = span_x / (siz->components[c].dx * scale) + 1;
    *h = span_y / (siz->components[c].dy * scale) + 1;
}

/* The GPU takes the whole image or none of it, decided once: every
 * tile-component must go through it (whole, or in strips when larger than
 * its memory), and its memory is reserved before the first tile, so that
 * the tiles that follow never ask the stage anything while another tile
 * runs on it. */
static void reserve_gpu(const j2k_codestream *cs, unsigned reduce, bool owned,
                        tile_decode_settings *settings)
{
    if (settings->gpu == NULL)
        return;
    uint64_t largest = 0;
    bool takes = true;
    for (uint32_t c = 0; c < cs->siz.num_components && takes; c++) {
        uint64_t w, h;
        plane_bounds(&cs->siz, reduce, c, &w, &h);
        takes = w <= SIZE_MAX && h <= SIZE_MAX && gpu_stage_takes(settings->gpu, (size_t)w, (size_t)h);
        largest = w * h > largest ? w * h : largest;
    }
    gj2k_error ignored = {0};
    if (!takes || largest > SIZE_MAX ||
        gpu_stage_reserve(settings->gpu, (size_t)largest, &ignored) != GJ2K_OK) {
        if (owned) /* a context's stays open for the next call */
            gpu_stage_destroy(settings->gpu);
        settings->gpu = NULL;
    }
}

bool decode_job_wants_strips(const decode_job *job)
{
    if (job->options->strip_rows != 0)
        return true;
    const j2k_siz *siz = &job->cs->siz;
    uint64_t bytes = 0; /* a tile's coefficients and samples, 8 bytes a sample at most */
    for (uint32_t c = 0; c < siz->num_components; c++) {
        uint64_t w, h;
        plane_bounds(siz, job->options->reduce, c, &w, &h);
        uint64_t each = w > UINT64_MAX / 8 / h ? UINT64_MAX : w * h * 8;
        bytes = each > UINT64_MAX - bytes ? UINT64_MAX : bytes + each;
    }
    uint64_t used = atomic_load(&job->memory.used), limit = job->memory.limit;
    return bytes > (limit > used ? limit - used : 0) / 2;
}

/* Whether tile t is decoded: it meets the area (and is the tile asked for)
 * and some component has samples in it (subsampling may leave a thin tile
 * with none). */
static bool tile_is_decoded(const j2k_siz *siz, uint32_t t, dwt_rect area,
                            const gj2k_decode_options *options)
{
    if (options->use_tile && t != options->tile)
        return false;
    dwt_rect meet = intersect(j2k_tile_rect(siz, t), area);
    if (meet.x1 == meet.x0 || meet.y1 == meet.y0)
        return false;
    for (uint32_t c = 0; c < siz->num_components; c++) {
        dwt_rect r = j2k_tile_component_rect(siz, t, c);
        if (r.x1 > r.x0 && r.y1 > r.y0)
            return true;
    }
    return false;
}

bool decode_job_decodes_tile(const decode_job *job, uint32_t t)
{
    return tile_is_decoded(&job->cs->siz, t, job->area, job->options);
}

/* What one decoded tile lacks (A.4.2: Psot, TPsot, TNsot), written to
 * `why`; false when it holds all its tile-parts. */
static bool tile_lacks(const j2k_codestream *cs, uint32_t t, char *why, size_t size)
{
    const j2k_tile *tile = j2k_codestream_tile(cs, t);
    if (tile == NULL) {
        snprintf(why, size, "tile %u has no tile-parts", t);
        return true;
    }
    uint8_t declared = 0; /* TNsot: 0 in a tile-part that does not say */
    for (size_t i = 0; i < tile->num_parts; i++) {
        const j2k_tile_part *part = &tile->parts[i];
        if (part->truncated)
            snprintf(why, size, "tile %u, tile-part %u runs %zu bytes past the end of the data", t,
                     part->part_index, (size_t)part->psot - (cs->size - part->sot_offset));
        else if (part->psot == 0 && !cs->has_eoc) /* runs to an EOC that is not there */
            snprintf(why, size, "tile %u, tile-part %u runs to the end of the data, which has no "
                     "EOC marker", t, part->part_index);
        else if (part->part_index != i) /* in TPsot order: a gap is a lost part */
            snprintf(why, size, "tile %u lacks its tile-part %zu", t, i);
        else {
            declared = part->num_parts != 0 ? part->num_parts : declared;
            continue;
        }
        return true;
    }
    if (declared != 0 && tile->num_parts < declared) {
        snprintf(why, size, "tile %u has %zu of its %u tile-parts", t, tile->num_parts, declared);
        return true;
    }
    return false;
}

/* Fails, naming what is missing, when a tile to decode is incomplete or the
 * data ends inside a tile-part header, unless partial images are allowed;
 * *incomplete tells that it failed so. */
static gj2k_status check_complete(const j2k_codestream *cs, dwt_rect area,
                                  const gj2k_decode_options *options, bool *incomplete,
                                  gj2k_error *error)
{
    if (options->allow_partial)
        return GJ2K_OK;
    char first[160] = "";
    uint32_t lacking = 0;
    for (uint32_t t = 0; t < cs->siz.num_tiles; t++) {
        char why[160];
        if (tile_is_decoded(&cs->siz, t, area, options) && tile_lacks(cs, t, why, sizeof why) &&
            lacking++ == 0)
            memcpy(first, why, sizeof first);
    }
    *incomplete = lacking != 0 ||
                  (cs->cut_short && (cs->cut_tile == UINT32_MAX ||
                                     tile_is_decoded(&cs->siz, cs->cut_tile, area, options)));
    if (lacking == 0 && *incomplete)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "incomplete codestream: the data ends inside the tile-part at offset %zu",
                         cs->cut_offset);
    if (lacking == 1)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "incomplete codestream: %s", first);
    if (lacking > 1)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "incomplete codestream: %u tiles lack data (the first: %s)", lacking,
                         first);
    return GJ2K_OK;
}

void decode_job_warn_missing(const decode_job *job, uint32_t missing, uint32_t first_missing)
{
    const gj2k_decode_options *options = job->options;
    if (missing == 1)
        gj2k_warn(options->warning, options->warning_user,
                  "tile %u has no tile-parts: decoded as mid-grey", first_missing);
    else if (missing > 1)
        gj2k_warn(options->warning, options->warning_user,
                  "%u tiles have no tile-parts (the first: tile %u): decoded as mid-grey", missing,
                  first_missing);
}

/* decode_job_tiles' strips all go into the one image. */
static gj2k_status strip_into_image(void *user, uint32_t grid_y0, uint32_t grid_y1,
                                    gj2k_image **target, gj2k_error *error)
{
    (void)grid_y0;
    (void)grid_y1;
    (void)error;
    *target = user;
    return GJ2K_OK;
}

/* Decodes every tile that meets the area, each whole. */
static gj2k_status decode_whole_tiles(decode_job *job, gj2k_image *image, gj2k_error *error)
{
    const j2k_codestream *cs = job->cs;
    const uint8_t *data = job->codestream;
    dwt_rect area = job->area;
    const gj2k_decode_options *options = job->options;
    memory_budget *memory = &job->memory;
    const j2k_siz *siz = &cs->siz;
    tile_decode_settings settings = {.reduce = options->reduce, .max_layers = options->max_layers,
                                     .memory = memory, .progress = &job->progress,
                                     .warning = options->warning,
                                     .warning_user = options->warning_user};
    gj2k_status status = parallel_pool_create(options->threads, &settings.pool, error);
    double opening = now_seconds();
    /* a context's GPU (kept), or one opened for this decode (closed at the end) */
    gj2k_gpu_context *context = gpu_context_for(options->gpu_context, options->device);
    if (status == GJ2K_OK && context != NULL)
        settings.gpu = context->stage;
    else if (status == GJ2K_OK)
        status = gpu_stage_open(options->device, options->gpu, image_samples(image),
                                GPU_STAGE_AUTO_MIN_DECODE_SAMPLES, &settings.gpu, error);
    reserve_gpu(cs, options->reduce, context == NULL, &settings);
    /* Tier-1 goes to the GPU with the transforms (else, or when it cannot open, the CPU's) */
    gj2k_error unused = {0};
    if (settings.gpu != NULL && context != NULL)
        settings.tier1_gpu = gpu_context_decoder(context);
    else if (settings.gpu != NULL &&
             tier1_gpu_create(options->gpu, &settings.tier1_gpu, &unused) != GJ2K_OK)
        settings.tier1_gpu = NULL;
    uint64_t blocks_before = tier1_gpu_blocks(settings.tier1_gpu); /* a context counts on */
    double tiles = now_seconds();
    gj2k_decode_report report = {0};
    tile_decode_times times = {0};
    tile_group group = {0};
    tile_pipeline *pipeline = NULL; /* the last tile started */
    uint32_t missing = 0, first_missing = 0; /* tiles with no tile-parts */
    for (uint32_t t = 0; t < siz->num_tiles && status == GJ2K_OK; t++) {
        if (!tile_is_decoded(siz, t, area, options))
            continue;
        if (j2k_codestream_tile(cs, t) == NULL) { /* no structure, no Tier-2: a fill */
            status = tile_decode_missing(cs, t, &settings, image, error);
            report.num_tiles += status == GJ2K_OK;
            if (missing++ == 0)
                first_missing = t;
            continue;
        }
        if (settings.gpu == NULL) {
            status = tile_decode(cs, data, t, &settings, image, &times, error);
            report.num_tiles += status == GJ2K_OK;
            continue;
        }
        /* GPU: this tile's code-blocks while the GPU finishes the last tile
         * and starts on this one's planes as they come. Tiles whose planes
         * lie on the device wait for others until together they are enough
         * to fill the GPU, then go through Tier-1 in one batch. */
        tile_decoding *work = NULL;
        status = tile_decode_begin(cs, data, t, &settings, image, &work, error);
        bool joins = status == GJ2K_OK && tile_decoding_on_device(work);
        /* the waiting tiles first when this one cannot join them or they are
           enough; before this tile's thread starts, which would free the last
           of them once it is done (tile_decode_blocks touches it after) */
        if (status == GJ2K_OK && group.count > 0 &&
            (!joins || group.samples >= TILE_GROUP_SAMPLES)) {
            status = tile_group_flush(&group, &settings, error);
            if (status != GJ2K_OK)
                tile_decoding_free(work);
        }
        if (status == GJ2K_OK)
            status = pipeline_start(&settings, image, work, pipeline, &report.gpu_tiles,
                                    &times, &pipeline, error);
        if (status == GJ2K_OK && joins && pipeline->threaded) {
            status = tile_group_add(&group, work, error);
        } else if (status == GJ2K_OK) {
            if (!pipeline->threaded && group.count > 0) /* its run joins theirs */
                status = tile_group_flush(&group, &settings, error);
            if (status == GJ2K_OK)
                status = tile_decode_blocks(work, &settings, error);
            else
                tile_decoding_abandon(work);
            if (!pipeline->threaded) /* no thread: the second half here, now */
                pipeline_run(pipeline);
        }
    }
    if (status == GJ2K_OK && group.count > 0)
        status = tile_group_flush(&group, &settings, error);
    tile_group_abandon(&group); /* after a failure, the tiles still waiting */
    decode_job_warn_missing(job, missing, first_missing);
    gj2k_error finish_error = {0};
    gj2k_status finished = pipeline_finish(pipeline, &finish_error);
    if (status == GJ2K_OK && finished != GJ2K_OK) {
        status = finished;
        if (error != NULL)
            *error = finish_error;
    }
    job->report.tiles_ms += (now_seconds() - tiles) * 1e3;
    double phases[GPU_PHASES]; /* every tile's, the pipeline's threads joined */
    gpu_stage_take_times(settings.gpu, phases);
    job->report.copies_ms += phases[GPU_PHASE_COPIES];
    job->report.tier2_ms += times.tier2_ms;
    job->report.tier1_ms += times.tier1_ms;
    job->report.transform_ms += times.transform_ms;
    if (settings.gpu != NULL)
        job->report.open_ms += (tiles - opening) * 1e3;
    report.gpu_blocks = tier1_gpu_blocks(settings.tier1_gpu) - blocks_before;
    if (context == NULL) {
        tier1_gpu_destroy(settings.tier1_gpu);
        gpu_stage_destroy(settings.gpu);
    }
    parallel_pool_destroy(settings.pool);
    report.num_tiles += report.gpu_tiles; /* the CPU's were counted as they went */
    job->report.num_tiles = report.num_tiles;
    job->report.gpu_tiles = report.gpu_tiles;
    job->report.gpu_blocks = report.gpu_blocks;
    return status;
}

gj2k_status decode_job_tiles(decode_job *job, gj2k_image *image, gj2k_error *error)
{
    decode_strip_sink into_image = {.open = strip_into_image, .user = image};
    gj2k_status status = decode_job_wants_strips(job) ? decode_job_strips(job, &into_image, error)
                                                      : decode_whole_tiles(job, image, error);
    return decode_job_progress_end(job, status, error);
}

gj2k_status decode_job_progress_end(decode_job *job, gj2k_status status, gj2k_error *error)
{
    if (progress_meter_cancelled(&job->progress)) /* whatever the workers made of it */
        return gj2k_fail(error, GJ2K_ERROR_CANCELLED, "decode cancelled by its progress callback");
    if (status == GJ2K_OK)
        progress_meter_finish(&job->progress);
    return status;
}

/* Warns where ihdr / bpcc disagree with the codestream's SIZ (Annex
 * I.5.3.1): the whole image, whatever part of it is decoded. */
static void compare_jp2_header(const jp2_file *jp2, const j2k_siz *siz,
                               const gj2k_decode_options *options)
{
    const jp2_image_header *h = &jp2->header;
    uint32_t width = siz->image_x1 - siz->image_x0, height = siz->image_y1 - siz->image_y0;
    if (h->width != width || h->height != height)
        gj2k_warn(options->warning, options->warning_user,
                  "JP2: ihdr gives %ux%u, the codestream %ux%u", h->width, h->height, width,
                  height);
    if (h->num_components != siz->num_components)
        gj2k_warn(options->warning, options->warning_user,
                  "JP2: ihdr gives %u components, the codestream %u", h->num_components,
                  siz->num_components);
    for (uint32_t c = 0; c < siz->num_components && c < h->num_components; c++) {
        jp2_depth depth;
        const j2k_component_size *k = &siz->components[c];
        if (jp2_file_component_depth(jp2, c, &depth) &&
            (depth.precision != k->precision || depth.is_signed != k->is_signed)) {
            gj2k_warn(options->warning, options->warning_user,
                      "JP2: header gives component %u %u bits%s, the codestream %u bits%s", c,
                      depth.precision, depth.is_signed ? " signed" : "", k->precision,
                      k->is_signed ? " signed" : "");
            break;
        }
    }
}

gj2k_status decode_job_open(decode_job *job, const uint8_t *data, size_t size,
                            const gj2k_decode_options *options, gj2k_error *error)
{
    static const gj2k_decode_options defaults = {0};
    memset(job, 0, sizeof *job);
    job->options = options != NULL ? options : &defaults;
    options = job->options;
    memory_budget_init(&job->memory, options->max_memory);
    if (options->precision > GJ2K_MAX_PRECISION)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "output precision %u (1..%d allowed)",
                         options->precision, GJ2K_MAX_PRECISION);
    job->format = gj2k_format_from_signature(data, size);
    const uint8_t *codestream = data;
    size_t codestream_size = size;
    gj2k_status status = GJ2K_OK;
    if (job->format == GJ2K_FORMAT_JP2) {
        status = jp2_file_read(data, size, &job->jp2, options->warning, options->warning_user,
                               error);
        if (status != GJ2K_OK)
            return status;
        codestream = data + job->jp2.codestream_offset;
        codestream_size = (size_t)job->jp2.codestream_length;
    } else if (job->format != GJ2K_FORMAT_J2K) {
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "not a JPEG 2000 file: neither a JP2 signature nor a codestream's SOC");
    }
    job->codestream = codestream;
    status = j2k_codestream_parse(codestream, codestream_size, options->warning,
                                  options->warning_user, &job->cs, error);
    if (status == GJ2K_OK && job->format == GJ2K_FORMAT_JP2 && !options->raw_components)
        compare_jp2_header(&job->jp2, &job->cs->siz, options);
    if (status == GJ2K_OK)
        status = decoded_area(&job->cs->siz, options, &job->area, error);
    if (status == GJ2K_OK)
        status = check_tile_components(&job->cs->siz, job->area, codestream_size, error);
    if (status == GJ2K_OK)
        status = check_complete(job->cs, job->area, options, &job->incomplete, error);
    if (status == GJ2K_OK) {
        unsigned r = options->reduce > 31 ? 31 : options->reduce;
        job->reduced = dwt_band_rect(job->area, r, DWT_BAND_LL); /* each edge / 2^r, up */
        job->report.width = job->reduced.x1 - job->reduced.x0;
        job->report.height = job->reduced.y1 - job->reduced.y0;
        job->report.num_components = job->cs->siz.num_components;
        status = check_samples(&job->cs->siz, job->reduced, options, error);
    }
    if (status == GJ2K_OK) { /* the samples of every component, subsampled */
        uint64_t total = 0, w = job->report.width, h = job->report.height;
        for (uint32_t c = 0; c < job->cs->siz.num_components; c++)
            total += (w / job->cs->siz.components[c].dx + 1) * (h / job->cs->siz.components[c].dy + 1);
        progress_meter_init(&job->progress, options->progress, options->progress_user, total);
    }
    return status;
}

void decode_job_close(decode_job *job)
{
    if (job->options != NULL && job->options->report != NULL) {
        *job->options->report = job->report;
        job->options->report->incomplete = job->incomplete;
        job->options->report->over_memory = atomic_load(&job->memory.refused);
    }
    j2k_codestream_destroy(job->cs);
    jp2_file_free(&job->jp2);
    memset(job, 0, sizeof *job);
}

gj2k_status decode_job_image(decode_job *job, gj2k_image **out, gj2k_error *error)
{
    gj2k_image *image = NULL;
    gj2k_status status = decode_job_create_image(job, job->reduced, "the decoded image", &image,
                                                 error);
    if (status == GJ2K_OK)
        status = decode_job_tiles(job, image, error);
    if (status == GJ2K_OK)
        status = decode_render(image, job->format == GJ2K_FORMAT_JP2 ? &job->jp2 : NULL,
                               job->options, &job->memory, error);
    if (status != GJ2K_OK) {
        gj2k_image_destroy(image);
        image = NULL;
    }
    *out = image;
    return status;
}
