/* marker_siz.c - the SIZ marker segment (A.5.1) and the tile grid (B.3). */
#include "marker_io.h"

#include <stdlib.h>
#include <string.h>

#define SIZ_FIXED_BYTES 36u /* Lsiz - 2 without the per-component bytes (Table A.9) */

gj2k_status j2k_siz_validate(j2k_siz *siz, gj2k_error *error)
{
    if (siz->num_components == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: 0 components");
    if (siz->num_components > J2K_MAX_COMPONENTS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: %u components (at most %u)",
                         siz->num_components, J2K_MAX_COMPONENTS);
    if (siz->components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "SIZ: no component sizes");
    /* Table A.9 and B.2: a non-empty image, tiles that cover its origin. */
    if (siz->image_x0 >= siz->image_x1)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: empty image (XOsiz %u >= Xsiz %u)",
                         siz->image_x0, siz->image_x1);
    if (siz->image_y0 >= siz->image_y1)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: empty image (YOsiz %u >= Ysiz %u)",
                         siz->image_y0, siz->image_y1);
    if (siz->tile_width == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: tile width 0");
    if (siz->tile_height == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: tile height 0");
    if (siz->tile_x0 > siz->image_x0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: XTOsiz %u > XOsiz %u",
                         siz->tile_x0, siz->image_x0);
    if (siz->tile_y0 > siz->image_y0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: YTOsiz %u > YOsiz %u",
                         siz->tile_y0, siz->image_y0);
    if ((uint64_t)siz->tile_x0 + siz->tile_width <= siz->image_x0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "SIZ: the first tile column misses the image (XTOsiz + XTsiz <= XOsiz)");
    if ((uint64_t)siz->tile_y0 + siz->tile_height <= siz->image_y0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "SIZ: the first tile row misses the image (YTOsiz + YTsiz <= YOsiz)");
    for (uint32_t c = 0; c < siz->num_components; c++) {
        const j2k_component_size *component = &siz->components[c];
        if (component->precision < 1 || component->precision > GJ2K_MAX_PRECISION)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "SIZ: component %u precision %u (1..%d)", c, component->precision,
                             GJ2K_MAX_PRECISION);
        if (component->dx == 0 || component->dy == 0)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "SIZ: component %u subsampling %ux%u (XRsiz, YRsiz are 1..255)", c,
                             component->dx, component->dy);
    }
    /* Eq. B-5, in 64 bits: each count is below 2^32, their product is not. */
    uint64_t across = ((uint64_t)siz->image_x1 - siz->tile_x0 + siz->tile_width - 1) /
                      siz->tile_width;
    uint64_t down = ((uint64_t)siz->image_y1 - siz->tile_y0 + siz->tile_height - 1) /
                    siz->tile_height;
    uint64_t tiles = across * down;
    if (tiles > J2K_MAX_TILES)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "SIZ: %llu tiles (Isot allows at most %u)",
                         (unsigned long long)tiles, J2K_MAX_TILES);
    siz->tiles_across = (uint32_t)across;
    siz->tiles_down = (uint32_t)down;
    siz->num_tiles = (uint32_t)tiles;
    return GJ2K_OK;
}

gj2k_status j2k_siz_read(byte_reader *segment, j2k_siz *siz, gj2k_error *error)
{
    *siz = (j2k_siz){0};
    uint16_t rsiz, csiz;
    if (!byte_reader_u16_be(segment, &rsiz) || !byte_reader_u32_be(segment, &siz->image_x1) ||
        !byte_reader_u32_be(segment, &siz->image_y1) ||
        !byte_reader_u32_be(segment, &siz->image_x0) ||
        !byte_reader_u32_be(segment, &siz->image_y0) ||
        !byte_reader_u32_be(segment, &siz->tile_width) ||
        !byte_reader_u32_be(segment, &siz->tile_height) ||
        !byte_reader_u32_be(segment, &siz->tile_x0) ||
        !byte_reader_u32_be(segment, &siz->tile_y0) || !byte_reader_u16_be(segment, &csiz))
        return j2k_segment_too_short("SIZ", error);
    siz->capabilities = rsiz;
    if (csiz == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: 0 components");
    if (csiz > J2K_MAX_COMPONENTS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: %u components (at most %u)", csiz,
                         J2K_MAX_COMPONENTS);
    /* Lsiz = 38 + 3 Csiz: the segment must hold exactly the component bytes,
     * which also bounds the allocation by the input. */
    if (byte_reader_remaining(segment) != 3u * csiz)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "SIZ: Lsiz %zu does not match %u components",
                         SIZ_FIXED_BYTES + 2 + byte_reader_remaining(segment), csiz);
    siz->components = calloc(csiz, sizeof *siz->components);
    if (siz->components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "SIZ: out of memory");
    siz->num_components = csiz;
    for (uint32_t c = 0; c < csiz; c++) {
        uint8_t ssiz = 0, dx = 0, dy = 0;
        (void)(byte_reader_u8(segment, &ssiz) && byte_reader_u8(segment, &dx) &&
               byte_reader_u8(segment, &dy)); /* length checked above */
        siz->components[c] = (j2k_component_size){.precision = (uint8_t)((ssiz & 0x7F) + 1),
                                                  .is_signed = (ssiz & 0x80) != 0,
                                                  .dx = dx, .dy = dy};
    }
    gj2k_status status = j2k_siz_validate(siz, error);
    if (status != GJ2K_OK)
        j2k_siz_free(siz);
    return status;
}

gj2k_status j2k_siz_write(byte_buffer *out, const j2k_siz *siz, gj2k_error *error)
{
    j2k_siz checked = *siz;
    gj2k_status status = j2k_siz_validate(&checked, error);
    if (status != GJ2K_OK)
        return status;
    size_t length_offset = j2k_segment_begin(out, J2K_SIZ);
    byte_buffer_put_u16_be(out, siz->capabilities);
    byte_buffer_put_u32_be(out, siz->image_x1);
    byte_buffer_put_u32_be(out, siz->image_y1);
    byte_buffer_put_u32_be(out, siz->image_x0);
    byte_buffer_put_u32_be(out, siz->image_y0);
    byte_buffer_put_u32_be(out, siz->tile_width);
    byte_buffer_put_u32_be(out, siz->tile_height);
    byte_buffer_put_u32_be(out, siz->tile_x0);
    byte_buffer_put_u32_be(out, siz->tile_y0);
    byte_buffer_put_u16_be(out, (uint16_t)siz->num_components);
    for (uint32_t c = 0; c < siz->num_components; c++) {
        const j2k_component_size *component = &siz->components[c];
        byte_buffer_put_u8(out, (uint8_t)((component->is_signed ? 0x80 : 0) |
                                          (component->precision - 1)));
        byte_buffer_put_u8(out, component->dx);
        byte_buffer_put_u8(out, component->dy);
    }
    return j2k_segment_end(out, length_offset, "SIZ", error);
}

void j2k_siz_free(j2k_siz *siz)
{
    free(siz->components);
    siz->components = NULL;
    siz->num_components = 0;
}

static uint32_t max_u32(uint64_t a, uint64_t b) { return (uint32_t)(a > b ? a : b); }
static uint32_t min_u32(uint64_t a, uint64_t b) { return (uint32_t)(a < b ? a : b); }
static uint32_t ceil_div_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a + b - 1) / b); }

dwt_rect j2k_tile_rect(const j2k_siz *siz, uint32_t tile)
{
    /* Eq. B-6 to B-10. */
    uint32_t p = tile % siz->tiles_across, q = tile / siz->tiles_across;
    uint64_t x = siz->tile_x0 + (uint64_t)p * siz->tile_width;
    uint64_t y = siz->tile_y0 + (uint64_t)q * siz->tile_height;
    return (dwt_rect){.x0 = max_u32(x, siz->image_x0), .y0 = max_u32(y, siz->image_y0),
                      .x1 = min_u32(x + siz->tile_width, siz->image_x1),
                      .y1 = min_u32(y + siz->tile_height, siz->image_y1)};
}

dwt_rect j2k_tile_component_rect(const j2k_siz *siz, uint32_t tile, uint32_t component)
{
    /* Eq. B-12. */
    dwt_rect t = j2k_tile_rect(siz, tile);
    uint32_t dx = siz->components[component].dx, dy = siz->components[component].dy;
    return (dwt_rect){.x0 = ceil_div_u32(t.x0, dx), .y0 = ceil_div_u32(t.y0, dy),
                      .x1 = ceil_div_u32(t.x1, dx), .y1 = ceil_div_u32(t.y1, dy)};
}
