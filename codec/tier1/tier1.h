/* tier1.h - Tier-1 code-block coding of ITU-T T.800 Annex D (EBCOT bit-plane
 * coding over the MQ coder of Annex C), encoder and decoder.
 *
 * Coefficients are signed integers (two's complement int32): the quantized
 * indices q_b of Annex E, sign and magnitude, |q| < 2^31. A block has
 * `num_planes` magnitude bit-planes, planes num_planes-1 (most significant)
 * down to 0; num_planes = Mb - P, P being the missing MSBs of the packet
 * header (B.10.5). Its coding passes (D.3) are: a cleanup pass on the top
 * plane, then significance propagation, magnitude refinement and cleanup on
 * each lower plane, 3 * num_planes - 2 in all. Pass j (0-based) codes plane
 * num_planes - 1 - (j + 2) / 3.
 *
 * Codeword segments (D.4): the passes between two terminations of the coder.
 * Without style flags a block is one segment. TIER1_STYLE_TERMINATE_EACH_PASS
 * makes every pass a segment. TIER1_STYLE_BYPASS codes the significance and
 * refinement passes from the 5th plane on (pass 10 on) raw (D.6, Table D.9):
 * segments end after pass 9 and after every raw refinement and cleanup pass
 * that follows (tier1_pass_ends_segment). The last pass of a block always
 * ends one.
 */
#ifndef GJ2K_TIER1_H
#define GJ2K_TIER1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_code.h"
#include "dwt.h"
#include "gj2k.h"
#include "mq_decoder.h"
#include "mq_encoder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Code-block style flags, as in the COD/COC SPcod/SPcoc byte (Table A.19). */
#define TIER1_STYLE_BYPASS 0x01u           /* selective arithmetic coding bypass (D.6) */
#define TIER1_STYLE_RESET 0x02u            /* reset contexts after each pass (D.4) */
#define TIER1_STYLE_TERMINATE_EACH_PASS 0x04u /* terminate after each pass (D.4) */
#define TIER1_STYLE_VERTICALLY_CAUSAL 0x08u /* D.7 */
#define TIER1_STYLE_PREDICTABLE 0x10u      /* predictable termination (D.4.2) */
#define TIER1_STYLE_SEGMENTATION 0x20u     /* segmentation symbols (D.5) */
#define TIER1_STYLE_ALL 0x3Fu
/* HT code-blocks (T.814 Table A.4): decoded by ht_decode_block. */
#define TIER1_STYLE_HT 0x40u

#define TIER1_MAX_SIZE 1024    /* code-block width or height (A.6.1) */
#define TIER1_MAX_SAMPLES 4096 /* width * height (A.6.1) */
#define TIER1_MAX_PLANES 31    /* magnitudes of int32 coefficients */
#define TIER1_MAX_PASSES (3 * TIER1_MAX_PLANES - 2)
/* (width + 2) * (height + 2) at most: 1024 x 4 */
#define TIER1_MAX_FLAGS ((TIER1_MAX_SIZE + 2) * (TIER1_MAX_SAMPLES / TIER1_MAX_SIZE + 2))

typedef enum tier1_pass_type {
    TIER1_PASS_SIGNIFICANCE = 0, /* D.3.1 */
    TIER1_PASS_REFINEMENT = 1,   /* D.3.3 */
    TIER1_PASS_CLEANUP = 2       /* D.3.4 */
} tier1_pass_type;

/* Type of pass j (0-based) of a block. */
GJ2K_HD static inline tier1_pass_type tier1_pass_type_of(unsigned pass)
{
    return pass == 0 ? TIER1_PASS_CLEANUP : (tier1_pass_type)((pass - 1) % 3);
}

/* True when pass j is coded raw (D.6, Table D.9). */
GJ2K_HD static inline bool tier1_pass_is_raw(unsigned pass, unsigned style)
{
    return (style & TIER1_STYLE_BYPASS) && pass >= 10 &&
           tier1_pass_type_of(pass) != TIER1_PASS_CLEANUP;
}

/* True when the style terminates the coder after pass j (D.4, Table D.9),
 * besides the termination after the block's last pass. */
GJ2K_HD static inline bool tier1_pass_ends_segment(unsigned pass, unsigned style)
{
    /* HT (T.814 Annex B): the cleanup pass is a segment, SigProp and MagRef
     * of its set the next */
    if (style & TIER1_STYLE_HT)
        return pass % 3 != 1;
    if (style & TIER1_STYLE_TERMINATE_EACH_PASS)
        return true;
    return (style & TIER1_STYLE_BYPASS) && pass >= 9 &&
           tier1_pass_type_of(pass) != TIER1_PASS_SIGNIFICANCE;
}

/* Scratch memory for one block at a time; reuse it across blocks (one per
 * thread). Both directions take NULL to allocate their own. */
typedef struct tier1_workspace {
    uint32_t flags[TIER1_MAX_FLAGS];        /* the coders' state words (tier1_words.h), which
                                               take fewer than this */
    uint32_t magnitudes[TIER1_MAX_SAMPLES]; /* bits coded so far (encoder: all, sign in bit 31) */
    uint8_t fractions[TIER1_MAX_SAMPLES];   /* encoder: fractions of the magnitudes, 1/256 */
} tier1_workspace;

tier1_workspace *tier1_workspace_create(void);
void tier1_workspace_destroy(tier1_workspace *workspace);

/* ------------------------------------------------------------- encoder */

typedef struct tier1_pass_info {
    /* Bytes of the block's data that decode passes 0..j: a truncation point.
     * Exact where the pass ends a segment, an upper bound otherwise.
     * Non-decreasing in j. */
    size_t length;
    /* Decrease of the squared error, in squared quantization steps, when the
     * decoder reconstructs magnitudes at the middle of what it knows (value
     * with the planes below p set to 2^(p-1)) after this pass rather than
     * before it. Significance and cleanup passes never increase the error; a
     * refinement pass may. The sum over all passes is the block's energy. */
    double distortion_reduction;
    bool ends_segment;
} tier1_pass_info;

typedef struct tier1_encoded_block {
    uint8_t *data;             /* the codeword segments back to back; malloc'ed */
    size_t size;
    unsigned num_planes;       /* magnitude bit-planes coded (0 for an all-zero block) */
    unsigned missing_msbs;     /* magnitude_bits - num_planes (B.10.5) */
    unsigned num_passes;       /* 3 * num_planes - 2, or 0 */
    tier1_pass_info passes[TIER1_MAX_PASSES];
} tier1_encoded_block;

/* Encodes a width x height block (each 1..1024, width * height <= 4096) of
 * `coefficients` (row y at y * stride) of subband `band` with the style flags
 * `style`. `magnitude_bits` is Mb (E.1, 1..31): magnitudes must stay below
 * 2^Mb. All planes are coded; the caller truncates with passes[].length.
 * On failure *out holds nothing to free. */
gj2k_status tier1_encode_block(const int32_t *coefficients, size_t stride, uint32_t width,
                               uint32_t height, dwt_band band, unsigned style,
                               unsigned magnitude_bits, tier1_workspace *workspace,
                               tier1_encoded_block *out);

/* As tier1_encode_block for the irreversible path: `fractions` (same
 * layout as the coefficients) hold each |a| / Delta - |q| in 1/256, and the
 * decoder is taken to reconstruct at r = 1/2 even when every plane is known
 * (E.1.1.2), so the distortion reductions measure the error against the
 * unquantized coefficients. The coded bytes are the same. */
gj2k_status tier1_encode_block_with_fractions(const int32_t *coefficients,
                                              const uint8_t *fractions, size_t stride,
                                              uint32_t width, uint32_t height, dwt_band band,
                                              unsigned style, unsigned magnitude_bits,
                                              tier1_workspace *workspace,
                                              tier1_encoded_block *out);

/* The same bytes without the distortion reductions (left 0), for encodes
 * that keep every pass and so need no rate control: their arithmetic is
 * about a tenth of a lossless encode. */
gj2k_status tier1_encode_block_unmeasured(const int32_t *coefficients, const uint8_t *fractions,
                                          size_t stride, uint32_t width, uint32_t height,
                                          dwt_band band, unsigned style, unsigned magnitude_bits,
                                          tier1_workspace *workspace, tier1_encoded_block *out);

void tier1_encoded_block_release(tier1_encoded_block *block);

/* ------------------------------------------------------------- decoder */

/* One codeword segment: its bytes follow those of the one before. */
typedef struct tier1_segment {
    size_t length;
    unsigned num_passes;
} tier1_segment;

typedef struct tier1_decode_request {
    const uint8_t *data;           /* the segments back to back */
    size_t size;                   /* bytes available at data */
    const tier1_segment *segments; /* the passes to decode: the sum of num_passes */
    unsigned num_segments;
    unsigned num_planes;           /* Mb - missing MSBs (0..31 supported) */
    uint32_t width, height;
    dwt_band band;
    unsigned style;
} tier1_decode_request;

typedef struct tier1_decode_result {
    unsigned passes_decoded;
    /* Cleanup passes whose segmentation symbol (D.5) was not 1010: a sign of
     * corrupt data. Decoding goes on regardless. */
    unsigned segmentation_errors;
} tier1_decode_result;

/*
 * Decodes a block into `coefficients` (row y at y * stride) as signed values
 * sign * magnitude, the magnitude holding every decoded bit at its plane's
 * position and zeros below. When `lowest_known_plane` is not NULL (same
 * layout as coefficients) it receives, per coefficient, the lowest plane p
 * whose bit is known (num_planes when none is), so that a decoder can add a
 * reconstruction offset below it (Annex E.1, r in eq. E-6).
 *
 * Returns GJ2K_ERROR_INVALID_ARGUMENT for a bad size, band or style and
 * GJ2K_ERROR_UNSUPPORTED for num_planes > 31 (Mb may exceed 31 with ROI
 * shifts, beyond int32); nothing is written then. Otherwise the whole block
 * is always written, and damaged input gives GJ2K_ERROR_TRUNCATED (segments longer
 * than size: the missing bytes read as 0xFF) or GJ2K_ERROR_MALFORMED (more
 * passes than planes allow, or a segment mixing raw and arithmetic passes:
 * decoding stops there) with what could be decoded.
 */
gj2k_status tier1_decode_block(const tier1_decode_request *request, tier1_workspace *workspace,
                               int32_t *coefficients, size_t stride, uint8_t *lowest_known_plane,
                               tier1_decode_result *result);

/* ---------------------------------------- shared by the two directions */

/* Zero coding context (Table D.1) by band and 3 x 3 window: NW N NE W . E
 * SW S SE in bits 0-8, the sample's own bit 4 ignored (t1w_neighbours,
 * tier1_words.h). */
extern const uint8_t tier1_zero_context[4][512];
/* Sign coding (Tables D.2, D.3) by N, W, E, S significant in bits 1, 3, 5, 7
 * and each negative in the bit below (t1w_sign_index): context label | XOR
 * bit << 4. */
extern const uint8_t tier1_sign_table[256];
/* The tables the code being compiled reads: the host's, or on the GPU
 * their copies in device memory (codec/tier1/cuda). */
#ifdef GJ2K_DEVICE_BUILD
#define TIER1_ZERO_CONTEXT tier1_zero_context_device
#define TIER1_SIGN_TABLE tier1_sign_table_device
#else
#define TIER1_ZERO_CONTEXT tier1_zero_context
#define TIER1_SIGN_TABLE tier1_sign_table
#endif

/* Checks the geometry and style of a block (not the planes). */
bool tier1_block_is_valid(uint32_t width, uint32_t height, dwt_band band, unsigned style);

#ifdef __cplusplus
}
#endif

#endif
