/* describe_jp2.c - a JP2 file's boxes (T.800 Annex I) for `gj2k info`: the
 * file type (I.5.2), the header box's ihdr, colr, pclr, cmap, cdef, resc
 * and resd (I.5.3), the uuid boxes of metadata (I.7.2) and where the
 * codestream box (I.5.4) lies; as lines of text or as a JSON member. */
#include "describe.h"

/* A box type or brand (four bytes), unprintable ones and JSON's quotes
 * as '?'. */
static void describe_fourcc(uint32_t code, byte_buffer *out)
{
    for (int shift = 24; shift >= 0; shift -= 8) {
        unsigned c = (code >> shift) & 0xff;
        byte_buffer_put_u8(out, c >= 32 && c < 127 && c != '"' && c != '\\' ? (uint8_t)c : '?');
    }
}

void describe_jp2_text(const jp2_file *jp2, byte_buffer *out)
{
    byte_buffer_printf(out, "JP2 file: brand '");
    describe_fourcc(jp2->brand, out);
    byte_buffer_printf(out, "', compatible with");
    for (uint32_t i = 0; i < jp2->num_compatibility; i++) {
        byte_buffer_printf(out, " '");
        describe_fourcc(jp2->compatibility[i], out);
        byte_buffer_printf(out, "'");
    }
    byte_buffer_printf(out, "\n  ihdr: %ux%u, %u components, %s\n", jp2->header.width,
                    jp2->header.height, jp2->header.num_components,
                    jp2->header.bits_per_component == JP2_BPC_VARIES ? "depths in bpcc"
                                                                     : "one depth");
    for (uint32_t i = 0; i < jp2->num_colors; i++) {
        const jp2_color_spec *c = &jp2->colors[i];
        if (c->method == JP2_COLOR_METHOD_ENUMERATED)
            byte_buffer_printf(out, "  colr: enumerated %u%s\n", c->enumerated,
                            c->enumerated == JP2_ENUM_SRGB ? " (sRGB)"
                            : c->enumerated == JP2_ENUM_GREYSCALE ? " (greyscale)"
                            : c->enumerated == JP2_ENUM_SYCC ? " (sYCC)"
                            : c->enumerated == JP2_ENUM_ESYCC ? " (e-sYCC)" : "");
        else
            byte_buffer_printf(out, "  colr: ICC profile of %zu bytes (method %u)\n",
                            c->icc_profile_size, c->method);
    }
    if (jp2->has_palette)
        byte_buffer_printf(out, "  pclr: %u entries, %u columns; cmap: %u mappings\n",
                        jp2->palette.num_entries, jp2->palette.num_columns, jp2->num_mappings);
    for (uint32_t i = 0; i < jp2->num_channels; i++)
        byte_buffer_printf(out, "  cdef: channel %u type %u association %u\n",
                        jp2->channels[i].channel, jp2->channels[i].type,
                        jp2->channels[i].association);
    double vertical, horizontal;
    if (jp2->has_capture_resolution &&
        jp2_resolution_to_ppm(&jp2->capture_resolution, &vertical, &horizontal))
        byte_buffer_printf(out, "  resc: %.2f x %.2f pixels per metre\n", horizontal, vertical);
    if (jp2->has_display_resolution &&
        jp2_resolution_to_ppm(&jp2->display_resolution, &vertical, &horizontal))
        byte_buffer_printf(out, "  resd: %.2f x %.2f pixels per metre\n", horizontal, vertical);
    static const char *const kinds[JP2_METADATA_KINDS] = {"XMP", "EXIF", "IPTC"};
    for (int k = 0; k < JP2_METADATA_KINDS; k++)
        if (jp2->metadata[k] != NULL)
            byte_buffer_printf(out, "  uuid: %s, %zu bytes\n", kinds[k], jp2->metadata_size[k]);
    byte_buffer_printf(out, "  jp2c: codestream of %llu bytes at offset %llu\n",
                    (unsigned long long)jp2->codestream_length,
                    (unsigned long long)jp2->codestream_offset);
}

void describe_jp2_json(const jp2_file *jp2, byte_buffer *out)
{
    byte_buffer_printf(out, "\"jp2\": {\"brand\": \"");
    describe_fourcc(jp2->brand, out);
    byte_buffer_printf(out, "\", \"compatibility\": [");
    for (uint32_t i = 0; i < jp2->num_compatibility; i++) {
        byte_buffer_printf(out, "%s\"", i ? ", " : "");
        describe_fourcc(jp2->compatibility[i], out);
        byte_buffer_printf(out, "\"");
    }
    byte_buffer_printf(out, "], \"width\": %u, \"height\": %u, \"components\": %u, \"colour\": [",
                    jp2->header.width, jp2->header.height, jp2->header.num_components);
    for (uint32_t i = 0; i < jp2->num_colors; i++) {
        const jp2_color_spec *c = &jp2->colors[i];
        byte_buffer_printf(out, "%s{\"method\": %u, \"enumerated\": %u, \"icc_bytes\": %zu}",
                        i ? ", " : "", c->method,
                        c->method == JP2_COLOR_METHOD_ENUMERATED ? c->enumerated : 0,
                        c->icc_profile_size);
    }
    byte_buffer_printf(out, "], \"palette\": ");
    if (jp2->has_palette)
        byte_buffer_printf(out, "{\"entries\": %u, \"columns\": %u}", jp2->palette.num_entries,
                        jp2->palette.num_columns);
    else
        byte_buffer_printf(out, "null");
    byte_buffer_printf(out, ", \"channel_definitions\": [");
    for (uint32_t i = 0; i < jp2->num_channels; i++)
        byte_buffer_printf(out, "%s{\"channel\": %u, \"type\": %u, \"association\": %u}",
                        i ? ", " : "", jp2->channels[i].channel, jp2->channels[i].type,
                        jp2->channels[i].association);
    byte_buffer_printf(out, "], \"metadata_bytes\": {\"xmp\": %zu, \"exif\": %zu, \"iptc\": %zu}",
                    jp2->metadata_size[GJ2K_METADATA_XMP], jp2->metadata_size[GJ2K_METADATA_EXIF],
                    jp2->metadata_size[GJ2K_METADATA_IPTC]);
    byte_buffer_printf(out, ", \"codestream_offset\": %llu, \"codestream_length\": %llu}, ",
                    (unsigned long long)jp2->codestream_offset,
                    (unsigned long long)jp2->codestream_length);
}
