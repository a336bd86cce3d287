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

/* Where a tile's packets start a new tile-part (A.4.2): at each change of
 * resolution, layer or component along the progression (opj's -TP R|L|C). */
typedef enum tier2_tile_part_split {
    TIER2_ONE_TILE_PART = 0,
    TIER2_SPLIT_AT_RESOLUTION,
    TIER2_SPLIT_AT_LAYER,
    TIER2_SPLIT_AT_COMPONENT,
} tier2_tile_part_split;

/* The most tile-parts of a tile (TPsot is a byte, A.4.2). */
#define TIER2_MAX_TILE_PARTS 255

/* A tile's tile-parts as tier2_encode_tile split its packets. */
typedef struct tier2_tile_parts {
    size_t count;
    size_t start[TIER2_MAX_TILE_PARTS];        /* its first byte in `data` */
    size_t first_packet[TIER2_MAX_TILE_PARTS]; /* its first packet, in order */
} tier2_tile_parts;

typedef struct tier2_encode_params {
    uint16_t num_layers;
    uint8_t progression;                 /* j2k_progression */
    const j2k_progression_change *changes; /* POC volumes (may be none) */
    size_t num_changes;
    bool use_sop, use_eph;
    tier2_tile_part_split split;         /* with tier2_encode_tile's `parts` */
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

/* tier2_encode_tile, the packets split into tile-parts as params->split
 * says (`headers` NULL: each tile-part holds its packets whole); more than
 * TIER2_MAX_TILE_PARTS fails with GJ2K_ERROR_LIMIT. */
gj2k_status tier2_encode_tile_parts(tile_component *components, uint32_t num_components,
                                    const tier2_encode_params *params, byte_buffer *data,
                                    j2k_packet_lengths *packet_lengths, tier2_tile_parts *parts,
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
