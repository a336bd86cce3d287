/* packet_iterator.h - the order of the packets of a tile (T.800 B.12).
 *
 * Five progressions (B.12.1): LRCP, RLCP (nested loops over layer,
 * resolution, component, precinct) and RPCL, PCRL, CPRL, which visit the
 * precincts where the tile's reference grid meets them (B.12.1.3-B.12.1.5).
 * Every precinct knows that position (tile_precinct ref_x, ref_y), so those
 * orders are a sort of the precincts by (position, component, resolution) in
 * the order's nesting, which equals scanning every grid point of the tile.
 *
 * With progression order changes (POC, B.12.2) the volumes are walked in
 * turn, each in its own order and within its layer, resolution and component
 * bounds, and a packet already visited is skipped. When the volumes leave
 * packets out, the iterator then walks the default progression (COD) over the
 * whole tile for what is left (flagged `after_changes`): for a stream whose
 * POC covers every packet (as A.6.6 expects) this adds nothing.
 */
#ifndef GJ2K_PACKET_ITERATOR_H
#define GJ2K_PACKET_ITERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"
#include "tile_structure.h"

typedef struct packet_position {
    uint16_t layer;
    uint8_t resolution;
    uint32_t component;
    uint32_t precinct;      /* row-major within the resolution */
    bool after_changes;     /* emitted after the POC volumes were exhausted */
} packet_position;

typedef struct packet_volume {
    uint8_t progression;    /* j2k_progression */
    uint16_t layer_end;     /* exclusive, clamped to the tile's layers */
    uint8_t resolution_start, resolution_end; /* exclusive end */
    uint32_t component_start, component_end;  /* exclusive end */
    bool is_default;
} packet_volume;

/* A precinct in the position-driven orders. */
typedef struct packet_precinct_entry {
    uint32_t ref_x, ref_y;
    uint32_t component;
    uint8_t resolution;
    uint32_t precinct;
    size_t id;              /* index into layers_done */
} packet_precinct_entry;

typedef struct packet_iterator {
    const tile_component *components;
    uint32_t num_components;
    uint16_t num_layers;
    uint8_t max_resolutions;        /* max over components of NL + 1 */
    packet_volume *volumes;
    size_t num_volumes, volume;
    size_t *precinct_base;          /* per component, per resolution: first id */
    uint16_t *layers_done;          /* per precinct: layers already visited */
    size_t num_precincts;
    packet_precinct_entry *entries; /* sorted for the current volume's order */
    uint8_t sorted_for;             /* the order `entries` is sorted for (0xFF: none) */
    /* Loop state of the current volume. */
    bool started;
    uint32_t first_layer;           /* the lowest layer the current volume still owes */
    uint32_t layer, resolution, component, precinct;
    size_t entry;
} packet_iterator;

/*
 * Prepares the order of a tile whose tile-components (all Csiz of them) are
 * `components`, with `num_layers` layers, the default `progression` and the
 * tile's POC changes (may be none). The components must outlive the iterator.
 */
gj2k_status packet_iterator_init(packet_iterator *it, const tile_component *components,
                                 uint32_t num_components, uint16_t num_layers,
                                 uint8_t progression, const j2k_progression_change *changes,
                                 size_t num_changes, gj2k_error *error);
/* The next packet; false when every packet has been visited. */
bool packet_iterator_next(packet_iterator *it, packet_position *out);
void packet_iterator_free(packet_iterator *it);

/* The number of packets of a tile: layers times its precincts. */
uint64_t packet_iterator_count(const packet_iterator *it);

#endif
