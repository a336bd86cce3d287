/* mq_coder.c - the probability estimation table (T.800 Table C.2) and the
 * initial context states (Table D.7) that the encoder and decoder share. */
#include "mq_coder.h"

/* Table C.2, one row (Qe, NMPS, NLPS, SWITCH) per index, expanded to the
 * two MPS senses: state = index << 1 | MPS. An LPS with SWITCH = 1 flips the
 * MPS. */
#define MQ_ROW(qe, nmps, nlps, sw)                                                             \
    {qe, (uint8_t)((nmps) << 1), (uint8_t)((nlps) << 1 | (sw))},                               \
    {qe, (uint8_t)((nmps) << 1 | 1), (uint8_t)((nlps) << 1 | (1 - (sw)))}

const mq_state mq_states[2 * MQ_NUM_STATES] = {
    MQ_ROW(0x5601, 1, 1, 1),   MQ_ROW(0x3401, 2, 6, 0),   MQ_ROW(0x1801, 3, 9, 0),
    MQ_ROW(0x0AC1, 4, 12, 0),  MQ_ROW(0x0521, 5, 29, 0),  MQ_ROW(0x0221, 38, 33, 0),
    MQ_ROW(0x5601, 7, 6, 1),   MQ_ROW(0x5401, 8, 14, 0),  MQ_ROW(0x4801, 9, 14, 0),
    MQ_ROW(0x3801, 10, 14, 0), MQ_ROW(0x3001, 11, 17, 0), MQ_ROW(0x2401, 12, 18, 0),
    MQ_ROW(0x1C01, 13, 20, 0), MQ_ROW(0x1601, 29, 21, 0), MQ_ROW(0x5601, 15, 14, 1),
    MQ_ROW(0x5401, 16, 14, 0), MQ_ROW(0x5101, 17, 15, 0), MQ_ROW(0x4801, 18, 16, 0),
    MQ_ROW(0x3801, 19, 17, 0), MQ_ROW(0x3401, 20, 18, 0), MQ_ROW(0x3001, 21, 19, 0),
    MQ_ROW(0x2801, 22, 19, 0), MQ_ROW(0x2401, 23, 20, 0), MQ_ROW(0x2201, 24, 21, 0),
    MQ_ROW(0x1C01, 25, 22, 0), MQ_ROW(0x1801, 26, 23, 0), MQ_ROW(0x1601, 27, 24, 0),
    MQ_ROW(0x1401, 28, 25, 0), MQ_ROW(0x1201, 29, 26, 0), MQ_ROW(0x1101, 30, 27, 0),
    MQ_ROW(0x0AC1, 31, 28, 0), MQ_ROW(0x09C1, 32, 29, 0), MQ_ROW(0x08A1, 33, 30, 0),
    MQ_ROW(0x0521, 34, 31, 0), MQ_ROW(0x0441, 35, 32, 0), MQ_ROW(0x02A1, 36, 33, 0),
    MQ_ROW(0x0221, 37, 34, 0), MQ_ROW(0x0141, 38, 35, 0), MQ_ROW(0x0111, 39, 36, 0),
    MQ_ROW(0x0085, 40, 37, 0), MQ_ROW(0x0049, 41, 38, 0), MQ_ROW(0x0025, 42, 39, 0),
    MQ_ROW(0x0015, 43, 40, 0), MQ_ROW(0x0009, 44, 41, 0), MQ_ROW(0x0005, 45, 42, 0),
    MQ_ROW(0x0001, 45, 43, 0), MQ_ROW(0x5601, 46, 46, 0),
};

void mq_reset_contexts(mq_context contexts[MQ_NUM_CONTEXTS])
{
    for (unsigned i = 0; i < MQ_NUM_CONTEXTS; i++)
        contexts[i] = 0;
    contexts[MQ_CONTEXT_ZERO_FIRST] = 4 << 1;
    contexts[MQ_CONTEXT_RUN_LENGTH] = 3 << 1;
    contexts[MQ_CONTEXT_UNIFORM] = 46 << 1;
}
