/* mq_coder.c - the probability estimation table (T.800 Table C.2) that the
 * encoder and decoder share (its values: tier1_tables.h). */
#include "mq_coder.h"
#include "tier1_tables.h"

const mq_state mq_states[2 * MQ_NUM_STATES] = {MQ_STATES_INITIALIZER};
