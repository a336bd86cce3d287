/* jp2_read.c - parsing the boxes of a JP2 file (T.800 Annex I). */
#include "error.h"
#include "jp2_file.h"

#include <stdlib.h>
#include <string.h>

/* One box: its type and where its contents lie in the file (Annex I.4). */
typedef struct jp2_box {
    uint32_t type;
    size_t start;         /* first byte of LBox */
    size_t content;       /* first byte of DBox */
    size_t content_size;
} jp2_box;

typedef struct jp2_reader {
    const uint8_t *data;
    size_t size;
    jp2_file *out;
    gj2k_warning_fn warning;
    void *warning_user;
    gj2k_error *error;
} jp2_reader;

/* Printable form of a box type, '?' for bytes outside ASCII graphics. */
typedef struct fourcc_text {
    char text[5];
} fourcc_text;

static fourcc_text fourcc_name(uint32_t type)
{
    fourcc_text name;
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(type >> (24 - 8 * i));
        name.text[i] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    name.text[4] = '\0';
    return name;
}

static uint16_t get_u16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

static jp2_depth decode_depth(uint8_t coded)
{
    return (jp2_depth){.precision = (uint8_t)((coded & 0x7F) + 1),
                       .is_signed = (coded & 0x80) != 0};
}

gj2k_status jp2_box_span_read(const uint8_t *data, size_t position, size_t end,
                              gj2k_warning_fn warning, void *warning_user, jp2_box_span *box,
                              gj2k_error *error)
{
    size_t available = end - position;
    if (available < 8)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "JP2: %zu bytes at offset %zu, too few for a box header", available,
                         position);
    const uint8_t *p = data + position;
    uint64_t length = jp2_be32(p);
    box->type = jp2_be32(p + 4);
    box->start = position;
    size_t header = 8;
    if (length == 1) {
        if (available < 16)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "JP2: box '%s' at offset %zu ends inside its XLBox field",
                             fourcc_name(box->type).text, position);
        length = ((uint64_t)jp2_be32(p + 8) << 32) | jp2_be32(p + 12);
        header = 16;
        if (length < 16)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "JP2: box '%s' at offset %zu has XLBox %llu (16 at least)",
                             fourcc_name(box->type).text, position, (unsigned long long)length);
    } else if (length == 0) {
        length = available;
    } else if (length < 8) {
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "JP2: box '%s' at offset %zu has reserved length %llu",
                         fourcc_name(box->type).text, position, (unsigned long long)length);
    }
    if (length > available && box->type == JP2_BOX_CODESTREAM) {
        /* A cut-off file: its codestream decodes to what it holds. */
        gj2k_warn(warning, warning_user,
                  "JP2: codestream box claims %llu bytes, %zu remain: the file is truncated",
                  (unsigned long long)length, available);
        length = available;
    }
    if (length > available)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "JP2: box '%s' at offset %zu claims %llu bytes, %zu remain",
                         fourcc_name(box->type).text, position, (unsigned long long)length,
                         available);
    box->content = position + header;
    box->end = position + (size_t)length;
    return GJ2K_OK;
}

/* jp2_box_span_read for the reader. */
static gj2k_status read_box(const jp2_reader *r, size_t position, size_t end, jp2_box *box)
{
    jp2_box_span span;
    gj2k_status status = jp2_box_span_read(r->data, position, end, r->warning, r->warning_user,
                                           &span, r->error);
    if (status == GJ2K_OK)
        *box = (jp2_box){.type = span.type, .start = span.start, .content = span.content,
                         .content_size = span.end - span.content};
    return status;
}

/* Checks that a fixed-size box has `expected` content bytes: fewer is an
 * error, more a warning. */
static gj2k_status check_size(const jp2_reader *r, const jp2_box *box, size_t expected)
{
    if (box->content_size < expected)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: %s box of %zu bytes, %zu expected",
                         fourcc_name(box->type).text, box->content_size, expected);
    if (box->content_size > expected)
        gj2k_warn(r->warning, r->warning_user,
                  "JP2: %s box of %zu bytes, %zu expected; the rest is ignored",
                  fourcc_name(box->type).text, box->content_size, expected);
    return GJ2K_OK;
}

/* ftyp (Annex I.5.2): the file must be JP2 or JPH (T.814 Annex D, the
 * same boxes), or list one of them as compatible. */
static gj2k_status read_file_type(const jp2_reader *r, const jp2_box *box)
{
    if (box->content_size < 8 || box->content_size % 4 != 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: ftyp box of %zu bytes (8 + 4n expected)", box->content_size);
    const uint8_t *p = r->data + box->content;
    jp2_file *f = r->out;
    f->brand = jp2_be32(p);
    f->minor_version = jp2_be32(p + 4);
    size_t count = (box->content_size - 8) / 4;
    bool compatible = f->brand == JP2_BRAND_JP2 || f->brand == JP2_BRAND_JPH;
    if (count > 0) {
        f->compatibility = malloc(count * sizeof *f->compatibility);
        if (f->compatibility == NULL)
            return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for ftyp");
        for (size_t i = 0; i < count; i++) {
            f->compatibility[i] = jp2_be32(p + 8 + 4 * i);
            compatible = compatible || f->compatibility[i] == JP2_BRAND_JP2 ||
                         f->compatibility[i] == JP2_BRAND_JPH;
        }
        f->num_compatibility = (uint32_t)count;
    }
    if (!compatible)
        return gj2k_fail(r->error, GJ2K_ERROR_UNSUPPORTED,
                         "JP2: file of brand '%s' lists neither 'jp2 ' nor 'jph ' as compatible",
                         fourcc_name(f->brand).text);
    return GJ2K_OK;
}

/* ihdr (Annex I.5.3.1). */
static gj2k_status read_image_header(const jp2_reader *r, const jp2_box *box)
{
    gj2k_status status = check_size(r, box, 14);
    if (status != GJ2K_OK)
        return status;
    const uint8_t *p = r->data + box->content;
    jp2_image_header *h = &r->out->header;
    *h = (jp2_image_header){.height = jp2_be32(p), .width = jp2_be32(p + 4),
                            .num_components = get_u16(p + 8), .bits_per_component = p[10],
                            .compression = p[11], .colorspace_unknown = p[12], .has_ipr = p[13]};
    if (h->height == 0 || h->width == 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: ihdr gives an empty image %ux%u",
                         h->width, h->height);
    if (h->num_components == 0 || h->num_components > GJ2K_MAX_COMPONENTS)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: ihdr gives %u components (1..%u)",
                         h->num_components, GJ2K_MAX_COMPONENTS);
    if (h->bits_per_component != JP2_BPC_VARIES &&
        decode_depth(h->bits_per_component).precision > GJ2K_MAX_PRECISION)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: ihdr gives a depth of %u bits",
                         decode_depth(h->bits_per_component).precision);
    if (h->compression != 7)
        gj2k_warn(r->warning, r->warning_user,
                  "JP2: ihdr compression type %u (7 expected); reading the codestream anyway",
                  h->compression);
    if (h->colorspace_unknown > 1 || h->has_ipr > 1)
        gj2k_warn(r->warning, r->warning_user, "JP2: ihdr UnkC %u / IPR %u (0 or 1 expected)",
                  h->colorspace_unknown, h->has_ipr);
    return GJ2K_OK;
}

/* bpcc (Annex I.5.3.2), once ihdr gave the component count. */
static gj2k_status read_bits_per_component(const jp2_reader *r, const jp2_box *box)
{
    jp2_file *f = r->out;
    gj2k_status status = check_size(r, box, f->header.num_components);
    if (status != GJ2K_OK)
        return status;
    if (f->header.bits_per_component != JP2_BPC_VARIES) {
        gj2k_warn(r->warning, r->warning_user,
                  "JP2: bpcc box ignored: ihdr gives one depth for all components");
        return GJ2K_OK;
    }
    f->component_depths = malloc(f->header.num_components * sizeof *f->component_depths);
    if (f->component_depths == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for bpcc");
    for (uint32_t c = 0; c < f->header.num_components; c++) {
        f->component_depths[c] = decode_depth(r->data[box->content + c]);
        if (f->component_depths[c].precision > GJ2K_MAX_PRECISION)
            return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                             "JP2: bpcc gives component %u a depth of %u bits", c,
                             f->component_depths[c].precision);
    }
    return GJ2K_OK;
}

/* colr (Annex I.5.3.3): every box is kept; the renderer picks one. */
static gj2k_status read_color(const jp2_reader *r, const jp2_box *box)
{
    if (box->content_size < 3)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: colr box of %zu bytes (3 at least)",
                         box->content_size);
    const uint8_t *p = r->data + box->content;
    jp2_color_spec spec = {.method = p[0], .precedence = (int8_t)p[1], .approximation = p[2]};
    if (spec.method == JP2_COLOR_METHOD_ENUMERATED) {
        if (box->content_size < 7)
            return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                             "JP2: colr box of %zu bytes, 7 expected for an enumerated space",
                             box->content_size);
        spec.enumerated = jp2_be32(p + 3);
    } else if (spec.method == JP2_COLOR_METHOD_RESTRICTED_ICC ||
               spec.method == JP2_COLOR_METHOD_ANY_ICC) {
        spec.icc_profile_size = box->content_size - 3;
        if (spec.icc_profile_size == 0) {
            gj2k_warn(r->warning, r->warning_user,
                      "JP2: colr box with an empty ICC profile ignored");
            return GJ2K_OK;
        }
        spec.icc_profile = malloc(spec.icc_profile_size);
        if (spec.icc_profile == NULL)
            return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY,
                             "JP2: out of memory for an ICC profile");
        memcpy(spec.icc_profile, p + 3, spec.icc_profile_size);
    }
    jp2_file *f = r->out;
    jp2_color_spec *grown = realloc(f->colors, (f->num_colors + 1u) * sizeof *grown);
    if (grown == NULL) {
        free(spec.icc_profile);
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for colr");
    }
    f->colors = grown;
    f->colors[f->num_colors++] = spec;
    return GJ2K_OK;
}

/* Sign-extends the low `bits` of `raw`. */
static int64_t palette_value(uint64_t raw, jp2_depth depth)
{
    uint64_t mask = ((uint64_t)1 << depth.precision) - 1;
    raw &= mask;
    if (depth.is_signed && (raw >> (depth.precision - 1)) != 0)
        return (int64_t)raw - ((int64_t)1 << depth.precision);
    return (int64_t)raw;
}

/* pclr (Annex I.5.3.4): each value takes ceil(depth / 8) big-endian bytes. */
static gj2k_status read_palette(const jp2_reader *r, const jp2_box *box)
{
    const uint8_t *p = r->data + box->content;
    size_t size = box->content_size;
    if (size < 3)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: pclr box of %zu bytes", size);
    jp2_palette *pal = &r->out->palette;
    pal->num_entries = get_u16(p);
    pal->num_columns = p[2];
    if (pal->num_entries == 0 || pal->num_entries > JP2_MAX_PALETTE_ENTRIES)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: pclr box with %u entries (1..%d allowed)", pal->num_entries,
                         JP2_MAX_PALETTE_ENTRIES);
    if (pal->num_columns == 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: pclr box with no columns");
    if (size < 3u + pal->num_columns)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: pclr box of %zu bytes cannot hold %u column depths", size,
                         pal->num_columns);
    pal->column_depths = malloc(pal->num_columns * sizeof *pal->column_depths);
    if (pal->column_depths == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for pclr");
    size_t entry_bytes = 0;
    for (uint32_t c = 0; c < pal->num_columns; c++) {
        pal->column_depths[c] = decode_depth(p[3 + c]);
        if (pal->column_depths[c].precision > GJ2K_MAX_PRECISION)
            return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                             "JP2: pclr column %u has a depth of %u bits", c,
                             pal->column_depths[c].precision);
        entry_bytes += (pal->column_depths[c].precision + 7u) / 8u;
    }
    size_t needed = 3u + pal->num_columns + (size_t)pal->num_entries * entry_bytes;
    if (size < needed)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: pclr box of %zu bytes, %zu needed",
                         size, needed);
    if (size > needed)
        gj2k_warn(r->warning, r->warning_user, "JP2: pclr box of %zu bytes, %zu expected", size,
                  needed);
    pal->values = malloc((size_t)pal->num_entries * pal->num_columns * sizeof *pal->values);
    if (pal->values == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for pclr");
    size_t at = 3u + pal->num_columns;
    for (uint32_t e = 0; e < pal->num_entries; e++) {
        for (uint32_t c = 0; c < pal->num_columns; c++) {
            uint64_t raw = 0;
            for (uint32_t b = 0; b < (pal->column_depths[c].precision + 7u) / 8u; b++)
                raw = (raw << 8) | p[at++];
            pal->values[(size_t)e * pal->num_columns + c] =
                palette_value(raw, pal->column_depths[c]);
        }
    }
    r->out->has_palette = true;
    return GJ2K_OK;
}

/* cmap (Annex I.5.3.5). */
static gj2k_status read_component_mapping(const jp2_reader *r, const jp2_box *box)
{
    size_t size = box->content_size;
    if (size == 0 || size % 4 != 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: cmap box of %zu bytes (4n expected)",
                         size);
    if (size / 4 > GJ2K_MAX_COMPONENTS)
        return gj2k_fail(r->error, GJ2K_ERROR_LIMIT, "JP2: cmap box maps %zu channels (%u at most)",
                         size / 4, GJ2K_MAX_COMPONENTS);
    jp2_file *f = r->out;
    f->mappings = malloc(size / 4 * sizeof *f->mappings);
    if (f->mappings == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cmap");
    f->num_mappings = (uint32_t)(size / 4);
    for (uint32_t i = 0; i < f->num_mappings; i++) {
        const uint8_t *p = r->data + box->content + 4 * (size_t)i;
        f->mappings[i] = (jp2_component_mapping){get_u16(p), p[2], p[3]};
        if (p[2] > 1)
            return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                             "JP2: cmap channel %u has mapping type %u (0 or 1)", i, p[2]);
    }
    return GJ2K_OK;
}

/* cdef (Annex I.5.3.6). */
static gj2k_status read_channel_definition(const jp2_reader *r, const jp2_box *box)
{
    const uint8_t *p = r->data + box->content;
    if (box->content_size < 2)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: cdef box of %zu bytes",
                         box->content_size);
    uint32_t count = get_u16(p);
    if (count == 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: cdef box defines no channel");
    gj2k_status status = check_size(r, box, 2u + 6u * (size_t)count);
    if (status != GJ2K_OK)
        return status;
    jp2_file *f = r->out;
    f->channels = malloc(count * sizeof *f->channels);
    if (f->channels == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cdef");
    f->num_channels = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *q = p + 2 + 6 * (size_t)i;
        jp2_channel_definition def = {get_u16(q), get_u16(q + 2), get_u16(q + 4)};
        if (def.type > JP2_CHANNEL_PREMULTIPLIED_OPACITY && def.type != JP2_CHANNEL_UNSPECIFIED) {
            gj2k_warn(r->warning, r->warning_user,
                      "JP2: cdef channel %u has reserved type %u, taken as unspecified",
                      def.channel, def.type);
            def.type = JP2_CHANNEL_UNSPECIFIED;
        }
        /* A channel described again (I.5.3.6 allows one description): the
         * first stands, with a warning (OpenJPEG and Grok decode such files). */
        bool repeated = false;
        for (uint32_t j = 0; j < f->num_channels && !repeated; j++)
            repeated = f->channels[j].channel == def.channel;
        if (repeated)
            gj2k_warn(r->warning, r->warning_user,
                      "JP2: cdef describes channel %u again (the first description is kept)",
                      def.channel);
        else
            f->channels[f->num_channels++] = def;
    }
    return GJ2K_OK;
}

/* res superbox (Annex I.5.3.7) holding resc and/or resd. */
static gj2k_status read_resolution(const jp2_reader *r, const jp2_box *outer)
{
    size_t end = outer->content + outer->content_size;
    for (size_t at = outer->content; at < end;) {
        jp2_box box;
        gj2k_status status = read_box(r, at, end, &box);
        if (status != GJ2K_OK)
            return status;
        at = box.content + box.content_size;
        bool capture = box.type == JP2_BOX_CAPTURE_RESOLUTION;
        if (!capture && box.type != JP2_BOX_DISPLAY_RESOLUTION) {
            gj2k_warn(r->warning, r->warning_user, "JP2: unknown box '%s' in res skipped",
                      fourcc_name(box.type).text);
            continue;
        }
        if ((status = check_size(r, &box, 10)) != GJ2K_OK)
            return status;
        const uint8_t *p = r->data + box.content;
        jp2_resolution res = {.vertical_numerator = get_u16(p),
                              .vertical_denominator = get_u16(p + 2),
                              .horizontal_numerator = get_u16(p + 4),
                              .horizontal_denominator = get_u16(p + 6),
                              .vertical_exponent = (int8_t)p[8],
                              .horizontal_exponent = (int8_t)p[9]};
        if (res.vertical_denominator == 0 || res.horizontal_denominator == 0) {
            gj2k_warn(r->warning, r->warning_user, "JP2: %s box with a zero denominator ignored",
                      fourcc_name(box.type).text);
            continue;
        }
        jp2_file *f = r->out;
        bool *has = capture ? &f->has_capture_resolution : &f->has_display_resolution;
        if (*has) {
            gj2k_warn(r->warning, r->warning_user, "JP2: second %s box ignored",
                      fourcc_name(box.type).text);
            continue;
        }
        *has = true;
        *(capture ? &f->capture_resolution : &f->display_resolution) = res;
    }
    return GJ2K_OK;
}

static int compare_mapping_keys(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Cross-box rules of the jp2h box (Annex I.5.3.4 - I.5.3.6). */
static gj2k_status check_header(const jp2_reader *r)
{
    jp2_file *f = r->out;
    if (f->header.bits_per_component == JP2_BPC_VARIES && f->component_depths == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: ihdr defers depths to a bpcc box that is missing");
    if (f->has_palette && f->mappings == NULL)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: pclr box without a cmap box");
    if (f->num_colors == 0)
        gj2k_warn(r->warning, r->warning_user, "JP2: no colr box; the colour space is unknown");
    if (f->mappings != NULL) {
        uint32_t *keys = malloc(f->num_mappings * sizeof *keys);
        if (keys == NULL)
            return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cmap");
        for (uint32_t i = 0; i < f->num_mappings; i++) {
            const jp2_component_mapping *m = &f->mappings[i];
            gj2k_status status = GJ2K_OK;
            if (m->component >= f->header.num_components)
                status = gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                                   "JP2: cmap channel %u uses component %u of %u", i, m->component,
                                   f->header.num_components);
            else if (m->map_type == 1 && !f->has_palette)
                status = gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                                   "JP2: cmap channel %u uses a palette, but there is no pclr box",
                                   i);
            else if (m->map_type == 1 && m->palette_column >= f->palette.num_columns)
                status = gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                                   "JP2: cmap channel %u uses palette column %u of %u", i,
                                   m->palette_column, f->palette.num_columns);
            if (status != GJ2K_OK) {
                free(keys);
                return status;
            }
            keys[i] = ((uint32_t)m->component << 16) | ((uint32_t)m->map_type << 8) |
                      (m->map_type == 1 ? m->palette_column : 0u);
        }
        /* A repeated mapping means nothing and would multiply the decoded image. */
        qsort(keys, f->num_mappings, sizeof *keys, compare_mapping_keys);
        for (uint32_t i = 1; i < f->num_mappings; i++) {
            if (keys[i] == keys[i - 1]) {
                uint32_t key = keys[i];
                free(keys);
                if ((key >> 8 & 0xFF) == 0)
                    return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                                     "JP2: cmap maps component %u directly twice", key >> 16);
                return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                                 "JP2: cmap maps component %u through palette column %u twice",
                                 key >> 16, key & 0xFF);
            }
        }
        free(keys);
    }
    uint32_t num_channels = f->mappings ? f->num_mappings : f->header.num_components;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < f->num_channels; i++) {
        if (f->channels[i].channel >= num_channels) {
            gj2k_warn(r->warning, r->warning_user, "JP2: cdef entry for channel %u of %u ignored",
                      f->channels[i].channel, num_channels);
            continue;
        }
        f->channels[kept++] = f->channels[i];
    }
    f->num_channels = kept;
    if (kept == 0) {
        free(f->channels);
        f->channels = NULL;
    }
    return GJ2K_OK;
}

/* jp2h superbox (Annex I.5.3): ihdr first, then the other header boxes. */
static gj2k_status read_header(const jp2_reader *r, const jp2_box *outer)
{
    size_t end = outer->content + outer->content_size;
    bool have_ihdr = false, seen_any = false;
    jp2_box bpcc = {0};
    bool have_bpcc = false;
    for (size_t at = outer->content; at < end;) {
        jp2_box box;
        gj2k_status status = read_box(r, at, end, &box);
        if (status != GJ2K_OK)
            return status;
        at = box.content + box.content_size;
        if (!seen_any && box.type != JP2_BOX_IMAGE_HEADER)
            gj2k_warn(r->warning, r->warning_user, "JP2: jp2h starts with '%s', not ihdr",
                      fourcc_name(box.type).text);
        seen_any = true;
        bool duplicate = false;
        switch (box.type) {
        case JP2_BOX_IMAGE_HEADER:
            duplicate = have_ihdr;
            if (!duplicate)
                status = read_image_header(r, &box);
            have_ihdr = true;
            break;
        case JP2_BOX_BITS_PER_COMPONENT:
            duplicate = have_bpcc;
            if (!duplicate)
                bpcc = box;
            have_bpcc = true;
            break;
        case JP2_BOX_COLOR: status = read_color(r, &box); break;
        case JP2_BOX_PALETTE:
            duplicate = r->out->has_palette;
            if (!duplicate)
                status = read_palette(r, &box);
            break;
        case JP2_BOX_COMPONENT_MAPPING:
            duplicate = r->out->mappings != NULL;
            if (!duplicate)
                status = read_component_mapping(r, &box);
            break;
        case JP2_BOX_CHANNEL_DEFINITION:
            duplicate = r->out->channels != NULL;
            if (!duplicate)
                status = read_channel_definition(r, &box);
            break;
        case JP2_BOX_RESOLUTION: status = read_resolution(r, &box); break;
        default:
            gj2k_warn(r->warning, r->warning_user, "JP2: unknown box '%s' in jp2h skipped",
                      fourcc_name(box.type).text);
        }
        if (status != GJ2K_OK)
            return status;
        if (duplicate)
            gj2k_warn(r->warning, r->warning_user, "JP2: second %s box in jp2h ignored",
                      fourcc_name(box.type).text);
    }
    if (!have_ihdr)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: jp2h box without an ihdr box");
    if (have_bpcc) {
        gj2k_status status = read_bits_per_component(r, &bpcc);
        if (status != GJ2K_OK)
            return status;
    }
    return check_header(r);
}

/* Signature (Annex I.5.1) and ftyp (I.5.2), the first two boxes. */
static gj2k_status read_preamble(const jp2_reader *r, size_t *position)
{
    static const uint8_t signature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    if (r->size < sizeof signature || memcmp(r->data, signature, sizeof signature) != 0)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: the file does not start with the JP2 signature box");
    jp2_box box;
    gj2k_status status = read_box(r, 12, r->size, &box);
    if (status != GJ2K_OK)
        return status;
    if (box.type != JP2_BOX_FILE_TYPE)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED,
                         "JP2: second box is '%s', ftyp expected", fourcc_name(box.type).text);
    *position = box.content + box.content_size;
    return read_file_type(r, &box);
}

/* A uuid box (I.7.2) of metadata gj2k carries: the first of each kind is
 * kept; others, and other UUIDs, are not needed to render. */
static gj2k_status read_metadata(const jp2_reader *r, const jp2_box *box)
{
    if (box->content_size < 16)
        return GJ2K_OK;
    const uint8_t *p = r->data + box->content;
    for (int k = 0; k < JP2_METADATA_KINDS; k++) {
        if (memcmp(p, jp2_metadata_uuids[k], 16) != 0 || r->out->metadata[k] != NULL)
            continue;
        const uint8_t *data = p + 16;
        size_t size = box->content_size - 16;
        if (k == GJ2K_METADATA_EXIF && size >= 6 && memcmp(data, "Exif\0\0", 6) == 0)
            data += 6, size -= 6; /* the JPEG APP1 header some writers keep */
        if (size == 0)
            return GJ2K_OK;
        r->out->metadata[k] = malloc(size);
        if (r->out->metadata[k] == NULL)
            return gj2k_fail(r->error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory");
        memcpy(r->out->metadata[k], data, size);
        r->out->metadata_size[k] = size;
    }
    return GJ2K_OK;
}

static gj2k_status read_file(const jp2_reader *r)
{
    size_t at = 0;
    gj2k_status status = read_preamble(r, &at);
    if (status != GJ2K_OK)
        return status;
    bool have_header = false, have_codestream = false;
    while (at < r->size) {
        jp2_box box;
        gj2k_error box_error = {0};
        jp2_reader lenient = *r;
        lenient.error = &box_error;
        status = read_box(&lenient, at, r->size, &box);
        if (status != GJ2K_OK) {
            if (have_header && have_codestream) {
                /* Nothing needed remains: trailing damage is only a warning. */
                gj2k_warn(r->warning, r->warning_user, "%s; the rest of the file is ignored",
                          box_error.message);
                break;
            }
            return gj2k_fail(r->error, status, "%s", box_error.message);
        }
        at = box.content + box.content_size;
        switch (box.type) {
        case JP2_BOX_HEADER:
            if (have_header) {
                gj2k_warn(r->warning, r->warning_user, "JP2: second jp2h box ignored");
                break;
            }
            if (have_codestream)
                gj2k_warn(r->warning, r->warning_user, "JP2: jp2h box follows the jp2c box");
            if ((status = read_header(r, &box)) != GJ2K_OK)
                return status;
            have_header = true;
            break;
        case JP2_BOX_CODESTREAM:
            if (have_codestream)
                break; /* Annex I.5.4: only the first codestream is read */
            if (box.content_size == 0)
                return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: empty jp2c box");
            r->out->codestream_offset = box.content;
            r->out->codestream_length = box.content_size;
            have_codestream = true;
            break;
        case JP2_BOX_SIGNATURE:
        case JP2_BOX_FILE_TYPE:
            gj2k_warn(r->warning, r->warning_user, "JP2: repeated %s box ignored",
                      fourcc_name(box.type).text);
            break;
        case JP2_BOX_UUID:
            if ((status = read_metadata(r, &box)) != GJ2K_OK)
                return status;
            break;
        default: break; /* xml, jp2i, uinf, rreq...: not needed to render */
        }
    }
    if (!have_header)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: no jp2h header box");
    if (!have_codestream)
        return gj2k_fail(r->error, GJ2K_ERROR_MALFORMED, "JP2: no jp2c codestream box");
    return GJ2K_OK;
}

gj2k_status jp2_file_read(const uint8_t *data, size_t size, jp2_file *out,
                          gj2k_warning_fn warning, void *warning_user, gj2k_error *error)
{
    *out = (jp2_file){0};
    if (data == NULL && size > 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "JP2: no data");
    jp2_reader reader = {.data = data, .size = size, .out = out, .warning = warning,
                         .warning_user = warning_user, .error = error};
    gj2k_status status = read_file(&reader);
    if (status != GJ2K_OK)
        jp2_file_free(out);
    return status;
}

void jp2_file_free(jp2_file *file)
{
    if (file == NULL)
        return;
    free(file->compatibility);
    free(file->component_depths);
    for (uint32_t i = 0; i < file->num_colors; i++)
        free(file->colors[i].icc_profile);
    free(file->colors);
    free(file->palette.column_depths);
    free(file->palette.values);
    free(file->mappings);
    free(file->channels);
    for (int k = 0; k < JP2_METADATA_KINDS; k++)
        free(file->metadata[k]);
    *file = (jp2_file){0};
}

bool jp2_file_component_depth(const jp2_file *file, uint32_t component, jp2_depth *depth)
{
    if (component >= file->header.num_components)
        return false;
    if (file->component_depths != NULL) {
        *depth = file->component_depths[component];
        return true;
    }
    if (file->header.bits_per_component == JP2_BPC_VARIES)
        return false;
    *depth = decode_depth(file->header.bits_per_component);
    return true;
}
