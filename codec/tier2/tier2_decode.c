/* tier2_decode.c - see tier2_decode.h (T.800 Annex B). */
#include "tier2_decode.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "packet_header.h"
#include "packet_iterator.h"

/* The tile-parts' data back to back: borrowed when there is one part. */
static gj2k_status join_tile_parts(const tier2_decode_params *p, const uint8_t **data,
                                   size_t *size, uint8_t **owned, gj2k_error *error)
{
    *owned = NULL;
    *data = NULL;
    *size = 0;
    if (p->num_tile_parts == 1) {
        *data = p->tile_parts[0].data;
        *size = p->tile_parts[0].data != NULL ? p->tile_parts[0].size : 0;
        return GJ2K_OK;
    }
    size_t total = 0;
    for (size_t i = 0; i < p->num_tile_parts; i++) {
        if (p->tile_parts[i].size > SIZE_MAX - total)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "tile %u data too large", p->tile_index);
        total += p->tile_parts[i].size;
    }
    if (total == 0)
        return GJ2K_OK;
    *owned = malloc(total);
    if (*owned == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory joining tile %u data",
                         p->tile_index);
    size_t at = 0;
    for (size_t i = 0; i < p->num_tile_parts; i++)
        if (p->tile_parts[i].size > 0) {
            memcpy(*owned + at, p->tile_parts[i].data, p->tile_parts[i].size);
            at += p->tile_parts[i].size;
        }
    *data = *owned;
    *size = total;
    return GJ2K_OK;
}

/* Without POC, LRCP meets layers and RLCP/RPCL resolutions in increasing
 * order: past the last one kept, nothing further is needed. */
static bool rest_is_unneeded(const tier2_decode_params *p, const packet_position *pos,
                             unsigned max_layers, unsigned kept_resolutions)
{
    if (p->num_changes > 0)
        return false;
    if (p->progression == J2K_LRCP)
        return pos->layer >= max_layers;
    if (p->progression == J2K_RLCP || p->progression == J2K_RPCL)
        return pos->resolution >= kept_resolutions;
    return false;
}

static gj2k_status commit_packet(const packet_header *h, unsigned style, gj2k_error *error)
{
    for (size_t i = 0; i < h->num_complete; i++) {
        const packet_contribution *c = &h->contributions[i];
        const tier1_segment *pieces = c->num_pieces > 0 ? &h->pieces[c->first_piece] : NULL;
        gj2k_status status =
            tile_codeblock_append(c->block, c->data, (size_t)c->bytes, pieces,
                                  (unsigned)c->num_pieces, c->placeholder_passes, style, error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}

static gj2k_status walk_packets(tile_component *components, uint32_t num_components,
                                const tier2_decode_params *p, const uint8_t *data, size_t size,
                                packet_iterator *it, tier2_decode_stats *stats,
                                gj2k_error *error)
{
    unsigned max_layers = p->max_layers == 0 || p->max_layers > p->num_layers ? p->num_layers
                                                                             : p->max_layers;
    unsigned kept_resolutions = 0;
    for (uint32_t c = 0; c < num_components; c++)
        for (unsigned r = 0; r < components[c].num_resolutions; r++)
            if (components[c].resolutions[r].keep_data && r + 1 > kept_resolutions)
                kept_resolutions = r + 1;
    packet_stream body = {.data = data, .size = size};
    packet_stream packed = {.data = p->packed_headers, .size = p->packed_headers_size};
    packet_stream *headers = p->packed_headers != NULL ? &packed : &body;
    packet_header h = {0};
    bool warned_sop = false, warned_eph = false;
    gj2k_status status = GJ2K_OK;
    uint64_t index = 0; /* packets met so far */
    packet_position pos;
    while (packet_iterator_next(it, &pos)) {
        if (rest_is_unneeded(p, &pos, max_layers, kept_resolutions))
            break;
        if (headers->position >= headers->size) {
            if (!pos.after_changes) {
                gj2k_warn(p->warning, p->warning_user,
                          "tile %u: packet data ends after %llu of %llu packets", p->tile_index,
                          (unsigned long long)stats->packets_read,
                          (unsigned long long)stats->packets_total);
                stats->damaged = true;
            }
            break;
        }
        tile_component *tc = &components[pos.component];
        tile_resolution *res = &tc->resolutions[pos.resolution];
        unsigned style = tc->coding.code_block_style;
        gj2k_error local = {0};
        gj2k_status read = packet_read(&h, &res->precincts[pos.precinct], res->num_bands,
                                       pos.layer, style, p->use_sop, p->use_eph, headers, &body,
                                       &local);
        if (read == GJ2K_ERROR_OUT_OF_MEMORY) {
            status = gj2k_fail(error, read, "%s", local.message);
            break;
        }
        if (read == GJ2K_OK || h.num_complete > 0)
            stats->packets_read++;
        if (h.sop_found && h.sop_sequence != (uint16_t)index && !warned_sop) { /* A.8.1 */
            gj2k_warn(p->warning, p->warning_user, "tile %u: SOP sequence %u where %u was due",
                      p->tile_index, h.sop_sequence, (unsigned)(uint16_t)index);
            warned_sop = true;
        }
        index++;
        if (read == GJ2K_OK && h.eph_missing && !warned_eph) {
            gj2k_warn(p->warning, p->warning_user, "tile %u: EPH marker missing after a header",
                      p->tile_index);
            warned_eph = true;
        }
        if (pos.layer < max_layers && res->keep_data) {
            status = commit_packet(&h, style, error);
            if (status != GJ2K_OK)
                break;
        }
        if (read != GJ2K_OK) {
            gj2k_warn(p->warning, p->warning_user,
                      "tile %u: packet %llu (layer %u, resolution %u, component %u, precinct %u): "
                      "%s; the rest of the tile is skipped",
                      p->tile_index, (unsigned long long)stats->packets_read, pos.layer,
                      pos.resolution, pos.component, pos.precinct, local.message);
            stats->damaged = true;
            break;
        }
    }
    packet_header_free(&h);
    return status;
}

gj2k_status tier2_decode_tile(tile_component *components, uint32_t num_components,
                              const tier2_decode_params *params, tier2_decode_stats *stats,
                              gj2k_error *error)
{
    tier2_decode_stats local_stats;
    if (stats == NULL)
        stats = &local_stats;
    *stats = (tier2_decode_stats){0};
    if (components == NULL || num_components == 0 || params == NULL ||
        (params->num_tile_parts > 0 && params->tile_parts == NULL) || params->num_layers == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "tier2_decode_tile: bad arguments");
    if (params->progression > J2K_CPRL)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "tile %u: progression order %u",
                         params->tile_index, params->progression);
    const uint8_t *data;
    size_t size;
    uint8_t *owned;
    gj2k_status status = join_tile_parts(params, &data, &size, &owned, error);
    if (status != GJ2K_OK)
        return status;
    packet_iterator it;
    status = packet_iterator_init(&it, components, num_components, params->num_layers,
                                  params->progression, params->changes, params->num_changes,
                                  error);
    if (status == GJ2K_OK) {
        stats->packets_total = packet_iterator_count(&it);
        status = walk_packets(components, num_components, params, data, size, &it, stats, error);
        packet_iterator_free(&it);
    }
    free(owned);
    return status;
}

/* ------------------------------------------------------------- output */

static size_t kept_block_count(const tile_component *tc)
{
    size_t n = 0;
    for (unsigned r = 0; r < tc->num_resolutions; r++) {
        const tile_resolution *res = &tc->resolutions[r];
        if (!res->keep_data)
            continue;
        for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
            for (unsigned b = 0; b < res->num_bands; b++)
                n += (size_t)res->precincts[k].bands[b].blocks_wide *
                     res->precincts[k].bands[b].blocks_high;
    }
    return n;
}

gj2k_status tier2_collect_blocks(const tile_component *components, uint32_t num_components,
                                 const uint8_t *const *magnitude_bits, gj2k_warning_fn warning,
                                 void *warning_user, tier2_block **blocks, size_t *count,
                                 gj2k_error *error)
{
    *blocks = NULL;
    *count = 0;
    if (components == NULL || magnitude_bits == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "tier2_collect_blocks: bad arguments");
    size_t total = 0;
    for (uint32_t c = 0; c < num_components; c++)
        total += kept_block_count(&components[c]);
    tier2_block *out = calloc(total ? total : 1, sizeof *out);
    if (out == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory listing code-blocks");
    size_t n = 0;
    bool warned = false;
    for (uint32_t c = 0; c < num_components; c++) {
        const tile_component *tc = &components[c];
        for (unsigned r = 0; r < tc->num_resolutions; r++) {
            const tile_resolution *res = &tc->resolutions[r];
            if (!res->keep_data)
                continue;
            for (unsigned b = 0; b < res->num_bands; b++) {
                const tile_band *band = &res->bands[b];
                unsigned mb = magnitude_bits[c] != NULL ? magnitude_bits[c][band->subband_index] : 0;
                for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++) {
                    const tile_precinct_band *pb = &res->precincts[k].bands[b];
                    for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
                        const tile_codeblock *cb = &pb->blocks[i];
                        tier2_block *o = &out[n++];
                        *o = (tier2_block){.component = c, .resolution = (uint8_t)r,
                                           .band = band->orientation, .level = band->level,
                                           .subband_index = band->subband_index,
                                           .rect = cb->rect,
                                           .style = tc->coding.code_block_style};
                        tile_codeblock_coded coded;
                        tile_coded_status got =
                            tile_codeblock_coded_of(cb, tc->coding.code_block_style, mb, &coded);
                        o->style = coded.style;
                        if (got == TILE_CODED_TOO_DEEP) {
                            if (!warned)
                                gj2k_warn(warning, warning_user,
                                          "component %u: a code-block starts below the %u "
                                          "bit-planes of its band (%u missing); its data is "
                                          "dropped",
                                          c, mb, cb->missing_msbs);
                            warned = true;
                        }
                        if (got != TILE_CODED_OK)
                            continue;
                        o->data = coded.data;
                        o->size = coded.size;
                        o->segments = coded.segments;
                        o->num_segments = coded.num_segments;
                        o->num_planes = coded.num_planes;
                    }
                }
            }
        }
    }
    *blocks = out;
    *count = n;
    return GJ2K_OK;
}

tier2_decode_params tier2_decode_params_of(const j2k_tile *tile, const uint8_t *codestream,
                                           j2k_bytes *parts,
                                           const j2k_tile_component_params *style)
{
    size_t num_parts = tile ? tile->num_parts : 0;
    for (size_t i = 0; i < num_parts; i++)
        parts[i] = (j2k_bytes){codestream + tile->parts[i].data_start,
                               tile->parts[i].data_end - tile->parts[i].data_start};
    return (tier2_decode_params){
        .tile_parts = parts, .num_tile_parts = num_parts,
        .packed_headers = tile && tile->has_packed_headers ? tile->packed_headers : NULL,
        .packed_headers_size = tile && tile->has_packed_headers ? tile->packed_headers_size : 0,
        .num_layers = style->layers, .progression = style->progression,
        .changes = style->pocs, .num_changes = style->num_pocs, .use_sop = style->use_sop,
        .use_eph = style->use_eph};
}
