/* rate_control.h - post-compression rate-distortion optimisation (the
 * truncation of embedded code-block bit-streams that T.800 Annex J.14.3
 * sketches): each code-block's coding passes are reduced to the convex hull
 * of its (bytes, distortion) points, and one slope threshold for the whole
 * image picks, layer after layer, the truncation point of every block. */
#ifndef GJ2K_RATE_CONTROL_H
#define GJ2K_RATE_CONTROL_H

#include "encode_plan.h"
#include "encode_tile.h"
#include "gj2k.h"

/* Bytes of the packets of layers 0..layer of tile `tile`, with its blocks'
 * layer_passes as they stand (Tier-2 run for real, headers included). */
typedef gj2k_status (*rate_measure_fn)(void *user, uint32_t tile, unsigned layer, size_t *bytes,
                                       gj2k_error *error);

/* Bytes of the packets of layers 0..layer of the precinct that holds
 * `block` of tile `tile` (tier2_measure_precinct): a tile's packets are the
 * sum over its precincts, so after a change to one block this gives the
 * tile's new size for a fraction of a measure_fn. */
typedef gj2k_status (*rate_measure_precinct_fn)(void *user, uint32_t tile,
                                                const encoded_block *block, unsigned layer,
                                                size_t *bytes, gj2k_error *error);

typedef struct rate_request {
    encoded_tile *tiles;
    uint32_t num_tiles;
    const encode_plan *plan;       /* layer targets */
    size_t overhead;               /* output bytes besides packets (headers, boxes) */
    double distortion_floor;       /* squared error left with every pass sent */
    rate_measure_fn measure;
    rate_measure_precinct_fn measure_precinct; /* may be NULL: then `measure` alone */
    void *measure_user;
} rate_request;

/* Bytes of the packets of layers 0..layer over every tile (`measure`, tile
 * by tile); each tile's share in tile_bytes when not NULL. Only `tiles`,
 * `num_tiles`, `measure` and `measure_user` of the request are used. */
gj2k_status rate_control_measure(const rate_request *request, unsigned layer, size_t *tile_bytes,
                                 size_t *total, gj2k_error *error);

/* Fills every block's layer_passes. A byte target that even an empty layer
 * exceeds leaves the layer empty (the caller sees the size). */
gj2k_status rate_control_allocate(const rate_request *request, gj2k_error *error);

#endif
