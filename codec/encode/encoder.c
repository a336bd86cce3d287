/* encoder.c - the public encoding API: plan (encode_plan.c) -> every tile
 * through the forward transforms and Tier-1 (encode_tile.c) -> guard bits
 * and missing bit-planes (E.1, B.10.5) -> rate control over the whole image
 * (rate_control.c) -> Tier-2 packets (Annex B) -> main header, tile-parts
 * and TLM/PLT (Annex A) -> optional JP2 boxes (Annex I). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"

#include "clock.h"
#include "encode_plan.h"
#include "encode_profiles.h"
#include "encode_tile.h"
#include "error.h"
#include "gpu_context.h"
#include "gpu_stage.h"
#include "image_formats.h"
#include "imf_profile.h"
#include "jp2_file.h"
#include "rate_control.h"
#include "struct_size.h"
#include "tier1_gpu.h"
#include "tier2_encode.h"

#define RATE_FIT_ROUNDS 6             /* header re-estimates before giving up on a size */
#define DISTORTION_FIT_ROUNDS 3       /* decodes to check PSNR targets */
#define DISTORTION_FIT_MARGIN 0.98    /* aim a little past the shortfall */

typedef struct encoder_run {
    const gj2k_image *image;
    encode_plan plan;
    encoded_tile *tiles;
    uint32_t num_tiles;
    byte_buffer scratch;  /* a tile's packets before they join its tile-parts */
    encode_gpu gpu;       /* stage NULL: the CPU transforms */
    parallel_pool *pool;  /* the CPU threads */
    gj2k_warning_fn warning;
    void *warning_user;
    uint32_t gpu_tiles;
    double open_ms, transform_ms, tier1_ms, rate_ms, tier2_ms, copies_ms;
    rate_request request; /* the last rate control run */
    /* Tier-2 bytes of layers 0..l over every tile as the last write_output
     * left the layers, measured once each; SIZE_MAX: not measured. */
    size_t layer_packets[GJ2K_MAX_LAYERS];
} encoder_run;

static tier2_encode_params tile_packet_params(const encoder_run *run, uint32_t tile,
                                              unsigned num_layers)
{
    const j2k_header_params *h = &run->plan.main_header;
    if (run->plan.tile_headers != NULL && run->plan.tile_headers[tile].num_pocs > 0)
        h = &run->plan.tile_headers[tile];
    return (tier2_encode_params){.num_layers = (uint16_t)num_layers,
                                 .progression = run->plan.cod.progression,
                                 .changes = h->pocs, .num_changes = h->num_pocs,
                                 .use_sop = run->plan.cod.use_sop,
                                 .use_eph = run->plan.cod.use_eph};
}

/* A tile's precincts measured on the pool's threads: precinct k of the
 * list is resolution r of component c where first[c][r] <= k. */
typedef struct precinct_sizes {
    encoded_tile *tile;
    const tier2_encode_params *params;
    size_t *first;   /* per (component, resolution), then the count */
    size_t *bytes;   /* per precinct */
} precinct_sizes;

static gj2k_status measure_one_precinct(void *context, size_t k, unsigned worker)
{
    (void)worker;
    precinct_sizes *p = context;
    size_t at = 0;
    uint32_t c = 0;
    for (;; c++) { /* the component and resolution holding precinct k */
        unsigned levels = p->tile->components[c].num_resolutions;
        if (k < p->first[at + levels])
            break;
        at += levels;
    }
    unsigned r = 0;
    while (k >= p->first[at + r + 1])
        r++;
    return tier2_measure_precinct(&p->tile->components[c], r, (uint32_t)(k - p->first[at + r]),
                                  p->params, &p->bytes[k], NULL);
}

/* rate_measure_fn: Tier-2 of tile t for layers 0..layer, counted, not
 * kept: the sum of its precincts' packets (tier2_measure_precinct), which
 * depend on their own blocks alone, measured on the pool's threads. */
static gj2k_status measure_tile_packets(void *user, uint32_t t, unsigned layer, size_t *bytes,
                                        gj2k_error *error)
{
    encoder_run *run = user;
    encoded_tile *tile = &run->tiles[t];
    tier2_encode_params params = tile_packet_params(run, t, layer + 1);
    size_t slots = 1;
    for (uint32_t c = 0; c < tile->num_components; c++)
        slots += tile->components[c].num_resolutions;
    precinct_sizes p = {.tile = tile, .params = &params,
                        .first = calloc(slots, sizeof *p.first)};
    gj2k_status status = p.first ? GJ2K_OK : GJ2K_ERROR_OUT_OF_MEMORY;
    size_t at = 0, count = 0;
    for (uint32_t c = 0; c < tile->num_components && status == GJ2K_OK; c++)
        for (unsigned r = 0; r < tile->components[c].num_resolutions; r++) {
            p.first[at++] = count;
            count += tile_resolution_num_precincts(&tile->components[c].resolutions[r]);
        }
    if (status == GJ2K_OK) {
        p.first[at] = count;
        p.bytes = calloc(count ? count : 1, sizeof *p.bytes);
        status = p.bytes ? parallel_for(run->pool, count, measure_one_precinct, &p)
                         : GJ2K_ERROR_OUT_OF_MEMORY;
    }
    *bytes = 0;
    for (size_t k = 0; status == GJ2K_OK && k < count; k++) {
        if (p.bytes[k] > SIZE_MAX - *bytes)
            status = GJ2K_ERROR_LIMIT;
        else
            *bytes += p.bytes[k];
    }
    free(p.first);
    free(p.bytes);
    if (status != GJ2K_OK) {
        *bytes = 0;
        return gj2k_fail(error, status, "tile %u: measuring its packets failed (%s)", t,
                         gj2k_status_name(status));
    }
    return GJ2K_OK;
}

/* rate_measure_precinct_fn: Tier-2 of the block's precinct for layers 0..layer. */
static gj2k_status measure_block_precinct(void *user, uint32_t t, const encoded_block *block,
                                          unsigned layer, size_t *bytes, gj2k_error *error)
{
    encoder_run *run = user;
    tier2_encode_params params = tile_packet_params(run, t, layer + 1);
    return tier2_measure_precinct(&run->tiles[t].components[block->component], block->resolution,
                                  block->precinct, &params, bytes, error);
}

/* Tier-2 over every tile for layers 0..layer. */
static gj2k_status measure_packets(encoder_run *run, unsigned layer, size_t *bytes,
                                   gj2k_error *error)
{
    rate_request request = {.tiles = run->tiles, .num_tiles = run->num_tiles,
                            .measure = measure_tile_packets, .measure_user = run};
    return rate_control_measure(&request, layer, NULL, bytes, error);
}

/* measure_packets for layers 0..layer, after the last write_output. */
static gj2k_status layer_packet_bytes(encoder_run *run, unsigned layer, size_t *bytes,
                                      gj2k_error *error)
{
    if (run->layer_packets[layer] == SIZE_MAX) {
        size_t measured = 0;
        gj2k_status status = measure_packets(run, layer, &measured, error);
        if (status != GJ2K_OK)
            return status;
        run->layer_packets[layer] = measured;
    }
    *bytes = run->layer_packets[layer];
    return GJ2K_OK;
}

/* Guard bits (E.1): each component gets the fewest, from the option's up,
 * that give every code-block's bit-planes room in Mb = G + eps_b - 1; then
 * each block's missing MSBs (B.10.5) and the source Tier-2 reads. */
static gj2k_status settle_bit_planes(encoder_run *run, gj2k_error *error)
{
    encode_plan *plan = &run->plan;
    for (uint32_t t = 0; t < run->num_tiles; t++)
        for (size_t i = 0; i < run->tiles[t].num_blocks; i++) {
            const encoded_block *b = &run->tiles[t].blocks[i];
            j2k_quantization *q = &plan->components[b->component].quantization;
            int need = (int)b->num_planes - (int)q->steps[b->subband_index].exponent + 1;
            if (need > (int)q->guard_bits) {
                if (need > 7)
                    return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                                     "component %u: coefficients need %d guard bits (at most 7)",
                                     b->component, need);
                q->guard_bits = (uint8_t)need;
            }
        }
    for (uint32_t t = 0; t < run->num_tiles; t++)
        for (size_t i = 0; i < run->tiles[t].num_blocks; i++) {
            encoded_block *b = &run->tiles[t].blocks[i];
            const j2k_quantization *q = &plan->components[b->component].quantization;
            unsigned mb = q->guard_bits + q->steps[b->subband_index].exponent - 1u;
            b->source = (tile_codeblock_source){.data = b->data, .pass_lengths = b->lengths,
                                                .num_passes = b->num_passes,
                                                .missing_msbs = mb - b->num_planes,
                                                .layer_passes = b->layer_passes,
                                                .choices = b->choices};
            for (unsigned j = 0; b->choices != NULL && j < b->num_passes; j++)
                b->choices[j].missing_msbs = mb - 1 - b->choices[j].plane; /* T.814 7.1 */
            b->block->source = &b->source;
        }
    return GJ2K_OK;
}

/* Tile-part p of a tile (A.4.2): SOT, the tile's POC in its first, PLT,
 * SOD, its packets; its TLM entry appended. */
static gj2k_status write_tile_part(encoder_run *run, uint32_t t, const tier2_tile_parts *tp,
                                   size_t p, const j2k_packet_lengths *lengths, byte_buffer *parts,
                                   j2k_tlm_entry *tlm, size_t *num_tlm, gj2k_error *error)
{
    const encode_plan *plan = &run->plan;
    size_t end = p + 1 < tp->count ? tp->start[p + 1] : run->scratch.size;
    size_t sot_offset = 0;
    j2k_sot sot = {.tile_index = t, .part_index = (uint8_t)p, .num_parts = (uint8_t)tp->count};
    gj2k_status status = j2k_write_tile_part_begin(
        parts, &plan->siz, &sot, plan->tile_headers && p == 0 ? &plan->tile_headers[t] : NULL,
        &sot_offset, error);
    size_t first = tp->first_packet[p];
    size_t last = p + 1 < tp->count ? tp->first_packet[p + 1] : lengths->count;
    if (status == GJ2K_OK && plan->use_plt && last > first)
        status = j2k_plt_write(parts, lengths->lengths + first, last - first, error);
    if (status != GJ2K_OK)
        return status;
    j2k_marker_write(parts, J2K_SOD);
    if (end > tp->start[p]) /* the scratch may hold nothing at all (data NULL) */
        byte_buffer_append(parts, run->scratch.data + tp->start[p], end - tp->start[p]);
    status = j2k_write_tile_part_end(parts, sot_offset, error);
    tlm[(*num_tlm)++] = (j2k_tlm_entry){.tile_index = t,
                                        .length = (uint32_t)(parts->size - sot_offset)};
    return status;
}

/* Every tile's tile-parts, tile by tile; *tlm (malloc'ed) gets an entry
 * for each. */
static gj2k_status write_tile_parts(encoder_run *run, byte_buffer *parts, j2k_tlm_entry **tlm,
                                    size_t *num_tlm, size_t *packet_bytes, gj2k_error *error)
{
    static const tier2_tile_part_split splits[] = {
        [GJ2K_TILE_PARTS_ONE] = TIER2_ONE_TILE_PART,
        [GJ2K_TILE_PARTS_RESOLUTION] = TIER2_SPLIT_AT_RESOLUTION,
        [GJ2K_TILE_PARTS_LAYER] = TIER2_SPLIT_AT_LAYER,
        [GJ2K_TILE_PARTS_COMPONENT] = TIER2_SPLIT_AT_COMPONENT};
    const encode_plan *plan = &run->plan;
    gj2k_status status = GJ2K_OK;
    *packet_bytes = 0;
    *num_tlm = 0;
    size_t capacity = 0;
    for (uint32_t t = 0; t < run->num_tiles && status == GJ2K_OK; t++) {
        j2k_packet_lengths lengths = {0}; /* every packet's, for PLT and the split */
        run->scratch.size = 0;
        tier2_encode_params params = tile_packet_params(run, t, plan->cod.layers);
        params.split = (unsigned)plan->tile_parts < 4 ? splits[plan->tile_parts] : TIER2_ONE_TILE_PART;
        tier2_tile_parts tp;
        status = tier2_encode_tile_parts(run->tiles[t].components, run->tiles[t].num_components,
                                         &params, &run->scratch, &lengths, &tp, error);
        if (status == GJ2K_OK && *num_tlm + tp.count > capacity) {
            capacity = 2 * (*num_tlm + tp.count);
            j2k_tlm_entry *grown = realloc(*tlm, capacity * sizeof *grown);
            if (grown == NULL)
                status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for TLM");
            else
                *tlm = grown;
        }
        for (size_t p = 0; p < tp.count && status == GJ2K_OK; p++)
            status = write_tile_part(run, t, &tp, p, &lengths, parts, *tlm, num_tlm, error);
        free(lengths.lengths);
        *packet_bytes += run->scratch.size;
    }
    return status;
}

/* The whole output (codestream, in JP2 boxes when asked) into `out`. */
static gj2k_status write_output_timed(encoder_run *run, byte_buffer *out,
                                      size_t *codestream_bytes, size_t *packet_bytes,
                                      gj2k_error *error);

gj2k_status encoder_write_jp2(const gj2k_image *image, const uint8_t *codestream, size_t size,
                              byte_buffer *out, gj2k_error *error)
{
    jp2_file jp2;
    gj2k_status status = jp2_file_describe_image(&jp2, image, error);
    if (status == GJ2K_OK) {
        status = jp2_file_write(&jp2, codestream, size, out, error);
        jp2_file_free(&jp2);
    }
    return status;
}

/* The codestream with the layers as they stand (Tier-2 for real), its
 * time counted in run->tier2_ms. */
static gj2k_status write_output(encoder_run *run, byte_buffer *out, size_t *codestream_bytes,
                                size_t *packet_bytes, gj2k_error *error)
{
    double start = now_seconds();
    gj2k_status status = write_output_timed(run, out, codestream_bytes, packet_bytes, error);
    run->tier2_ms += (now_seconds() - start) * 1e3;
    return status;
}

static gj2k_status write_output_timed(encoder_run *run, byte_buffer *out,
                                      size_t *codestream_bytes, size_t *packet_bytes,
                                      gj2k_error *error)
{
    byte_buffer codestream = {0}, parts = {0};
    j2k_tlm_entry *tlm = NULL;
    size_t num_tlm = 0;
    gj2k_status status = write_tile_parts(run, &parts, &tlm, &num_tlm, packet_bytes, error);
    if (status == GJ2K_OK)
        status = j2k_write_main_header(&codestream, &run->plan.siz, &run->plan.main_header, error);
    if (status == GJ2K_OK && run->plan.use_tlm)
        status = num_tlm <= UINT32_MAX
                     ? j2k_tlm_write_entries(&codestream, tlm, (uint32_t)num_tlm, error)
                     : gj2k_fail(error, GJ2K_ERROR_LIMIT, "TLM: too many tile-parts");
    if (status == GJ2K_OK) {
        byte_buffer_append(&codestream, parts.data, parts.size);
        j2k_marker_write(&codestream, J2K_EOC);
        if (codestream.failed || parts.failed)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the codestream");
    }
    *codestream_bytes = codestream.size;
    /* write_tile_parts ran Tier-2 as measure_packets does for the last layer
     * (PLT lengths aside, which leave the packets alike): its bytes are those
     * of every layer; fewer layers are measured when asked. */
    for (unsigned l = 0; l < run->plan.cod.layers; l++)
        run->layer_packets[l] = SIZE_MAX;
    if (status == GJ2K_OK)
        run->layer_packets[run->plan.cod.layers - 1] = *packet_bytes;
    out->size = 0;
    if (status == GJ2K_OK && run->plan.format == GJ2K_FORMAT_JP2) {
        status = encoder_write_jp2(run->image, codestream.data, codestream.size, out, error);
    } else if (status == GJ2K_OK) {
        byte_buffer_append(out, codestream.data, codestream.size);
    }
    if (status == GJ2K_OK && out->failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the output");
    byte_buffer_free(&codestream);
    byte_buffer_free(&parts);
    free(tlm);
    return status;
}

static bool has_byte_targets(const encode_plan *plan)
{
    for (unsigned l = 0; l < plan->cod.layers; l++)
        if (!plan->layers[l].lossless && !plan->layers[l].by_distortion)
            return true;
    return false;
}

/* Rate control, then the output; with byte targets, the bytes besides
 * packets are measured from a real write and the fit redone until the file
 * meets its target. */
static gj2k_status allocate_and_write(encoder_run *run, byte_buffer *out, size_t *codestream_bytes,
                                      gj2k_error *error)
{
    encode_plan *plan = &run->plan;
    double floor = 0.0;
    if (!plan->reversible)
        for (uint32_t t = 0; t < run->num_tiles; t++)
            for (size_t i = 0; i < run->tiles[t].num_blocks; i++) {
                const encoded_block *b = &run->tiles[t].blocks[i];
                const tile_codeblock *cb = b->block;
                /* Uniform quantization error: Delta^2 / 12 per coefficient. */
                floor += plan->components[b->component].weight[b->subband_index] / 12.0 *
                         (double)(cb->rect.x1 - cb->rect.x0) * (cb->rect.y1 - cb->rect.y0);
            }
    rate_request request = {.tiles = run->tiles, .num_tiles = run->num_tiles, .plan = plan,
                            .distortion_floor = floor, .measure = measure_tile_packets,
                            .measure_precinct = measure_block_precinct, .measure_user = run};
    size_t packet_bytes = 0;
    gj2k_status status = GJ2K_OK;
    if (has_byte_targets(plan)) {
        /* First estimate of the overhead: the file with every layer empty. */
        for (uint32_t t = 0; t < run->num_tiles; t++)
            for (size_t i = 0; i < run->tiles[t].num_blocks; i++)
                memset(run->tiles[t].blocks[i].layer_passes, 0, plan->cod.layers);
        status = write_output(run, out, codestream_bytes, &packet_bytes, error);
        request.overhead = out->size - packet_bytes;
    }
    const encode_layer_target *last = &plan->layers[plan->cod.layers - 1];
    for (unsigned round = 0; status == GJ2K_OK; round++) {
        status = rate_control_allocate(&request, error);
        if (status == GJ2K_OK)
            status = write_output(run, out, codestream_bytes, &packet_bytes, error);
        /* Every layer's packets fit its target less `overhead`: with no more
         * overhead than that, every layer meets its target. */
        size_t overhead = out->size - packet_bytes;
        if (status != GJ2K_OK || !has_byte_targets(plan) || overhead <= request.overhead)
            break;
        if (round + 1 == RATE_FIT_ROUNDS)
            break;
        request.overhead = overhead;
    }
    run->request = request;
    /* An earlier layer whose target not even an empty layer meets is sent
     * empty and said so (the last one fails below). */
    for (unsigned l = 0; status == GJ2K_OK && l + 1 < plan->cod.layers; l++) {
        const encode_layer_target *t = &plan->layers[l];
        size_t packets = 0;
        if (t->lossless || t->by_distortion ||
            layer_packet_bytes(run, l, &packets, error) != GJ2K_OK)
            continue;
        size_t layer_size = out->size - packet_bytes + packets;
        if (layer_size > t->max_bytes)
            gj2k_warn(run->warning, run->warning_user,
                      "layer %u: %zu bytes, over its target of %zu (the headers alone need more)",
                      l + 1, layer_size, t->max_bytes);
    }
    if (status == GJ2K_OK && !last->lossless && !last->by_distortion && out->size > last->max_bytes)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "cannot fit the image into %zu bytes (the smallest file is %zu)",
                         last->max_bytes, out->size);
    return status;
}

/* Squared error between the source and what a decoder makes of `data`
 * with `layers` layers; false when the output does not decode alike. */
static bool measure_squared_error(const gj2k_image *image, const byte_buffer *data,
                                  unsigned layers, double *squared)
{
    gj2k_decode_options options = {.max_layers = layers, .threads = 0};
    gj2k_image *decoded = NULL;
    if (gj2k_decode_memory(data->data, data->size, &options, &decoded, NULL) != GJ2K_OK)
        return false;
    bool ok = decoded->num_components == image->num_components;
    *squared = 0.0;
    for (uint32_t c = 0; ok && c < image->num_components; c++) {
        const gj2k_component *a = &image->components[c], *b = &decoded->components[c];
        ok = a->width == b->width && a->height == b->height && b->samples != NULL;
        for (size_t i = 0; ok && i < (size_t)a->width * a->height; i++) {
            double d = (double)a->samples[i] - b->samples[i];
            *squared += d * d;
        }
    }
    gj2k_image_destroy(decoded);
    return ok;
}

/* PSNR targets rest on the distortion model of Tier-1; the output is
 * decoded and, where a layer falls short, its target tightened by the
 * shortfall and the allocation redone, a few times at most. */
static gj2k_status meet_distortion_targets(encoder_run *run, byte_buffer *out,
                                           size_t *codestream_bytes, gj2k_error *error)
{
    encode_plan *plan = &run->plan;
    double wanted[GJ2K_MAX_LAYERS];
    bool any = false;
    for (unsigned l = 0; l < plan->cod.layers; l++) {
        wanted[l] = plan->layers[l].max_squared_error;
        any = any || plan->layers[l].by_distortion;
    }
    gj2k_status status = GJ2K_OK;
    for (unsigned round = 0; any && round < DISTORTION_FIT_ROUNDS && status == GJ2K_OK; round++) {
        bool short_of_target = false;
        for (unsigned l = 0; l < plan->cod.layers; l++) {
            encode_layer_target *t = &plan->layers[l];
            double squared;
            if (!t->by_distortion || !measure_squared_error(run->image, out, l + 1, &squared))
                continue;
            if (squared > wanted[l]) {
                t->max_squared_error *= wanted[l] / squared * DISTORTION_FIT_MARGIN;
                short_of_target = true;
            }
        }
        if (!short_of_target)
            break;
        rate_request request = run->request;
        status = rate_control_allocate(&request, error);
        size_t packet_bytes;
        if (status == GJ2K_OK)
            status = write_output(run, out, codestream_bytes, &packet_bytes, error);
    }
    return status;
}

static void fill_report(encoder_run *run, size_t bytes, size_t codestream_bytes,
                        gj2k_encode_report *report)
{
    memset(report, 0, sizeof *report);
    report->bytes = bytes;
    report->codestream_bytes = codestream_bytes;
    report->num_layers = run->plan.cod.layers;
    report->num_tiles = run->num_tiles;
    report->mct = run->plan.cod.mct != 0;
    report->gpu_tiles = run->gpu_tiles;
    report->gpu_blocks = run->gpu.tier1_blocks;
    report->open_ms = run->open_ms;
    report->transform_ms = run->transform_ms;
    report->tier1_ms = run->tier1_ms;
    report->rate_ms = run->rate_ms - run->tier2_ms;
    report->tier2_ms = run->tier2_ms;
    report->copies_ms = run->copies_ms;
    /* Packets of every layer, from the last write_output. */
    size_t all_packets = run->layer_packets[run->plan.cod.layers - 1];
    gj2k_error ignored;
    report->layer_bytes[0] = bytes;
    for (unsigned l = 0; l < run->plan.cod.layers; l++) {
        size_t packets = 0;
        if (layer_packet_bytes(run, l, &packets, &ignored) == GJ2K_OK)
            report->layer_bytes[l] = bytes - all_packets + packets;
    }
    for (uint32_t t = 0; t < run->num_tiles; t++)
        report->num_codeblocks += run->tiles[t].num_blocks;
    for (uint32_t c = 0; c < run->plan.siz.num_components; c++)
        if (run->plan.components[c].quantization.guard_bits > report->guard_bits)
            report->guard_bits = run->plan.components[c].quantization.guard_bits;
}

/* Tiles whose GPU Tier-1 share a batch hold at most this many samples
 * together (2^24: some 4,000 code-blocks of 64x64, enough to give each SM
 * of an H100 the 30 or so warps it needs, one block a warp). */
#define TILE_GROUP_SAMPLES ((uint64_t)1 << 24)

static uint64_t tile_samples(const encode_plan *plan, uint32_t t)
{
    uint64_t samples = 0;
    for (uint32_t c = 0; c < plan->siz.num_components; c++) {
        dwt_rect r = j2k_tile_component_rect(&plan->siz, t, c);
        samples += (uint64_t)(r.x1 - r.x0) * (r.y1 - r.y0);
    }
    return samples;
}

/* Every tile through its transforms and Tier-1. With Tier-1 on the GPU and
 * several tiles, they go in groups of up to TILE_GROUP_SAMPLES whose
 * Tier-1 runs in one batch (encode_tiles_code_on_gpu), their coefficients
 * side by side in the GPU's input memory, reserved for the group first. */
static gj2k_status encode_tiles(encoder_run *run, const gj2k_image *image, gj2k_error *error)
{
    const encode_plan *plan = &run->plan;
    bool grouping = run->gpu.tier1 != NULL && run->num_tiles > 1;
    encode_deferral **group = grouping ? calloc(run->num_tiles, sizeof *group) : NULL;
    if (grouping && group == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    gj2k_status status = GJ2K_OK;
    size_t count = 0;
    uint32_t group_end = 0; /* the group's tiles end before this one */
    for (uint32_t t = 0; t < run->num_tiles && status == GJ2K_OK; t++) {
        if (grouping && t == group_end) { /* a new group: its tiles' memory first */
            uint64_t samples = tile_samples(plan, t);
            for (group_end = t + 1; group_end < run->num_tiles; group_end++) {
                uint64_t more = tile_samples(plan, group_end);
                if (samples + more > TILE_GROUP_SAMPLES)
                    break;
                samples += more;
            }
            int32_t *coefficients = NULL;
            uint8_t *fractions = NULL;
            gj2k_error unused = {0};
            run->gpu.deferred_samples = 0;
            if (samples > SIZE_MAX / 8 ||
                tier1_gpu_encoder_input(run->gpu.tier1, (size_t)samples, !plan->reversible,
                                        &coefficients, &fractions, &unused) != GJ2K_OK)
                group_end = t + 1; /* no room for a group: this tile alone */
        }
        bool on_gpu = false;
        encode_deferral *deferral = NULL;
        status = encode_tile(plan, image, t, &run->gpu, run->pool, &on_gpu,
                             grouping ? &deferral : NULL, &run->tiles[t], error);
        run->gpu_tiles += on_gpu;
        if (deferral != NULL)
            group[count++] = deferral;
        if (count > 0 && (status != GJ2K_OK || t + 1 == group_end)) {
            gj2k_status coded = encode_tiles_code_on_gpu(plan, &run->gpu, run->pool, group,
                                                         count, error);
            status = status == GJ2K_OK ? coded : status;
            count = 0;
        }
    }
    free(group);
    return status;
}

gj2k_status encoder_code_image(const gj2k_image *image, const gj2k_encode_options *options,
                               gj2k_file_format format, byte_buffer *out,
                               gj2k_encode_report *report, gj2k_error *error)
{
    encoder_run run = {.image = image, .warning = options->warning,
                       .warning_user = options->warning_user};
    gj2k_status status = encode_plan_create(image, options, format, &run.plan, error);
    if (status != GJ2K_OK)
        return status;
    progress_meter progress;
    progress_meter_init(&progress, options->progress, options->progress_user,
                        run.plan.total_samples);
    run.plan.progress = &progress;
    run.num_tiles = run.plan.siz.num_tiles;
    run.tiles = calloc(run.num_tiles, sizeof *run.tiles);
    if (run.tiles == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for %u tiles",
                           run.num_tiles);
    if (status == GJ2K_OK)
        status = parallel_pool_create(run.plan.threads, &run.pool, error);
    double opening = now_seconds();
    /* a context's GPU (kept), or one opened for this encode (closed at the end) */
    gj2k_gpu_context *context = gpu_context_for(options->gpu_context, options->device);
    if (status == GJ2K_OK && context != NULL)
        run.gpu.stage = context->stage;
    else if (status == GJ2K_OK)
        status = gpu_stage_open(options->device, options->gpu, run.plan.total_samples,
                                GPU_STAGE_AUTO_MIN_ENCODE_SAMPLES, &run.gpu.stage, error);
    gj2k_error unused = {0};
    /* HT blocks (T.814) go to the GPU when every bit is sent (it codes plane 0
     * alone); rate control's choices at every plane are the CPU threads' */
    bool ht_choices = (run.plan.cod.coding.code_block_style & TIER1_STYLE_HT) &&
                      encode_plan_ht_choices(&run.plan);
    if (status == GJ2K_OK && run.gpu.stage != NULL && !ht_choices && context != NULL)
        run.gpu.tier1 = gpu_context_encoder(context);
    else if (status == GJ2K_OK && run.gpu.stage != NULL && !ht_choices &&
             tier1_gpu_encoder_create(options->gpu, &run.gpu.tier1, &unused) != GJ2K_OK)
        run.gpu.tier1 = NULL;
    run.open_ms = run.gpu.stage != NULL ? (now_seconds() - opening) * 1e3 : 0.0;
    double phases[GPU_PHASES];
    gpu_stage_take_times(run.gpu.stage, phases); /* from zero */
    if (status == GJ2K_OK)
        status = encode_tiles(&run, image, error);
    if (progress_meter_cancelled(&progress)) /* whatever the coders made of it */
        status = gj2k_fail(error, GJ2K_ERROR_CANCELLED, "encode cancelled by its progress callback");
    gpu_stage_take_times(run.gpu.stage, phases);
    run.copies_ms = phases[GPU_PHASE_COPIES];
    for (uint32_t t = 0; t < run.num_tiles; t++) {
        run.transform_ms += run.tiles[t].transform_ms;
        run.tier1_ms += run.tiles[t].tier1_ms;
    }
    double rating = now_seconds();
    if (status == GJ2K_OK)
        status = settle_bit_planes(&run, error);
    if (status == GJ2K_OK) {
        char comment[64];
        snprintf(comment, sizeof comment, "Created by gj2k %s", GJ2K_VERSION_STRING);
        status = encode_plan_finish_headers(&run.plan,
                                            options->comment ? options->comment : comment, error);
    }
    size_t codestream_bytes = 0;
    if (status == GJ2K_OK)
        status = allocate_and_write(&run, out, &codestream_bytes, error);
    if (status == GJ2K_OK)
        status = meet_distortion_targets(&run, out, &codestream_bytes, error);
    run.rate_ms = (now_seconds() - rating) * 1e3;
    if (status == GJ2K_OK)
        progress_meter_finish(&progress);
    if (status == GJ2K_OK && report != NULL)
        fill_report(&run, out->size, codestream_bytes, report);
    for (uint32_t t = 0; run.tiles != NULL && t < run.num_tiles; t++)
        encoded_tile_free(&run.tiles[t]);
    free(run.tiles);
    byte_buffer_free(&run.scratch);
    if (context == NULL) {
        tier1_gpu_encoder_destroy(run.gpu.tier1);
        gpu_stage_destroy(run.gpu.stage);
    }
    parallel_pool_destroy(run.pool);
    encode_plan_free(&run.plan);
    return status;
}

gj2k_status gj2k_encode_memory(const gj2k_image *image, const gj2k_encode_options *caller_options,
                               uint8_t **data, size_t *size, gj2k_encode_report *caller_report,
                               gj2k_error *error)
{
    if (data == NULL || size == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "encode: no place for the output");
    *data = NULL;
    *size = 0;
    gj2k_encode_options options; /* taken in whole (struct_size.h), as is the report */
    gj2k_encode_report whole, *report = caller_report != NULL ? &whole : NULL;
    gj2k_status status = STRUCT_SIZE_TAKE(&options, caller_options, gj2k_encode_options, error);
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_CHECK(caller_report, gj2k_encode_report, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_file_format format = options.format != GJ2K_FORMAT_UNKNOWN ? options.format
                                                                     : GJ2K_FORMAT_J2K;
    byte_buffer out = {0};
    status = imf_profile_rsiz(options.profile) != 0
                 ? encode_imf(image, &options, format, &out, report, error)
             : options.profile != GJ2K_PROFILE_NONE
                 ? encode_cinema(image, &options, format, &out, report, error)
                 : encoder_code_image(image, &options, format, &out, report, error);
    if (status != GJ2K_OK) {
        byte_buffer_free(&out);
        return status;
    }
    if (report != NULL)
        STRUCT_SIZE_GIVE(caller_report, report, gj2k_encode_report);
    *data = byte_buffer_release(&out, size);
    return GJ2K_OK;
}

gj2k_status gj2k_encode_file(const gj2k_image *image, const char *path,
                             const gj2k_encode_options *options, gj2k_encode_report *report,
                             gj2k_error *error)
{
    if (path == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "encode: no output path");
    gj2k_encode_options chosen;
    gj2k_status status = STRUCT_SIZE_TAKE(&chosen, options, gj2k_encode_options, error);
    if (status != GJ2K_OK)
        return status;
    if (chosen.format == GJ2K_FORMAT_UNKNOWN)
        chosen.format = gj2k_format_from_path(path);
    if (chosen.format != GJ2K_FORMAT_J2K && chosen.format != GJ2K_FORMAT_JP2)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "%s: not a JPEG 2000 name (use .j2k .j2c .jpc or .jp2)", path);
    uint8_t *data;
    size_t size;
    status = gj2k_encode_memory(image, &chosen, &data, &size, report, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_write_options write = {.temporary = chosen.temporary,
                                .temporary_user = chosen.temporary_user};
    status = file_write_whole(path, data, size, &write, error);
    free(data);
    return status;
}

gj2k_status gj2k_encode_stream(const gj2k_image *image, const gj2k_encode_options *options,
                               const gj2k_writer *caller_writer, gj2k_encode_report *report,
                               gj2k_error *error)
{
    gj2k_writer writer;
    gj2k_status status = STRUCT_SIZE_TAKE(&writer, caller_writer, gj2k_writer, error);
    if (status != GJ2K_OK)
        return status;
    if (writer.write == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "encode: no writer");
    uint8_t *data = NULL;
    size_t size = 0;
    status = gj2k_encode_memory(image, options, &data, &size, report, error);
    for (size_t at = 0; status == GJ2K_OK && at < size;) {
        size_t piece = size - at < ((size_t)1 << 20) ? size - at : (size_t)1 << 20;
        if (!writer.write(writer.user, data + at, piece))
            status = gj2k_fail(error, GJ2K_ERROR_IO, "encode: the writer refused %zu bytes at %zu",
                               piece, at);
        at += piece;
    }
    free(data);
    return status;
}
