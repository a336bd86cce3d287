/* encode_tile.c - see encode_tile.h. */
#include "encode_tile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dwt.h"
#include "encoded_block.h"
#include "error.h"
#include "forward_plane.h"
#include "ht_encode.h"
#include "ht_plane_window.h"
#include "parallel_pool.h"
#include "plane_gate.h"
#include "tier1.h"
#include "tier1_gpu.h"


static size_t rect_area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* On the GPU path the components' coefficients arrive one by one (a
 * plane_gate of one piece each) while Tier-1 codes the ones already there
 * (blocks are listed component by component, and handed out in that order). */
static void plane_arrived(void *user, uint32_t plane) { plane_gate_done(user, plane); }

/* What the Tier-1 workers share. */
typedef struct block_coding {
    const encode_plan *plan;
    forward_plane *planes;
    encoded_block *blocks;
    const int32_t **origins;        /* per block: its first coefficient */
    tier1_workspace **workspaces;   /* per worker */
    tier1_encoded_block **scratch;  /* per worker */
    plane_gate *readiness;          /* NULL: every component is ready */
    const size_t *only;             /* NULL: every block; else the blocks to code */
    const ht_encode_tables *ht;     /* HT blocks (T.814): the CxtVLC codes; else NULL */
    bool ht_every_plane;            /* HT: choices at several planes, for rate control */
    ht_block_estimate *estimates;   /* HT: per block, to code only near the planes that */
    double ht_lambda;               /*     this slope picks (NULL: every plane) */
} block_coding;

/* Where block `index` of the work (after `only`) finds its coefficients,
 * once its component is ready; false when the GPU failed. */
typedef struct block_input {
    encoded_block *eb;
    const forward_plane *plane;
    const int32_t *origin;
    const uint8_t *fractions;
    size_t stride;
    uint32_t width, height;
} block_input;

static bool block_input_of(block_coding *work, size_t index, block_input *in)
{
    encoded_block *eb = &work->blocks[index];
    const tile_codeblock *cb = eb->block;
    in->eb = eb;
    in->width = cb->rect.x1 - cb->rect.x0;
    in->height = cb->rect.y1 - cb->rect.y0;
    in->plane = &work->planes[eb->component];
    if (work->readiness != NULL && !plane_gate_wait(work->readiness, eb->component))
        return false;
    in->stride = in->plane->blocks ? in->width : in->plane->rect.x1 - in->plane->rect.x0;
    in->origin = work->origins[index];
    in->fractions = in->plane->fractions
                        ? in->plane->fractions + (in->origin - in->plane->integers)
                        : NULL;
    return true;
}

/* HT: a block's estimated bytes and distortion at every plane. */
static gj2k_status estimate_block(void *context, size_t index, unsigned worker)
{
    (void)worker;
    block_coding *work = context;
    block_input in;
    if (!block_input_of(work, index, &in))
        return GJ2K_ERROR_DEVICE;
    ht_estimate_block(in.origin, in.fractions, in.stride, in.width, in.height,
                      in.plane->plan->weight[in.eb->subband_index], &work->estimates[index]);
    return GJ2K_OK;
}

static gj2k_status code_block(void *context, size_t index, unsigned worker)
{
    block_coding *work = context;
    if (work->only != NULL)
        index = work->only[index];
    if (progress_meter_cancelled(work->plan->progress))
        return GJ2K_ERROR_CANCELLED;
    block_input in;
    if (!block_input_of(work, index, &in))
        return GJ2K_ERROR_DEVICE;
    progress_meter_add(work->plan->progress, (uint64_t)in.width * in.height);
    encoded_block *eb = in.eb;
    const forward_plane *plane = in.plane;
    const int32_t *origin = in.origin;
    const uint8_t *fractions = in.fractions;
    size_t stride = in.stride;
    uint32_t width = in.width, height = in.height;
    tier1_encoded_block *out = work->scratch[worker];
    dwt_band band = dwt_subband_band(eb->subband_index);
    if (work->ht != NULL) {
        unsigned lowest = 0, highest = work->ht_every_plane ? TIER1_MAX_PLANES : 0;
        if (work->estimates != NULL)
            ht_plane_window(&work->estimates[index], work->ht_lambda, &lowest, &highest);
        ht_encoded_block ht;
        bool causal = (plane->plan->coding.code_block_style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0;
        bool refine = work->ht_every_plane && work->plan->ht_refinement;
        gj2k_status status = ht_encode_block(origin, fractions, stride, width, height, lowest,
                                             highest, refine, causal, work->ht, &ht);
        if (status == GJ2K_OK) {
            status = encoded_block_keep_ht(eb, &ht, plane->plan->weight[eb->subband_index],
                                   work->plan->cod.layers);
            if (status != GJ2K_OK)
                ht_encoded_block_release(&ht);
        }
        return status;
    }
    /* one layer that keeps every pass: no rate control, so no distortions */
    bool every_pass = work->plan->cod.layers == 1 && work->plan->layers[0].lossless;
    unsigned style = plane->plan->coding.code_block_style;
    gj2k_status status =
        every_pass ? tier1_encode_block_unmeasured(origin, fractions, stride, width, height, band,
                                                   style, TIER1_MAX_PLANES,
                                                   work->workspaces[worker], out)
                   : tier1_encode_block_with_fractions(origin, fractions, stride, width, height,
                                                       band, style, TIER1_MAX_PLANES,
                                                       work->workspaces[worker], out);
    if (status != GJ2K_OK)
        return status;
    status = encoded_block_keep(eb, out->passes, out->num_passes, out->num_planes, out->data, out->size,
                        plane->plan->weight[eb->subband_index], work->plan->cod.layers);
    if (status != GJ2K_OK)
        tier1_encoded_block_release(out);
    out->data = NULL;
    return status;
}

/* Lists the tile's code-blocks (every component, resolution, precinct,
 * band) with where each one's coefficients start. */
static gj2k_status list_blocks(encoded_tile *tile, forward_plane *planes, const int32_t ***origins,
                               gj2k_error *error)
{
    size_t count = 0;
    for (uint32_t c = 0; c < tile->num_components; c++)
        count += tile->components[c].num_codeblocks;
    tile->blocks = calloc(count ? count : 1, sizeof *tile->blocks);
    *origins = calloc(count ? count : 1, sizeof **origins);
    if (tile->blocks == NULL || *origins == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-blocks");
    size_t n = 0;
    for (uint32_t c = 0; c < tile->num_components; c++) {
        tile_component *tc = &tile->components[c];
        size_t stride = planes[c].rect.x1 - planes[c].rect.x0;
        for (unsigned r = 0; r < tc->num_resolutions; r++) {
            tile_resolution *res = &tc->resolutions[r];
            for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
                for (unsigned b = 0; b < res->num_bands; b++) {
                    const tile_band *band = &res->bands[b];
                    tile_precinct_band *pb = &res->precincts[k].bands[b];
                    uint32_t px, py, pw, ph;
                    dwt_band_placement(tc->rect, band->level, band->orientation, &px, &py, &pw, &ph);
                    for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
                        tile_codeblock *cb = &pb->blocks[i];
                        if (cb->rect.x1 <= cb->rect.x0 || cb->rect.y1 <= cb->rect.y0)
                            continue;
                        encoded_block *eb = &tile->blocks[n];
                        eb->block = cb;
                        eb->component = c;
                        eb->resolution = (uint8_t)r;
                        eb->precinct = k;
                        eb->subband_index = band->subband_index;
                        size_t at = (size_t)(py + cb->rect.y0 - band->rect.y0) * stride +
                                    (px + cb->rect.x0 - band->rect.x0);
                        if (planes[c].blocks)
                            at = codeblock_layout_offset(&planes[c].layout[band->subband_index],
                                                         cb->rect.x0, cb->rect.y0);
                        (*origins)[n++] = planes[c].integers + at;
                    }
                }
        }
    }
    tile->num_blocks = n;
    return GJ2K_OK;
}

/* HT with rate control: every block's planes estimated, and the slope
 * that meets the tile's share of the target on the estimates (its share:
 * its coefficients among the image's samples) set for code_block to code
 * each block near the plane it picks. */
static gj2k_status estimate_planes(const encode_plan *plan, parallel_pool *pool,
                                   block_coding *work, size_t count)
{
    work->estimates = malloc((count ? count : 1) * sizeof *work->estimates);
    if (work->estimates == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    gj2k_status status = parallel_for(pool, count, estimate_block, work);
    if (status != GJ2K_OK)
        return status;
    double area = 0.0;
    for (size_t i = 0; i < count; i++) {
        dwt_rect r = work->blocks[i].block->rect;
        area += (double)(r.x1 - r.x0) * (r.y1 - r.y0);
    }
    double share = plan->total_samples ? area / (double)plan->total_samples : 1.0;
    const encode_layer_target *t = &plan->layers[plan->cod.layers - 1];
    work->ht_lambda = ht_estimate_threshold(work->estimates, count,
                                            t->by_distortion ? 0.0 : (double)t->max_bytes * share,
                                            t->max_squared_error * share);
    return GJ2K_OK;
}

/* Codes the tile's blocks on the CPU threads: all of them, or the `count`
 * listed in `only`. */
static gj2k_status code_blocks(const encode_plan *plan, parallel_pool *pool, encoded_tile *tile,
                               forward_plane *planes, const int32_t **origins,
                               plane_gate *readiness, const size_t *only, size_t count,
                               gj2k_error *error)
{
    if (only == NULL)
        count = tile->num_blocks;
    unsigned threads = parallel_pool_workers(pool, count);
    block_coding work = {.plan = plan, .planes = planes, .blocks = tile->blocks,
                         .origins = origins, .readiness = readiness, .only = only};
    ht_encode_tables *ht = NULL;
    if (plan->cod.coding.code_block_style & TIER1_STYLE_HT) {
        ht = malloc(sizeof *ht);
        if (ht != NULL)
            ht_encode_tables_build(ht);
        work.ht = ht;
        work.ht_every_plane = encode_plan_ht_choices(plan);
    }
    work.workspaces = calloc(threads, sizeof *work.workspaces);
    work.scratch = calloc(threads, sizeof *work.scratch);
    gj2k_status status = work.workspaces && work.scratch && (ht != NULL || work.ht == NULL)
                             ? GJ2K_OK
                             : GJ2K_ERROR_OUT_OF_MEMORY;
    for (unsigned t = 0; t < threads && status == GJ2K_OK; t++) {
        work.workspaces[t] = tier1_workspace_create();
        work.scratch[t] = malloc(sizeof **work.scratch);
        if (work.workspaces[t] == NULL || work.scratch[t] == NULL)
            status = GJ2K_ERROR_OUT_OF_MEMORY;
    }
    if (status == GJ2K_OK && work.ht_every_plane && only == NULL)
        status = estimate_planes(plan, pool, &work, count);
    if (status == GJ2K_OK)
        status = parallel_for(pool, count, code_block, &work);
    free(work.estimates);
    for (unsigned t = 0; t < threads; t++) {
        if (work.workspaces)
            tier1_workspace_destroy(work.workspaces[t]);
        if (work.scratch)
            free(work.scratch[t]);
    }
    free(work.workspaces);
    free(work.scratch);
    free(ht);
    if (status != GJ2K_OK)
        return gj2k_fail(error, status, "tile %u: code-block coding failed (%s)", tile->index,
                         gj2k_status_name(status));
    return GJ2K_OK;
}

/* Where each subband's code-blocks go in the GPU's output: the bands in
 * subband order, each code-block by code-block (codeblock_layout.h). */
static void plan_codeblock_layout(forward_plane *plane, const tile_component *tc)
{
    for (unsigned r = 0; r < tc->num_resolutions; r++)
        for (unsigned b = 0; b < tc->resolutions[r].num_bands; b++) {
            const tile_band *band = &tc->resolutions[r].bands[b];
            plane->layout[band->subband_index] = (codeblock_layout_band){
                .x0 = band->rect.x0, .y0 = band->rect.y0, .x1 = band->rect.x1, .y1 = band->rect.y1,
                .width_log2 = band->codeblock_width_log2,
                .height_log2 = band->codeblock_height_log2};
        }
    codeblock_layout_set_bases(plane->layout, 3 * (tc->num_resolutions - 1) + 1);
    plane->blocks = true;
}

/* The same stages on the GPU (gpu_stage.h): its results are the CPU's bits. */
static gj2k_status transform_on_gpu(const encode_plan *plan, gpu_stage *gpu, parallel_pool *pool,
                                    forward_plane *planes, uint32_t n, plane_gate *readiness,
                                    int32_t *device_output, uint8_t *device_fractions,
                                    gj2k_error *error)
{
    gpu_forward_plane *jobs = calloc(n, sizeof *jobs);
    float *steps = calloc((size_t)n * J2K_MAX_SUBBANDS, sizeof *steps);
    bool allocated = jobs != NULL && steps != NULL;
    for (uint32_t c = 0; c < n && allocated; c++) {
        size_t area = rect_area(planes[c].rect);
        planes[c].packed_bytes = gpu_input_bytes(planes[c].plan->precision);
        if (planes[c].packed_bytes < 4)
            allocated = (planes[c].packed = malloc((area ? area : 1) * planes[c].packed_bytes)) != NULL;
    }
    gj2k_status status = allocated ? parallel_for(pool, n, forward_plane_pack, planes)
                                   : gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t c = 0; c < n && status == GJ2K_OK; c++) {
        const encode_component_plan *cp = planes[c].plan;
        for (unsigned s = 0; s < J2K_MAX_SUBBANDS; s++)
            steps[(size_t)c * J2K_MAX_SUBBANDS + s] = (float)cp->step[s];
        jobs[c] = (gpu_forward_plane){.rect = planes[c].rect, .levels = cp->coding.levels,
                                      .precision = cp->precision, .is_signed = cp->is_signed,
                                      .input = planes[c].packed_bytes < 4 ? planes[c].packed
                                                                           : planes[c].integers,
                                      .input_bytes = planes[c].packed_bytes,
                                      .output = planes[c].integers,
                                      .fractions = planes[c].fractions,
                                      .steps = steps + (size_t)c * J2K_MAX_SUBBANDS,
                                      .layout = planes[c].blocks ? planes[c].layout : NULL};
        if (device_output != NULL) { /* the planes back to back, as Tier-1's spans */
            jobs[c].device_output = device_output;
            jobs[c].device_fractions = device_fractions;
            device_output += rect_area(planes[c].rect);
            if (device_fractions != NULL)
                device_fractions += rect_area(planes[c].rect);
        }
    }
    if (status == GJ2K_OK)
        status = gpu_forward(gpu, jobs, n, plan->reversible, plan->cod.mct != 0,
                             readiness ? plane_arrived : NULL, readiness, error);
    free(jobs);
    free(steps);
    return status;
}

/* The GPU stage of a tile on its own thread, beside Tier-1. */
typedef struct gpu_transform_job {
    const encode_plan *plan;
    gpu_stage *gpu;
    parallel_pool *pool;
    forward_plane *planes;
    uint32_t n;
    plane_gate readiness;
    gj2k_status status;
    gj2k_error error;
} gpu_transform_job;

static void *run_gpu_transform(void *argument)
{
    gpu_transform_job *job = argument;
    job->status = transform_on_gpu(job->plan, job->gpu, job->pool, job->planes, job->n,
                                   &job->readiness, NULL, NULL, &job->error);
    if (job->status != GJ2K_OK)
        plane_gate_fail(&job->readiness);
    else
        plane_gate_open(&job->readiness);
    return NULL;
}

/* Transforms on the GPU and Tier-1 on the CPU threads at once: each
 * component's blocks are coded as soon as its coefficients land. */
static gj2k_status transform_and_code_on_gpu(const encode_plan *plan, gpu_stage *gpu,
                                             parallel_pool *pool, encoded_tile *tile, forward_plane *planes,
                                             const int32_t **origins, gj2k_error *error)
{
    gpu_transform_job job = {.plan = plan, .gpu = gpu, .pool = pool, .planes = planes,
                             .n = tile->num_components};
    gj2k_status status = plane_gate_init(&job.readiness, job.n, NULL, error);
    if (status != GJ2K_OK)
        return status;
    pthread_t thread;
    if (pthread_create(&thread, NULL, run_gpu_transform, &job) != 0) {
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "cannot start the GPU thread");
    } else {
        status = code_blocks(plan, pool, tile, planes, origins, &job.readiness, NULL, 0, error);
        pthread_join(thread, NULL);
        if (job.status != GJ2K_OK) {
            if (error != NULL)
                *error = job.error;
            status = job.status;
        }
    }
    plane_gate_destroy(&job.readiness);
    return status;
}

/* Blocks a batch of GPU Tier-1 takes at most, in samples: the scratch of
 * a batch of 64x64 blocks is about 10 bytes a sample (4 of room for the
 * bytes, 4.25 of flags, 1 of pass tables, TIER1_GPU_ROOM_PER_BLOCK). */
#define GPU_TIER1_BATCH_SAMPLES ((size_t)1 << 26)

/* One tile's part of a GPU Tier-1 batch: its coefficients are spans
 * first_span .. first_span + num_components - 1 of the encoder's input
 * memory; the blocks that outgrow their room there are listed in overflow. */
typedef struct gpu_part {
    encoded_tile *tile;
    forward_plane *planes;
    const int32_t **origins;
    uint32_t first_span;
    size_t *overflow;
    size_t num_overflow;
} gpu_part;

/* A batch's results on their way into the tiles' blocks: batch block k is
 * block index[k] of part part_of[k]. */
typedef struct gpu_results {
    gpu_part *parts;
    const uint32_t *part_of;
    const size_t *index;
    const tier1_gpu_encoded *results;
    const uint8_t *data;
    const tier1_pass_info *passes;
    const encode_plan *plan;
} gpu_results;

static gj2k_status keep_gpu_block(void *context, size_t k, unsigned worker)
{
    (void)worker;
    const gpu_results *g = context;
    const tier1_gpu_encoded *r = &g->results[k];
    const gpu_part *part = &g->parts[g->part_of[k]];
    encoded_block *eb = &part->tile->blocks[g->index[k]];
    if (r->status == GJ2K_ERROR_LIMIT) /* outgrew its room: coded on the CPU later */
        return GJ2K_OK;
    const dwt_rect area = eb->block->rect;
    progress_meter_add(g->plan->progress, (uint64_t)(area.x1 - area.x0) * (area.y1 - area.y0));
    if (r->status != GJ2K_OK)
        return r->status;
    uint8_t *data = r->size ? malloc(r->size) : NULL;
    if (r->size && data == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    if (r->size)
        memcpy(data, g->data + r->data_offset, r->size);
    double weight = part->planes[eb->component].plan->weight[eb->subband_index];
    if (part->planes[eb->component].plan->coding.code_block_style & TIER1_STYLE_HT) {
        /* one choice, plane 0 (the GPU codes HT blocks when every bit is sent) */
        ht_encoded_block ht = {.data = data, .size = r->size, .num_planes = r->num_planes,
                               .num_choices = r->num_passes};
        if (r->num_passes > 0) {
            ht.lengths[0] = r->size;
            ht.distortion_reduction[0] = g->passes[r->passes_offset].distortion_reduction;
        }
        gj2k_status status = encoded_block_keep_ht(eb, &ht, weight, g->plan->cod.layers);
        if (status != GJ2K_OK)
            free(data);
        return status;
    }
    gj2k_status status = encoded_block_keep(eb, g->passes + r->passes_offset, r->num_passes,
                                    r->num_planes, data, r->size, weight, g->plan->cod.layers);
    if (status != GJ2K_OK)
        free(data);
    return status;
}

/* Codes batch blocks [0, count) (part_of, index) on the GPU; lists in each
 * part's overflow those that outgrew their room there. */
static gj2k_status code_batch_on_gpu(const encode_plan *plan, encode_gpu *gpu,
                                     parallel_pool *pool, gpu_part *parts,
                                     const tier1_gpu_span *spans, size_t num_spans,
                                     const uint32_t *part_of, const size_t *index, size_t count,
                                     gj2k_error *error)
{
    tier1_gpu_encode_block *blocks = malloc(count * sizeof *blocks);
    tier1_gpu_encoded *results = malloc(count * sizeof *results);
    if (blocks == NULL || results == NULL) {
        free(blocks), free(results);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-blocks");
    }
    for (size_t k = 0; k < count; k++) {
        const gpu_part *part = &parts[part_of[k]];
        const encoded_block *eb = &part->tile->blocks[index[k]];
        const forward_plane *plane = &part->planes[eb->component];
        const dwt_rect r = eb->block->rect;
        blocks[k] = (tier1_gpu_encode_block){
            .span = part->first_span + eb->component,
            .offset = (uint64_t)(part->origins[index[k]] - plane->integers),
            .width = r.x1 - r.x0, .height = r.y1 - r.y0,
            .band = dwt_subband_band(eb->subband_index),
            .style = plane->plan->coding.code_block_style};
    }
    uint8_t *data = NULL;
    tier1_pass_info *passes = NULL;
    size_t data_size = 0, num_passes = 0;
    gj2k_status status = tier1_gpu_encode(gpu->tier1, spans, num_spans, blocks, count, results,
                                          &data, &data_size, &passes, &num_passes, error);
    if (status == GJ2K_OK) {
        gpu_results g = {.parts = parts, .part_of = part_of, .index = index, .results = results,
                         .data = data, .passes = passes, .plan = plan};
        status = parallel_for(pool, count, keep_gpu_block, &g);
        if (status != GJ2K_OK)
            gj2k_fail(error, status, "tile %u: code-block coding failed on the GPU (%s)",
                      parts[part_of[0]].tile->index, gj2k_status_name(status));
    }
    for (size_t k = 0; k < count && status == GJ2K_OK; k++) {
        gpu_part *part = &parts[part_of[k]];
        if (results[k].status == GJ2K_ERROR_LIMIT)
            part->overflow[part->num_overflow++] = index[k];
        else
            gpu->tier1_blocks++;
    }
    free(blocks), free(results), free(data), free(passes);
    return status;
}

/* The blocks of a part that outgrew their room: their coefficients down
 * from the input memory (its spans start at element `base`), coded on the
 * CPU threads. */
static gj2k_status code_overflow(const encode_plan *plan, encode_gpu *gpu, parallel_pool *pool,
                                 gpu_part *part, const tier1_gpu_span *spans, size_t base,
                                 gj2k_error *error)
{
    gj2k_status status = GJ2K_OK;
    for (size_t k = 0; k < part->num_overflow && status == GJ2K_OK; k++) {
        size_t i = part->overflow[k];
        const encoded_block *eb = &part->tile->blocks[i];
        const forward_plane *plane = &part->planes[eb->component];
        size_t offset = (size_t)(part->origins[i] - plane->integers), span_base = base;
        for (uint32_t c = 0; c < eb->component; c++)
            span_base += spans[part->first_span + c].samples;
        dwt_rect r = eb->block->rect;
        status = tier1_gpu_encoder_fetch(gpu->tier1, span_base + offset,
                                         (size_t)(r.x1 - r.x0) * (r.y1 - r.y0),
                                         plane->integers + offset,
                                         plane->fractions ? plane->fractions + offset : NULL,
                                         error);
    }
    if (status == GJ2K_OK && part->num_overflow > 0)
        status = code_blocks(plan, pool, part->tile, part->planes, part->origins, NULL,
                             part->overflow, part->num_overflow, error);
    return status;
}

/* Tier-1 of the parts' blocks on the GPU, their coefficients (in the
 * code-block layout) left in its input memory by the transforms, the parts
 * one after another from element 0: in batches of at most
 * GPU_TIER1_BATCH_SAMPLES, small tiles together; the few blocks that
 * outgrow the room the GPU gives them are coded on the CPU threads. */
static gj2k_status code_blocks_on_gpu(const encode_plan *plan, encode_gpu *gpu,
                                      parallel_pool *pool, gpu_part *parts, size_t num_parts,
                                      gj2k_error *error)
{
    size_t num_spans = 0, total = 0;
    for (size_t p = 0; p < num_parts; p++) {
        parts[p].first_span = (uint32_t)num_spans;
        num_spans += parts[p].tile->num_components;
        total += parts[p].tile->num_blocks;
    }
    tier1_gpu_span *spans = calloc(num_spans ? num_spans : 1, sizeof *spans);
    uint32_t *part_of = malloc((total ? total : 1) * sizeof *part_of);
    size_t *index = malloc((total ? total : 1) * sizeof *index);
    gj2k_status status = GJ2K_OK;
    if (spans == NULL || part_of == NULL || index == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-blocks");
    for (size_t p = 0; p < num_parts && status == GJ2K_OK; p++) {
        gpu_part *part = &parts[p];
        part->num_overflow = 0;
        part->overflow = malloc((part->tile->num_blocks ? part->tile->num_blocks : 1) *
                                sizeof *part->overflow);
        if (part->overflow == NULL)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-blocks");
        for (uint32_t c = 0; c < part->tile->num_components && status == GJ2K_OK; c++)
            spans[part->first_span + c] =
                (tier1_gpu_span){.samples = rect_area(part->planes[c].rect), .resident = true,
                                 .resident_fractions = part->planes[c].fractions != NULL};
    }
    /* batches over the parts' blocks in order */
    size_t p = 0, i = 0;
    while (status == GJ2K_OK && p < num_parts) {
        size_t count = 0, samples = 0;
        while (p < num_parts) {
            if (i == parts[p].tile->num_blocks) {
                p++, i = 0;
                continue;
            }
            dwt_rect r = parts[p].tile->blocks[i].block->rect;
            size_t area = (size_t)(r.x1 - r.x0) * (r.y1 - r.y0);
            if (count > 0 && samples + area > GPU_TIER1_BATCH_SAMPLES)
                break;
            samples += area;
            part_of[count] = (uint32_t)p;
            index[count++] = i++;
        }
        if (count > 0)
            status = code_batch_on_gpu(plan, gpu, pool, parts, spans, num_spans, part_of, index,
                                       count, error);
    }
    size_t base = 0;
    for (size_t q = 0; q < num_parts && status == GJ2K_OK; q++) {
        status = code_overflow(plan, gpu, pool, &parts[q], spans, base, error);
        for (uint32_t c = 0; c < parts[q].tile->num_components; c++)
            base += spans[parts[q].first_span + c].samples;
    }
    for (size_t q = 0; q < num_parts; q++) {
        free(parts[q].overflow);
        parts[q].overflow = NULL;
    }
    free(spans);
    free(part_of);
    free(index);
    return status;
}

/* The end of a tile's encode: its times, the energy its blocks can
 * remove, its planes freed; on failure the tile too. */
static gj2k_status finish_tile(encoded_tile *out, forward_plane *planes, uint32_t n,
                               const int32_t **origins, double transform_ms, double tier1_ms,
                               gj2k_status status)
{
    out->transform_ms = transform_ms;
    out->tier1_ms = tier1_ms;
    if (status == GJ2K_OK)
        for (size_t i = 0; i < out->num_blocks; i++)
            for (unsigned j = 0; j < out->blocks[i].num_passes; j++)
                out->energy += out->blocks[i].distortion[j];
    free(origins);
    for (uint32_t c = 0; planes != NULL && c < n; c++) {
        free(planes[c].integers); /* floats, where set, is the same memory */
        free(planes[c].fractions);
        free(planes[c].packed);
    }
    free(planes);
    if (status != GJ2K_OK)
        encoded_tile_free(out);
    return status;
}

/* Whether the GPU takes the tile's planes (whole, or in strips when larger
 * than its memory), and whether whole: only then in the code-block layout. */
static bool gpu_takes(gpu_stage *gpu, const forward_plane *planes, uint32_t n, bool *whole)
{
    size_t largest = 0;
    bool takes = true;
    for (uint32_t c = 0; c < n; c++) {
        dwt_rect r = planes[c].rect;
        takes = takes && gpu_stage_takes(gpu, r.x1 - r.x0, r.y1 - r.y0);
        largest = rect_area(r) > largest ? rect_area(r) : largest;
    }
    *whole = takes && gpu_stage_fits(gpu, largest);
    return takes;
}

struct encode_deferral {
    encoded_tile *tile;
    forward_plane *planes;
    uint32_t n;
    const int32_t **origins;
    double start, transformed;
};

gj2k_status encode_tile(const encode_plan *plan, const gj2k_image *image, uint32_t tile_index,
                        encode_gpu *devices, parallel_pool *pool, bool *on_gpu,
                        encode_deferral **deferral, encoded_tile *out, gj2k_error *error)
{
    if (deferral != NULL)
        *deferral = NULL;
    memset(out, 0, sizeof *out);
    uint32_t n = plan->siz.num_components;
    gpu_stage *gpu = devices != NULL ? devices->stage : NULL;
    out->index = tile_index;
    out->num_components = n;
    out->components = calloc(n, sizeof *out->components);
    forward_plane *planes = calloc(n, sizeof *planes);
    const int32_t **origins = NULL;
    gj2k_status status = GJ2K_OK;
    if (out->components == NULL || planes == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u", tile_index);
    dwt_rect tile_rect = j2k_tile_rect(&plan->siz, tile_index);
    for (uint32_t c = 0; c < n && status == GJ2K_OK; c++) {
        forward_plane *plane = &planes[c];
        plane->plan = &plan->components[c];
        plane->source = &image->components[c];
        plane->pool = pool;
        plane->reversible = plan->reversible;
        status = tile_component_init(&out->components[c], tile_rect, plan->siz.components[c].dx,
                                     plan->siz.components[c].dy, &plane->plan->coding, 0, error);
        if (status != GJ2K_OK)
            break;
        plane->rect = out->components[c].rect;
        size_t area = rect_area(plane->rect);
        plane->integers = malloc((area ? area : 1) * sizeof *plane->integers);
        if (!plane->reversible)
            plane->fractions = malloc(area ? area : 1);
        if (plane->integers == NULL || (!plane->reversible && plane->fractions == NULL))
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                               "out of memory for tile %u component %u", tile_index, c);
    }
    double start = now_seconds(), transformed = 0.0;
    bool whole = false;
    bool use_gpu = status == GJ2K_OK && gpu != NULL && gpu_takes(gpu, planes, n, &whole);
    if (on_gpu != NULL)
        *on_gpu = use_gpu;
    /* The CPU's 9/7 works in floats, in the integers' memory: each sample
       becomes a float, a coefficient, then an index, element by element
       (each read as the type it was last stored as), so no second buffer
       is touched. */
    for (uint32_t c = 0; c < n && status == GJ2K_OK && !use_gpu && !plan->reversible; c++)
        planes[c].floats = (float *)(void *)planes[c].integers;
    if (status == GJ2K_OK && use_gpu) {
        for (uint32_t c = 0; c < n && whole; c++)
            plan_codeblock_layout(&planes[c], &out->components[c]);
        status = list_blocks(out, planes, &origins, error);
        if (status == GJ2K_OK && whole && devices->tier1 != NULL) {
            /* GPU-resident: the coefficients stay there for Tier-1 */
            size_t samples = 0;
            for (uint32_t c = 0; c < n; c++)
                samples += rect_area(planes[c].rect);
            /* a deferred tile's place follows the group's tiles before it */
            size_t base = deferral != NULL ? devices->deferred_samples : 0;
            int32_t *device_output = NULL;
            uint8_t *device_fractions = NULL;
            status = tier1_gpu_encoder_input(devices->tier1, base + samples, !plan->reversible,
                                             &device_output, &device_fractions, error);
            if (status == GJ2K_OK) {
                device_output += base;
                device_fractions = device_fractions ? device_fractions + base : NULL;
                status = transform_on_gpu(plan, gpu, pool, planes, n, NULL, device_output,
                                          device_fractions, error);
            }
            transformed = now_seconds();
            if (status == GJ2K_OK && deferral != NULL) {
                *deferral = malloc(sizeof **deferral);
                if (*deferral == NULL) {
                    status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
                } else {
                    **deferral = (encode_deferral){.tile = out, .planes = planes, .n = n,
                                                   .origins = origins, .start = start,
                                                   .transformed = transformed};
                    devices->deferred_samples = base + samples;
                    return GJ2K_OK; /* Tier-1 in encode_tiles_code_on_gpu */
                }
            }
            gpu_part part = {.tile = out, .planes = planes, .origins = origins};
            if (status == GJ2K_OK)
                status = code_blocks_on_gpu(plan, devices, pool, &part, 1, error);
        } else if (status == GJ2K_OK) {
            status = transform_and_code_on_gpu(plan, gpu, pool, out, planes, origins, error);
        }
    }
    if (status == GJ2K_OK && !use_gpu)
        status = parallel_for(pool, n, forward_plane_load, planes);
    if (status == GJ2K_OK && !use_gpu && plan->cod.mct) {
        size_t rows = planes[0].rect.y1 - planes[0].rect.y0;
        status = parallel_for(pool, (rows + FORWARD_PLANE_ROWS - 1) / FORWARD_PLANE_ROWS,
                              forward_plane_component_transform, planes);
    }
    if (status == GJ2K_OK && !use_gpu)
        status = parallel_for(pool, n, forward_plane_transform, planes);
    if (status != GJ2K_OK && error != NULL && error->status == GJ2K_OK)
        gj2k_fail(error, status, "tile %u: transform failed (%s)", tile_index,
                  gj2k_status_name(status));
    if (!use_gpu)
        transformed = now_seconds();
    if (status == GJ2K_OK && !use_gpu)
        status = list_blocks(out, planes, &origins, error);
    if (status == GJ2K_OK && !use_gpu)
        status = code_blocks(plan, pool, out, planes, origins, NULL, NULL, 0, error);
    if (transformed == 0.0) /* Tier-1 overlapped the transforms */
        transformed = start;
    return finish_tile(out, planes, n, origins, (transformed - start) * 1e3,
                       (now_seconds() - transformed) * 1e3, status);
}

gj2k_status encode_tiles_code_on_gpu(const encode_plan *plan, encode_gpu *devices,
                                     parallel_pool *pool, encode_deferral **deferrals,
                                     size_t count, gj2k_error *error)
{
    gpu_part *parts = calloc(count ? count : 1, sizeof *parts);
    gj2k_status status = GJ2K_OK;
    if (parts == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; k < count && status == GJ2K_OK; k++)
        parts[k] = (gpu_part){.tile = deferrals[k]->tile, .planes = deferrals[k]->planes,
                              .origins = deferrals[k]->origins};
    double started = now_seconds();
    if (status == GJ2K_OK && count > 0)
        status = code_blocks_on_gpu(plan, devices, pool, parts, count, error);
    double done = now_seconds();
    free(parts);
    gj2k_status first = status;
    for (size_t k = 0; k < count; k++) {
        encode_deferral *d = deferrals[k];
        /* the batch's Tier-1 time is the first tile's */
        gj2k_status finished = finish_tile(d->tile, d->planes, d->n, d->origins,
                                           (d->transformed - d->start) * 1e3,
                                           k == 0 ? (done - started) * 1e3 : 0.0, status);
        first = first == GJ2K_OK ? finished : first;
        free(d);
        deferrals[k] = NULL;
    }
    devices->deferred_samples = 0;
    return first;
}

void encoded_tile_free(encoded_tile *tile)
{
    for (size_t i = 0; tile->blocks != NULL && i < tile->num_blocks; i++) {
        free(tile->blocks[i].data);
        free(tile->blocks[i].lengths); /* holds distortion and layer_passes too */
        free(tile->blocks[i].choices);
    }
    free(tile->blocks);
    for (uint32_t c = 0; tile->components != NULL && c < tile->num_components; c++)
        tile_component_free(&tile->components[c]);
    free(tile->components);
    memset(tile, 0, sizeof *tile);
}
