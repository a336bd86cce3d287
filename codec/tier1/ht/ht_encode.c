/* ht_encode.c - see ht_encode.h. Clause numbers are T.814's.
 *
 * The segment is written as ht_decode.c reads it: MagSgn forward from the
 * start (LSB first, a byte after 0xFF holds 7 bits), then the MEL bytes
 * (MSB first, the same stuffing), then the VLC bytes in reverse order of
 * writing (LSB first; after a byte above 0x8F, one whose low 7 bits are
 * all ones holds 7 bits), the first VLC bits in the high nibble of byte
 * Lcup - 2, and Scup in the low nibble of that byte and the whole of the
 * last. */
#include "ht_encode.h"

#include "ht_encode_block.h"

#include <stdlib.h>
#include <string.h>

void ht_encode_tables_build(ht_encode_tables *tables)
{
    memset(tables, 0, sizeof *tables);
    for (int t = 0; t < 2; t++) {
        const ht_vlc_code *codes = t ? ht_vlc_table1 : ht_vlc_table0;
        size_t count = t ? HT_VLC_TABLE1_SIZE : HT_VLC_TABLE0_SIZE;
        for (size_t i = 0; i < count; i++) {
            const ht_vlc_code *c = &codes[i];
            /* a code fits every eps (within rho) that agrees with e_1 where
             * e_k is set; its cost: its length less the MagSgn bits e_k saves */
            int cost = c->length - __builtin_popcount(c->e_k);
            for (unsigned eps = 0; eps < 16; eps++) {
                if ((eps & ~(unsigned)c->rho) != 0 || (eps & c->e_k) != c->e_1)
                    continue;
                uint16_t *slot = &tables->code[t][c->context][c->rho][c->u_off][eps];
                if (*slot != 0) {
                    int old = (int)((*slot >> 7) & 7u) - __builtin_popcount((*slot >> 10) & 15u);
                    if (old <= cost)
                        continue;
                }
                *slot = (uint16_t)(c->codeword | c->length << 7 | c->e_k << 10);
            }
        }
    }
}

size_t ht_cleanup_bound(uint32_t width, uint32_t height)
{
    /* MagSgn: at most 31 bits a sample, 7 a byte when stuffed */
    return (size_t)width * height * 31 / 7 + 2 + HT_MAX_SCUP + 1;
}

gj2k_status ht_encode_cleanup(const int32_t *coefficients, size_t stride, uint32_t width,
                              uint32_t height, unsigned plane, const ht_encode_tables *tables,
                              uint8_t *out, size_t capacity, size_t *length)
{
    uint8_t scratch[2 * (HT_MAX_SCUP + 1) + 2 * (TIER1_MAX_SIZE + 4)];
    if (width > TIER1_MAX_SIZE) {
        *length = 0;
        return GJ2K_ERROR_INVALID_ARGUMENT;
    }
    return ht_encode_cleanup_in(coefficients, stride, width, height, plane, tables, out,
                                capacity, scratch, length);
}

/* ------------------------------------------------- a block's choices */

void ht_encoded_block_release(ht_encoded_block *block)
{
    free(block->data);
    memset(block, 0, sizeof *block);
}

/* Squared error of every choice: the reconstruction at each plane against
 * the value (|q| plus its fraction, or |q| alone). A sample of b bits is
 * insignificant at planes b and up, where its error is its whole value:
 * those are summed by b once, the planes below it computed one by one
 * (choices go from the coarsest plane, planes[0], down). */
static void choice_errors(const int32_t *c, const uint8_t *fractions, size_t stride, uint32_t w,
                          uint32_t h, const uint8_t *planes, unsigned count, double *error,
                          double *energy)
{
    double err[TIER1_MAX_PLANES] = {0}, by_length[33] = {0}, e0 = 0.0;
    const unsigned last = count - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t value = c[(size_t)y * stride + x];
            uint32_t m = value < 0 ? (uint32_t)0 - (uint32_t)value : (uint32_t)value;
            double a = (double)m + (fractions ? fractions[(size_t)y * stride + x] / 256.0 : 0.0);
            unsigned length = m ? 32u - (unsigned)__builtin_clz(m) : 0;
            e0 += a * a;
            by_length[length] += a * a;
            for (unsigned j = last; j <= last && planes[j] < length; j--) {
                unsigned p = planes[j];
                double r = (double)((uint64_t)(m >> p) << p) +
                           (p > 0 ? (double)(1u << (p - 1)) : fractions ? 0.5 : 0.0);
                err[j] += (a - r) * (a - r);
            }
        }
    for (unsigned j = 0; j < count; j++) {
        double zero = 0.0; /* samples no longer than planes[j] bits */
        for (unsigned length = 0; length <= planes[j]; length++)
            zero += by_length[length];
        error[j] = err[j] + zero;
    }
    *energy = e0;
}

/* Room for one more choice of `need` bytes at the end of out->data. */
static bool reserve(ht_encoded_block *out, size_t *capacity, size_t need)
{
    if (*capacity - out->size >= need)
        return true;
    size_t grown = *capacity + (*capacity > need ? *capacity : need);
    uint8_t *data = realloc(out->data, grown);
    if (data == NULL)
        return false;
    out->data = data;
    *capacity = grown;
    return true;
}

gj2k_status ht_encode_block(const int32_t *coefficients, const uint8_t *fractions, size_t stride,
                            uint32_t width, uint32_t height, unsigned lowest, unsigned highest,
                            bool refine, bool causal, const ht_encode_tables *tables,
                            ht_encoded_block *out)
{
    if (out == NULL)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (coefficients == NULL || tables == NULL || width == 0 || height == 0 ||
        width > TIER1_MAX_SIZE || height > TIER1_MAX_SIZE ||
        (size_t)width * height > TIER1_MAX_SAMPLES || stride < width)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    uint32_t all = 0;
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            int32_t v = coefficients[(size_t)y * stride + x];
            all |= v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
        }
    if (all >= 1u << 30)
        return GJ2K_ERROR_LIMIT;
    out->num_planes = all ? 32u - (unsigned)__builtin_clz(all) : 0;
    if (out->num_planes == 0)
        return GJ2K_OK;
    unsigned top = out->num_planes - 1;
    highest = highest < top ? highest : top;
    lowest = lowest < highest ? lowest : highest;
    if (lowest == 0 && highest == 0) { /* plane 0 alone, as the GPU's encoder codes it */
        size_t length = 0, capacity = ht_cleanup_bound(width, height);
        out->data = malloc(capacity);
        if (out->data == NULL)
            return GJ2K_ERROR_OUT_OF_MEMORY;
        gj2k_status status = ht_encode_cleanup(coefficients, stride, width, height, 0, tables,
                                               out->data, capacity, &length);
        if (status != GJ2K_OK) {
            ht_encoded_block_release(out);
            return status;
        }
        out->num_choices = 1;
        out->lengths[0] = out->size = length;
        out->distortion_reduction[0] =
            ht_plane0_reduction(coefficients, fractions, stride, width, height);
        return GJ2K_OK;
    }
    /* the cleanup planes' errors, then each choice coded */
    uint8_t planes[TIER1_MAX_PLANES];
    unsigned count = highest - lowest + 1;
    for (unsigned k = 0; k < count; k++)
        planes[k] = (uint8_t)(highest - k);
    double cleanup_error[TIER1_MAX_PLANES], energy, error[HT_MAX_CHOICES];
    choice_errors(coefficients, fractions, stride, width, height, planes, count, cleanup_error,
                  &energy);
    uint8_t scratch[2 * TIER1_MAX_SAMPLES];
    const size_t bound = ht_cleanup_bound(width, height);
    const size_t refinement_bound = (size_t)width * height + 16; /* 3 bits a sample at most */
    size_t capacity = 0;
    gj2k_status status = GJ2K_OK;
    for (unsigned k = 0; k < count && status == GJ2K_OK; k++) {
        unsigned j = out->num_choices;
        if (!reserve(out, &capacity, bound)) {
            status = GJ2K_ERROR_OUT_OF_MEMORY;
            break;
        }
        size_t length = 0;
        status = ht_encode_cleanup(coefficients, stride, width, height, planes[k], tables,
                                   out->data + out->size, capacity - out->size, &length);
        if (status != GJ2K_OK)
            break;
        out->planes[j] = planes[k];
        out->offsets[j] = out->size;
        out->lengths[j] = length;
        error[j] = cleanup_error[k];
        out->size += length;
        out->num_choices++;
        if (!refine || planes[k] == 0)
            continue;
        /* the same cleanup segment with the refinement of the plane below */
        if (!reserve(out, &capacity, length + refinement_bound)) {
            status = GJ2K_ERROR_OUT_OF_MEMORY;
            break;
        }
        memcpy(out->data + out->size, out->data + out->offsets[j], length);
        size_t refinement = 0;
        double left = 0.0;
        status = ht_encode_refinement_in(coefficients, fractions, stride, width, height,
                                         planes[k], causal, out->data + out->size + length,
                                         capacity - out->size - length, scratch, &refinement,
                                         &left);
        if (status != GJ2K_OK)
            break;
        out->planes[j + 1] = planes[k];
        out->offsets[j + 1] = out->size;
        out->lengths[j + 1] = length;
        out->refinements[j + 1] = refinement;
        error[j + 1] = left;
        out->size += length + refinement;
        out->num_choices++;
    }
    if (status != GJ2K_OK) {
        ht_encoded_block_release(out);
        return status;
    }
    for (unsigned j = 0; j < out->num_choices; j++)
        out->distortion_reduction[j] = (j == 0 ? energy : error[j - 1]) - error[j];
    return GJ2K_OK;
}
