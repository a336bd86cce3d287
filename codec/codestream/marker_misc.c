/* marker_misc.c - the CRG and COM marker segments (A.9.1, A.9.2) and CAP
 * (T.814 A.2) with its Part 15 field Ccap15 (T.814 Table A.3). */
#include "marker_io.h"

#include <stdlib.h>
#include <string.h>

gj2k_status j2k_crg_read(byte_reader *segment, uint32_t num_components,
                         j2k_registration_offset *offsets, gj2k_error *error)
{
    /* Lcrg = 2 + 4 Csiz. */
    if (byte_reader_remaining(segment) != 4u * num_components)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CRG: %zu bytes for %u components (needs %u)",
                         byte_reader_remaining(segment), num_components, 4u * num_components);
    for (uint32_t c = 0; c < num_components; c++)
        (void)(byte_reader_u16_be(segment, &offsets[c].x) &&
               byte_reader_u16_be(segment, &offsets[c].y));
    return GJ2K_OK;
}

gj2k_status j2k_crg_write(byte_buffer *out, const j2k_registration_offset *offsets,
                          uint32_t num_components, gj2k_error *error)
{
    if (num_components == 0 || num_components > (65535u - 2u) / 4u)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "CRG: %u components do not fit one segment",
                         num_components);
    size_t length_offset = j2k_segment_begin(out, J2K_CRG);
    for (uint32_t c = 0; c < num_components; c++) {
        byte_buffer_put_u16_be(out, offsets[c].x);
        byte_buffer_put_u16_be(out, offsets[c].y);
    }
    return j2k_segment_end(out, length_offset, "CRG", error);
}

gj2k_status j2k_com_read(byte_reader *segment, j2k_comment *comment, gj2k_error *error)
{
    *comment = (j2k_comment){0};
    if (!byte_reader_u16_be(segment, &comment->registration))
        return j2k_segment_too_short("COM", error);
    size_t size = byte_reader_remaining(segment);
    if (size > 0) {
        comment->data = malloc(size);
        if (comment->data == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "COM: out of memory");
        memcpy(comment->data, segment->data + segment->position, size);
        comment->size = size;
        segment->position = segment->size;
    }
    return GJ2K_OK;
}

gj2k_status j2k_com_write(byte_buffer *out, const j2k_comment *comment, gj2k_error *error)
{
    if (comment->registration > J2K_COMMENT_LATIN)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "COM: registration %u (0 binary, 1 Latin text)", comment->registration);
    if (comment->size > 65535u - 4u)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "COM: %zu bytes (at most 65531)", comment->size);
    size_t length_offset = j2k_segment_begin(out, J2K_COM);
    byte_buffer_put_u16_be(out, comment->registration);
    byte_buffer_append(out, comment->data, comment->size);
    return j2k_segment_end(out, length_offset, "COM", error);
}

gj2k_status j2k_cap_read(byte_reader *segment, j2k_capabilities *cap, gj2k_error *error)
{
    *cap = (j2k_capabilities){.present = true};
    if (!byte_reader_u32_be(segment, &cap->pcap))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CAP: shorter than its Pcap");
    /* One Ccap for each bit set in Pcap, Part 1's (the most significant) first. */
    for (unsigned part = 1; part <= 32; part++) {
        if (!(cap->pcap & (1u << (32 - part))))
            continue;
        uint16_t ccap;
        if (!byte_reader_u16_be(segment, &ccap))
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "CAP: Pcap 0x%08X lists more parts than its Ccap fields", cap->pcap);
        if (part == 15) {
            cap->has_ccap15 = true;
            cap->ccap15 = ccap;
        }
    }
    if (byte_reader_remaining(segment) != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CAP: %zu bytes past its Ccap fields",
                         byte_reader_remaining(segment));
    return GJ2K_OK;
}

gj2k_status j2k_cap_write(byte_buffer *out, const j2k_capabilities *cap, gj2k_error *error)
{
    if (cap->pcap != J2K_PCAP_PART15 || !cap->has_ccap15)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "CAP: Pcap 0x%08X (only Part 15's Ccap is written: Pcap 0x%08X with a "
                         "Ccap15)", cap->pcap, J2K_PCAP_PART15);
    if ((cap->ccap15 & J2K_CCAP15_SET_MASK) == 0x4000u || (cap->ccap15 & J2K_CCAP15_RESERVED))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "CAP: Ccap15 0x%04X uses reserved values (T.814 Table A.3)", cap->ccap15);
    size_t length_offset = j2k_segment_begin(out, J2K_CAP);
    byte_buffer_put_u32_be(out, cap->pcap);
    byte_buffer_put_u16_be(out, cap->ccap15);
    return j2k_segment_end(out, length_offset, "CAP", error);
}

uint16_t j2k_ccap15_magb(unsigned magnitude_bits)
{
    /* T.814 Table A.3, the smallest MAGB whose bound covers B */
    if (magnitude_bits <= 8)
        return 0;
    if (magnitude_bits <= 27)
        return (uint16_t)(magnitude_bits - 8);
    if (magnitude_bits <= 71)
        return (uint16_t)(19 + (magnitude_bits - 27 + 3) / 4);
    return 31;
}

unsigned j2k_ccap15_magnitude_bound(uint16_t magb)
{
    magb &= J2K_CCAP15_MAGB_MASK;
    if (magb == 0)
        return 8;
    if (magb < 20)
        return magb + 8u;
    if (magb < 31)
        return 4u * (magb - 19u) + 27u;
    return 74;
}

gj2k_status j2k_ccap15_for_header(const j2k_siz *siz, const j2k_header_params *main_header,
                                  uint16_t *ccap15, gj2k_error *error)
{
    *ccap15 = 0;
    if (main_header->cod == NULL || main_header->qcd == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "CAP: main header without %s",
                         main_header->cod == NULL ? "COD" : "QCD");
    uint16_t value = 0; /* HTONLY, one HT set, homogeneous (T.814 Table A.3) */
    unsigned largest_mb = 0;
    for (uint32_t c = 0; c < siz->num_components; c++) {
        const j2k_coc *coc = j2k_header_find_coc(main_header, c);
        const j2k_qcc *qcc = j2k_header_find_qcc(main_header, c);
        const j2k_component_coding *coding = coc ? &coc->coding : &main_header->cod->coding;
        const j2k_quantization *q = qcc ? &qcc->quantization : main_header->qcd;
        if ((coding->code_block_style & (J2K_CBLK_HT | J2K_CBLK_HT_MIXED)) != J2K_CBLK_HT)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "CAP: component %u has code-block style 0x%02X; only codestreams "
                             "of HT code-blocks alone (HTONLY) are written", c,
                             coding->code_block_style);
        if (coding->transform == J2K_TRANSFORM_97)
            value |= J2K_CCAP15_IRREVERSIBLE;
        quant_step steps[J2K_MAX_SUBBANDS];
        gj2k_status status = j2k_quantization_expand(q, coding->levels, steps, error);
        if (status != GJ2K_OK)
            return status;
        for (unsigned b = 0; b < 3u * coding->levels + 1u; b++) {
            unsigned mb = quant_magnitude_bits(q->guard_bits, steps[b]); /* T.800 E-2 */
            largest_mb = mb > largest_mb ? mb : largest_mb;
        }
    }
    if (main_header->num_rgns > 0)
        value |= J2K_CCAP15_RGN;
    *ccap15 = (uint16_t)(value | j2k_ccap15_magb(largest_mb));
    return GJ2K_OK;
}

const char *j2k_ccap15_set_name(uint16_t ccap15)
{
    switch (ccap15 >> 14) {
    case 0: return "HTONLY";
    case 2: return "HTDECLARED";
    case 3: return "MIXED";
    default: return "reserved";
    }
}
