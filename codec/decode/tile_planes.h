/* tile_planes.h - what the two ways of decoding a tile share: the whole
 * tile at once (tile_decoder.c) and a few rows at a time (tile_strips.c).
 * A tile_plane is one tile-component on its way from code-blocks to
 * samples: its coding parameters (Annex A), its structure and Tier-2
 * (Annex B), Tier-1 of its code-blocks on all threads (Annex D) with
 * dequantization and the ROI shift (Annex E.1, H.2) into a destination
 * the caller chooses. */
#ifndef GJ2K_TILE_PLANES_H
#define GJ2K_TILE_PLANES_H

#include "codestream.h"
#include "dwt.h"
#include "tier1_gpu.h"
#include "tier2_decode.h"
#include "tile_decoder.h"
#include "tile_structure.h"

typedef struct tile_plane {
    j2k_tile_component_params params;
    tile_component structure;
    bool has_structure;
    dwt_rect rect;         /* the tile-component at the reduced resolution */
    unsigned levels;       /* decomposition levels to invert: NL - reduce */
    bool reversible;
    uint32_t precision;
    bool is_signed;
    int32_t *integers;     /* whole tile: 5/3 coefficients, then the samples of either path */
    float *floats;         /* whole tile: 9/7 coefficients */
    uint8_t magnitude_bits[J2K_MAX_SUBBANDS]; /* Mb (E.1), plus the ROI shift (H.1) */
    dwt_rect wanted;       /* the part of the plane the image asks for */
    void *packed;          /* GPU path: the samples at storage width, packed_bytes each */
    unsigned packed_bytes;
    /* GPU path: integers holds each coefficient in signed half steps and the
     * GPU dequantizes as it loads them (gpu_inverse_plane.halves; for 9/7
     * with Delta / 2 of each subband in half_steps). */
    bool halves;
    float half_steps[J2K_MAX_SUBBANDS];
    /* GPU-resident path: the plane lies in the tile's device memory from
     * element device_offset on, in half steps, where the GPU's Tier-1
     * placed it (integers stays NULL unless the samples come back at 4
     * bytes). */
    tier1_gpu_planes *device;
    size_t device_offset;
    uint64_t charged;      /* bytes taken from the budget for this plane */
} tile_plane;

static inline size_t tile_rect_area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* How prepare_planes leaves each plane's buffers. */
typedef enum tile_plane_buffers {
    TILE_PLANES_WHOLE,     /* integers (and floats for 9/7) over the whole plane */
    TILE_PLANES_WHOLE_GPU, /* the same, in half steps where they fit (GPU dequantizes) */
    TILE_PLANES_DEVICE,    /* half steps planned as for WHOLE_GPU, no buffers yet: the
                              caller places the planes on the device or calls
                              tile_planes_allocate */
    TILE_PLANES_NONE       /* none: the caller decodes into buffers of its own */
} tile_plane_buffers;

/* Resolves the parameters and builds the structure of every tile-component
 * of `tile_index` into planes[0 .. num_components), each wanting the part
 * of the image's component it covers; buffers as `buffers` says, taken from
 * `memory`. On failure the planes hold what must still be freed
 * (tile_planes_free). */
gj2k_status tile_planes_prepare(const j2k_codestream *cs, uint32_t tile_index, unsigned reduce,
                                const gj2k_image *image, tile_plane_buffers buffers,
                                memory_budget *memory, tile_plane *planes, gj2k_error *error);
void tile_planes_free(tile_plane *planes, uint32_t count, memory_budget *memory);
/* The host buffers of TILE_PLANES_WHOLE_GPU for planes prepared with
 * TILE_PLANES_DEVICE. */
gj2k_status tile_planes_allocate(tile_plane *planes, uint32_t count, uint32_t tile_index,
                                 memory_budget *memory, gj2k_error *error);

/* Resolves component c's coding parameters in the tile and the sample
 * format; fails on what the decoder cannot do. `tile` may be NULL. */
gj2k_status tile_plane_resolve(const j2k_codestream *cs, const j2k_tile *tile,
                               uint32_t tile_index, uint32_t c, unsigned reduce,
                               tile_plane *plane, gj2k_error *error);

/* Tier-2 over the tile's packets, then the list of its code-blocks
 * (tier2_collect_blocks; free it). */
gj2k_status tile_planes_read_packets(const j2k_codestream *cs, const uint8_t *data,
                                     uint32_t tile_index, tile_plane *planes,
                                     const tile_decode_settings *settings, tier2_block **blocks,
                                     size_t *count, gj2k_error *error);

/* Where a code-block's dequantized values go: element `origin` of
 * `integers` (5/3, or half steps) or `floats` (9/7) is its top-left
 * corner, rows `stride` apart. */
typedef struct tile_block_target {
    int32_t *integers;
    float *floats;
    size_t stride, origin;
} tile_block_target;

/* Where block b goes in its plane's whole buffers (TILE_PLANES_WHOLE*). */
tile_block_target tile_plane_whole_target(const tile_plane *plane, const tier2_block *b,
                                          unsigned reduce);

/* Whether the block can affect the part of its plane the image wants. */
bool tile_block_is_needed(const tier2_block *b, const tile_plane *plane, unsigned reduce);
/* Writes one decoded code-block's reconstructed values to `to` (E.1.1.2
 * with r = 1/2 below the lowest decoded bit-plane, dequantize.h; H.2 for
 * ROI): its coefficients and lowest known planes, rows its width apart. */
void tile_block_dequantize(const tier2_block *b, const tile_plane *plane,
                           const int32_t *coefficients, const uint8_t *lowest_planes,
                           tile_block_target to);

/* One tile's code-blocks for the GPU: blocks[list[i]], i < count (list
 * NULL: blocks[0 .. count)), each into targets[i] (NULL: its whole-plane
 * target), or, when the tile's planes lie on the device (tile_plane.device;
 * no list nor targets then), there. */
typedef struct tile_block_set {
    const tier2_block *blocks;
    const size_t *list;
    size_t count;
    const tile_block_target *targets;
    tile_plane *planes;
    uint32_t tile_index;
} tile_block_set;
/* Tier-1 and dequantization of the sets' blocks on settings->tier1_gpu in
 * one batch (tile_blocks_gpu.c), so that small tiles together fill the
 * GPU: on the device where a tile's planes lie there (every set's, when
 * there are several), else on the CPU threads into the targets. Blocks the
 * image does not need, or without data, are skipped; one warning for each
 * tile with damaged blocks. */
gj2k_status tile_blocks_decode_on_gpu(const tile_block_set *sets, size_t num_sets,
                                      const tile_decode_settings *settings, gj2k_error *error);

/* Tier-1, dequantization and ROI on all threads for blocks[list[i]], i <
 * count (list NULL: blocks[0 .. count)), each into targets[i] (NULL: its
 * whole-plane target). Blocks the image does not need, or without data,
 * are skipped: their zeros stand. After each block, when `done` is not
 * NULL, done(user, component). A damaged block is decoded as far as it
 * goes, with one warning for the tile. */
gj2k_status tile_planes_decode_blocks(const tier2_block *blocks, const size_t *list, size_t count,
                                      const tile_block_target *targets, tile_plane *planes,
                                      void (*done)(void *user, uint32_t component), void *user,
                                      const tile_decode_settings *settings, uint32_t tile_index,
                                      gj2k_error *error);

/* Whether components 0..2 go back through a component transform (Annex
 * G.2/G.3): the tile uses one and they agree in size and wavelet (else a
 * warning). */
bool tile_planes_use_component_transform(const tile_plane *planes, uint32_t count,
                                         const tile_decode_settings *settings, uint32_t tile);

/* The part of `r` inside the image's component; false when none. */
bool tile_component_overlap(dwt_rect r, const gj2k_component *component, dwt_rect *out);

#endif
