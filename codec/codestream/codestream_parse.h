/* codestream_parse.h - the state the header parser shares with the step that
 * gathers tile-parts into tiles (internal to codec/). */
#ifndef GJ2K_CODESTREAM_PARSE_H
#define GJ2K_CODESTREAM_PARSE_H

#include "marker_io.h"

/* A tile-part as its header was read. */
typedef struct parsed_tile_part {
    j2k_tile_part part;
    j2k_header_params header;    /* its own COD, COC, QCD, QCC, RGN, POC, COM */
    size_t first_ppt, num_ppt;   /* its PPT chunks in parser.ppt */
    size_t first_plt, num_plt;   /* its PLT chunks in parser.plt */
    bool warned_misplaced;       /* reported a COD, COC, ... out of the first tile-part */
} parsed_tile_part;

/* A growable array of indexed chunks. */
typedef struct chunk_list {
    j2k_indexed_chunk *items;
    size_t count, capacity;
} chunk_list;

typedef struct codestream_parser {
    const uint8_t *data;
    size_t size;
    gj2k_warning_fn warning;
    void *warning_user;
    gj2k_error *error;
    j2k_codestream *cs;
    chunk_list ppm, plm, ppt, plt;
    j2k_tlm *tlms;
    size_t num_tlms, tlm_capacity;
    parsed_tile_part *parts;     /* in codestream order */
    size_t num_parts, part_capacity;
    bool main_only;              /* the main header alone: the data may end with it */
} codestream_parser;

/* Builds cs->tiles from the tile-parts read, with their packed headers,
 * packet lengths and merged header parameters; checks TPsot and TLM. */
gj2k_status j2k_parser_assemble_tiles(codestream_parser *p);

#endif
