/* mq_coder.h - what both directions of the MQ arithmetic coder of ITU-T
 * T.800 Annex C share: the contexts and the probability estimation table
 * (Table C.2). The encoder (mq_encoder.h) and the decoder (mq_decoder.h)
 * each stand on this header alone, with the raw (bypass) bit coding of
 * Annex D.6 beside them.
 *
 * A context's state is one byte: (index into Table C.2) << 1 | MPS. The
 * encoder and the decoder each carry MQ_NUM_CONTEXTS of them; they persist
 * across codeword segments and change only as the symbols and
 * mq_reset_contexts say.
 *
 * Encoder output goes to a growable buffer owned by the encoder. Codeword
 * segments (Annex D.4) are appended one after another: mq_encoder_start (or
 * mq_encoder_start_bypass) begins one at the current end of the buffer, and a
 * flush ends it. A terminated segment never ends with 0xFF: that byte is
 * dropped, since a decoder supplies 0xFF bytes past the end (C.3.4).
 *
 * The decoder reads one segment of caller-given length and never outside it:
 * past its end it sees 0xFF bytes (C.3.4), so truncated or corrupt data give
 * wrong symbols but never wrong memory accesses.
 */
#ifndef GJ2K_MQ_CODER_H
#define GJ2K_MQ_CODER_H

#include <stdint.h>

#include "device_code.h"

/* The per-symbol functions of mq_encoder.h and mq_decoder.h must be inlined
 * into the coding passes; the decoder's also compile for the GPU. */
#define MQ_INLINE GJ2K_HD_INLINE

#define MQ_NUM_CONTEXTS 19 /* Table D.7: 9 zero coding, 5 sign, 3 refinement, run-length, uniform */
#define MQ_NUM_STATES 47   /* Table C.2 */

/* The context labels of Annex D (Tables D.1-D.4, D.7). */
enum {
    MQ_CONTEXT_ZERO_FIRST = 0,    /* zero coding, 0..8 */
    MQ_CONTEXT_SIGN_FIRST = 9,    /* sign coding, 9..13 */
    MQ_CONTEXT_REFINE_FIRST = 14, /* magnitude refinement, 14..16 */
    MQ_CONTEXT_RUN_LENGTH = 17,
    MQ_CONTEXT_UNIFORM = 18
};

typedef uint8_t mq_context;

/* One state of Table C.2 for one MPS sense: Qe and the states that follow
 * an MPS and an LPS (index << 1 | MPS, SWITCH applied). */
typedef struct mq_state {
    uint32_t qe_high; /* Qe << 16: where the decoder compares and subtracts it from C */
    uint16_t qe;
    uint8_t next_mps;
    uint8_t next_lps;
} mq_state;

/* Indexed by a context's state byte: the host's table (mq_coder.c), or on
 * the GPU its copy in device memory (codec/tier1/cuda); MQ_STATES names
 * whichever the code being compiled runs beside. */
#ifdef __cplusplus
extern "C" {
#endif
extern const mq_state mq_states[2 * MQ_NUM_STATES];
#ifdef __cplusplus
}
#endif
#ifdef GJ2K_DEVICE_BUILD
#define MQ_STATES mq_states_device
#else
#define MQ_STATES mq_states
#endif

/* Sets the 19 contexts to their initial states (Table D.7): all index 0,
 * MPS 0, except UNIFORM (46), RUN-LENGTH (3) and zero coding context 0 (4). */
GJ2K_HD static inline void mq_reset_contexts(mq_context contexts[MQ_NUM_CONTEXTS])
{
    for (unsigned i = 0; i < MQ_NUM_CONTEXTS; i++)
        contexts[i] = 0;
    contexts[MQ_CONTEXT_ZERO_FIRST] = 4 << 1;
    contexts[MQ_CONTEXT_RUN_LENGTH] = 3 << 1;
    contexts[MQ_CONTEXT_UNIFORM] = 46 << 1;
}

#endif
