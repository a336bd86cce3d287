/* packet_header.h - one packet (T.800 B.9, B.10): an optional SOP marker
 * segment, the header (B.10.3-B.10.7), an optional EPH marker, then the body:
 * the bytes of every included code-block in header order. The header may be
 * held apart from the body (PPM, PPT: A.7.4, A.7.5); SOP always stays with
 * the body, EPH with the header (A.8). */
#ifndef GJ2K_PACKET_HEADER_H
#define GJ2K_PACKET_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"
#include "gj2k.h"
#include "packet_bits.h"
#include "tier1.h"
#include "tile_structure.h"

/* Table B.4: the number of new coding passes, 1..164. */
#define PACKET_MAX_NEW_PASSES 164u
void packet_write_pass_count(packet_bit_writer *writer, unsigned passes);
unsigned packet_read_pass_count(packet_bit_reader *reader);

/* How many of `remaining` passes, starting at pass `first` of a block, go
 * into one codeword-segment length of a packet (B.10.7.2): up to and
 * including the first that ends a segment for `style`. */
unsigned packet_piece_passes(unsigned first, unsigned remaining, unsigned style);
/* floor(log2(v)) for v >= 1. */
unsigned packet_floor_log2(uint32_t v);

/* One code-block's share of a packet. */
typedef struct packet_contribution {
    tile_codeblock *block;
    unsigned new_passes;
    unsigned first_pass;                 /* the block's passes before this packet */
    bool first_inclusion;
    size_t first_piece, num_pieces;      /* in packet_header.pieces: one per length */
    uint64_t bytes;                      /* the sum of the pieces' lengths */
    const uint8_t *data;                 /* reader: where the bytes lie in the body */
    unsigned placeholder_passes;         /* reader, HT: new passes before the first
                                            cleanup pass, in no piece (T.814 Annex B) */
} packet_contribution;

typedef struct packet_header {
    bool empty;                          /* zero-length packet (B.10.3) */
    bool sop_found, eph_missing;         /* reader: what the markers looked like */
    uint16_t sop_sequence;
    packet_contribution *contributions;  /* in header order */
    size_t num_contributions, contributions_capacity;
    tier1_segment *pieces;               /* lengths and passes, B.10.7.2 */
    size_t num_pieces, pieces_capacity;
    uint64_t body_size;
    size_t num_complete;                 /* reader: contributions whose bytes are all there */
} packet_header;

void packet_header_free(packet_header *header);
/* Appends one length to the header's pieces (reader). */
gj2k_status packet_header_add_piece(packet_header *header, uint32_t length, unsigned passes,
                                    gj2k_error *error);

/* The reader's T.814 Annex B rules for an HT block whose first cleanup pass
 * has not come yet (block->coder TILE_CODER_AS_STYLED): reads the lengths
 * of c's new passes, sets c's placeholder passes and bytes and the block's
 * coder once known. */
gj2k_status packet_read_ht_opening(packet_header *h, tile_codeblock *block,
                                   packet_contribution *c, unsigned style,
                                   packet_bit_reader *bits, gj2k_error *error);

/* Writer: the bytes of passes from..to-1 of a source (tile_codeblock_source:
 * cumulative counts), UINT64_MAX where they decrease. */
uint64_t packet_source_bytes(const tile_codeblock_source *s, unsigned from, unsigned to);

/* Writer: the lengths one contribution of a block sends. */
typedef struct packet_plan {
    tier1_segment pieces[PACKET_MAX_NEW_PASSES];
    unsigned count;
    unsigned lblock; /* the smallest Lblock (from the block's) that holds every length */
    uint8_t coder;   /* the block's tile_codeblock_coder after it */
} packet_plan;
/* Adds a length of `passes` passes; `marked_cleanup`: an HT cleanup
 * segment of a MIXED tile-component, sent with a leading 0 and Lblock > 3. */
gj2k_status packet_plan_add(packet_plan *plan, uint64_t length, unsigned passes,
                            bool marked_cleanup, gj2k_error *error);
/* The writer's mirror of packet_read_ht_opening: plans the n passes from
 * `first` of an HT block whose first cleanup pass is still to be sent;
 * `part1`: the block is a Part 1 one (tile_codeblock_source.part1). */
gj2k_status packet_plan_ht_opening(const tile_codeblock_source *s, bool part1, unsigned first,
                                   unsigned n, unsigned style, packet_plan *plan,
                                   gj2k_error *error);

/* A cursor over bytes. */
typedef struct packet_stream {
    const uint8_t *data;
    size_t size, position;
} packet_stream;

/*
 * Reads the packet of `layer` of a precinct with `num_bands` bands whose
 * code-blocks use `style`: SOP (when use_sop and present) from `body`, the
 * header from `headers` (the same stream as `body` unless headers are
 * packed), EPH (when use_eph) after the header, then the body. Updates the
 * code-blocks' Tier-2 state and advances both streams. Fails with
 * GJ2K_ERROR_TRUNCATED when the header runs out (nothing usable) or the body
 * does (num_complete contributions usable), GJ2K_ERROR_MALFORMED for codes
 * out of range.
 */
gj2k_status packet_read(packet_header *header, tile_precinct *precinct, unsigned num_bands,
                        unsigned layer, unsigned style, bool use_sop, bool use_eph,
                        packet_stream *headers, packet_stream *body, gj2k_error *error);

typedef struct packet_write_options {
    unsigned num_layers;                 /* entries of the sources' layer_passes */
    bool use_sop, use_eph;
    uint16_t sequence;                   /* Nsop */
} packet_write_options;

/*
 * Writes the packet of `layer` of a precinct from its code-blocks' sources
 * (tile_codeblock_source): SOP and the body to `body`, the header and EPH to
 * `headers` (which may be `body`). Layers of a precinct must be written in
 * order from 0; layer 0 sets up the tag trees. Updates the blocks' Tier-2
 * state. Adds the bytes written to `body` to *body_bytes when not NULL.
 */
gj2k_status packet_write(tile_precinct *precinct, unsigned num_bands, unsigned layer,
                         unsigned style, const packet_write_options *options,
                         byte_buffer *headers, byte_buffer *body, size_t *body_bytes,
                         gj2k_error *error);

#endif
