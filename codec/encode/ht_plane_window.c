/* ht_plane_window.c - see ht_plane_window.h. */
#include "ht_plane_window.h"

#include <math.h>
#include <string.h>

void ht_estimate_block(const int32_t *coefficients, const uint8_t *fractions, size_t stride,
                       uint32_t width, uint32_t height, double weight, ht_block_estimate *out)
{
    /* by bit length b of |q|: samples, their squared values; quads by the
     * longest of their samples */
    uint32_t samples[32] = {0}, quads[32] = {0};
    double energy[32] = {0};
    for (uint32_t y = 0; y < height; y += 2)
        for (uint32_t x = 0; x < width; x += 2) {
            unsigned longest = 0;
            for (uint32_t dy = 0; dy < 2 && y + dy < height; dy++)
                for (uint32_t dx = 0; dx < 2 && x + dx < width; dx++) {
                    size_t i = (size_t)(y + dy) * stride + x + dx;
                    int32_t v = coefficients[i];
                    uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
                    unsigned b = m ? 32u - (unsigned)__builtin_clz(m) : 0;
                    double a = (double)m + (fractions ? fractions[i] / 256.0 : 0.0);
                    samples[b & 31]++;
                    energy[b & 31] += a * a;
                    longest = b > longest ? b : longest;
                }
            quads[longest & 31]++;
        }
    memset(out, 0, sizeof *out);
    unsigned planes = 0;
    for (unsigned b = 1; b < 32; b++)
        if (samples[b])
            planes = b;
    out->num_planes = (uint8_t)(planes < TIER1_MAX_PLANES ? planes : TIER1_MAX_PLANES);
    double total = 0.0;
    for (unsigned b = 0; b < 32; b++)
        total += energy[b];
    out->energy = (float)(total * weight);
    for (unsigned p = 0; p < out->num_planes; p++) {
        double bits = 16.0, left = 0.0; /* the segment's last bytes */
        for (unsigned b = 0; b < 32; b++) {
            if (b <= p) { /* insignificant at p: all of it left */
                left += energy[b];
                continue;
            }
            bits += samples[b] * (double)(b - p + 1) + quads[b] * 5.0;
            left += samples[b] * ldexp(1.0, 2 * (int)p) / 12.0; /* uniform in the last step */
        }
        out->bytes[p] = (float)(bits / 8.0);
        out->distortion[p] = (float)(left * weight);
    }
}

unsigned ht_estimate_choice(const ht_block_estimate *e, double lambda)
{
    unsigned best = HT_PLANE_NONE;
    double cost = e->energy;
    for (unsigned p = 0; p < e->num_planes; p++) {
        double c = e->distortion[p] + lambda * e->bytes[p];
        if (c < cost) {
            cost = c;
            best = p;
        }
    }
    return best;
}

double ht_estimate_threshold(const ht_block_estimate *blocks, size_t count, double max_bytes,
                             double max_distortion)
{
    double lo = -40.0, hi = 40.0; /* log2 of lambda */
    for (int step = 0; step < 48; step++) {
        double mid = 0.5 * (lo + hi), lambda = exp2(mid), bytes = 0.0, distortion = 0.0;
        for (size_t i = 0; i < count; i++) {
            unsigned p = ht_estimate_choice(&blocks[i], lambda);
            bytes += p == HT_PLANE_NONE ? 0.0 : blocks[i].bytes[p];
            distortion += p == HT_PLANE_NONE ? blocks[i].energy : blocks[i].distortion[p];
        }
        /* a larger lambda sends fewer bytes, with more distortion */
        bool fits = max_bytes > 0.0 ? bytes <= max_bytes : distortion <= max_distortion;
        if (max_bytes > 0.0 ? fits : !fits)
            hi = mid;
        else
            lo = mid;
    }
    return exp2(max_bytes > 0.0 ? hi : lo);
}

void ht_plane_window(const ht_block_estimate *e, double lambda, unsigned *lowest,
                     unsigned *highest)
{
    unsigned p = ht_estimate_choice(e, lambda), top = e->num_planes ? e->num_planes - 1u : 0u;
    if (p == HT_PLANE_NONE) {
        *highest = top;
        *lowest = top > 0 ? top - 1 : 0;
        return;
    }
    *highest = p + 1 < top ? p + 1 : top;
    *lowest = p > 2 ? p - 2 : 0;
}
