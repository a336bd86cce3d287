/* marker_region.c - the RGN marker segment (A.6.3). */
#include "marker_io.h"

static gj2k_status check_rgn(const j2k_rgn *rgn, uint32_t num_components, gj2k_error *error)
{
    if (rgn->component >= num_components)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "RGN: component %u (the image has %u)",
                         rgn->component, num_components);
    /* Table A.25: Part 1 has only the implicit (max-shift) style. */
    if (rgn->style != 0)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "RGN: ROI style %u (Part 1 has only 0, max-shift)", rgn->style);
    return GJ2K_OK;
}

gj2k_status j2k_rgn_read(byte_reader *segment, uint32_t num_components, j2k_rgn *rgn,
                         gj2k_error *error)
{
    *rgn = (j2k_rgn){0};
    gj2k_status status = j2k_component_index_read(segment, num_components, "RGN",
                                                  &rgn->component, error);
    if (status != GJ2K_OK)
        return status;
    if (!byte_reader_u8(segment, &rgn->style) || !byte_reader_u8(segment, &rgn->shift))
        return j2k_segment_too_short("RGN", error);
    status = check_rgn(rgn, num_components, error);
    if (status != GJ2K_OK)
        return status;
    return j2k_segment_check_consumed(segment, "RGN", error);
}

gj2k_status j2k_rgn_write(byte_buffer *out, const j2k_rgn *rgn, uint32_t num_components,
                          gj2k_error *error)
{
    gj2k_status status = check_rgn(rgn, num_components, error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_RGN);
    j2k_component_field_write(out, num_components, rgn->component);
    byte_buffer_put_u8(out, rgn->style);
    byte_buffer_put_u8(out, rgn->shift);
    return j2k_segment_end(out, length_offset, "RGN", error);
}
