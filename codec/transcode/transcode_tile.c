/* transcode_tile.c - see transcode_tile.h. */
#include "transcode_tile.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "quantization.h"
#include "tier2_decode.h"

void transcode_tile_free(transcode_tile *tile)
{
    for (uint32_t c = 0; tile->components != NULL && c < tile->num_components; c++)
        tile_component_free(&tile->components[c]);
    free(tile->components);
    free(tile->params);
    free(tile->blocks);
    memset(tile, 0, sizeof *tile);
}

/* Component c's parameters and structure. */
static gj2k_status prepare_component(const j2k_codestream *cs, const j2k_tile *tile,
                                     transcode_tile *out, uint32_t c, gj2k_error *error)
{
    j2k_tile_component_params *p = &out->params[c];
    uint32_t t = out->index;
    gj2k_status status = j2k_resolve_tile_component(&cs->main_header,
                                                    tile ? &tile->header : NULL, c, p, error);
    if (status != GJ2K_OK)
        return status;
    status = tile_component_init(&out->components[c], j2k_tile_rect(&cs->siz, t),
                                 cs->siz.components[c].dx, cs->siz.components[c].dy, &p->coding,
                                 0, error);
    if (status != GJ2K_OK)
        return status;
    for (unsigned s = 0; s < 3u * p->coding.levels + 1u; s++) {
        unsigned mb = quant_magnitude_bits(p->quantization.guard_bits, p->steps[s]);
        if (mb > out->largest_magnitude_bits)
            out->largest_magnitude_bits = mb;
    }
    out->irreversible = out->irreversible || p->coding.transform == J2K_TRANSFORM_97;
    return GJ2K_OK;
}

/* Tier-2 over every packet of every layer of the tile. */
static gj2k_status read_packets(const j2k_tile *tile, const uint8_t *codestream,
                                gj2k_warning_fn warning, void *warning_user, transcode_tile *out,
                                gj2k_error *error)
{
    size_t num_parts = tile ? tile->num_parts : 0;
    j2k_bytes *parts = calloc(num_parts ? num_parts : 1, sizeof *parts);
    if (parts == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    tier2_decode_params params = tier2_decode_params_of(tile, codestream, parts, &out->params[0]);
    params.tile_index = out->index;
    params.warning = warning;
    params.warning_user = warning_user;
    tier2_decode_stats stats;
    gj2k_status status = tier2_decode_tile(out->components, out->num_components, &params, &stats,
                                           error);
    out->damaged = stats.damaged;
    free(parts);
    return status;
}

/* Lists every code-block in tier2_collect_blocks' order, with its data. */
static gj2k_status list_blocks(transcode_tile *out, gj2k_warning_fn warning, void *warning_user,
                               gj2k_error *error)
{
    size_t total = 0;
    for (uint32_t c = 0; c < out->num_components; c++)
        total += out->components[c].num_codeblocks;
    out->blocks = calloc(total ? total : 1, sizeof *out->blocks);
    if (out->blocks == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory listing code-blocks");
    size_t n = 0;
    bool warned = false;
    for (uint32_t c = 0; c < out->num_components; c++) {
        const tile_component *tc = &out->components[c];
        const j2k_tile_component_params *p = &out->params[c];
        for (unsigned r = 0; r < tc->num_resolutions; r++) {
            const tile_resolution *res = &tc->resolutions[r];
            for (unsigned b = 0; b < res->num_bands; b++) {
                const tile_band *band = &res->bands[b];
                unsigned mb = quant_magnitude_bits(p->quantization.guard_bits,
                                                   p->steps[band->subband_index]);
                for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++) {
                    const tile_precinct_band *pb = &res->precincts[k].bands[b];
                    for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
                        tile_codeblock *cb = &pb->blocks[i];
                        if (n == total)
                            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                                             "tile %u: more code-blocks than its structure counts",
                                             out->index);
                        transcode_block *o = &out->blocks[n++];
                        *o = (transcode_block){.block = cb, .component = c,
                                               .subband_index = band->subband_index,
                                               .band = band->orientation,
                                               .width = cb->rect.x1 - cb->rect.x0,
                                               .height = cb->rect.y1 - cb->rect.y0,
                                               .magnitude_bits = mb};
                        tile_coded_status got = tile_codeblock_coded_of(
                            cb, tc->coding.code_block_style, mb, &o->coded);
                        if (got == TILE_CODED_TOO_DEEP) { /* as tier2_collect_blocks drops it */
                            if (!warned)
                                gj2k_warn(warning, warning_user,
                                          "tile %u, component %u: a code-block starts below the "
                                          "%u bit-planes of its band (%u missing); its data is "
                                          "dropped",
                                          out->index, c, mb, cb->missing_msbs);
                            warned = true;
                        }
                        if (got != TILE_CODED_OK || o->width == 0 || o->height == 0)
                            continue;
                        o->num_planes = o->coded.num_planes;
                    }
                }
            }
        }
    }
    out->num_blocks = n;
    return GJ2K_OK;
}

gj2k_status transcode_tile_read(const j2k_codestream *cs, const uint8_t *codestream,
                                uint32_t tile_index, gj2k_warning_fn warning,
                                void *warning_user, transcode_tile *out, gj2k_error *error)
{
    memset(out, 0, sizeof *out);
    uint32_t n = cs->siz.num_components;
    const j2k_tile *tile = j2k_codestream_tile(cs, tile_index);
    out->index = tile_index;
    out->num_components = n;
    out->params = calloc(n, sizeof *out->params);
    out->components = calloc(n, sizeof *out->components);
    gj2k_status status = GJ2K_OK;
    if (out->params == NULL || out->components == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u",
                           tile_index);
    for (uint32_t c = 0; c < n && status == GJ2K_OK; c++)
        status = prepare_component(cs, tile, out, c, error);
    if (status == GJ2K_OK)
        status = read_packets(tile, codestream, warning, warning_user, out, error);
    if (status == GJ2K_OK)
        status = list_blocks(out, warning, warning_user, error);
    if (status != GJ2K_OK)
        transcode_tile_free(out);
    return status;
}

gj2k_status transcode_block_decode(const transcode_block *b,
                                   tier1_workspace *workspace, const ht_lookup *lookup,
                                   transcode_coefficients *out)
{
    const tile_codeblock_coded *cb = &b->coded;
    size_t area = (size_t)b->width * b->height;
    out->passes = 0;
    out->last_plane = 0;
    out->last_type = TIER1_PASS_CLEANUP;
    out->damaged = false;
    if (b->num_planes == 0) { /* no data: zeros */
        memset(out->values, 0, area * sizeof *out->values);
        return GJ2K_OK;
    }
    unsigned style = cb->style;
    tier1_decode_request request = {.data = cb->data, .size = cb->size, .segments = cb->segments,
                                    .num_segments = cb->num_segments,
                                    .num_planes = b->num_planes, .width = b->width,
                                    .height = b->height, .band = b->band, .style = style};
    tier1_decode_result result = {0};
    gj2k_status status =
        (style & TIER1_STYLE_HT)
            ? ht_decode_block(&request, lookup, out->values, b->width, out->lowest, &result)
            : tier1_decode_block(&request, workspace, out->values, b->width, out->lowest,
                                 &result);
    if (status == GJ2K_ERROR_UNSUPPORTED || status == GJ2K_ERROR_INVALID_ARGUMENT)
        return status;
    out->damaged = status != GJ2K_OK || result.segmentation_errors != 0;
    out->passes = result.passes_decoded;
    if (out->passes == 0) {
        memset(out->values, 0, area * sizeof *out->values);
        return GJ2K_OK;
    }
    /* Pass j codes plane num_planes - 1 - (j + 2) / 3 (tier1.h); an HT set's
     * cleanup, SigProp and MagRef passes number alike (T.814 7.1). */
    unsigned last = out->passes - 1, down = (last + 2) / 3;
    if (down >= b->num_planes) { /* more passes than planes: the decoder stopped there */
        out->damaged = true;
        out->passes = 3 * b->num_planes - 2;
        last = out->passes - 1;
        down = (last + 2) / 3;
    }
    out->last_plane = b->num_planes - 1 - down;
    out->last_type = tier1_pass_type_of(last);
    return GJ2K_OK;
}
