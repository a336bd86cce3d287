/* dwt_norms.c - the energy gain of each subband's synthesis (Annex F): how
 * much a unit error on one coefficient costs in squared sample error after
 * the inverse DWT. Rate control weighs distortion with it and the encoder
 * sizes the 9/7 quantization steps from it (Annex E.1, as OpenJPEG does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dwt.h"

/* Levels computed exactly; deeper ones extrapolate the last ratio (the
 * low-pass gain per level converges fast). */
#define EXACT_LEVELS 12
#define TAPS_LINE 64

/* The 1-D synthesis impulse responses of the lifting implementation itself:
 * one low-pass (or high-pass) coefficient set to 1, inverse-transformed once. */
static size_t synthesis_taps(bool reversible, bool high, double *taps)
{
    size_t count = 0;
    if (reversible) {
        /* 5/3 synthesis (F.3.8.1): low-pass 1/2 1 1/2, high-pass -1/8 -1/4 3/4 -1/4 -1/8. */
        static const double low[] = {0.5, 1.0, 0.5};
        static const double highs[] = {-0.125, -0.25, 0.75, -0.25, -0.125};
        count = high ? 5 : 3;
        memcpy(taps, high ? highs : low, count * sizeof *taps);
        return count;
    }
    float line[TAPS_LINE], scratch[DWT_LINE_SCRATCH(TAPS_LINE)];
    memset(line, 0, sizeof line);
    line[TAPS_LINE / 4 + (high ? TAPS_LINE / 2 : 0)] = 1.0f;
    dwt_inverse_97_line(line, 0, TAPS_LINE, scratch);
    size_t first = TAPS_LINE, last = 0;
    for (size_t i = 0; i < TAPS_LINE; i++)
        if (line[i] != 0.0f) {
            first = i < first ? i : first;
            last = i;
        }
    for (size_t i = first; i <= last; i++)
        taps[count++] = line[i];
    return count;
}

/* Squared norm of the 1-D synthesis of one coefficient `levels` levels
 * down: once through the low- or high-pass filter, then levels - 1 times
 * through the low-pass one, upsampling by 2 before each. */
static double line_energy(bool reversible, bool high, unsigned levels)
{
    double low[TAPS_LINE], first[TAPS_LINE];
    size_t low_count = synthesis_taps(reversible, false, low);
    size_t first_count = synthesis_taps(reversible, high, first);
    size_t capacity = ((size_t)1 << levels) * (first_count + low_count) + 1;
    double *response = calloc(capacity, sizeof *response);
    double *next = calloc(capacity, sizeof *next);
    double energy = NAN;
    if (response != NULL && next != NULL) {
        memcpy(response, first, first_count * sizeof *first);
        size_t length = first_count;
        for (unsigned level = 1; level < levels; level++) {
            size_t grown = 2 * length + low_count;
            memset(next, 0, grown * sizeof *next);
            for (size_t i = 0; i < length; i++)
                for (size_t t = 0; t < low_count; t++)
                    next[2 * i + t] += response[i] * low[t];
            double *swap = response;
            response = next;
            next = swap;
            length = grown;
        }
        energy = 0.0;
        for (size_t i = 0; i < length; i++)
            energy += response[i] * response[i];
    }
    free(response);
    free(next);
    return energy;
}

static double line_energy_any_depth(bool reversible, bool high, unsigned levels)
{
    if (levels <= EXACT_LEVELS)
        return line_energy(reversible, high, levels);
    double last = line_energy(reversible, high, EXACT_LEVELS);
    double ratio = last / line_energy(reversible, high, EXACT_LEVELS - 1);
    return last * pow(ratio, (double)(levels - EXACT_LEVELS));
}

double dwt_synthesis_energy(bool reversible, unsigned level, dwt_band band)
{
    if (level == 0)
        return 1.0;
    bool high_x = band == DWT_BAND_HL || band == DWT_BAND_HH;
    bool high_y = band == DWT_BAND_LH || band == DWT_BAND_HH;
    return line_energy_any_depth(reversible, high_x, level) *
           line_energy_any_depth(reversible, high_y, level);
}
