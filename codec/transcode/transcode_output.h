/* transcode_output.h - the transcoder's codestream (T.800 Annex A): the
 * input's SIZ with Rsiz bit 14 set for HT (with a CAP and its Ccap15,
 * T.814 A.2) or cleared for Part 1, and every header's COD, COC, QCD, QCC,
 * RGN, POC and COM as the input has them, but for the code-block style
 * (HT: bit 6 with the vertically causal bit 3 alone; Part 1: bits 6 and 7
 * cleared) and one quality layer; CRG as given; one tile-part a tile, its
 * packets written by Tier-2 (Annex B) from each block's re-coded source;
 * PLT and TLM where the input has packet or tile-part lengths. Packed
 * packet headers (PPM, PPT) are written in the packets. */
#ifndef GJ2K_TRANSCODE_OUTPUT_H
#define GJ2K_TRANSCODE_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "byte_buffer.h"
#include "codestream.h"
#include "gj2k.h"
#include "transcode_tile.h"

/* The code-block style (Table A.19, T.814 Table A.4) that a component of
 * style `style` takes in the output. */
unsigned transcode_output_style(unsigned style, bool to_ht);

typedef struct transcode_output {
    const j2k_codestream *cs;  /* the input */
    bool to_ht;
    bool use_plt, use_tlm;
    j2k_siz siz;               /* the input's, Rsiz changed; its components borrowed */
    j2k_header_params main_header;
    byte_buffer parts;         /* the tile-parts written so far */
    byte_buffer packets;       /* one tile's packets */
    j2k_tlm_entry *tlm;        /* one a tile-part */
    uint32_t num_parts;
    unsigned largest_magnitude_bits; /* over every tile (MAGB) */
    bool irreversible, has_rgn;
} transcode_output;

gj2k_status transcode_output_begin(transcode_output *o, const j2k_codestream *cs, bool to_ht,
                                   gj2k_error *error);
/* Writes the tile-part of `tile`, whose code-blocks' sources are set
 * (tile_codeblock.source; NULL: not sent); its components take the output's
 * code-block style. */
gj2k_status transcode_output_tile(transcode_output *o, transcode_tile *tile, gj2k_error *error);
/* Appends the whole codestream to `out`: main header, CRG, TLM, the
 * tile-parts, EOC. */
gj2k_status transcode_output_finish(transcode_output *o, byte_buffer *out, gj2k_error *error);
void transcode_output_free(transcode_output *o);

#endif
