/* header_read.c - gj2k_header_read_memory and _file (include/gj2k.h): a
 * file's headers without its samples. The JP2 boxes (Annex I) and the
 * codestream's main header (Annex A: SIZ, COD) are parsed as the decoder
 * parses them; no tile is decoded, and from a file only as much is read
 * as holds the headers. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "error.h"
#include "gj2k.h"
#include "jp2_file.h"

/* The colour of a JP2 file's first colr box (I.5.3.3). */
static void read_color(const jp2_file *jp2, gj2k_header *h)
{
    h->has_palette = jp2->has_palette;
    if (jp2->num_colors == 0)
        return;
    const jp2_color_spec *spec = &jp2->colors[0];
    if (spec->method == JP2_COLOR_METHOD_ENUMERATED) {
        h->color_space = spec->enumerated == JP2_ENUM_SRGB       ? GJ2K_COLOR_SRGB
                         : spec->enumerated == JP2_ENUM_GREYSCALE ? GJ2K_COLOR_GRAY
                         : spec->enumerated == JP2_ENUM_SYCC      ? GJ2K_COLOR_SYCC
                         : spec->enumerated == JP2_ENUM_ESYCC     ? GJ2K_COLOR_ESYCC
                                                                  : GJ2K_COLOR_UNKNOWN;
        return;
    }
    h->has_icc = spec->icc_profile != NULL;
    /* ICC.1 header: the data colour space signature at bytes 16..19 */
    if (h->has_icc && spec->icc_profile_size >= 20 && memcmp(spec->icc_profile + 16, "GRAY", 4) == 0)
        h->color_space = GJ2K_COLOR_GRAY;
}

/* The codestream's SIZ and default coding into h. */
static gj2k_status read_codestream(const j2k_codestream *cs, gj2k_header *h, gj2k_error *error)
{
    const j2k_siz *siz = &cs->siz;
    h->x0 = siz->image_x0, h->y0 = siz->image_y0, h->x1 = siz->image_x1, h->y1 = siz->image_y1;
    h->width = h->x1 - h->x0, h->height = h->y1 - h->y0;
    h->num_components = siz->num_components;
    h->components = calloc(siz->num_components, sizeof *h->components);
    if (h->components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t c = 0; c < siz->num_components; c++) {
        const j2k_component_size *s = &siz->components[c];
        gj2k_header_component *out = &h->components[c];
        out->precision = s->precision;
        out->is_signed = s->is_signed;
        out->dx = s->dx, out->dy = s->dy;
        /* eq. B-2: ceil(x1 / dx) - ceil(x0 / dx) */
        out->width = (uint32_t)(((uint64_t)h->x1 + s->dx - 1) / s->dx - ((uint64_t)h->x0 + s->dx - 1) / s->dx);
        out->height = (uint32_t)(((uint64_t)h->y1 + s->dy - 1) / s->dy - ((uint64_t)h->y0 + s->dy - 1) / s->dy);
    }
    const j2k_cod *cod = cs->main_header.cod;
    h->capabilities = siz->capabilities;
    h->ht = (cod->coding.code_block_style & J2K_CBLK_HT) != 0;
    h->reversible = cod->coding.transform == J2K_TRANSFORM_53;
    h->mct = cod->mct != 0;
    h->num_resolutions = cod->coding.levels + 1u;
    h->num_layers = cod->layers;
    h->progression = (gj2k_progression)cod->progression;
    h->code_block_width = 1u << cod->coding.code_block_width_log2;
    h->code_block_height = 1u << cod->coding.code_block_height_log2;
    h->tile_width = siz->tile_width, h->tile_height = siz->tile_height;
    h->num_tiles = siz->num_tiles;
    return GJ2K_OK;
}

gj2k_status gj2k_header_read_memory(const uint8_t *data, size_t size, gj2k_header **out,
                                    gj2k_error *error)
{
    *out = NULL;
    gj2k_header *h = calloc(1, sizeof *h);
    if (h == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    h->struct_size = sizeof *h; /* the fields this library fills (gj2k.h) */
    h->format = gj2k_format_from_signature(data, size);
    const uint8_t *codestream = data;
    size_t codestream_size = size;
    jp2_file jp2 = {0};
    gj2k_status status = GJ2K_OK;
    if (h->format == GJ2K_FORMAT_JP2) {
        status = jp2_file_read(data, size, &jp2, NULL, NULL, error);
        if (status == GJ2K_OK) {
            read_color(&jp2, h);
            codestream = data + jp2.codestream_offset;
            codestream_size = (size_t)jp2.codestream_length;
        }
    } else if (h->format != GJ2K_FORMAT_J2K) {
        status = gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                           "not a JPEG 2000 file: neither a JP2 signature nor a codestream's SOC");
    }
    j2k_codestream *cs = NULL;
    if (status == GJ2K_OK) /* its warnings are the decoder's to give */
        status = j2k_codestream_parse_main_header(codestream, codestream_size, NULL, NULL, &cs,
                                                  error);
    if (status == GJ2K_OK)
        status = read_codestream(cs, h, error);
    j2k_codestream_destroy(cs);
    jp2_file_free(&jp2);
    if (status != GJ2K_OK) {
        gj2k_header_free(h);
        return status;
    }
    *out = h;
    return GJ2K_OK;
}

/* The first bytes a file's headers are looked for in; doubled until they
 * parse or the file is read whole. */
#define HEADER_FIRST_READ ((size_t)1 << 16)

/* The headers from a growing prefix of the file, so that its samples are
 * not read: the main header ends before the first tile (A.4), and a JP2
 * file's header box comes before its codestream box (I.4). A JPEG 2000
 * file whose headers do not parse is read to its end before it is refused;
 * a file of another kind, from its first bytes. */
static gj2k_status read_prefix(const char *path, gj2k_header **out, gj2k_error *error)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return gj2k_fail(error, GJ2K_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
    uint8_t *data = NULL;
    size_t size = 0, capacity = HEADER_FIRST_READ;
    gj2k_status status;
    for (;;) {
        uint8_t *grown = realloc(data, capacity);
        if (grown == NULL) {
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory reading %s", path);
            break;
        }
        data = grown;
        size += fread(data + size, 1, capacity - size, file);
        bool whole = size < capacity;
        if (whole && ferror(file)) {
            status = gj2k_fail(error, GJ2K_ERROR_IO, "cannot read %s", path);
            break;
        }
        gj2k_error attempt = {0};
        status = gj2k_header_read_memory(data, size, out, &attempt);
        /* more bytes cannot make a file of another kind JPEG 2000 */
        gj2k_file_format format = gj2k_format_from_signature(data, size);
        bool other = format != GJ2K_FORMAT_J2K && format != GJ2K_FORMAT_JP2;
        if (status == GJ2K_OK || whole || other) {
            if (status != GJ2K_OK && error != NULL)
                *error = attempt;
            break;
        }
        if (capacity > SIZE_MAX / 2) {
            status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "%s: no headers in its first %zu bytes",
                               path, size);
            break;
        }
        capacity *= 2;
    }
    free(data);
    fclose(file);
    return status;
}

gj2k_status gj2k_header_read_file(const char *path, gj2k_header **out, gj2k_error *error)
{
    *out = NULL;
    gj2k_status status = read_prefix(path, out, error);
    return status != GJ2K_OK ? gj2k_fail_naming(error, status, path) : status;
}

void gj2k_header_free(gj2k_header *header)
{
    if (header == NULL)
        return;
    free(header->components);
    free(header);
}
