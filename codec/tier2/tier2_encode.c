/* tier2_encode.c - see tier2_encode.h (T.800 Annex B). */
#include "tier2_encode.h"

#include <stdlib.h>

#include "error.h"
#include "packet_header.h"
#include "packet_iterator.h"

static gj2k_status add_length(j2k_packet_lengths *lengths, size_t length, size_t *capacity,
                              gj2k_error *error)
{
    if (length > UINT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "a packet of more than 4 GiB");
    if (lengths->count == *capacity) {
        size_t grown_capacity = *capacity ? 2 * *capacity : 64;
        uint32_t *grown = realloc(lengths->lengths, grown_capacity * sizeof *grown);
        if (grown == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for packet lengths");
        lengths->lengths = grown;
        *capacity = grown_capacity;
    }
    lengths->lengths[lengths->count++] = (uint32_t)length;
    return GJ2K_OK;
}

gj2k_status tier2_measure_precinct(tile_component *component, unsigned resolution,
                                   uint32_t precinct, const tier2_encode_params *params,
                                   size_t *bytes, gj2k_error *error)
{
    *bytes = 0;
    if (component == NULL || params == NULL || params->num_layers == 0 ||
        resolution >= component->num_resolutions ||
        precinct >= tile_resolution_num_precincts(&component->resolutions[resolution]))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "tier2_measure_precinct: bad arguments");
    tile_resolution *res = &component->resolutions[resolution];
    tile_precinct *p = &res->precincts[precinct];
    tile_precinct_reset(p, res->num_bands);
    byte_buffer counter = {.counting = true};
    packet_write_options options = {.num_layers = params->num_layers, .use_sop = params->use_sop,
                                    .use_eph = params->use_eph};
    gj2k_status status = GJ2K_OK;
    for (unsigned layer = 0; layer < params->num_layers && status == GJ2K_OK; layer++)
        status = packet_write(p, res->num_bands, layer, component->coding.code_block_style,
                              &options, &counter, &counter, NULL, error);
    if (status == GJ2K_OK && counter.failed)
        status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "packets of more than SIZE_MAX bytes");
    *bytes = status == GJ2K_OK ? counter.size : 0;
    return status;
}

/* What a packet at `pos` shares with the others of its tile-part. */
static uint32_t split_key(tier2_tile_part_split split, const packet_position *pos)
{
    return split == TIER2_SPLIT_AT_RESOLUTION ? pos->resolution
           : split == TIER2_SPLIT_AT_LAYER    ? pos->layer
           : split == TIER2_SPLIT_AT_COMPONENT ? pos->component
                                               : 0;
}

/* The packets into data (headers apart when `headers`), split into
 * tile-parts into `parts` when not NULL. */
static gj2k_status encode_packets(tile_component *components, uint32_t num_components,
                                  const tier2_encode_params *params, byte_buffer *data,
                                  byte_buffer *headers, j2k_packet_lengths *packet_lengths,
                                  tier2_tile_parts *parts, gj2k_error *error)
{
    if (components == NULL || num_components == 0 || params == NULL || data == NULL ||
        params->num_layers == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "tier2_encode_tile: bad arguments");
    for (uint32_t c = 0; c < num_components; c++)
        tile_component_reset(&components[c]);
    packet_iterator it;
    gj2k_status status = packet_iterator_init(&it, components, num_components, params->num_layers,
                                              params->progression, params->changes,
                                              params->num_changes, error);
    if (status != GJ2K_OK)
        return status;
    size_t capacity = packet_lengths != NULL ? packet_lengths->count : 0;
    packet_write_options options = {.num_layers = params->num_layers, .use_sop = params->use_sop,
                                    .use_eph = params->use_eph};
    packet_position pos;
    uint64_t index = 0;
    uint32_t key = 0;
    if (parts != NULL)
        parts->count = 0;
    while (status == GJ2K_OK && packet_iterator_next(&it, &pos)) {
        if (parts != NULL && (index == 0 || split_key(params->split, &pos) != key)) {
            if (parts->count == TIER2_MAX_TILE_PARTS) {
                status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "a tile would need more than %d "
                                   "tile-parts (choose another -TP or progression)",
                                   TIER2_MAX_TILE_PARTS);
                break;
            }
            parts->start[parts->count] = data->size;
            parts->first_packet[parts->count++] = (size_t)index;
            key = split_key(params->split, &pos);
        }
        tile_component *tc = &components[pos.component];
        tile_resolution *res = &tc->resolutions[pos.resolution];
        options.sequence = (uint16_t)index++; /* Nsop: modulo 65536 (A.8.1) */
        size_t bytes = 0;
        status = packet_write(&res->precincts[pos.precinct], res->num_bands, pos.layer,
                              tc->coding.code_block_style, &options,
                              headers != NULL ? headers : data, data, &bytes, error);
        if (status == GJ2K_OK && packet_lengths != NULL)
            status = add_length(packet_lengths, bytes, &capacity, error);
    }
    packet_iterator_free(&it);
    return status;
}

gj2k_status tier2_encode_tile(tile_component *components, uint32_t num_components,
                              const tier2_encode_params *params, byte_buffer *data,
                              byte_buffer *headers, j2k_packet_lengths *packet_lengths,
                              gj2k_error *error)
{
    return encode_packets(components, num_components, params, data, headers, packet_lengths,
                          NULL, error);
}

gj2k_status tier2_encode_tile_parts(tile_component *components, uint32_t num_components,
                                    const tier2_encode_params *params, byte_buffer *data,
                                    j2k_packet_lengths *packet_lengths, tier2_tile_parts *parts,
                                    gj2k_error *error)
{
    gj2k_status status = encode_packets(components, num_components, params, data, NULL,
                                        packet_lengths, parts, error);
    if (status == GJ2K_OK && parts->count == 0) { /* no packet: one empty tile-part */
        parts->count = 1;
        parts->start[0] = data->size;
        parts->first_packet[0] = 0;
    }
    return status;
}
