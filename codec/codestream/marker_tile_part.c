/* marker_tile_part.c - the SOT marker segment (A.4.2), SOP and EPH (A.8),
 * and the bare delimiting markers. */
#include "marker_io.h"

static gj2k_status check_sot(const j2k_sot *sot, gj2k_error *error)
{
    if (sot->tile_index >= J2K_MAX_TILES)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SOT: tile index %u (0..65534)",
                         sot->tile_index);
    /* A tile-part holds at least its SOT segment and SOD. */
    if (sot->length != 0 && sot->length < J2K_SOT_SEGMENT_SIZE + 2)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SOT: Psot %u (0, or at least 14)",
                         sot->length);
    if (sot->part_index == 255)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SOT: tile-part index 255 (0..254)");
    return GJ2K_OK;
}

gj2k_status j2k_sot_read(byte_reader *segment, j2k_sot *sot, gj2k_error *error)
{
    *sot = (j2k_sot){0};
    if (byte_reader_remaining(segment) != 8)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SOT: Lsot %zu (must be 10)",
                         byte_reader_remaining(segment) + 2);
    uint16_t isot = 0;
    (void)(byte_reader_u16_be(segment, &isot) && byte_reader_u32_be(segment, &sot->length) &&
           byte_reader_u8(segment, &sot->part_index) && byte_reader_u8(segment, &sot->num_parts));
    sot->tile_index = isot;
    return check_sot(sot, error);
}

gj2k_status j2k_sot_write(byte_buffer *out, const j2k_sot *sot, gj2k_error *error)
{
    gj2k_status status = check_sot(sot, error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_SOT);
    byte_buffer_put_u16_be(out, (uint16_t)sot->tile_index);
    byte_buffer_put_u32_be(out, sot->length);
    byte_buffer_put_u8(out, sot->part_index);
    byte_buffer_put_u8(out, sot->num_parts);
    return j2k_segment_end(out, length_offset, "SOT", error);
}

bool j2k_sop_parse(const uint8_t *bytes, size_t size, uint16_t *sequence)
{
    /* A.8.1: SOP, Lsop = 4, Nsop. */
    if (size < J2K_SOP_SEGMENT_SIZE || bytes[0] != 0xFF || bytes[1] != 0x91 || bytes[2] != 0 ||
        bytes[3] != 4)
        return false;
    *sequence = (uint16_t)(bytes[4] << 8 | bytes[5]);
    return true;
}

void j2k_sop_write(byte_buffer *out, uint16_t sequence)
{
    byte_buffer_put_u16_be(out, J2K_SOP);
    byte_buffer_put_u16_be(out, 4);
    byte_buffer_put_u16_be(out, sequence);
}

void j2k_marker_write(byte_buffer *out, uint16_t marker) { byte_buffer_put_u16_be(out, marker); }
