/* tier2_encode.h - Tier-2 encoding of one tile (T.800 Annex B): every packet
 * of the tile, in progression order (B.12), from code-blocks whose Tier-1
 * output and per-layer truncation points are given as sources
 * (tile_codeblock_source, tile_structure.h). */
#ifndef GJ2K_TIER2_ENCODE_H
#define GJ2K_TIER2_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"
#include "codestream.h"
#include "gj2k.h"
#include "tile_structure.h"

typedef struct tier2_encode_params {
    uint16_t num_layers;
    uint8_t progression;                 /* j2k_progression */
    const j2k_progression_change *changes; /* POC volumes (may be none) */
    size_t num_changes;
    bool use_sop, use_eph;
} tier2_encode_params;

/*
 * Writes the tile's packets to `data`; their headers go to `headers` when it
 * is not NULL (for PPM or PPT), else into `data`. Sets each code-block's
 * `source` beforehand (NULL: never included); blocks of every resolution must
 * have one or NULL. Forgets any earlier Tier-2 state of the components.
 * When `packet_lengths` is not NULL, each packet's bytes in `data` (SOP,
 * header and EPH unless packed, body) are appended to it, for PLT or PLM.
 */
gj2k_status tier2_encode_tile(tile_component *components, uint32_t num_components,
                              const tier2_encode_params *params, byte_buffer *data,
                              byte_buffer *headers, j2k_packet_lengths *packet_lengths,
                              gj2k_error *error);

/*
 * The bytes tier2_encode_tile would write for precinct `precinct` of
 * resolution `resolution` of `component` alone: its packets of layers 0 ..
 * params->num_layers - 1 (SOP, header, EPH, body). A precinct's packets
 * depend on its own blocks only, so a tile's packets are the sum over its
 * precincts: after a change to one block, rate control measures its
 * precinct instead of the tile. Forgets the precinct's earlier Tier-2 state.
 */
gj2k_status tier2_measure_precinct(tile_component *component, unsigned resolution,
                                   uint32_t precinct, const tier2_encode_params *params,
                                   size_t *bytes, gj2k_error *error);

#endif
