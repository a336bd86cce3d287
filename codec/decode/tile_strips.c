/* tile_strips.c - see tile_strips.h.
 *
 * For the rows [a, b) of a plane (its LL at level 0), each level n of the
 * inverse DWT needs rows [a_n, b_n) of its LL. It computes them from a
 * window of that LL's rows, STRIP_MARGIN more each side (fewer at the
 * plane's edges), whose low-pass rows are LL_(n+1)'s rows [a_(n+1),
 * b_(n+1)) and whose high-pass rows come from the level's bands. Each band
 * holds its rows from the lowest still needed; as the strips go down,
 * rows above are dropped and code-blocks below decoded. */
#include "tile_strips.h"

#include <stdlib.h>
#include <string.h>

#include "component_transform.h"
#include "dwt.h"
#include "error.h"
#include "image_formats.h"
#include "level_shift.h"
#include "parallel_pool.h"
#include "tile_planes.h"

/* Rows next to a window's edge that its inverse DWT may get wrong when the
 * edge is not the LL's own (its symmetric extension is then false): each
 * lifting step reaches one sample further, four for 9/7 (F.3.8.2), two for
 * 5/3 (F.3.8.1). The window reaches this far past the rows wanted. */
#define STRIP_MARGIN 6u

/* Coefficients are 4 bytes, int32_t (5/3) or float (9/7): buffers hold
 * either and are copied as bytes. */
#define ELEMENT 4u

/* One band's rows held, and its code-blocks in the order of their rows. */
typedef struct band_rows {
    dwt_rect rect;         /* the band on its own grid */
    uint32_t first, end;   /* rows [first, end) held, rect width elements each */
    void *rows;
    size_t capacity;       /* elements */
    size_t *blocks;        /* indices into the tile's blocks, by first row */
    size_t num_blocks, next; /* next: the first still to decode */
} band_rows;

/* One plane between strips: its bands, and the windows of this strip. */
typedef struct strip_plane {
    band_rows *bands;      /* by subband index (QCD order), 3 levels + 1 */
    uint32_t a, b;         /* this strip's rows of the plane (a == b: none) */
    uint32_t need_a[DWT_MAX_LEVELS + 1], need_b[DWT_MAX_LEVELS + 1]; /* of LL_n */
    uint32_t window_a[DWT_MAX_LEVELS], window_b[DWT_MAX_LEVELS];     /* level n's window */
    void *window[2];       /* levels n alternate between them */
    size_t window_capacity[2];
    void *values;          /* rows [a, b) as coefficients, then as samples (5/3) */
    size_t values_capacity;
    int32_t *samples;      /* 9/7: rows [a, b) as samples */
    size_t samples_capacity;
} strip_plane;

struct tile_strips {
    uint32_t tile_index;
    const tile_decode_settings *settings;
    uint32_t num_planes;
    tile_plane *planes;
    strip_plane *strips;
    tier2_block *blocks;
    size_t num_blocks;
    bool mct;
    size_t *list;                  /* this strip's code-blocks to decode */
    tile_block_target *targets;
    size_t list_count, list_capacity;
    uint64_t charged;              /* taken from settings->memory for the buffers */
};

/* Grows *buffer to hold `elements` coefficients, taking what it adds from
 * the budget. */
static gj2k_status grow(tile_strips *ts, void **buffer, size_t *capacity, size_t elements,
                        gj2k_error *error)
{
    if (elements <= *capacity)
        return GJ2K_OK;
    if (elements > SIZE_MAX / ELEMENT / 2)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "tile %u: rows too wide", ts->tile_index);
    size_t want = elements + elements / 4;
    uint64_t bytes = (uint64_t)(want - *capacity) * ELEMENT;
    gj2k_status status = memory_budget_take(ts->settings->memory, bytes, "a tile's rows", error);
    if (status != GJ2K_OK)
        return status;
    void *grown = realloc(*buffer, want * ELEMENT);
    if (grown == NULL) {
        memory_budget_give(ts->settings->memory, bytes);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u's rows",
                         ts->tile_index);
    }
    *buffer = grown;
    *capacity = want;
    ts->charged += bytes;
    return GJ2K_OK;
}

static size_t rect_width(dwt_rect r) { return r.x1 - r.x0; }

/* ------------------------------------------------------------ set-up */

typedef struct band_block {
    uint32_t y0, x0;
    size_t index;
} band_block;

static int by_rows(const void *a, const void *b)
{
    const band_block *p = a, *q = b;
    if (p->y0 != q->y0)
        return p->y0 < q->y0 ? -1 : 1;
    return p->x0 < q->x0 ? -1 : p->x0 > q->x0;
}

/* Each band of each plane: its area and its code-blocks sorted by row
 * (counted, placed, then sorted: one pass over the tile's blocks). */
static gj2k_status prepare_bands(tile_strips *ts, gj2k_error *error)
{
    for (uint32_t c = 0; c < ts->num_planes; c++) {
        const tile_plane *plane = &ts->planes[c];
        unsigned count = 3u * plane->levels + 1u, nl = plane->params.coding.levels;
        band_rows *bands = calloc(count, sizeof *bands);
        ts->strips[c].bands = bands;
        if (bands == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        for (unsigned s = 0; s < count; s++) {
            unsigned level = s == 0 ? nl : dwt_subband_level(s, nl);
            bands[s].rect = dwt_band_rect(plane->structure.rect, level, dwt_subband_band(s));
            bands[s].first = bands[s].end = bands[s].rect.y0;
        }
    }
    for (size_t i = 0; i < ts->num_blocks; i++) { /* tier2_collect_blocks: kept bands only */
        const tier2_block *b = &ts->blocks[i];
        if (b->component >= ts->num_planes ||
            b->subband_index >= 3u * ts->planes[b->component].levels + 1u)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "tile %u: a code-block of a band not decoded", ts->tile_index);
        ts->strips[b->component].bands[b->subband_index].num_blocks++;
    }
    band_block *sorted = malloc((ts->num_blocks ? ts->num_blocks : 1) * sizeof *sorted);
    if (sorted == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    gj2k_status status = GJ2K_OK;
    for (uint32_t c = 0; c < ts->num_planes && status == GJ2K_OK; c++)
        for (unsigned s = 0; s < 3u * ts->planes[c].levels + 1u; s++) {
            band_rows *band = &ts->strips[c].bands[s];
            band->blocks = malloc((band->num_blocks ? band->num_blocks : 1) * sizeof *band->blocks);
            if (band->blocks == NULL) {
                status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            band->next = 0; /* counts the blocks placed until they are sorted */
        }
    for (size_t i = 0; i < ts->num_blocks && status == GJ2K_OK; i++) {
        band_rows *band = &ts->strips[ts->blocks[i].component].bands[ts->blocks[i].subband_index];
        band->blocks[band->next++] = i;
    }
    for (uint32_t c = 0; c < ts->num_planes && status == GJ2K_OK; c++)
        for (unsigned s = 0; s < 3u * ts->planes[c].levels + 1u; s++) {
            band_rows *band = &ts->strips[c].bands[s];
            for (size_t k = 0; k < band->num_blocks; k++) {
                const tier2_block *b = &ts->blocks[band->blocks[k]];
                sorted[k] = (band_block){b->rect.y0, b->rect.x0, band->blocks[k]};
            }
            qsort(sorted, band->num_blocks, sizeof *sorted, by_rows);
            for (size_t k = 0; k < band->num_blocks; k++)
                band->blocks[k] = sorted[k].index;
            band->next = 0;
        }
    free(sorted);
    return status;
}

gj2k_status tile_strips_begin(const j2k_codestream *codestream, const uint8_t *data,
                              uint32_t tile_index, const tile_decode_settings *settings,
                              const gj2k_image *image, tile_strips **out, gj2k_error *error)
{
    *out = NULL;
    uint32_t n = codestream->siz.num_components;
    tile_strips *ts = calloc(1, sizeof *ts);
    if (ts == NULL || (ts->planes = calloc(n, sizeof *ts->planes)) == NULL ||
        (ts->strips = calloc(n, sizeof *ts->strips)) == NULL) {
        if (ts != NULL)
            free(ts->planes);
        free(ts);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u", tile_index);
    }
    ts->tile_index = tile_index;
    ts->settings = settings;
    ts->num_planes = n;
    gj2k_status status = tile_planes_prepare(codestream, tile_index, settings->reduce, image,
                                             TILE_PLANES_NONE, settings->memory, ts->planes,
                                             error);
    if (status == GJ2K_OK)
        status = tile_planes_read_packets(codestream, data, tile_index, ts->planes, settings,
                                          &ts->blocks, &ts->num_blocks, error);
    if (status == GJ2K_OK)
        status = prepare_bands(ts, error);
    if (status != GJ2K_OK) {
        if (error != NULL && error->status == GJ2K_OK)
            gj2k_fail(error, status, "tile %u: %s", tile_index, gj2k_status_name(status));
        tile_strips_free(ts);
        return status;
    }
    ts->mct = tile_planes_use_component_transform(ts->planes, n, settings, tile_index);
    *out = ts;
    return GJ2K_OK;
}

void tile_strips_free(tile_strips *ts)
{
    if (ts == NULL)
        return;
    for (uint32_t c = 0; c < ts->num_planes; c++) {
        strip_plane *sp = &ts->strips[c];
        for (unsigned s = 0; sp->bands != NULL && s < 3u * ts->planes[c].levels + 1u; s++) {
            free(sp->bands[s].rows);
            free(sp->bands[s].blocks);
        }
        free(sp->bands);
        free(sp->window[0]);
        free(sp->window[1]);
        free(sp->values);
        free(sp->samples);
    }
    memory_budget_give(ts->settings->memory, ts->charged);
    tile_planes_free(ts->planes, ts->num_planes, ts->settings->memory);
    free(ts->planes);
    free(ts->strips);
    free(ts->blocks);
    free(ts->list);
    free(ts->targets);
    free(ts);
}

/* ------------------------------------------------------------ one strip */

/* Makes band rows [ra, rb) held: drops those above ra, and lists the
 * code-blocks that start above rb for decoding into new zeroed rows. */
static gj2k_status band_take(tile_strips *ts, band_rows *band, uint32_t ra, uint32_t rb,
                             gj2k_error *error)
{
    if (rb <= ra)
        return GJ2K_OK;
    if (ra < band->first)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "tile %u: strips asked for rows out of order", ts->tile_index);
    size_t width = rect_width(band->rect);
    if (width == 0) { /* no coefficients: its code-blocks are empty too */
        while (band->next < band->num_blocks && ts->blocks[band->blocks[band->next]].rect.y0 < rb)
            band->next++;
        band->first = ra;
        band->end = rb > band->end ? rb : band->end;
        return GJ2K_OK;
    }
    uint8_t *rows = band->rows;
    uint32_t keep = ra < band->end ? ra : band->end;
    if (keep > band->first) {
        memmove(rows, rows + (size_t)(keep - band->first) * width * ELEMENT,
                (size_t)(band->end - keep) * width * ELEMENT);
        band->first = keep;
    }
    if (ra > band->end) { /* nothing held reaches ra: skip the blocks that end above it */
        while (band->next < band->num_blocks && ts->blocks[band->blocks[band->next]].rect.y1 <= ra)
            band->next++;
        uint32_t start = ra;
        if (band->next < band->num_blocks && ts->blocks[band->blocks[band->next]].rect.y0 < ra)
            start = ts->blocks[band->blocks[band->next]].rect.y0;
        band->first = band->end = start;
    }
    if (rb <= band->end)
        return GJ2K_OK;
    uint32_t end = rb;
    size_t from = band->next;
    for (; band->next < band->num_blocks; band->next++) {
        const tier2_block *b = &ts->blocks[band->blocks[band->next]];
        if (b->rect.y0 >= rb)
            break;
        end = b->rect.y1 > end ? b->rect.y1 : end;
    }
    size_t count = band->next - from;
    gj2k_status status = grow(ts, &band->rows, &band->capacity,
                              (size_t)(end - band->first) * width, error);
    if (status == GJ2K_OK && ts->list_count + count > ts->list_capacity) {
        size_t want = (ts->list_count + count) * 2;
        size_t *list = realloc(ts->list, want * sizeof *list);
        if (list != NULL)
            ts->list = list;
        tile_block_target *targets = realloc(ts->targets, want * sizeof *targets);
        if (targets != NULL)
            ts->targets = targets;
        if (list == NULL || targets == NULL)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        else
            ts->list_capacity = want;
    }
    if (status != GJ2K_OK)
        return status;
    rows = band->rows;
    memset(rows + (size_t)(band->end - band->first) * width * ELEMENT, 0,
           (size_t)(end - band->end) * width * ELEMENT);
    for (size_t i = from; i < band->next; i++) {
        const tier2_block *b = &ts->blocks[band->blocks[i]];
        size_t origin = (size_t)(b->rect.y0 - band->first) * width + (b->rect.x0 - band->rect.x0);
        ts->list[ts->list_count] = band->blocks[i];
        ts->targets[ts->list_count++] = (tile_block_target){band->rows, band->rows, width, origin};
    }
    band->end = end;
    return GJ2K_OK;
}

/* The plane's rows of this strip: of rows [g0, g1) of the reduced grid,
 * those inside the plane and the part wanted. */
static void strip_rows(const tile_plane *plane, uint32_t dy, uint32_t g0, uint32_t g1,
                       uint32_t *a, uint32_t *b)
{
    uint32_t lo = image_ceil_div(g0, dy), hi = image_ceil_div(g1, dy);
    lo = lo > plane->rect.y0 ? lo : plane->rect.y0;
    lo = lo > plane->wanted.y0 ? lo : plane->wanted.y0;
    hi = hi < plane->rect.y1 ? hi : plane->rect.y1;
    hi = hi < plane->wanted.y1 ? hi : plane->wanted.y1;
    *a = lo;
    *b = hi > lo ? hi : lo;
}

/* The windows of every level for rows [a, b); the bands' rows taken; the
 * buffers grown. */
static gj2k_status plan_plane(tile_strips *ts, uint32_t c, gj2k_error *error)
{
    const tile_plane *plane = &ts->planes[c];
    strip_plane *sp = &ts->strips[c];
    unsigned levels = plane->levels;
    sp->need_a[0] = sp->a;
    sp->need_b[0] = sp->b;
    gj2k_status status = GJ2K_OK;
    for (unsigned n = 0; n < levels && status == GJ2K_OK; n++) {
        dwt_rect ll = dwt_band_rect(plane->rect, n, DWT_BAND_LL);
        uint32_t a = sp->need_a[n], b = sp->need_b[n];
        uint32_t w0 = a > ll.y0 + STRIP_MARGIN ? a - STRIP_MARGIN : ll.y0;
        uint32_t w1 = (uint64_t)b + STRIP_MARGIN < ll.y1 ? b + STRIP_MARGIN : ll.y1;
        sp->window_a[n] = w0;
        sp->window_b[n] = w1;
        dwt_rect window = {ll.x0, w0, ll.x1, w1};
        dwt_rect low = dwt_band_rect(window, 1, DWT_BAND_LL);
        dwt_rect high = dwt_band_rect(window, 1, DWT_BAND_LH);
        sp->need_a[n + 1] = low.y0;
        sp->need_b[n + 1] = low.y1;
        unsigned base = 3u * (levels - n - 1u); /* the bands of level n + 1 */
        status = band_take(ts, &sp->bands[base + DWT_BAND_HL], low.y0, low.y1, error);
        if (status == GJ2K_OK)
            status = band_take(ts, &sp->bands[base + DWT_BAND_LH], high.y0, high.y1, error);
        if (status == GJ2K_OK)
            status = band_take(ts, &sp->bands[base + DWT_BAND_HH], high.y0, high.y1, error);
        if (status == GJ2K_OK)
            status = grow(ts, &sp->window[n & 1], &sp->window_capacity[n & 1],
                          rect_width(ll) * (size_t)(w1 - w0), error);
    }
    if (status == GJ2K_OK)
        status = band_take(ts, &sp->bands[0], sp->need_a[levels], sp->need_b[levels], error);
    size_t area = rect_width(plane->rect) * (size_t)(sp->b - sp->a);
    if (status == GJ2K_OK)
        status = grow(ts, &sp->values, &sp->values_capacity, area, error);
    if (status == GJ2K_OK && !plane->reversible)
        status = grow(ts, (void **)&sp->samples, &sp->samples_capacity, area, error);
    return status;
}

/* Copies `count` rows of `width` coefficients. */
static void copy_rows(uint8_t *to, size_t to_stride, const uint8_t *from, size_t from_stride,
                      size_t width, size_t count)
{
    if (width == 0 || count == 0)
        return;
    for (size_t y = 0; y < count; y++)
        memcpy(to + y * to_stride * ELEMENT, from + y * from_stride * ELEMENT, width * ELEMENT);
}

/* Band rows starting at `row` as a source: their first element. */
static const uint8_t *band_at(const band_rows *band, uint32_t row)
{
    if (band->rows == NULL) /* an empty band */
        return NULL;
    return (const uint8_t *)band->rows + (size_t)(row - band->first) * rect_width(band->rect) *
                                             ELEMENT;
}

/* The inverse DWT of one plane's strip, level by level over its windows,
 * into sp->values (rows [a, b)). */
static gj2k_status synthesize_plane(void *context, size_t c, unsigned worker)
{
    (void)worker;
    tile_strips *ts = context;
    const tile_plane *plane = &ts->planes[c];
    strip_plane *sp = &ts->strips[c];
    unsigned levels = plane->levels;
    if (sp->b == sp->a || plane->rect.x1 == plane->rect.x0)
        return GJ2K_OK; /* no samples */
    /* LL_levels's rows come from its band. */
    const uint8_t *ll = band_at(&sp->bands[0], sp->need_a[levels]);
    size_t ll_stride = rect_width(sp->bands[0].rect);
    for (unsigned n = levels; n-- > 0;) {
        dwt_rect full = dwt_band_rect(plane->rect, n, DWT_BAND_LL);
        dwt_rect window = {full.x0, sp->window_a[n], full.x1, sp->window_b[n]};
        size_t stride = rect_width(full);
        uint8_t *buffer = sp->window[n & 1];
        if (stride == 0 || window.y1 == window.y0) { /* an LL of no columns or rows (a plane 1
                                                        wide or high at an odd coordinate) */
            ll = NULL;
            ll_stride = 0;
            continue;
        }
        unsigned base = 3u * (levels - n - 1u);
        for (int band = DWT_BAND_LL; band <= DWT_BAND_HH; band++) {
            uint32_t px, py, pw, ph;
            dwt_band_placement(window, 1, (dwt_band)band, &px, &py, &pw, &ph);
            const uint8_t *from = ll;
            size_t from_stride = ll_stride;
            if (band != DWT_BAND_LL) {
                const band_rows *rows = &sp->bands[base + (unsigned)band];
                from = band_at(rows, dwt_band_rect(window, 1, (dwt_band)band).y0);
                from_stride = rect_width(rows->rect);
            }
            copy_rows(buffer + ((size_t)py * stride + px) * ELEMENT, stride, from, from_stride, pw,
                      ph);
        }
        gj2k_status status = plane->reversible
                                 ? dwt_inverse_53((int32_t *)(void *)buffer, stride, window, 1)
                                 : dwt_inverse_97_interop((float *)(void *)buffer, stride, window, 1);
        if (status != GJ2K_OK)
            return status;
        ll = buffer + (size_t)(sp->need_a[n] - window.y0) * stride * ELEMENT;
        ll_stride = stride;
    }
    size_t width = rect_width(plane->rect);
    copy_rows(sp->values, width, ll, ll_stride, width, sp->b - sp->a);
    return GJ2K_OK;
}

/* The strip's samples: component transform (G.2, G.3), level shift
 * (G.1.2), into the image. */
static void place_strip(tile_strips *ts, gj2k_image *image)
{
    if (ts->mct && ts->strips[0].b > ts->strips[0].a) {
        size_t n = rect_width(ts->planes[0].rect) * (size_t)(ts->strips[0].b - ts->strips[0].a);
        if (ts->planes[0].reversible)
            rct_inverse(ts->strips[0].values, ts->strips[1].values, ts->strips[2].values, n);
        else
            ict_inverse(ts->strips[0].values, ts->strips[1].values, ts->strips[2].values, n);
    }
    for (uint32_t c = 0; c < ts->num_planes; c++) {
        const tile_plane *plane = &ts->planes[c];
        strip_plane *sp = &ts->strips[c];
        size_t width = rect_width(plane->rect), n = width * (size_t)(sp->b - sp->a);
        if (n == 0)
            continue;
        int32_t *samples = sp->values;
        if (plane->reversible) {
            level_shift_inverse(samples, n, plane->precision, plane->is_signed);
        } else {
            level_shift_inverse_float(sp->values, sp->samples, n, plane->precision,
                                      plane->is_signed);
            samples = sp->samples;
        }
        dwt_rect rows = {plane->rect.x0, sp->a, plane->rect.x1, sp->b}, o;
        gj2k_component *component = &image->components[c];
        if (!tile_component_overlap(rows, component, &o))
            continue;
        for (uint32_t y = o.y0; y < o.y1; y++)
            memcpy(component->samples + (size_t)(y - component->y0) * component->width +
                       (o.x0 - component->x0),
                   samples + (size_t)(y - rows.y0) * width + (o.x0 - rows.x0),
                   (size_t)(o.x1 - o.x0) * sizeof *samples);
    }
}

gj2k_status tile_strips_decode(tile_strips *ts, uint32_t grid_y0, uint32_t grid_y1, bool last,
                               gj2k_image *image, gj2k_error *error)
{
    const tile_decode_settings *settings = ts->settings;
    ts->list_count = 0;
    gj2k_status status = GJ2K_OK;
    for (uint32_t c = 0; c < ts->num_planes && status == GJ2K_OK; c++) {
        strip_plane *sp = &ts->strips[c];
        if (ts->mct && (c == 1 || c == 2)) { /* the same rows as component 0 (same area) */
            sp->a = ts->strips[0].a;
            sp->b = ts->strips[0].b;
        } else if (ts->mct && c == 0) {
            /* Components 0-2 share their area and their rows, though their subsampling may
             * differ: each strip starts at the first row any of them starts at, and the last
             * ends at the last row any of them ends at, wanted by any of the three. */
            tile_plane group = ts->planes[0];
            uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
            for (uint32_t k = 0; k < 3; k++) {
                const dwt_rect *w = &ts->planes[k].wanted;
                uint32_t dy = image->components[k].dy;
                group.wanted.y0 = w->y0 < group.wanted.y0 ? w->y0 : group.wanted.y0;
                group.wanted.y1 = w->y1 > group.wanted.y1 ? w->y1 : group.wanted.y1;
                uint32_t start = image_ceil_div(grid_y0, dy), end = image_ceil_div(grid_y1, dy);
                lo = start < lo ? start : lo;
                hi = hi == UINT32_MAX ? end : last ? (end > hi ? end : hi) : (end < hi ? end : hi);
            }
            strip_rows(&group, 1, lo, hi, &sp->a, &sp->b);
        } else {
            uint32_t dy = image->components[c].dy;
            strip_rows(&ts->planes[c], dy, grid_y0, grid_y1, &sp->a, &sp->b);
        }
        if (sp->b > sp->a)
            status = plan_plane(ts, c, error);
    }
    if (status == GJ2K_OK && ts->list_count != 0)
        status = tile_planes_decode_blocks(ts->blocks, ts->list, ts->list_count, ts->targets,
                                           ts->planes, NULL, NULL, settings, ts->tile_index,
                                           error);
    if (status == GJ2K_OK) {
        status = parallel_for(settings->pool, ts->num_planes, synthesize_plane, ts);
        if (status != GJ2K_OK)
            gj2k_fail(error, status, "tile %u: inverse DWT failed (%s)", ts->tile_index,
                      gj2k_status_name(status));
    }
    if (status == GJ2K_OK)
        place_strip(ts, image);
    return status;
}
