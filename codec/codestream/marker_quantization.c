/* marker_quantization.c - the QCD and QCC marker segments (A.6.4, A.6.5). */
#include "marker_io.h"

gj2k_status j2k_quantization_check(const j2k_quantization *q, const char *name,
                                   gj2k_error *error)
{
    /* Table A.28. */
    if (q->style > J2K_QUANT_EXPOUNDED)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: quantization style %u (0..2)", name,
                         q->style);
    if (q->guard_bits > 7)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: %u guard bits (0..7)", name,
                         q->guard_bits);
    if (q->num_steps == 0 || q->num_steps > J2K_MAX_SUBBANDS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: %u step sizes (1..%d)", name,
                         q->num_steps, J2K_MAX_SUBBANDS);
    if (q->style == J2K_QUANT_DERIVED && q->num_steps != 1)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: derived quantization with %u step sizes (needs 1)", name,
                         q->num_steps);
    for (unsigned i = 0; i < q->num_steps; i++) {
        if (q->steps[i].exponent > 31 || q->steps[i].mantissa > 0x7FF)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "%s: step %u (exponent %u, mantissa %u) out of range", name, i,
                             q->steps[i].exponent, q->steps[i].mantissa);
        if (q->style == J2K_QUANT_NONE && q->steps[i].mantissa != 0)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "%s: step %u has a mantissa without quantization", name, i);
    }
    return GJ2K_OK;
}

gj2k_status j2k_quantization_expand(const j2k_quantization *q, unsigned levels,
                                    quant_step steps[J2K_MAX_SUBBANDS], gj2k_error *error)
{
    if (levels > DWT_MAX_LEVELS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "quantization: %u levels", levels);
    unsigned subbands = 3 * levels + 1;
    if (q->style != J2K_QUANT_DERIVED) {
        if (q->num_steps < subbands)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "quantization: %u step sizes for %u decomposition levels (needs %u)",
                             q->num_steps, levels, subbands);
        for (unsigned b = 0; b < subbands; b++)
            steps[b] = q->steps[b];
        return GJ2K_OK;
    }
    /* Eq. E-5: the LL band lies at level NL; bands 1 + 3 (NL - n) .. + 2 at level n. */
    for (unsigned b = 0; b < subbands; b++) {
        unsigned band_level = dwt_subband_level(b, levels);
        if (!quant_step_derived(q->steps[0], levels, band_level, &steps[b]))
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "quantization: derived exponent %u - %u + %u below 0",
                             q->steps[0].exponent, levels, band_level);
    }
    return GJ2K_OK;
}

/* Sqcd/Sqcc and SPqcd/SPqcc; the count of entries follows from the length. */
static gj2k_status read_quantization(byte_reader *r, const char *name, j2k_quantization *q,
                                     gj2k_error *error)
{
    *q = (j2k_quantization){0};
    uint8_t sq;
    if (!byte_reader_u8(r, &sq))
        return j2k_segment_too_short(name, error);
    q->style = sq & 0x1F;
    q->guard_bits = sq >> 5;
    if (q->style > J2K_QUANT_EXPOUNDED)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: quantization style %u (0..2)", name,
                         q->style);
    size_t bytes = byte_reader_remaining(r);
    size_t entry_size = q->style == J2K_QUANT_NONE ? 1 : 2;
    if (bytes == 0 || bytes % entry_size != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: %zu bytes of step sizes (a multiple of %zu, at least one)", name,
                         bytes, entry_size);
    size_t count = bytes / entry_size;
    if (count > J2K_MAX_SUBBANDS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: %zu step sizes (at most %d)", name,
                         count, J2K_MAX_SUBBANDS);
    if (q->style == J2K_QUANT_DERIVED && count != 1)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: derived quantization with %zu step sizes (needs 1)", name, count);
    q->num_steps = (uint8_t)count;
    for (size_t i = 0; i < count; i++) {
        uint16_t field = 0;
        if (q->style == J2K_QUANT_NONE) {
            uint8_t byte = 0;
            (void)byte_reader_u8(r, &byte); /* length checked above */
            field = byte;
        } else {
            (void)byte_reader_u16_be(r, &field);
        }
        q->steps[i] = quant_step_unpack(field, q->style == J2K_QUANT_NONE);
    }
    return GJ2K_OK;
}

static void write_quantization(byte_buffer *out, const j2k_quantization *q)
{
    byte_buffer_put_u8(out, (uint8_t)(q->guard_bits << 5 | q->style));
    for (unsigned i = 0; i < q->num_steps; i++) {
        if (q->style == J2K_QUANT_NONE)
            byte_buffer_put_u8(out, (uint8_t)quant_step_pack(q->steps[i], true));
        else
            byte_buffer_put_u16_be(out, quant_step_pack(q->steps[i], false));
    }
}

gj2k_status j2k_qcd_read(byte_reader *segment, j2k_quantization *q, gj2k_error *error)
{
    return read_quantization(segment, "QCD", q, error);
}

gj2k_status j2k_qcd_write(byte_buffer *out, const j2k_quantization *q, gj2k_error *error)
{
    gj2k_status status = j2k_quantization_check(q, "QCD", error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_QCD);
    write_quantization(out, q);
    return j2k_segment_end(out, length_offset, "QCD", error);
}

gj2k_status j2k_qcc_read(byte_reader *segment, uint32_t num_components, j2k_qcc *qcc,
                         gj2k_error *error)
{
    *qcc = (j2k_qcc){0};
    gj2k_status status = j2k_component_index_read(segment, num_components, "QCC",
                                                  &qcc->component, error);
    if (status != GJ2K_OK)
        return status;
    return read_quantization(segment, "QCC", &qcc->quantization, error);
}

gj2k_status j2k_qcc_write(byte_buffer *out, const j2k_qcc *qcc, uint32_t num_components,
                          gj2k_error *error)
{
    if (qcc->component >= num_components)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "QCC: component %u (the image has %u)",
                         qcc->component, num_components);
    gj2k_status status = j2k_quantization_check(&qcc->quantization, "QCC", error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_QCC);
    j2k_component_field_write(out, num_components, qcc->component);
    write_quantization(out, &qcc->quantization);
    return j2k_segment_end(out, length_offset, "QCC", error);
}
