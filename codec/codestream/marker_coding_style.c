/* marker_coding_style.c - the COD and COC marker segments (A.6.1, A.6.2). */
#include "marker_io.h"

#define SCOD_PRECINCTS 0x01u /* Table A.13 */
#define SCOD_SOP 0x02u
#define SCOD_EPH 0x04u
#define CBLK_STYLE_PART1_BITS 0x3Fu /* Table A.19; bits 6 and 7 are Part 15's (T.814 Table A.4) */

void j2k_component_coding_default_precincts(j2k_component_coding *coding)
{
    for (unsigned r = 0; r < J2K_MAX_RESOLUTIONS; r++) {
        coding->precinct_width_log2[r] = 15;
        coding->precinct_height_log2[r] = 15;
    }
}

gj2k_status j2k_component_coding_check(const j2k_component_coding *coding, const char *name,
                                       gj2k_error *error)
{
    /* Table A.15. */
    if (coding->levels > DWT_MAX_LEVELS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: %u decomposition levels (at most %d)", name, coding->levels,
                         DWT_MAX_LEVELS);
    unsigned xcb = coding->code_block_width_log2, ycb = coding->code_block_height_log2;
    if (xcb < 2 || xcb > 10)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: code-block width 2^%u (exponent 2..10)", name, xcb);
    if (ycb < 2 || ycb > 10)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: code-block height 2^%u (exponent 2..10)", name, ycb);
    if (xcb + ycb > 12)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: code-block 2^%u x 2^%u (xcb + ycb at most 12)", name, xcb, ycb);
    unsigned ht = coding->code_block_style & ~CBLK_STYLE_PART1_BITS;
    if (ht == J2K_CBLK_HT_MIXED)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: code-block style 0x%02X (bit 7 without bit 6 is reserved, T.814 "
                         "Table A.4)", name, coding->code_block_style);
    if (coding->transform > J2K_TRANSFORM_53)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "%s: wavelet transform %u (Part 1 has 0: 9/7 and 1: 5/3)", name,
                         coding->transform);
    /* Table A.21: PPx and PPy are 0..15 and may be 0 only at resolution 0. */
    for (unsigned r = 0; r <= coding->levels; r++) {
        unsigned ppx = coding->precinct_width_log2[r], ppy = coding->precinct_height_log2[r];
        if (ppx > 15 || ppy > 15)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "%s: precinct 2^%u x 2^%u at resolution %u (exponents 0..15)", name,
                             ppx, ppy, r);
        if (r > 0 && (ppx == 0 || ppy == 0))
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "%s: precinct exponent 0 at resolution %u (allowed only at 0)",
                             name, r);
        if (!coding->precincts_defined && (ppx != 15 || ppy != 15))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "%s: precinct sizes given but not marked as defined", name);
    }
    return GJ2K_OK;
}

/* SPcod / SPcoc (Table A.15), after Scod / Scoc gave `precincts_defined`. */
static gj2k_status read_component_coding(byte_reader *r, bool precincts_defined,
                                         const char *name, j2k_component_coding *coding,
                                         gj2k_error *error)
{
    *coding = (j2k_component_coding){.precincts_defined = precincts_defined};
    uint8_t xcb, ycb;
    if (!byte_reader_u8(r, &coding->levels) || !byte_reader_u8(r, &xcb) ||
        !byte_reader_u8(r, &ycb) || !byte_reader_u8(r, &coding->code_block_style) ||
        !byte_reader_u8(r, &coding->transform))
        return j2k_segment_too_short(name, error);
    if (coding->levels > DWT_MAX_LEVELS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: %u decomposition levels (at most %d)", name, coding->levels,
                         DWT_MAX_LEVELS);
    /* Table A.18: the exponents are stored less 2; keep room for the check. */
    coding->code_block_width_log2 = (uint8_t)(xcb > 100 ? 100 : xcb + 2);
    coding->code_block_height_log2 = (uint8_t)(ycb > 100 ? 100 : ycb + 2);
    j2k_component_coding_default_precincts(coding);
    if (precincts_defined) {
        for (unsigned level = 0; level <= coding->levels; level++) {
            uint8_t size;
            if (!byte_reader_u8(r, &size))
                return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                                 "%s: segment too short for %u precinct sizes", name,
                                 coding->levels + 1u);
            coding->precinct_width_log2[level] = size & 0x0F;
            coding->precinct_height_log2[level] = size >> 4;
        }
    }
    gj2k_status status = j2k_component_coding_check(coding, name, error);
    if (status != GJ2K_OK)
        return status;
    return j2k_segment_check_consumed(r, name, error);
}

static void write_component_coding(byte_buffer *out, const j2k_component_coding *coding)
{
    byte_buffer_put_u8(out, coding->levels);
    byte_buffer_put_u8(out, (uint8_t)(coding->code_block_width_log2 - 2));
    byte_buffer_put_u8(out, (uint8_t)(coding->code_block_height_log2 - 2));
    byte_buffer_put_u8(out, coding->code_block_style);
    byte_buffer_put_u8(out, coding->transform);
    if (coding->precincts_defined)
        for (unsigned r = 0; r <= coding->levels; r++)
            byte_buffer_put_u8(out, (uint8_t)(coding->precinct_height_log2[r] << 4 |
                                              coding->precinct_width_log2[r]));
}

static gj2k_status check_cod(const j2k_cod *cod, gj2k_error *error)
{
    /* Tables A.16, A.17. */
    if (cod->progression > J2K_CPRL)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "COD: progression order %u (0..4)",
                         cod->progression);
    if (cod->layers == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "COD: 0 quality layers (1..65535)");
    if (cod->mct > 1)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "COD: multiple component transform %u (Part 1 has 0 and 1)", cod->mct);
    return j2k_component_coding_check(&cod->coding, "COD", error);
}

gj2k_status j2k_cod_read(byte_reader *segment, j2k_cod *cod, gj2k_error *error)
{
    *cod = (j2k_cod){0};
    uint8_t scod;
    if (!byte_reader_u8(segment, &scod) || !byte_reader_u8(segment, &cod->progression) ||
        !byte_reader_u16_be(segment, &cod->layers) || !byte_reader_u8(segment, &cod->mct))
        return j2k_segment_too_short("COD", error);
    if (scod & ~(SCOD_PRECINCTS | SCOD_SOP | SCOD_EPH))
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "COD: Scod 0x%02X (bits 3-7 are not Part 1)", scod);
    cod->use_sop = (scod & SCOD_SOP) != 0;
    cod->use_eph = (scod & SCOD_EPH) != 0;
    gj2k_status status = read_component_coding(segment, (scod & SCOD_PRECINCTS) != 0, "COD",
                                               &cod->coding, error);
    if (status != GJ2K_OK)
        return status;
    return check_cod(cod, error);
}

gj2k_status j2k_cod_write(byte_buffer *out, const j2k_cod *cod, gj2k_error *error)
{
    gj2k_status status = check_cod(cod, error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_COD);
    byte_buffer_put_u8(out, (uint8_t)((cod->coding.precincts_defined ? SCOD_PRECINCTS : 0) |
                                      (cod->use_sop ? SCOD_SOP : 0) |
                                      (cod->use_eph ? SCOD_EPH : 0)));
    byte_buffer_put_u8(out, cod->progression);
    byte_buffer_put_u16_be(out, cod->layers);
    byte_buffer_put_u8(out, cod->mct);
    write_component_coding(out, &cod->coding);
    return j2k_segment_end(out, length_offset, "COD", error);
}

gj2k_status j2k_coc_read(byte_reader *segment, uint32_t num_components, j2k_coc *coc,
                         gj2k_error *error)
{
    *coc = (j2k_coc){0};
    gj2k_status status = j2k_component_index_read(segment, num_components, "COC",
                                                  &coc->component, error);
    if (status != GJ2K_OK)
        return status;
    uint8_t scoc;
    if (!byte_reader_u8(segment, &scoc))
        return j2k_segment_too_short("COC", error);
    /* Table A.23: only bit 0 (precincts defined) is used. */
    if (scoc & ~SCOD_PRECINCTS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "COC: Scoc 0x%02X (only bit 0 is used)",
                         scoc);
    return read_component_coding(segment, (scoc & SCOD_PRECINCTS) != 0, "COC", &coc->coding,
                                 error);
}

gj2k_status j2k_coc_write(byte_buffer *out, const j2k_coc *coc, uint32_t num_components,
                          gj2k_error *error)
{
    if (coc->component >= num_components)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "COC: component %u (the image has %u)",
                         coc->component, num_components);
    gj2k_status status = j2k_component_coding_check(&coc->coding, "COC", error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_COC);
    j2k_component_field_write(out, num_components, coc->component);
    byte_buffer_put_u8(out, coc->coding.precincts_defined ? SCOD_PRECINCTS : 0);
    write_component_coding(out, &coc->coding);
    return j2k_segment_end(out, length_offset, "COC", error);
}
