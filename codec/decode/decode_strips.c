/* decode_strips.c - decode_job_strips (decode_job.h): the area a tile row
 * at a time; in each, every tile decoded a strip of rows at a time
 * (tile_strips.c) into the image the sink gives for those rows. Memory
 * grows with the image's width, not its height. */
#include <stdlib.h>

#include "clock.h"
#include "decode_job.h"
#include "error.h"
#include "image_formats.h"
#include "parallel_pool.h"
#include "tile_strips.h"

/* Samples a strip of the reduced grid covers in all components, when
 * options->strip_rows leaves it to gj2k: enough that the margins each
 * level's windows add cost little, few enough that a strip's buffers stay
 * tens of megabytes. */
#define STRIP_TARGET_SAMPLES (1u << 22)
#define STRIP_MIN_ROWS 64u

/* A row's bytes, at most, across a strip's buffers: the bands' rows, two
 * windows, the values and samples of each plane, the strip's image and
 * its rendering, each 4 bytes a sample or less. */
#define STRIP_ROW_BUFFERS 12u

static uint32_t strip_height(const decode_job *job)
{
    if (job->options->strip_rows != 0)
        return job->options->strip_rows;
    uint64_t width = (uint64_t)(job->reduced.x1 - job->reduced.x0) * job->cs->siz.num_components;
    width = width ? width : 1;
    uint64_t rows = STRIP_TARGET_SAMPLES / width;
    rows = rows < STRIP_MIN_ROWS ? STRIP_MIN_ROWS : rows;
    /* fewer where the memory limit is tight (below 16 rows, the windows' margins cost more
     * than the rows: a refusal by the budget is the clearer answer) */
    uint64_t used = atomic_load(&job->memory.used), limit = job->memory.limit;
    uint64_t fit = (limit > used ? limit - used : 0) / 2 / (width * 4 * STRIP_ROW_BUFFERS);
    rows = fit < rows ? (fit > 16 ? fit : 16) : rows;
    return rows > (1u << 20) ? (1u << 20) : (uint32_t)rows;
}

static uint32_t ceil_shift(uint32_t v, unsigned n)
{
    return (uint32_t)(((uint64_t)v + ((uint64_t)1 << n) - 1) >> n);
}

/* One tile row: its tiles, begun (NULL: not decoded, or filled as missing). */
typedef struct tile_row {
    uint32_t first, count;  /* tiles first .. first + count - 1 */
    tile_strips **strips;
    bool *missing;          /* decoded, but with no tile-parts: mid-grey */
} tile_row;

static void tile_row_free(tile_row *row)
{
    for (uint32_t i = 0; row->strips != NULL && i < row->count; i++)
        tile_strips_free(row->strips[i]);
    free(row->strips);
    free(row->missing);
}

static gj2k_status tile_row_begin(decode_job *job, const tile_decode_settings *settings,
                                  const gj2k_image *layout, tile_row *row, uint32_t *tiles,
                                  uint32_t *missing, uint32_t *first_missing, gj2k_error *error)
{
    row->strips = calloc(row->count, sizeof *row->strips);
    row->missing = calloc(row->count, sizeof *row->missing);
    if (row->strips == NULL || row->missing == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < row->count; i++) {
        uint32_t t = row->first + i;
        if (!decode_job_decodes_tile(job, t))
            continue;
        ++*tiles;
        if (j2k_codestream_tile(job->cs, t) == NULL) {
            row->missing[i] = true;
            if ((*missing)++ == 0)
                *first_missing = t;
            continue;
        }
        gj2k_status status = tile_strips_begin(job->cs, job->codestream, t, settings, layout,
                                               &row->strips[i], error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}

/* `image` seen through rows [g0, g1) of the reduced grid: its components
 * cut to those rows (in `components`), their samples shared. */
static gj2k_image strip_view(const gj2k_image *image, uint32_t g0, uint32_t g1,
                             gj2k_component *components)
{
    gj2k_image view = *image;
    view.components = components;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *k = &image->components[c];
        gj2k_component *v = &components[c];
        *v = *k;
        uint32_t y0 = image_ceil_div(g0, k->dy), y1 = image_ceil_div(g1, k->dy);
        uint32_t end = k->y0 + k->height;
        y0 = y0 > k->y0 ? (y0 < end ? y0 : end) : k->y0;
        y1 = y1 > y0 ? (y1 < end ? y1 : end) : y0;
        v->y0 = y0;
        v->height = y1 - y0;
        size_t skip = (size_t)(y0 - k->y0) * k->width;
        v->samples = k->samples != NULL ? k->samples + skip : NULL;
        v->wide_samples = k->wide_samples != NULL ? k->wide_samples + skip : NULL;
    }
    return view;
}

/* Strips of rows [g0, g1) of the reduced grid through one tile row. */
static gj2k_status tile_row_strips(decode_job *job, const tile_decode_settings *settings,
                                   tile_row *row, uint32_t g0, uint32_t g1,
                                   const decode_strip_sink *sink, gj2k_error *error)
{
    uint32_t height = strip_height(job);
    gj2k_status status = GJ2K_OK;
    for (uint32_t g = g0; g < g1 && status == GJ2K_OK;) {
        uint32_t end = g1 - g > height ? g + height : g1;
        gj2k_image *target = NULL;
        status = sink->open(sink->user, g, end, &target, error);
        gj2k_component *cut = status == GJ2K_OK
                                  ? calloc(target->num_components, sizeof *cut) : NULL;
        if (status == GJ2K_OK && cut == NULL)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        gj2k_image rows = {0};
        if (status == GJ2K_OK)
            rows = strip_view(target, g, end, cut);
        for (uint32_t i = 0; i < row->count && status == GJ2K_OK; i++) {
            if (row->missing[i]) /* only this strip's rows: the target may be the whole image */
                status = tile_decode_missing(job->cs, row->first + i, settings, &rows, error);
            else if (row->strips[i] != NULL)
                status = tile_strips_decode(row->strips[i], g, end, end == g1, target, error);
        }
        free(cut);
        if (sink->close != NULL && target != NULL) {
            gj2k_status closed = sink->close(sink->user, target, status == GJ2K_OK ? error : NULL);
            status = status == GJ2K_OK ? closed : status;
        }
        job->report.strips += status == GJ2K_OK;
        g = end;
    }
    return status;
}

gj2k_status decode_job_strips(decode_job *job, const decode_strip_sink *sink, gj2k_error *error)
{
    const j2k_siz *siz = &job->cs->siz;
    const gj2k_decode_options *options = job->options;
    unsigned reduce = options->reduce > 31 ? 31 : options->reduce;
    tile_decode_settings settings = {.reduce = options->reduce, .max_layers = options->max_layers,
                                     .memory = &job->memory, .progress = &job->progress,
                                     .warning = options->warning,
                                     .warning_user = options->warning_user};
    /* The image's layout (no samples): which part of each tile-component is wanted. */
    gj2k_image layout = {.x0 = job->reduced.x0, .y0 = job->reduced.y0, .x1 = job->reduced.x1,
                         .y1 = job->reduced.y1, .num_components = siz->num_components};
    layout.components = calloc(siz->num_components, sizeof *layout.components);
    if (layout.components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t c = 0; c < siz->num_components; c++) {
        image_component_place(&layout.components[c], layout.x0, layout.y0, layout.x1, layout.y1,
                              siz->components[c].dx, siz->components[c].dy);
    }
    double start = now_seconds();
    gj2k_status status = parallel_pool_create(options->threads, &settings.pool, error);
    uint32_t tiles = 0, missing = 0, first_missing = 0;
    for (uint32_t ty = 0; ty < siz->tiles_down && status == GJ2K_OK; ty++) {
        tile_row row = {.first = ty * siz->tiles_across, .count = siz->tiles_across};
        dwt_rect tile = j2k_tile_rect(siz, row.first);
        uint32_t g0 = ceil_shift(tile.y0, reduce), g1 = ceil_shift(tile.y1, reduce);
        g0 = g0 > job->reduced.y0 ? g0 : job->reduced.y0;
        g1 = g1 < job->reduced.y1 ? g1 : job->reduced.y1;
        if (g1 <= g0)
            continue;
        status = tile_row_begin(job, &settings, &layout, &row, &tiles, &missing, &first_missing,
                                error);
        if (status == GJ2K_OK)
            status = tile_row_strips(job, &settings, &row, g0, g1, sink, error);
        tile_row_free(&row);
    }
    decode_job_warn_missing(job, missing, first_missing);
    job->report.num_tiles = status == GJ2K_OK ? tiles : 0;
    job->report.tiles_ms += (now_seconds() - start) * 1e3;
    free(layout.components);
    parallel_pool_destroy(settings.pool);
    return status;
}
