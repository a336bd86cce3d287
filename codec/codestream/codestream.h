/* codestream.h - the codestream syntax of ITU-T T.800 Annex A: the marker
 * codes, the model of the main and tile-part headers, and the reading and
 * writing of every Part 1 marker segment.
 *
 * Reading: each j2k_*_read function takes a byte_reader over the segment's
 * parameters (the bytes after its length field, exactly Lxxx - 2 of them),
 * checks every field against Annex A and fills the model. Writing: each
 * j2k_*_write function checks the model with the same rules and appends the
 * whole segment (marker, length, parameters) to a byte_buffer. Fields whose
 * width depends on Csiz (Ccoc, Cqcc, Crgn, CSpoc, CEpoc: 8 bits when
 * Csiz < 257, else 16) take the number of components. */
#ifndef GJ2K_CODESTREAM_H
#define GJ2K_CODESTREAM_H

#include "byte_buffer.h"
#include "dwt.h"
#include "gj2k.h"
#include "quantization.h"

/* ------------------------------------------------ marker codes (Table A.2) */

#define J2K_SOC 0xFF4Fu /* start of codestream */
#define J2K_SOT 0xFF90u /* start of tile-part */
#define J2K_SOD 0xFF93u /* start of data */
#define J2K_EOC 0xFFD9u /* end of codestream */
#define J2K_SIZ 0xFF51u /* image and tile size */
#define J2K_COD 0xFF52u /* coding style default */
#define J2K_COC 0xFF53u /* coding style component */
#define J2K_RGN 0xFF5Eu /* region of interest */
#define J2K_QCD 0xFF5Cu /* quantization default */
#define J2K_QCC 0xFF5Du /* quantization component */
#define J2K_POC 0xFF5Fu /* progression order change */
#define J2K_TLM 0xFF55u /* tile-part lengths */
#define J2K_PLM 0xFF57u /* packet lengths, main header */
#define J2K_PLT 0xFF58u /* packet lengths, tile-part header */
#define J2K_PPM 0xFF60u /* packed packet headers, main header */
#define J2K_PPT 0xFF61u /* packed packet headers, tile-part header */
#define J2K_SOP 0xFF91u /* start of packet */
#define J2K_EPH 0xFF92u /* end of packet header */
#define J2K_CRG 0xFF63u /* component registration */
#define J2K_COM 0xFF64u /* comment */
#define J2K_CAP 0xFF50u /* extended capabilities (T.800 Amd. / T.814 A.2) */
#define J2K_CPF 0xFF59u /* corresponding profile (T.814 A.3) */

/* Markers 0xFF30..0xFF3F carry no parameters and are skipped (A.1.3). */
static inline bool j2k_marker_has_no_segment(uint16_t marker)
{
    return marker >= 0xFF30u && marker <= 0xFF3Fu;
}

/* "COD", "SOT", ...; "unknown" for anything else. */
const char *j2k_marker_name(uint16_t marker);

/* ---------------------------------------------------------------- limits */

#define J2K_MAX_TILES 65535u     /* Isot is 0..65534 (A.4.2) */
#define J2K_MAX_COMPONENTS 16384u /* Csiz (Table A.9) */
#define J2K_MAX_RESOLUTIONS (DWT_MAX_LEVELS + 1)
#define J2K_MAX_SUBBANDS (3 * DWT_MAX_LEVELS + 1)
#define J2K_SOT_SEGMENT_SIZE 12u /* SOT marker + Lsot + 8 bytes */

/* ---------------------------------------------------------- SIZ (A.5.1) */

typedef struct j2k_component_size {
    uint8_t precision; /* Ssiz bits 0-6, plus one: 1..38 */
    bool is_signed;    /* Ssiz bit 7 */
    uint8_t dx, dy;    /* XRsiz, YRsiz: 1..255 */
} j2k_component_size;

/* Rsiz bit 14: the codestream uses Part 15 (HTJ2K) and has a CAP (T.814 A.2). */
#define J2K_RSIZ_PART15 0x4000u
/* Rsiz of the digital cinema profiles (T.800 Amd 1, Table A.10). */
#define J2K_RSIZ_CINEMA_2K 3u
#define J2K_RSIZ_CINEMA_4K 4u
/* Rsiz of the IMF profiles (T.800 Amd 8, Table A.10): the profile in bits
 * 8-15, the sub level in bits 4-7, the main level in bits 0-3. */
#define J2K_RSIZ_IMF_2K 0x0400u   /* single tile lossy */
#define J2K_RSIZ_IMF_4K 0x0500u
#define J2K_RSIZ_IMF_8K 0x0600u
#define J2K_RSIZ_IMF_2K_R 0x0700u /* single or multi-tile reversible */
#define J2K_RSIZ_IMF_4K_R 0x0800u
#define J2K_RSIZ_IMF_8K_R 0x0900u
#define J2K_RSIZ_IMF_PROFILE(rsiz) ((rsiz) & 0xFF00u)
#define J2K_RSIZ_IMF_MAIN_LEVEL(rsiz) ((rsiz) & 0x000Fu)
#define J2K_RSIZ_IMF_SUB_LEVEL(rsiz) (((rsiz) >> 4) & 0x000Fu)

typedef struct j2k_siz {
    uint16_t capabilities;             /* Rsiz (Table A.10) */
    uint32_t image_x1, image_y1;       /* Xsiz, Ysiz */
    uint32_t image_x0, image_y0;       /* XOsiz, YOsiz */
    uint32_t tile_width, tile_height;  /* XTsiz, YTsiz */
    uint32_t tile_x0, tile_y0;         /* XTOsiz, YTOsiz */
    uint32_t num_components;           /* Csiz: 1..16384 */
    j2k_component_size *components;    /* owned; num_components entries */
    /* Derived by j2k_siz_validate: the tile grid (eq. B-5). */
    uint32_t tiles_across, tiles_down, num_tiles;
} j2k_siz;

/* Checks the rules of A.5.1 and B.2 and fills the derived tile grid. */
gj2k_status j2k_siz_validate(j2k_siz *siz, gj2k_error *error);
gj2k_status j2k_siz_read(byte_reader *segment, j2k_siz *siz, gj2k_error *error);
gj2k_status j2k_siz_write(byte_buffer *out, const j2k_siz *siz, gj2k_error *error);
void j2k_siz_free(j2k_siz *siz);
/* The area of tile `tile` on the reference grid (eq. B-7 to B-10), and of
 * one of its tile-components on the component's grid (eq. B-12). */
dwt_rect j2k_tile_rect(const j2k_siz *siz, uint32_t tile);
dwt_rect j2k_tile_component_rect(const j2k_siz *siz, uint32_t tile, uint32_t component);

/* ------------------------------------------------- COD, COC (A.6.1, A.6.2) */

typedef enum j2k_progression {
    J2K_LRCP = 0, /* layer, resolution, component, position (Table A.16) */
    J2K_RLCP = 1,
    J2K_RPCL = 2,
    J2K_PCRL = 3,
    J2K_CPRL = 4
} j2k_progression;

/* Code-block style bits (Table A.19). */
#define J2K_CBLK_BYPASS 0x01u        /* selective arithmetic coding bypass */
#define J2K_CBLK_RESET 0x02u         /* reset context probabilities each pass */
#define J2K_CBLK_TERMINATE_ALL 0x04u /* termination on each coding pass */
#define J2K_CBLK_VERTICAL_CAUSAL 0x08u
#define J2K_CBLK_PREDICTABLE 0x10u   /* predictable termination */
#define J2K_CBLK_SEGMENTATION 0x20u  /* segmentation symbols */
/* T.814 Table A.4: bit 6 alone, HT code-blocks (HTONLY, HTDECLARED); bits 6
 * and 7, HT and Part 1 code-blocks mixed (MIXED); bit 7 alone is reserved. */
#define J2K_CBLK_HT 0x40u
#define J2K_CBLK_HT_MIXED 0x80u

/* Wavelet transform (Table A.20). */
#define J2K_TRANSFORM_97 0u /* 9-7 irreversible */
#define J2K_TRANSFORM_53 1u /* 5-3 reversible */

/* What COD and COC say about one component (SPcod/SPcoc, Table A.15). */
typedef struct j2k_component_coding {
    bool precincts_defined;          /* Scod/Scoc bit 0 (Table A.13) */
    uint8_t levels;                  /* NL: 0..32 */
    uint8_t code_block_width_log2;   /* xcb: 2..10, xcb + ycb <= 12 */
    uint8_t code_block_height_log2;  /* ycb */
    uint8_t code_block_style;        /* J2K_CBLK_* */
    uint8_t transform;               /* J2K_TRANSFORM_* */
    /* PPx, PPy per resolution level, 0 (the NL LL band) first (Table A.21);
     * 15 where no precincts are defined. Only resolution 0 may have 0. */
    uint8_t precinct_width_log2[J2K_MAX_RESOLUTIONS];
    uint8_t precinct_height_log2[J2K_MAX_RESOLUTIONS];
} j2k_component_coding;

typedef struct j2k_cod {
    bool use_sop, use_eph;          /* Scod bits 1 and 2 */
    uint8_t progression;            /* SGcod: j2k_progression */
    uint16_t layers;                /* SGcod: 1..65535 */
    uint8_t mct;                    /* SGcod: 0 none, 1 RCT/ICT on components 0..2 (Table A.17) */
    j2k_component_coding coding;    /* SPcod: the default for every component */
} j2k_cod;

typedef struct j2k_coc {
    uint32_t component;             /* Ccoc */
    j2k_component_coding coding;    /* Scoc bit 0 and SPcoc */
} j2k_coc;

/* Checks one component's coding style; `name` ("COD", "COC") starts messages. */
gj2k_status j2k_component_coding_check(const j2k_component_coding *coding, const char *name,
                                       gj2k_error *error);
/* Fills PPx = PPy = 15 at every resolution (Scod bit 0 clear). */
void j2k_component_coding_default_precincts(j2k_component_coding *coding);
gj2k_status j2k_cod_read(byte_reader *segment, j2k_cod *cod, gj2k_error *error);
gj2k_status j2k_cod_write(byte_buffer *out, const j2k_cod *cod, gj2k_error *error);
gj2k_status j2k_coc_read(byte_reader *segment, uint32_t num_components, j2k_coc *coc,
                         gj2k_error *error);
gj2k_status j2k_coc_write(byte_buffer *out, const j2k_coc *coc, uint32_t num_components,
                          gj2k_error *error);

/* ------------------------------------------------- QCD, QCC (A.6.4, A.6.5) */

typedef enum j2k_quantization_style {
    J2K_QUANT_NONE = 0,     /* reversible: one 8-bit exponent per subband (Table A.29) */
    J2K_QUANT_DERIVED = 1,  /* one (exponent, mantissa) for the NL LL band (eq. E-5) */
    J2K_QUANT_EXPOUNDED = 2 /* one (exponent, mantissa) per subband (Table A.30) */
} j2k_quantization_style;

typedef struct j2k_quantization {
    uint8_t style;        /* Sqcd bits 0-4: j2k_quantization_style */
    uint8_t guard_bits;   /* Sqcd bits 5-7: 0..7 */
    uint8_t num_steps;    /* entries carried: 1 for derived, else 3 NL + 1 (1..97) */
    quant_step steps[J2K_MAX_SUBBANDS]; /* subband order: LL, then HL, LH, HH from level NL to 1 */
} j2k_quantization;

typedef struct j2k_qcc {
    uint32_t component;   /* Cqcc */
    j2k_quantization quantization;
} j2k_qcc;

gj2k_status j2k_quantization_check(const j2k_quantization *q, const char *name,
                                   gj2k_error *error);
/* The step of each of the 3 levels + 1 subbands, in the order of `steps`
 * above: derived steps come from eq. E-5; otherwise the segment must carry
 * at least that many entries (extra ones are ignored). */
gj2k_status j2k_quantization_expand(const j2k_quantization *q, unsigned levels,
                                    quant_step steps[J2K_MAX_SUBBANDS], gj2k_error *error);
gj2k_status j2k_qcd_read(byte_reader *segment, j2k_quantization *q, gj2k_error *error);
gj2k_status j2k_qcd_write(byte_buffer *out, const j2k_quantization *q, gj2k_error *error);
gj2k_status j2k_qcc_read(byte_reader *segment, uint32_t num_components, j2k_qcc *qcc,
                         gj2k_error *error);
gj2k_status j2k_qcc_write(byte_buffer *out, const j2k_qcc *qcc, uint32_t num_components,
                          gj2k_error *error);

/* ---------------------------------------------------------- RGN (A.6.3) */

typedef struct j2k_rgn {
    uint32_t component; /* Crgn */
    uint8_t style;      /* Srgn: 0, implicit ROI (max-shift) (Table A.25) */
    uint8_t shift;      /* SPrgn: the ROI shift value s (Table A.26) */
} j2k_rgn;

gj2k_status j2k_rgn_read(byte_reader *segment, uint32_t num_components, j2k_rgn *rgn,
                         gj2k_error *error);
gj2k_status j2k_rgn_write(byte_buffer *out, const j2k_rgn *rgn, uint32_t num_components,
                          gj2k_error *error);

/* ---------------------------------------------------------- POC (A.6.6) */

typedef struct j2k_progression_change {
    uint8_t resolution_start;  /* RSpoc: 0..32 */
    uint32_t component_start;  /* CSpoc: 0..255 or 0..16383 */
    uint16_t layer_end;        /* LYEpoc: 1..65535 (exclusive) */
    uint8_t resolution_end;    /* REpoc: RSpoc + 1 .. 33 (exclusive) */
    uint32_t component_end;    /* CEpoc: CSpoc + 1 .. 256 or 16384 (exclusive; 8-bit 0 is 256) */
    uint8_t progression;       /* Ppoc: j2k_progression */
} j2k_progression_change;

gj2k_status j2k_progression_change_check(const j2k_progression_change *change,
                                         uint32_t num_components, gj2k_error *error);
/* Appends the segment's changes to (*changes, *count), realloc'ing the array
 * to the exact count (use j2k_header_add_pocs to add them to a header). */
gj2k_status j2k_poc_read(byte_reader *segment, uint32_t num_components,
                         j2k_progression_change **changes, size_t *count, gj2k_error *error);
gj2k_status j2k_poc_write(byte_buffer *out, const j2k_progression_change *changes, size_t count,
                          uint32_t num_components, gj2k_error *error);

/* ------------------------------------- PPM, PPT, PLM, PLT bodies (A.7) */

/* A segment that carries an index Z and a run of bytes to be joined with
 * the other segments of its kind in Z order. `data` points into the input. */
typedef struct j2k_indexed_chunk {
    uint8_t index;       /* Zppm, Zppt, Zplm, Zplt */
    const uint8_t *data; /* the bytes after Z */
    size_t size;
} j2k_indexed_chunk;

/* Bytes held elsewhere. */
typedef struct j2k_bytes {
    const uint8_t *data;
    size_t size;
} j2k_bytes;

/* Reads Z and points at the rest (PPM, PPT, PLM, PLT all share this form). */
gj2k_status j2k_indexed_chunk_read(byte_reader *segment, const char *name,
                                   j2k_indexed_chunk *chunk, gj2k_error *error);
/* Sorts chunks by Z, keeping codestream order among equal Z; *repeats
 * counts repeated indices (a malformed but recoverable stream). */
gj2k_status j2k_indexed_chunks_sort(j2k_indexed_chunk *chunks, size_t count, size_t *repeats,
                                    gj2k_error *error);
/* Joins the chunks (already sorted) into one new malloc'ed buffer. */
gj2k_status j2k_indexed_chunks_join(const j2k_indexed_chunk *chunks, size_t count,
                                    uint8_t **joined, size_t *size, gj2k_error *error);

/* PPM (A.7.4): the joined Zppm-ordered payload is a run of (Nppm, Ippm), one
 * per tile-part in codestream order. Gives each tile-part's packed packet
 * headers as (offset, size) within `joined` (a new array). */
gj2k_status j2k_ppm_split(const uint8_t *joined, size_t size, size_t **offsets, size_t **sizes,
                          size_t *num_tile_parts, gj2k_error *error);
/* Writes the packed packet headers of every tile-part, in codestream order,
 * as PPM segments (split wherever a segment fills; Zppm 0..255). */
gj2k_status j2k_ppm_write(byte_buffer *out, const j2k_bytes *tile_parts, size_t count,
                          gj2k_error *error);
/* Writes a tile-part's packed packet headers as PPT segments (Zppt 0..255). */
gj2k_status j2k_ppt_write(byte_buffer *out, const uint8_t *headers, size_t size,
                          gj2k_error *error);

/* Packet lengths (Iplm, Iplt; A.7.2, A.7.3): 7 bits a byte, most significant first, bit 7
 * set on every byte but the last. Appends the lengths in `bytes` to
 * (*lengths, *count); `name` starts messages. */
gj2k_status j2k_packet_lengths_decode(const uint8_t *bytes, size_t size, const char *name,
                                      uint32_t **lengths, size_t *count, gj2k_error *error);
/* Bytes the coding of `length` takes (1..5). */
size_t j2k_packet_length_size(uint32_t length);

/* The packet lengths of one tile-part. */
typedef struct j2k_packet_lengths {
    uint32_t *lengths;
    size_t count;
} j2k_packet_lengths;

/* PLM (A.7.2): the joined Zplm-ordered payload is a run of (Nplm, Iplm), one
 * per tile-part in codestream order; gives a new array of them. */
gj2k_status j2k_plm_decode(const uint8_t *joined, size_t size, j2k_packet_lengths **tile_parts,
                           size_t *count, gj2k_error *error);
gj2k_status j2k_plm_write(byte_buffer *out, const j2k_packet_lengths *tile_parts, size_t count,
                          gj2k_error *error);
/* PLT (A.7.3): one tile-part's lengths as PLT segments (Zplt 0..255). */
gj2k_status j2k_plt_write(byte_buffer *out, const uint32_t *lengths, size_t count,
                          gj2k_error *error);

/* ---------------------------------------------------------- TLM (A.7.1) */

#define J2K_TLM_TILE_IMPLIED UINT32_MAX /* ST = 0: tile-parts in tile order, one a tile */

typedef struct j2k_tlm_entry {
    uint32_t tile_index; /* Ttlm, or J2K_TLM_TILE_IMPLIED */
    uint32_t length;     /* Ptlm: the tile-part's length from its SOT to its end */
} j2k_tlm_entry;

typedef struct j2k_tlm {
    uint8_t index;            /* Ztlm */
    uint8_t tile_index_size;  /* bytes of Ttlm: 0, 1 or 2 (ST) */
    uint8_t length_size;      /* bytes of Ptlm: 2 or 4 (SP) */
    j2k_tlm_entry *entries;   /* owned */
    size_t count;
} j2k_tlm;

gj2k_status j2k_tlm_read(byte_reader *segment, j2k_tlm *tlm, gj2k_error *error);
gj2k_status j2k_tlm_write(byte_buffer *out, const j2k_tlm *tlm, gj2k_error *error);
/* TLM markers for `count` tile-parts (entries in codestream order): as many
 * segments of up to 8000 entries as it takes (at most 256), 4-byte lengths,
 * tile indices of 1 byte or of 2 when one exceeds 255. */
gj2k_status j2k_tlm_write_entries(byte_buffer *out, const j2k_tlm_entry *entries, uint32_t count,
                                  gj2k_error *error);
void j2k_tlm_free(j2k_tlm *tlm);

/* ---------------------------------------------------- CRG, COM (A.9) */

typedef struct j2k_registration_offset {
    uint16_t x, y; /* Xcrg, Ycrg: in 1/65536 of the component's sample separation */
} j2k_registration_offset;

/* CRG carries one offset per component (A.9.1); `offsets` has Csiz entries. */
gj2k_status j2k_crg_read(byte_reader *segment, uint32_t num_components,
                         j2k_registration_offset *offsets, gj2k_error *error);
gj2k_status j2k_crg_write(byte_buffer *out, const j2k_registration_offset *offsets,
                          uint32_t num_components, gj2k_error *error);

#define J2K_COMMENT_BINARY 0u /* Rcom (A.9.2) */
#define J2K_COMMENT_LATIN 1u  /* ISO/IEC 8859-15 text */

typedef struct j2k_comment {
    uint16_t registration; /* Rcom */
    uint8_t *data;         /* owned copy of Ccom (malloc'ed; NULL when empty) */
    size_t size;
} j2k_comment;

gj2k_status j2k_com_read(byte_reader *segment, j2k_comment *comment, gj2k_error *error);
gj2k_status j2k_com_write(byte_buffer *out, const j2k_comment *comment, gj2k_error *error);

/* ------------------------------------------------- SOT, SOP, EPH (A.4) */

typedef struct j2k_sot {
    uint32_t tile_index; /* Isot: 0..65534 (A.4.2) */
    uint32_t length;     /* Psot: bytes from the SOT marker to the tile-part's end; 0: to EOC */
    uint8_t part_index;  /* TPsot: 0..254 */
    uint8_t num_parts;   /* TNsot: 0 (not given) or 1..255 */
} j2k_sot;

gj2k_status j2k_sot_read(byte_reader *segment, j2k_sot *sot, gj2k_error *error);
gj2k_status j2k_sot_write(byte_buffer *out, const j2k_sot *sot, gj2k_error *error);

#define J2K_SOP_SEGMENT_SIZE 6u /* SOP marker, Lsop = 4, Nsop (A.8.1) */
#define J2K_EPH_SIZE 2u

/* Reads an SOP segment at `bytes` (Nsop: the packet sequence number mod
 * 65536); false when the bytes do not start one. */
bool j2k_sop_parse(const uint8_t *bytes, size_t size, uint16_t *sequence);
void j2k_sop_write(byte_buffer *out, uint16_t sequence);
/* Appends a bare marker (SOC, SOD, EPH, EOC). */
void j2k_marker_write(byte_buffer *out, uint16_t marker);

/* ------------------------------------------- the parameters of one header */

/* The coding parameters a header (main or tile-part) carries. Arrays are
 * owned and changed only through the functions below; COC, QCC and RGN are
 * kept sorted by component, one per component. */
typedef struct j2k_header_params {
    j2k_cod *cod;              /* NULL when absent */
    j2k_quantization *qcd;     /* NULL when absent */
    j2k_coc *cocs;
    size_t num_cocs;
    j2k_qcc *qccs;
    size_t num_qccs;
    j2k_rgn *rgns;
    size_t num_rgns;
    j2k_progression_change *pocs; /* every POC change of the header, in order */
    size_t num_pocs;
    j2k_comment *comments;
    size_t num_comments;
    /* Allocated lengths of the arrays above (0 is always safe). */
    size_t coc_capacity, qcc_capacity, rgn_capacity, poc_capacity, comment_capacity;
} j2k_header_params;

/* Setters copy their argument; adding a COC/QCC/RGN for a component that has
 * one replaces it and returns true in *replaced (when not NULL). A comment's
 * data is copied too. All fail only for lack of memory. */
gj2k_status j2k_header_set_cod(j2k_header_params *h, const j2k_cod *cod, gj2k_error *error);
gj2k_status j2k_header_set_qcd(j2k_header_params *h, const j2k_quantization *q,
                               gj2k_error *error);
gj2k_status j2k_header_add_coc(j2k_header_params *h, const j2k_coc *coc, bool *replaced,
                               gj2k_error *error);
gj2k_status j2k_header_add_qcc(j2k_header_params *h, const j2k_qcc *qcc, bool *replaced,
                               gj2k_error *error);
gj2k_status j2k_header_add_rgn(j2k_header_params *h, const j2k_rgn *rgn, bool *replaced,
                               gj2k_error *error);
gj2k_status j2k_header_add_pocs(j2k_header_params *h, const j2k_progression_change *changes,
                                size_t count, gj2k_error *error);
gj2k_status j2k_header_add_comment(j2k_header_params *h, uint16_t registration,
                                   const uint8_t *data, size_t size, gj2k_error *error);
const j2k_coc *j2k_header_find_coc(const j2k_header_params *h, uint32_t component);
const j2k_qcc *j2k_header_find_qcc(const j2k_header_params *h, uint32_t component);
const j2k_rgn *j2k_header_find_rgn(const j2k_header_params *h, uint32_t component);
/* Moves everything `from` carries into `into` (from's COD, QCD, COC, QCC and
 * RGN override into's; POCs and comments are appended) and empties `from`. */
gj2k_status j2k_header_merge(j2k_header_params *into, j2k_header_params *from,
                             gj2k_error *error);
void j2k_header_free(j2k_header_params *h);

/* What applies to one tile-component, by the precedence of A.6: tile-part
 * COC > tile-part COD > main COC > main COD, and likewise QCC/QCD, RGN. */
typedef struct j2k_tile_component_params {
    /* Tile-wide, from the tile's COD or else the main COD. */
    uint8_t progression;
    uint16_t layers;
    uint8_t mct;
    bool use_sop, use_eph;
    /* The tile's POC changes if it has any, else the main header's (borrowed). */
    const j2k_progression_change *pocs;
    size_t num_pocs;
    /* For this component. */
    j2k_component_coding coding;
    j2k_quantization quantization;
    quant_step steps[J2K_MAX_SUBBANDS]; /* expanded: 3 levels + 1 subbands */
    uint8_t roi_shift;                  /* 0 without RGN */
} j2k_tile_component_params;

/* `tile` may be NULL (main header only). Fails when the main header lacks
 * COD or QCD, or when the quantization does not cover the levels. */
gj2k_status j2k_resolve_tile_component(const j2k_header_params *main_header,
                                       const j2k_header_params *tile, uint32_t component,
                                       j2k_tile_component_params *out, gj2k_error *error);

/* ------------------------------------------------- the parsed codestream */

typedef struct j2k_tile_part {
    uint32_t tile_index;        /* Isot */
    uint8_t part_index;         /* TPsot */
    uint8_t num_parts;          /* TNsot (0: not given) */
    uint32_t psot;              /* Psot as read (0: up to EOC) */
    size_t ordinal;             /* its position among all tile-parts of the codestream */
    size_t sot_offset;          /* where its SOT marker lies */
    size_t data_start;          /* just after its SOD marker */
    size_t data_end;            /* where the next SOT or the EOC lies (clipped to the data) */
    bool truncated;             /* Psot ran past the end of the data */
    j2k_packet_lengths packet_lengths; /* from its PLT, else from PLM; may be empty */
    size_t packed_headers_offset, packed_headers_size; /* its part of the tile's packed headers */
} j2k_tile_part;

typedef struct j2k_tile {
    uint32_t index;
    j2k_header_params header;   /* its tile-part headers' COD, COC, QCD, QCC, RGN, POC, COM */
    j2k_tile_part *parts;       /* in TPsot order */
    size_t num_parts;
    /* The packed packet headers of all its tile-parts (from PPM or PPT), joined. */
    bool has_packed_headers;
    uint8_t *packed_headers;
    size_t packed_headers_size;
} j2k_tile;

/* CAP (T.814 A.2): the Parts whose capabilities the codestream uses (Pcap,
 * bit 31 - (i - 1) for Part i) and, for Part 15, Ccap15 (Table A.3):
 * bits 14-15 the HT set (0 HTONLY, 2 HTDECLARED, 3 MIXED), 13 multiple HT
 * sets, 12 RGN, 11 heterogeneous, 5 HTIRV (irreversible), 0-4 MAGB. */
typedef struct j2k_capabilities {
    bool present;
    uint32_t pcap;
    bool has_ccap15;
    uint16_t ccap15;
} j2k_capabilities;
#define J2K_PCAP_PART15 (1u << 17)

/* Ccap15's fields (T.814 Table A.3). */
#define J2K_CCAP15_SET_MASK 0xC000u      /* 00 HTONLY, 10 HTDECLARED, 11 MIXED */
#define J2K_CCAP15_MULTIPLE_SETS 0x2000u /* more than one HT set a code-block */
#define J2K_CCAP15_RGN 0x1000u           /* RGN marker segments may be present */
#define J2K_CCAP15_HETEROGENEOUS 0x0800u
#define J2K_CCAP15_RESERVED 0x07C0u      /* bits 6-10: 0 */
#define J2K_CCAP15_IRREVERSIBLE 0x0020u  /* HTIRV: HT blocks with the 9/7 path */
#define J2K_CCAP15_MAGB_MASK 0x001Fu

/* Whether a header's COD or one of its COCs asks for HT code-blocks
 * (T.814 Table A.4: code-block style bit 6). */
bool j2k_header_uses_ht(const j2k_header_params *h);

/* CAP's body (after Lcap); `segment` holds exactly its bytes. */
gj2k_status j2k_cap_read(byte_reader *segment, j2k_capabilities *cap, gj2k_error *error);
/* The whole CAP segment. Only Part 15's Ccap is modelled, so Pcap must be
 * J2K_PCAP_PART15 alone, with a Ccap15 whose reserved values are 0. */
gj2k_status j2k_cap_write(byte_buffer *out, const j2k_capabilities *cap, gj2k_error *error);
/* "HTONLY", "HTDECLARED", "MIXED" or "reserved" for Ccap15's bits 14-15. */
const char *j2k_ccap15_set_name(uint16_t ccap15);
/* MAGB (T.814 Table A.3) for a bound B on the magnitude bit-planes: the
 * smallest value whose bound (j2k_ccap15_magnitude_bound) is at least B;
 * 31 (74 planes) for anything beyond. */
uint16_t j2k_ccap15_magb(unsigned magnitude_bits);
/* The bit-planes MAGB allows: 8 for 0, MAGB + 8 up to 19, 4 (MAGB - 19) + 27
 * up to 30, 74 for 31 (T.814 Table A.3). */
unsigned j2k_ccap15_magnitude_bound(uint16_t magb);
/* Ccap15 for a codestream whose every code-block is HT (HTONLY), from its
 * main header: one HT set a code-block, homogeneous, RGN when the header has
 * one, HTIRV when a component takes the 9/7 wavelet, MAGB from the largest
 * Mb = G + eps_b - 1 (T.800 E-2) over every subband of every component.
 * GJ2K_ERROR_UNSUPPORTED when some component's code-blocks are not HT. */
gj2k_status j2k_ccap15_for_header(const j2k_siz *siz, const j2k_header_params *main_header,
                                  uint16_t *ccap15, gj2k_error *error);

typedef struct j2k_codestream {
    size_t size;                /* bytes of codestream parsed */
    j2k_siz siz;
    j2k_capabilities capabilities; /* CAP, when the main header has one */
    j2k_header_params main_header;
    j2k_registration_offset *registration; /* CRG offsets (Csiz entries), or NULL */
    bool has_ppm;
    j2k_tlm_entry *tlm;         /* every TLM entry in Ztlm order; implied indices resolved */
    size_t num_tlm;
    size_t main_header_end;     /* where the first SOT (or EOC) lies */
    size_t num_tile_parts;
    j2k_tile *tiles;            /* tiles that have tile-parts, by ascending index */
    size_t num_tiles_present;
    bool has_eoc;
    size_t eoc_offset;
    bool cut_short;             /* the data ends inside a tile-part's SOT or header */
    size_t cut_offset;          /* where that tile-part's SOT lies */
    uint32_t cut_tile;          /* its tile (Isot), UINT32_MAX when the SOT is cut */
} j2k_codestream;

/*
 * Parses a whole codestream: SOC, the main header, every tile-part header up
 * to its SOD and where its data lies, to EOC. Unknown marker segments,
 * segments in the wrong header, a missing EOC, a Psot past the end of the
 * data (clipped) or a header cut short by the end of the data are reported
 * to `warning` and survived; anything else malformed fails.
 */
gj2k_status j2k_codestream_parse(const uint8_t *data, size_t size, gj2k_warning_fn warning,
                                 void *warning_user, j2k_codestream **out, gj2k_error *error);
/* The main header alone (SIZ, COD, QCD, ... up to the first SOT or EOC, or
 * the end of the data): no tiles (main_header_end set, tiles NULL). */
gj2k_status j2k_codestream_parse_main_header(const uint8_t *data, size_t size,
                                             gj2k_warning_fn warning, void *warning_user,
                                             j2k_codestream **out, gj2k_error *error);
void j2k_codestream_destroy(j2k_codestream *codestream);
/* What a digital cinema profile allows (T.800 Amd 1; codestream_profiles.c). */
typedef struct j2k_cinema_limits {
    unsigned rsiz;               /* J2K_RSIZ_CINEMA_2K or _4K */
    uint32_t width, height;      /* at most */
    unsigned max_levels;         /* decomposition levels */
    unsigned tile_parts;         /* 3 (one a component) or, for 4K, 6 (two volumes) */
    uint32_t frame_bytes;        /* the whole codestream, at the frame rate */
    uint32_t component_bytes;    /* one component's tile-parts */
} j2k_cinema_limits;

/* The limits of a profile at 24 or 48 frames a second (4K: 24 only), or NULL. */
const j2k_cinema_limits *j2k_cinema_limits_of(unsigned rsiz, unsigned frame_rate);
/* Whether the codestream keeps every rule of the profile; when not, `why`
 * lists the broken ones ("; " between them). */
bool j2k_cinema_check(const j2k_codestream *cs, const j2k_cinema_limits *limits, char *why,
                      size_t why_size);

/* An IMF profile (T.800 Amd 8, Tables A.51 and A.52; codestream_profiles.c). */
typedef struct j2k_imf_profile {
    unsigned rsiz;               /* J2K_RSIZ_IMF_*: bits 8-15 alone */
    const char *name;            /* "2K", "4K_R", ...: as opj_compress -IMF names it */
    uint32_t width, height;      /* the image, at most */
    unsigned max_levels;         /* decomposition levels, at most (one tile) */
    bool reversible;             /* the _R profiles: 5/3, tiles of 1024 (and more) allowed */
} j2k_imf_profile;

#define J2K_IMF_MAX_MAIN_LEVEL 11u
#define J2K_IMF_MAX_SUB_LEVEL 9u

/* The profile Rsiz names (its bits 8-15), or NULL when it names none. */
const j2k_imf_profile *j2k_imf_profile_of(unsigned rsiz);
/* The decomposition levels the profile allows with tiles `tile_width` wide
 * (the image's width for one tile). */
unsigned j2k_imf_max_levels(const j2k_imf_profile *profile, uint32_t tile_width);
/* Whether tiles of that size keep the profile for an image of that size. */
bool j2k_imf_tiles_allowed(const j2k_imf_profile *profile, uint32_t tile_width,
                           uint32_t tile_height, uint32_t image_width, uint32_t image_height);
/* Millions of component samples a second a main level allows (1..11), and
 * millions of bits a second a sub level allows (1..9); 0 for level 0 (not
 * specified, no bound) and beyond the table. */
double j2k_imf_main_level_msamples(unsigned main_level);
double j2k_imf_sub_level_mbits(unsigned sub_level);
/* The highest sub level a main level allows (Table A.53's pairing). */
unsigned j2k_imf_max_sub_level(unsigned main_level);
/* Component samples of one frame: every component's samples, subsampled. */
double j2k_siz_samples(const j2k_siz *siz);
/* Whether the codestream keeps every rule of the IMF profile its Rsiz names;
 * when not, `why` lists the broken ones ("; " between them). The rates
 * (main level: samples a second; sub level: bits a second) are checked at
 * `frame_rate` frames a second when it is above 0; a codestream alone does
 * not carry its frame rate. */
bool j2k_imf_check(const j2k_codestream *cs, double frame_rate, char *why, size_t why_size);
/* The highest frame rates at which the codestream keeps its main level's
 * sample rate and its sub level's bit rate (0: that level bounds nothing). */
void j2k_imf_max_frame_rates(const j2k_codestream *cs, double *by_main_level,
                             double *by_sub_level);

/* The tile of that index, or NULL when none of its tile-parts was found. */
const j2k_tile *j2k_codestream_tile(const j2k_codestream *codestream, uint32_t tile_index);

/* --------------------------------------------------------------- writing */

/* SOC, SIZ, then COD, COC, QCD, QCC, RGN, POC and COM from `main_header`
 * (which must have COD and QCD). With HT code-blocks (style J2K_CBLK_HT),
 * Rsiz must have J2K_RSIZ_PART15 and a CAP follows SIZ (T.814 A.2), its
 * Ccap15 from j2k_ccap15_for_header. TLM, PLM, PPM and CRG may follow
 * through their own writers before the first tile-part. */
gj2k_status j2k_write_main_header(byte_buffer *out, const j2k_siz *siz,
                                  const j2k_header_params *main_header, gj2k_error *error);
/* The same with the CAP's Ccap15 given (HT codestreams whose tile-part
 * headers change what the main header says: a wider MAGB, HTIRV); NULL
 * derives it as j2k_write_main_header does. */
gj2k_status j2k_write_main_header_with_cap(byte_buffer *out, const j2k_siz *siz,
                                           const j2k_header_params *main_header,
                                           const uint16_t *ccap15, gj2k_error *error);
/* SOT (Psot left 0) and the segments of `header` (may be NULL); COD, COC,
 * QCD, QCC and RGN only in a tile's first tile-part. PLT and PPT may follow
 * through their writers; then SOD, the data, and j2k_write_tile_part_end. */
gj2k_status j2k_write_tile_part_begin(byte_buffer *out, const j2k_siz *siz, const j2k_sot *sot,
                                      const j2k_header_params *header, size_t *sot_offset,
                                      gj2k_error *error);
/* Sets Psot of the tile-part that starts at `sot_offset` to reach the end of `out`. */
gj2k_status j2k_write_tile_part_end(byte_buffer *out, size_t sot_offset, gj2k_error *error);

/* A human-readable summary of the headers (for `gj2k info`), appended to `out`. */
gj2k_status j2k_codestream_describe(const j2k_codestream *codestream, byte_buffer *out,
                                    gj2k_error *error);

#endif
