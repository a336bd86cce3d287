/* transcode_recode.c - see transcode_recode.h. */
#include "transcode_recode.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

gj2k_status transcode_recoder_init(transcode_recoder *r, const ht_encode_tables *ht_tables)
{
    memset(r, 0, sizeof *r);
    r->ht_tables = ht_tables;
    r->workspace = tier1_workspace_create();
    if (ht_tables != NULL) /* the bound grows with the area alone: 4096 samples at most */
        r->ht_segment =
            malloc(ht_cleanup_bound(TIER1_MAX_SIZE, TIER1_MAX_SAMPLES / TIER1_MAX_SIZE));
    if (r->workspace == NULL || (ht_tables != NULL && r->ht_segment == NULL)) {
        transcode_recoder_free(r);
        return GJ2K_ERROR_OUT_OF_MEMORY;
    }
    return GJ2K_OK;
}

void transcode_recoder_free(transcode_recoder *r)
{
    tier1_workspace_destroy(r->workspace);
    free(r->ht_segment);
    memset(r, 0, sizeof *r);
}

void transcode_recoded_free(transcode_recoded *block)
{
    free(block->data);
    free(block->pass_lengths);
    memset(block, 0, sizeof *block);
}

static uint32_t magnitude_of(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* The block's coefficients with their bits below `plane` dropped: moved
 * down by `plane` (shift_down) or kept in place, in r->shifted, or `in`'s
 * own at plane 0. *any tells whether one stays non-zero; *lost (may be
 * NULL) whether a non-zero coefficient loses a bit or had one known below
 * `plane`. */
static const int32_t *keep_planes_from(const transcode_block *b,
                                       const transcode_coefficients *in, unsigned plane,
                                       bool shift_down, transcode_recoder *r, bool *any,
                                       bool *lost)
{
    size_t area = (size_t)b->width * b->height;
    if (lost != NULL)
        *lost = false;
    if (plane == 0) { /* every plane known: nothing to drop (lossless files) */
        uint32_t bits = 0;
        for (size_t i = 0; i < area; i++)
            bits |= (uint32_t)in->values[i];
        *any = bits != 0;
        return in->values;
    }
    bool nonzero = false, dropped = false;
    for (size_t i = 0; i < area; i++) {
        uint32_t m = magnitude_of(in->values[i]);
        uint32_t kept = plane < 32 ? m >> plane : 0;
        dropped = dropped || (m != 0 && (in->lowest[i] < plane || kept << plane != m));
        if (!shift_down)
            kept = plane < 32 ? kept << plane : 0;
        nonzero = nonzero || kept != 0;
        r->shifted[i] = in->values[i] < 0 ? -(int32_t)kept : (int32_t)kept;
    }
    if (lost != NULL)
        *lost = dropped;
    *any = nonzero;
    return r->shifted;
}

static gj2k_status recode_ht(const transcode_block *b, const transcode_coefficients *in,
                             transcode_recoder *r, transcode_recoded *out)
{
    /* the lowest plane known whole: the last one decoded when a cleanup pass
       ended it, else the one above */
    unsigned plane = in->last_plane + (in->last_type != TIER1_PASS_CLEANUP ? 1u : 0u);
    bool any = false, lost = false;
    const int32_t *values = keep_planes_from(b, in, plane, false, r, &any, &lost);
    out->lost_partial_plane = lost;
    if (!any)
        return GJ2K_OK;
    if (plane + 1 > b->magnitude_bits)
        return GJ2K_ERROR_MALFORMED;
    size_t length = 0;
    gj2k_status status = ht_encode_cleanup(values, b->width, b->width, b->height, plane,
                                           r->ht_tables, r->ht_segment,
                                           ht_cleanup_bound(b->width, b->height), &length);
    if (status != GJ2K_OK)
        return status;
    out->data = malloc(length ? length : 1);
    if (out->data == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    memcpy(out->data, r->ht_segment, length);
    out->choice = (tile_codeblock_choice){.data = out->data,
                                          .pass_lengths = {length, length, length},
                                          .num_passes = 1, .plane = plane,
                                          .missing_msbs = b->magnitude_bits - 1 - plane};
    out->layer_passes[0] = 1;
    out->source = (tile_codeblock_source){.num_passes = 1, .layer_passes = out->layer_passes,
                                          .choices = &out->choice};
    return GJ2K_OK;
}

/* Whether the first `count` passes of r->encoded, told `num_planes`
 * planes, decode to what `in` holds: the same values, and the same lowest
 * plane known for each non-zero one (what the reconstruction depends on). */
static bool decodes_alike(const transcode_block *b, const transcode_coefficients *in,
                          unsigned style, unsigned num_planes, unsigned count,
                          transcode_recoder *r)
{
    const tier1_encoded_block *e = &r->encoded;
    tier1_segment segments[TIER1_MAX_PASSES];
    unsigned n = 0, first = 0;
    size_t previous = 0;
    for (unsigned j = 0; j < count; j++)
        if (j + 1 == count || tier1_pass_ends_segment(j, style)) { /* as Tier-2 sends them */
            segments[n++] = (tier1_segment){.length = e->passes[j].length - previous,
                                            .num_passes = j + 1 - first};
            previous = e->passes[j].length;
            first = j + 1;
        }
    tier1_decode_request request = {.data = e->data, .size = e->passes[count - 1].length,
                                    .segments = segments, .num_segments = n,
                                    .num_planes = num_planes, .width = b->width,
                                    .height = b->height, .band = b->band, .style = style};
    tier1_decode_result result = {0};
    if (tier1_decode_block(&request, r->workspace, r->check.values, b->width, r->check.lowest,
                           &result) != GJ2K_OK ||
        result.passes_decoded != count)
        return false;
    size_t area = (size_t)b->width * b->height;
    for (size_t i = 0; i < area; i++)
        if (r->check.values[i] != in->values[i] ||
            (in->values[i] != 0 && r->check.lowest[i] != in->lowest[i]))
            return false;
    return true;
}

static gj2k_status recode_part1(const transcode_block *b, const transcode_coefficients *in,
                                unsigned style, transcode_recoder *r, transcode_recoded *out)
{
    unsigned shift = in->last_plane;
    /* passes of the last plane not decoded: after its significance pass,
       its refinement and cleanup; after its refinement pass, its cleanup */
    unsigned drop = in->last_type == TIER1_PASS_CLEANUP      ? 0u
                    : in->last_type == TIER1_PASS_REFINEMENT ? 1u
                                                             : 2u;
    for (;;) {
        bool any = false;
        const int32_t *values = keep_planes_from(b, in, shift, true, r, &any, NULL);
        if (!any)
            return GJ2K_OK;
        gj2k_status status = tier1_encode_block_unmeasured(values, NULL, b->width, b->width,
                                                           b->height, b->band, style,
                                                           TIER1_MAX_PLANES, r->workspace,
                                                           &r->encoded);
        if (status != GJ2K_OK)
            return status;
        unsigned total = r->encoded.num_passes, num_planes = shift + r->encoded.num_planes;
        if (num_planes > b->magnitude_bits) {
            tier1_encoded_block_release(&r->encoded);
            return GJ2K_ERROR_MALFORMED;
        }
        unsigned count = total > drop ? total - drop : 0;
        if (drop > 0 && (count == 0 || !decodes_alike(b, in, style, num_planes, count, r))) {
            /* the partial plane does not come back alike (never seen): without it */
            tier1_encoded_block_release(&r->encoded);
            out->lost_partial_plane = true;
            shift++;
            drop = 0;
            continue;
        }
        size_t bytes = r->encoded.passes[count - 1].length;
        out->pass_lengths = malloc(count * sizeof *out->pass_lengths);
        out->data = malloc(bytes ? bytes : 1);
        if (out->pass_lengths == NULL || out->data == NULL) {
            tier1_encoded_block_release(&r->encoded);
            transcode_recoded_free(out);
            return GJ2K_ERROR_OUT_OF_MEMORY;
        }
        for (unsigned j = 0; j < count; j++)
            out->pass_lengths[j] = r->encoded.passes[j].length;
        memcpy(out->data, r->encoded.data, bytes);
        tier1_encoded_block_release(&r->encoded);
        out->layer_passes[0] = (uint8_t)count;
        out->source = (tile_codeblock_source){.data = out->data,
                                              .pass_lengths = out->pass_lengths,
                                              .num_passes = count,
                                              .missing_msbs = b->magnitude_bits - num_planes,
                                              .layer_passes = out->layer_passes};
        return GJ2K_OK;
    }
}

gj2k_status transcode_block_recode(const transcode_block *b, const transcode_coefficients *in,
                                   bool to_ht, unsigned style, transcode_recoder *r,
                                   transcode_recoded *out)
{
    memset(out, 0, sizeof *out);
    out->damaged = in->damaged;
    /* not sent unless coded below; its zero bit-planes as many as can be, as
       the encoder gives an empty block, so that it never lowers the minima
       of the tag tree its coded neighbours' values go through (B.10.5) */
    out->source = (tile_codeblock_source){.missing_msbs = b->magnitude_bits,
                                          .layer_passes = out->layer_passes};
    if (in->passes == 0 || b->num_planes == 0)
        return GJ2K_OK;
    out->truncated = in->last_plane > 0 || in->last_type != TIER1_PASS_CLEANUP;
    gj2k_status status = to_ht ? recode_ht(b, in, r, out) : recode_part1(b, in, style, r, out);
    if (status != GJ2K_OK)
        transcode_recoded_free(out);
    return status;
}
