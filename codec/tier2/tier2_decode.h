/* tier2_decode.h - Tier-2 decoding of one tile (T.800 Annex B): walks the
 * tile's packets in progression order (B.12), reads their headers (B.10) and
 * hands each code-block its bytes and codeword segments, ready for Tier-1.
 *
 * Use: build every tile-component with tile_component_init (its `reduce`
 * decides which resolutions keep data), call tier2_decode_tile, then
 * tier2_collect_blocks for the list of code-blocks to decode. Damaged data
 * (a packet cut short, a header out of range) ends the walk with a warning;
 * what was complete before it is kept and the call succeeds.
 */
#ifndef GJ2K_TIER2_DECODE_H
#define GJ2K_TIER2_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"
#include "tier1.h"
#include "tile_structure.h"

typedef struct tier2_decode_params {
    /* The tile's packet data: each tile-part's bytes after SOD, in TPsot order. */
    const j2k_bytes *tile_parts;
    size_t num_tile_parts;
    /* Packed packet headers (PPM for this tile, or PPT), joined; NULL: none. */
    const uint8_t *packed_headers;
    size_t packed_headers_size;
    /* From the tile's coding style (j2k_tile_component_params). */
    uint16_t num_layers;
    uint8_t progression;
    const j2k_progression_change *changes;
    size_t num_changes;
    bool use_sop, use_eph;
    /* Keep layers 0..max_layers-1 only (0: all). */
    unsigned max_layers;
    uint32_t tile_index;                 /* for messages */
    gj2k_warning_fn warning;
    void *warning_user;
} tier2_decode_params;

/* The parameters of decoding `tile` (may be NULL: no tile-parts) of a
 * codestream whose bytes start at `codestream`: `parts` (room for one entry
 * a tile-part) receives each tile-part's packet bytes; the coding style is
 * `style`'s (the first component's). The caller sets max_layers, tile_index
 * and the warning. */
tier2_decode_params tier2_decode_params_of(const j2k_tile *tile, const uint8_t *codestream,
                                           j2k_bytes *parts,
                                           const j2k_tile_component_params *style);

typedef struct tier2_decode_stats {
    uint64_t packets_total;              /* in the tile */
    uint64_t packets_read;               /* whose header was read */
    bool damaged;                        /* stopped early on truncated or corrupt data */
} tier2_decode_stats;

/* Reads the tile's packets into the code-blocks of `components` (all the
 * tile's components, built by tile_component_init). `stats` may be NULL.
 * Fails only for bad arguments or lack of memory. */
gj2k_status tier2_decode_tile(tile_component *components, uint32_t num_components,
                              const tier2_decode_params *params, tier2_decode_stats *stats,
                              gj2k_error *error);

/* One code-block ready for Tier-1 (tier1_decode_request). */
typedef struct tier2_block {
    uint32_t component;
    uint8_t resolution;
    dwt_band band;                       /* its orientation */
    uint8_t level;                       /* decomposition level of the band */
    uint8_t subband_index;               /* QCD order: 0 LL, then 3 (NL - level) + band */
    dwt_rect rect;                       /* on the band's grid */
    const uint8_t *data;                 /* borrowed from the tile-component */
    size_t size;
    const tier1_segment *segments;
    unsigned num_segments;
    unsigned num_planes;                 /* Mb - missing MSBs (B.10.5); 0 without data */
    unsigned style;                      /* code-block style (Table A.19) */
} tier2_block;

/*
 * Lists every code-block of the resolutions kept (r <= NL - reduce) of every
 * component, with or without data, component by component, resolution by
 * resolution, band by band, precinct by precinct. `magnitude_bits[c]` holds
 * Mb (E.1) for each subband of component c in QCD order (3 NL + 1 entries).
 * A block claiming more missing bit-planes than Mb is listed without data,
 * with a warning. The array is new (free it); its pointers borrow from the
 * components.
 */
gj2k_status tier2_collect_blocks(const tile_component *components, uint32_t num_components,
                                 const uint8_t *const *magnitude_bits, gj2k_warning_fn warning,
                                 void *warning_user, tier2_block **blocks, size_t *count,
                                 gj2k_error *error);

#endif
