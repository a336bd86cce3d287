/* transcode_output.c - see transcode_output.h. */
#include "transcode_output.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tier2_encode.h"

unsigned transcode_output_style(unsigned style, bool to_ht)
{
    /* HT blocks: of the Part 1 bits only the vertically causal one means
       anything (to the SigProp and MagRef passes); Part 1 keeps bits 0-5 */
    return to_ht ? J2K_CBLK_HT | (style & J2K_CBLK_VERTICAL_CAUSAL)
                 : tile_part1_style(style);
}

/* A copy of a header's parameters with the output's code-block style and
 * one quality layer. */
static gj2k_status copy_header(const j2k_header_params *in, bool to_ht, j2k_header_params *out,
                               gj2k_error *error)
{
    memset(out, 0, sizeof *out);
    gj2k_status status = GJ2K_OK;
    if (in->cod != NULL) {
        j2k_cod cod = *in->cod;
        cod.layers = 1;
        cod.coding.code_block_style =
            (uint8_t)transcode_output_style(cod.coding.code_block_style, to_ht);
        status = j2k_header_set_cod(out, &cod, error);
    }
    if (status == GJ2K_OK && in->qcd != NULL)
        status = j2k_header_set_qcd(out, in->qcd, error);
    for (size_t i = 0; status == GJ2K_OK && i < in->num_cocs; i++) {
        j2k_coc coc = in->cocs[i];
        coc.coding.code_block_style =
            (uint8_t)transcode_output_style(coc.coding.code_block_style, to_ht);
        status = j2k_header_add_coc(out, &coc, NULL, error);
    }
    for (size_t i = 0; status == GJ2K_OK && i < in->num_qccs; i++)
        status = j2k_header_add_qcc(out, &in->qccs[i], NULL, error);
    for (size_t i = 0; status == GJ2K_OK && i < in->num_rgns; i++)
        status = j2k_header_add_rgn(out, &in->rgns[i], NULL, error);
    if (status == GJ2K_OK && in->num_pocs > 0)
        status = j2k_header_add_pocs(out, in->pocs, in->num_pocs, error);
    for (size_t i = 0; status == GJ2K_OK && i < in->num_comments; i++)
        status = j2k_header_add_comment(out, in->comments[i].registration, in->comments[i].data,
                                        in->comments[i].size, error);
    if (status != GJ2K_OK)
        j2k_header_free(out);
    return status;
}

gj2k_status transcode_output_begin(transcode_output *o, const j2k_codestream *cs, bool to_ht,
                                   gj2k_error *error)
{
    memset(o, 0, sizeof *o);
    o->cs = cs;
    o->to_ht = to_ht;
    o->siz = cs->siz;
    if (to_ht)
        o->siz.capabilities |= J2K_RSIZ_PART15; /* T.814 A.2 */
    else
        o->siz.capabilities &= (uint16_t)~J2K_RSIZ_PART15;
    o->use_tlm = cs->num_tlm > 0;
    for (size_t t = 0; t < cs->num_tiles_present && !o->use_plt; t++)
        for (size_t p = 0; p < cs->tiles[t].num_parts; p++)
            o->use_plt = o->use_plt || cs->tiles[t].parts[p].packet_lengths.count > 0;
    o->has_rgn = cs->main_header.num_rgns > 0;
    o->tlm = calloc(cs->num_tiles_present ? cs->num_tiles_present : 1, sizeof *o->tlm);
    if (o->tlm == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    return copy_header(&cs->main_header, to_ht, &o->main_header, error);
}

gj2k_status transcode_output_tile(transcode_output *o, transcode_tile *tile, gj2k_error *error)
{
    if (o->num_parts >= o->cs->num_tiles_present)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "transcode: more tiles than present");
    for (uint32_t c = 0; c < tile->num_components; c++)
        tile->components[c].coding.code_block_style =
            (uint8_t)transcode_output_style(tile->components[c].coding.code_block_style,
                                            o->to_ht);
    if (tile->largest_magnitude_bits > o->largest_magnitude_bits)
        o->largest_magnitude_bits = tile->largest_magnitude_bits;
    o->irreversible = o->irreversible || tile->irreversible;
    const j2k_tile_component_params *p0 = &tile->params[0];
    tier2_encode_params params = {.num_layers = 1, .progression = p0->progression,
                                  .changes = p0->pocs, .num_changes = p0->num_pocs,
                                  .use_sop = p0->use_sop, .use_eph = p0->use_eph};
    j2k_packet_lengths lengths = {0};
    o->packets.size = 0;
    gj2k_status status = tier2_encode_tile(tile->components, tile->num_components, &params,
                                           &o->packets, NULL, o->use_plt ? &lengths : NULL, error);
    const j2k_tile *in = j2k_codestream_tile(o->cs, tile->index);
    j2k_header_params header = {0};
    if (status == GJ2K_OK && in != NULL)
        status = copy_header(&in->header, o->to_ht, &header, error);
    o->has_rgn = o->has_rgn || header.num_rgns > 0;
    size_t sot_offset = 0;
    j2k_sot sot = {.tile_index = tile->index, .part_index = 0, .num_parts = 1};
    if (status == GJ2K_OK)
        status = j2k_write_tile_part_begin(&o->parts, &o->siz, &sot, &header, &sot_offset, error);
    j2k_header_free(&header);
    if (status == GJ2K_OK && o->use_plt && lengths.count > 0)
        status = j2k_plt_write(&o->parts, lengths.lengths, lengths.count, error);
    free(lengths.lengths);
    if (status != GJ2K_OK)
        return status;
    if (o->packets.failed)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u's packets",
                         tile->index);
    j2k_marker_write(&o->parts, J2K_SOD);
    byte_buffer_append(&o->parts, o->packets.data, o->packets.size);
    status = j2k_write_tile_part_end(&o->parts, sot_offset, error);
    if (status == GJ2K_OK && o->parts.size - sot_offset > UINT32_MAX)
        status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "tile %u: a tile-part over 4 GiB",
                           tile->index);
    if (status == GJ2K_OK)
        o->tlm[o->num_parts++] = (j2k_tlm_entry){.tile_index = tile->index,
                                                 .length = (uint32_t)(o->parts.size - sot_offset)};
    return status;
}

/* Ccap15 (T.814 Table A.3) of an HT output: the main header's, its MAGB
 * widened to every tile's Mb, HTIRV and RGN where a tile-part header
 * brings them. */
static gj2k_status output_ccap15(const transcode_output *o, uint16_t *ccap15, gj2k_error *error)
{
    gj2k_status status = j2k_ccap15_for_header(&o->siz, &o->main_header, ccap15, error);
    if (status != GJ2K_OK)
        return status;
    uint16_t magb = j2k_ccap15_magb(o->largest_magnitude_bits);
    if (magb > (*ccap15 & J2K_CCAP15_MAGB_MASK))
        *ccap15 = (uint16_t)((*ccap15 & ~J2K_CCAP15_MAGB_MASK) | magb);
    if (o->irreversible)
        *ccap15 |= J2K_CCAP15_IRREVERSIBLE;
    if (o->has_rgn)
        *ccap15 |= J2K_CCAP15_RGN;
    return GJ2K_OK;
}

gj2k_status transcode_output_finish(transcode_output *o, byte_buffer *out, gj2k_error *error)
{
    uint16_t ccap15 = 0;
    gj2k_status status = o->to_ht ? output_ccap15(o, &ccap15, error) : GJ2K_OK;
    if (status == GJ2K_OK)
        status = j2k_write_main_header_with_cap(out, &o->siz, &o->main_header,
                                                o->to_ht ? &ccap15 : NULL, error);
    if (status == GJ2K_OK && o->cs->registration != NULL)
        status = j2k_crg_write(out, o->cs->registration, o->siz.num_components, error);
    if (status == GJ2K_OK && o->use_tlm)
        status = j2k_tlm_write_entries(out, o->tlm, o->num_parts, error);
    if (status != GJ2K_OK)
        return status;
    byte_buffer_append(out, o->parts.data, o->parts.size);
    j2k_marker_write(out, J2K_EOC);
    if (out->failed || o->parts.failed)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the codestream");
    return GJ2K_OK;
}

void transcode_output_free(transcode_output *o)
{
    j2k_header_free(&o->main_header);
    byte_buffer_free(&o->parts);
    byte_buffer_free(&o->packets);
    free(o->tlm);
    memset(o, 0, sizeof *o);
}
