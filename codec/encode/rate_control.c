/* rate_control.c - see rate_control.h. */
#include "rate_control.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Tier-2 runs spent filling the last bytes of a layer's budget. */
#define RATE_FILL_MEASUREMENTS 48

typedef struct hull_point {
    uint8_t passes; /* passes sent at this truncation point */
    double slope;   /* distortion removed per byte since the previous point */
} hull_point;

typedef struct rate_block {
    encoded_block *block;
    uint32_t tile;
    hull_point *hull;   /* decreasing slopes */
    unsigned hull_count;
} rate_block;

typedef struct rate_state {
    rate_block *blocks;
    size_t num_blocks;
    hull_point *points;       /* every block's hull, back to back */
    double *thresholds;       /* every distinct slope, decreasing */
    size_t num_thresholds;
    double energy;            /* squared error with nothing sent */
} rate_state;

/* The convex hull of (bytes, distortion removed) over the pass ends, from
 * (0, 0): only these points are ever truncation points. */
static unsigned block_hull(const encoded_block *b, hull_point *hull)
{
    unsigned count = 0;
    double d = 0.0;
    double hull_d[256], hull_r[256];
    for (unsigned j = 0; j < b->num_passes; j++) {
        d += b->distortion[j];
        double r = (double)b->lengths[j];
        for (;;) {
            double d0 = count ? hull_d[count - 1] : 0.0, r0 = count ? hull_r[count - 1] : 0.0;
            if (d <= d0)
                break; /* removes nothing more: not a truncation point */
            double slope = r > r0 ? (d - d0) / (r - r0) : INFINITY;
            if (count > 0 && slope >= hull[count - 1].slope) {
                count--; /* the previous point lies under the chord */
                continue;
            }
            hull[count] = (hull_point){.passes = (uint8_t)(j + 1), .slope = slope};
            hull_d[count] = d;
            hull_r[count] = r;
            count++;
            break;
        }
    }
    return count;
}

static int compare_decreasing(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static gj2k_status state_build(const rate_request *req, rate_state *st, gj2k_error *error)
{
    memset(st, 0, sizeof *st);
    size_t total_passes = 0;
    for (uint32_t t = 0; t < req->num_tiles; t++) {
        st->num_blocks += req->tiles[t].num_blocks;
        st->energy += req->tiles[t].energy;
        for (size_t i = 0; i < req->tiles[t].num_blocks; i++)
            total_passes += req->tiles[t].blocks[i].num_passes;
    }
    st->blocks = calloc(st->num_blocks ? st->num_blocks : 1, sizeof *st->blocks);
    st->points = malloc((total_passes ? total_passes : 1) * sizeof *st->points);
    st->thresholds = malloc((total_passes ? total_passes : 1) * sizeof *st->thresholds);
    if (!st->blocks || !st->points || !st->thresholds)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for rate control");
    size_t n = 0, used = 0;
    for (uint32_t t = 0; t < req->num_tiles; t++)
        for (size_t i = 0; i < req->tiles[t].num_blocks; i++) {
            rate_block *rb = &st->blocks[n++];
            rb->block = &req->tiles[t].blocks[i];
            rb->tile = t;
            rb->hull = st->points + used;
            rb->hull_count = block_hull(rb->block, rb->hull);
            for (unsigned h = 0; h < rb->hull_count; h++)
                st->thresholds[st->num_thresholds++] = rb->hull[h].slope;
            used += rb->hull_count;
        }
    qsort(st->thresholds, st->num_thresholds, sizeof *st->thresholds, compare_decreasing);
    size_t unique = 0;
    for (size_t i = 0; i < st->num_thresholds; i++)
        if (unique == 0 || st->thresholds[i] != st->thresholds[unique - 1])
            st->thresholds[unique++] = st->thresholds[i];
    st->num_thresholds = unique;
    return GJ2K_OK;
}

static void state_free(rate_state *st)
{
    free(st->blocks);
    free(st->points);
    free(st->thresholds);
}

/* Passes of a block at threshold index k (every hull point with a slope of
 * at least thresholds[k]; k = -1 sends nothing new), never fewer than the
 * layer before. */
static unsigned passes_at(const rate_state *st, const rate_block *rb, long k, unsigned previous)
{
    unsigned passes = 0;
    if (k >= 0) {
        double threshold = st->thresholds[k];
        for (unsigned h = 0; h < rb->hull_count && rb->hull[h].slope >= threshold; h++)
            passes = rb->hull[h].passes;
    }
    return passes > previous ? passes : previous;
}

/* Sets a block's passes in layer `layer` and, provisionally, above it. */
static void set_passes(encoded_block *b, unsigned layer, unsigned num_layers, unsigned passes)
{
    for (unsigned l = layer; l < num_layers; l++)
        b->layer_passes[l] = (uint8_t)passes;
}

/* Sets layer `layer` (and, provisionally, the layers above it) of every
 * block to threshold index k; returns the squared error left. */
static double apply_threshold(const rate_state *st, unsigned layer, unsigned num_layers, long k,
                              bool everything)
{
    double removed = 0.0;
    for (size_t i = 0; i < st->num_blocks; i++) {
        const rate_block *rb = &st->blocks[i];
        encoded_block *b = rb->block;
        unsigned previous = layer > 0 ? b->layer_passes[layer - 1] : 0;
        unsigned passes = everything ? b->num_passes : passes_at(st, rb, k, previous);
        set_passes(b, layer, num_layers, passes);
        for (unsigned j = 0; j < passes; j++)
            removed += b->distortion[j];
    }
    return st->energy - removed;
}

gj2k_status rate_control_measure(const rate_request *req, unsigned layer, size_t *tile_bytes,
                                 size_t *total, gj2k_error *error)
{
    *total = 0;
    for (uint32_t t = 0; t < req->num_tiles; t++) {
        size_t bytes = 0;
        gj2k_status status = req->measure(req->measure_user, t, layer, &bytes, error);
        if (status != GJ2K_OK)
            return status;
        if (tile_bytes != NULL)
            tile_bytes[t] = bytes;
        *total += bytes;
    }
    return GJ2K_OK;
}

typedef struct fill_candidate {
    rate_block *block;
    double slope;      /* of its next hull point */
    unsigned passes;   /* at that point */
} fill_candidate;

static int compare_candidates(const void *a, const void *b)
{
    double x = ((const fill_candidate *)a)->slope, y = ((const fill_candidate *)b)->slope;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Tile t's bytes after a change to block b (whose precinct held
 * *precinct_bytes before it; SIZE_MAX: not measured yet, measured now from
 * `before` passes): its precinct measured again where the request can, else
 * the whole tile; *precinct_bytes becomes the precinct's new size. */
static gj2k_status measure_change(const rate_request *req, uint32_t t, encoded_block *b,
                                  unsigned layer, unsigned before, size_t tile_bytes,
                                  size_t *precinct_bytes, size_t *bytes, gj2k_error *error)
{
    if (req->measure_precinct == NULL)
        return req->measure(req->measure_user, t, layer, bytes, error);
    gj2k_status status = GJ2K_OK;
    if (*precinct_bytes == SIZE_MAX) {
        unsigned num_layers = req->plan->cod.layers, after = b->layer_passes[layer];
        set_passes(b, layer, num_layers, before);
        status = req->measure_precinct(req->measure_user, t, b, layer, precinct_bytes, error);
        set_passes(b, layer, num_layers, after);
    }
    size_t now = 0;
    if (status == GJ2K_OK)
        status = req->measure_precinct(req->measure_user, t, b, layer, &now, error);
    if (status == GJ2K_OK && *precinct_bytes > tile_bytes)
        status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                           "rate control: a precinct larger than its tile");
    if (status == GJ2K_OK) {
        *bytes = tile_bytes - *precinct_bytes + now;
        *precinct_bytes = now;
    }
    return status;
}

/* One hull segment of one block can be hundreds of bytes: past the last
 * threshold that fits, the blocks whose next hull points come first get
 * passes one at a time (any pass end is a valid truncation point) while
 * the packets still fit, measured for real: only the precinct (or tile)
 * that changed. */
static gj2k_status fill_budget(const rate_request *req, const rate_state *st, unsigned layer,
                               size_t budget, gj2k_error *error)
{
    unsigned num_layers = req->plan->cod.layers;
    size_t size = 0;
    size_t *tile_bytes = malloc((req->num_tiles ? req->num_tiles : 1) * sizeof *tile_bytes);
    fill_candidate *candidates = malloc((st->num_blocks ? st->num_blocks : 1) * sizeof *candidates);
    gj2k_status status = tile_bytes && candidates
                             ? rate_control_measure(req, layer, tile_bytes, &size, error)
                             : gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                                         "out of memory for rate control");
    if (status != GJ2K_OK || size >= budget) {
        free(tile_bytes);
        free(candidates);
        return status;
    }
    size_t count = 0;
    for (size_t i = 0; i < st->num_blocks; i++) {
        rate_block *rb = &st->blocks[i];
        unsigned current = rb->block->layer_passes[layer];
        for (unsigned h = 0; h < rb->hull_count; h++)
            if (rb->hull[h].passes > current) {
                candidates[count++] = (fill_candidate){rb, rb->hull[h].slope, rb->hull[h].passes};
                break;
            }
    }
    qsort(candidates, count, sizeof *candidates, compare_candidates);
    unsigned measurements = 0;
    for (size_t c = 0; c < count && measurements < RATE_FILL_MEASUREMENTS && status == GJ2K_OK; c++) {
        encoded_block *b = candidates[c].block->block;
        uint32_t t = candidates[c].block->tile;
        unsigned current = b->layer_passes[layer];
        size_t precinct_bytes = SIZE_MAX; /* its precinct's packets, once measured */
        for (unsigned p = current + 1; p <= candidates[c].passes; p++) {
            size_t before = current ? b->lengths[current - 1] : 0;
            if (size + (b->lengths[p - 1] - before) > budget)
                break; /* the data alone would not fit */
            set_passes(b, layer, num_layers, p);
            size_t bytes = 0;
            status = measure_change(req, t, b, layer, current, tile_bytes[t], &precinct_bytes,
                                    &bytes, error);
            measurements++;
            if (status != GJ2K_OK || size - tile_bytes[t] + bytes > budget) {
                set_passes(b, layer, num_layers, current);
                break;
            }
            size = size - tile_bytes[t] + bytes;
            tile_bytes[t] = bytes;
            current = p;
        }
    }
    free(tile_bytes);
    free(candidates);
    return status;
}

/* The largest k in [-1, K) whose packets fit `budget` bytes (-1 when none). */
static gj2k_status fit_bytes(const rate_request *req, const rate_state *st, unsigned layer,
                             size_t budget, gj2k_error *error)
{
    unsigned num_layers = req->plan->cod.layers;
    long lo = -1, hi = (long)st->num_thresholds - 1; /* lo fits (or is the floor) */
    /* Bytes of code-block data alone bound the packets from below: a cheap
     * first cut of the range. */
    while (lo < hi) {
        long mid = lo + (hi - lo + 1) / 2;
        apply_threshold(st, layer, num_layers, mid, false);
        size_t data = 0;
        for (size_t i = 0; i < st->num_blocks; i++) {
            const encoded_block *b = st->blocks[i].block;
            if (b->layer_passes[layer] > 0)
                data += b->lengths[b->layer_passes[layer] - 1];
        }
        if (data <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    hi = lo;
    lo = -1;
    while (lo < hi) {
        long mid = lo + (hi - lo + 1) / 2;
        apply_threshold(st, layer, num_layers, mid, false);
        size_t bytes = 0;
        gj2k_status status = rate_control_measure(req, layer, NULL, &bytes, error);
        if (status != GJ2K_OK)
            return status;
        if (bytes <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    apply_threshold(st, layer, num_layers, lo, false);
    return fill_budget(req, st, layer, budget, error);
}

/* The smallest k whose squared error is at most `target` (all passes when none). */
static void fit_distortion(const rate_request *req, const rate_state *st, unsigned layer,
                           double target)
{
    unsigned num_layers = req->plan->cod.layers;
    long lo = -1, hi = (long)st->num_thresholds - 1; /* hi meets it, or is the ceiling */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (apply_threshold(st, layer, num_layers, mid, false) + req->distortion_floor <= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    apply_threshold(st, layer, num_layers, hi, false);
}

gj2k_status rate_control_allocate(const rate_request *req, gj2k_error *error)
{
    rate_state st;
    gj2k_status status = state_build(req, &st, error);
    unsigned num_layers = req->plan->cod.layers;
    for (unsigned l = 0; l < num_layers && status == GJ2K_OK; l++) {
        const encode_layer_target *target = &req->plan->layers[l];
        if (target->lossless)
            apply_threshold(&st, l, num_layers, 0, true);
        else if (target->by_distortion)
            fit_distortion(req, &st, l, target->max_squared_error);
        else
            status = fit_bytes(req, &st, l,
                               target->max_bytes > req->overhead ? target->max_bytes - req->overhead
                                                                 : 0,
                               error);
    }
    state_free(&st);
    return status;
}
