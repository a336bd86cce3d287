/* describe_jpeg2000.c - `gj2k info` for JPEG 2000 files: the JP2 boxes
 * (Annex I) and the codestream's markers, coding parameters and tiles
 * (Annex A), as text or as one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "commands.h"
#include "describe_codeblocks.h"
#include "image_formats.h"
#include "jp2_file.h"
#include "options.h"

static const char *progression_name(unsigned p)
{
    static const char *names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    return p < 5 ? names[p] : "unknown";
}

static void print_fourcc(uint32_t code)
{
    for (int shift = 24; shift >= 0; shift -= 8) {
        int c = (int)((code >> shift) & 0xff);
        putchar(c >= 32 && c < 127 && c != '"' && c != '\\' ? c : '?');
    }
}

/* ------------------------------------------------------------------ text */

static void print_jp2_text(const jp2_file *jp2)
{
    printf("JP2 file: brand '");
    print_fourcc(jp2->brand);
    printf("', compatible with");
    for (uint32_t i = 0; i < jp2->num_compatibility; i++) {
        printf(" '");
        print_fourcc(jp2->compatibility[i]);
        printf("'");
    }
    printf("\n  ihdr: %ux%u, %u components, %s\n", jp2->header.width, jp2->header.height,
           jp2->header.num_components,
           jp2->header.bits_per_component == JP2_BPC_VARIES ? "depths in bpcc" : "one depth");
    for (uint32_t i = 0; i < jp2->num_colors; i++) {
        const jp2_color_spec *c = &jp2->colors[i];
        if (c->method == JP2_COLOR_METHOD_ENUMERATED)
            printf("  colr: enumerated %u%s\n", c->enumerated,
                   c->enumerated == JP2_ENUM_SRGB ? " (sRGB)"
                   : c->enumerated == JP2_ENUM_GREYSCALE ? " (greyscale)"
                   : c->enumerated == JP2_ENUM_SYCC ? " (sYCC)"
                   : c->enumerated == JP2_ENUM_ESYCC ? " (e-sYCC)" : "");
        else
            printf("  colr: ICC profile of %zu bytes (method %u)\n", c->icc_profile_size, c->method);
    }
    if (jp2->has_palette)
        printf("  pclr: %u entries, %u columns; cmap: %u mappings\n", jp2->palette.num_entries,
               jp2->palette.num_columns, jp2->num_mappings);
    for (uint32_t i = 0; i < jp2->num_channels; i++)
        printf("  cdef: channel %u type %u association %u\n", jp2->channels[i].channel,
               jp2->channels[i].type, jp2->channels[i].association);
    double vertical, horizontal;
    if (jp2->has_capture_resolution &&
        jp2_resolution_to_ppm(&jp2->capture_resolution, &vertical, &horizontal))
        printf("  resc: %.2f x %.2f pixels per metre\n", horizontal, vertical);
    if (jp2->has_display_resolution &&
        jp2_resolution_to_ppm(&jp2->display_resolution, &vertical, &horizontal))
        printf("  resd: %.2f x %.2f pixels per metre\n", horizontal, vertical);
    static const char *const kinds[JP2_METADATA_KINDS] = {"XMP", "EXIF", "IPTC"};
    for (int k = 0; k < JP2_METADATA_KINDS; k++)
        if (jp2->metadata[k] != NULL)
            printf("  uuid: %s, %zu bytes\n", kinds[k], jp2->metadata_size[k]);
    printf("  jp2c: codestream of %llu bytes at offset %llu\n",
           (unsigned long long)jp2->codestream_length, (unsigned long long)jp2->codestream_offset);
}

/* ------------------------------------------------------------------ JSON */

static void print_json_jp2(const jp2_file *jp2)
{
    printf("\"jp2\": {\"brand\": \"");
    print_fourcc(jp2->brand);
    printf("\", \"compatibility\": [");
    for (uint32_t i = 0; i < jp2->num_compatibility; i++) {
        printf("%s\"", i ? ", " : "");
        print_fourcc(jp2->compatibility[i]);
        printf("\"");
    }
    printf("], \"width\": %u, \"height\": %u, \"components\": %u, \"colour\": [",
           jp2->header.width, jp2->header.height, jp2->header.num_components);
    for (uint32_t i = 0; i < jp2->num_colors; i++) {
        const jp2_color_spec *c = &jp2->colors[i];
        printf("%s{\"method\": %u, \"enumerated\": %u, \"icc_bytes\": %zu}", i ? ", " : "",
               c->method, c->method == JP2_COLOR_METHOD_ENUMERATED ? c->enumerated : 0,
               c->icc_profile_size);
    }
    printf("], \"palette\": ");
    if (jp2->has_palette)
        printf("{\"entries\": %u, \"columns\": %u}", jp2->palette.num_entries,
               jp2->palette.num_columns);
    else
        printf("null");
    printf(", \"channel_definitions\": [");
    for (uint32_t i = 0; i < jp2->num_channels; i++)
        printf("%s{\"channel\": %u, \"type\": %u, \"association\": %u}", i ? ", " : "",
               jp2->channels[i].channel, jp2->channels[i].type, jp2->channels[i].association);
    printf("], \"metadata_bytes\": {\"xmp\": %zu, \"exif\": %zu, \"iptc\": %zu}",
           jp2->metadata_size[GJ2K_METADATA_XMP], jp2->metadata_size[GJ2K_METADATA_EXIF],
           jp2->metadata_size[GJ2K_METADATA_IPTC]);
    printf(", \"codestream_offset\": %llu, \"codestream_length\": %llu}, ",
           (unsigned long long)jp2->codestream_offset, (unsigned long long)jp2->codestream_length);
}

static void print_json_coding(const j2k_component_coding *c)
{
    printf("{\"levels\": %u, \"transform\": \"%s\", \"code_block\": [%u, %u], "
           "\"code_block_style\": %u, \"precincts\": [",
           c->levels, c->transform == J2K_TRANSFORM_53 ? "5/3" : "9/7",
           1u << c->code_block_width_log2, 1u << c->code_block_height_log2, c->code_block_style);
    for (unsigned r = 0; r <= c->levels; r++)
        printf("%s[%u, %u]", r ? ", " : "", 1u << c->precinct_width_log2[r],
               1u << c->precinct_height_log2[r]);
    printf("]}");
}

static void print_json_quantization(const j2k_quantization *q)
{
    static const char *styles[] = {"none", "derived", "expounded"};
    printf("{\"style\": \"%s\", \"guard_bits\": %u, \"steps\": [",
           q->style < 3 ? styles[q->style] : "unknown", q->guard_bits);
    for (unsigned s = 0; s < q->num_steps; s++)
        printf("%s[%u, %u]", s ? ", " : "", q->steps[s].exponent, q->steps[s].mantissa);
    printf("]}");
}

static void print_json_header(const j2k_header_params *h)
{
    printf("{\"cod\": ");
    if (h->cod) {
        printf("{\"progression\": \"%s\", \"layers\": %u, \"mct\": %u, \"sop\": %s, "
               "\"eph\": %s, \"coding\": ",
               progression_name(h->cod->progression), h->cod->layers, h->cod->mct,
               h->cod->use_sop ? "true" : "false", h->cod->use_eph ? "true" : "false");
        print_json_coding(&h->cod->coding);
        printf("}");
    } else {
        printf("null");
    }
    printf(", \"qcd\": ");
    if (h->qcd)
        print_json_quantization(h->qcd);
    else
        printf("null");
    printf(", \"coc\": [");
    for (size_t i = 0; i < h->num_cocs; i++) {
        printf("%s{\"component\": %u, \"coding\": ", i ? ", " : "", h->cocs[i].component);
        print_json_coding(&h->cocs[i].coding);
        printf("}");
    }
    printf("], \"qcc\": [");
    for (size_t i = 0; i < h->num_qccs; i++) {
        printf("%s{\"component\": %u, \"quantization\": ", i ? ", " : "", h->qccs[i].component);
        print_json_quantization(&h->qccs[i].quantization);
        printf("}");
    }
    printf("], \"rgn\": [");
    for (size_t i = 0; i < h->num_rgns; i++)
        printf("%s{\"component\": %u, \"shift\": %u}", i ? ", " : "", h->rgns[i].component,
               h->rgns[i].shift);
    printf("], \"poc\": [");
    for (size_t i = 0; i < h->num_pocs; i++) {
        const j2k_progression_change *p = &h->pocs[i];
        printf("%s{\"progression\": \"%s\", \"resolutions\": [%u, %u], \"components\": [%u, %u], "
               "\"layer_end\": %u}", i ? ", " : "", progression_name(p->progression),
               p->resolution_start, p->resolution_end, p->component_start, p->component_end,
               p->layer_end);
    }
    printf("], \"comments\": [");
    for (size_t i = 0; i < h->num_comments; i++) {
        printf("%s", i ? ", " : "");
        if (h->comments[i].registration == 1)
            print_json_string((const char *)h->comments[i].data, h->comments[i].size, true);
        else
            printf("{\"binary_bytes\": %zu}", h->comments[i].size);
    }
    printf("]}");
}

static void print_json_codestream(const j2k_codestream *cs)
{
    const j2k_siz *siz = &cs->siz;
    printf("\"codestream\": {\"bytes\": %zu, \"siz\": {\"rsiz\": %u, \"x0\": %u, \"y0\": %u, "
           "\"x1\": %u, \"y1\": %u, \"tile_width\": %u, \"tile_height\": %u, \"tile_x0\": %u, "
           "\"tile_y0\": %u, \"tiles_across\": %u, \"tiles_down\": %u, \"components\": [",
           cs->size, siz->capabilities, siz->image_x0, siz->image_y0, siz->image_x1,
           siz->image_y1, siz->tile_width, siz->tile_height, siz->tile_x0, siz->tile_y0,
           siz->tiles_across, siz->tiles_down);
    for (uint32_t c = 0; c < siz->num_components; c++)
        printf("%s{\"precision\": %u, \"signed\": %s, \"dx\": %u, \"dy\": %u}", c ? ", " : "",
               siz->components[c].precision, siz->components[c].is_signed ? "true" : "false",
               siz->components[c].dx, siz->components[c].dy);
    printf("]}, \"main_header\": ");
    print_json_header(&cs->main_header);
    printf(", \"markers\": {\"tlm\": %s, \"ppm\": %s, \"crg\": %s, \"eoc\": %s}",
           cs->num_tlm ? "true" : "false", cs->has_ppm ? "true" : "false",
           cs->registration ? "true" : "false", cs->has_eoc ? "true" : "false");
    const j2k_capabilities *cap = &cs->capabilities;
    if (cap->present) {
        printf(", \"cap\": {\"pcap\": %u", cap->pcap);
        if (cap->has_ccap15) /* T.814 Table A.3 */
            printf(", \"ccap15\": %u, \"ht_set\": \"%s\", \"multiple_ht_sets\": %s, \"rgn\": %s, "
                   "\"heterogeneous\": %s, \"irreversible\": %s, \"magb\": %u",
                   cap->ccap15, j2k_ccap15_set_name(cap->ccap15),
                   cap->ccap15 & 0x2000 ? "true" : "false", cap->ccap15 & 0x1000 ? "true" : "false",
                   cap->ccap15 & 0x0800 ? "true" : "false", cap->ccap15 & 0x0020 ? "true" : "false",
                   cap->ccap15 & 0x1Fu);
        printf("}");
    }
    printf(", \"tiles\": [");
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        const j2k_tile *tile = &cs->tiles[t];
        printf("%s{\"index\": %u, \"header\": ", t ? ", " : "", tile->index);
        print_json_header(&tile->header);
        printf(", \"parts\": [");
        for (size_t p = 0; p < tile->num_parts; p++)
            printf("%s{\"part\": %u, \"data_start\": %zu, \"data_end\": %zu, \"plt\": %s}",
                   p ? ", " : "", tile->parts[p].part_index, tile->parts[p].data_start,
                   tile->parts[p].data_end,
                   tile->parts[p].packet_lengths.count ? "true" : "false");
        printf("]}");
    }
    printf("]}");
}

/* HT codestreams (a CAP with Ccap15): the census of their code-blocks. */
static bool census_wanted(const j2k_codestream *cs)
{
    return cs->capabilities.present && cs->capabilities.has_ccap15;
}

static void print_census(const codeblock_census *c, bool json)
{
    if (json)
        printf(", \"codeblocks\": {\"ht\": %llu, \"part1\": %llu, \"ht_with_placeholders\": %llu, "
               "\"ht_multiple_sets\": %llu, \"damaged_tiles\": %llu}",
               (unsigned long long)c->ht, (unsigned long long)c->part1,
               (unsigned long long)c->with_placeholders, (unsigned long long)c->multiple_sets,
               (unsigned long long)c->damaged_tiles);
    else
        printf("code-blocks with data: %llu HT (%llu with placeholder passes, %llu in more than "
               "one HT set), %llu Part 1%s\n",
               (unsigned long long)c->ht, (unsigned long long)c->with_placeholders,
               (unsigned long long)c->multiple_sets, (unsigned long long)c->part1,
               c->damaged_tiles ? "; some tiles' packets stop early" : "");
}

/* A frame rate for print_imf_check's JSON: a number, or null for no bound. */
static void print_frame_rate(double fps)
{
    if (fps > 0)
        printf("%.2f", fps);
    else
        printf("null");
}

/* A codestream that names an IMF profile (T.800 Amd 8) checked against its
 * rules, and the highest frame rates its levels' rates allow (a codestream
 * does not carry its frame rate): one line, or a JSON member. */
static void print_imf_check(const j2k_codestream *cs, bool json)
{
    unsigned rsiz = cs->siz.capabilities;
    const j2k_imf_profile *p = j2k_imf_profile_of(rsiz);
    char why[512];
    bool ok = j2k_imf_check(cs, 0, why, sizeof why);
    double by_main, by_sub;
    j2k_imf_max_frame_rates(cs, &by_main, &by_sub);
    unsigned main_level = J2K_RSIZ_IMF_MAIN_LEVEL(rsiz), sub_level = J2K_RSIZ_IMF_SUB_LEVEL(rsiz);
    if (json) {
        printf(", \"profile\": {\"name\": \"IMF %s\", \"main_level\": %u, \"sub_level\": %u, "
               "\"conforms\": %s, \"problems\": ", p->name, main_level, sub_level,
               ok ? "true" : "false");
        print_json_string(why, strlen(why), false);
        printf(", \"max_fps_main_level\": ");
        print_frame_rate(by_main);
        printf(", \"max_fps_sub_level\": ");
        print_frame_rate(by_sub);
        printf("}");
        return;
    }
    printf("profile: IMF %s, main level %u, sub level %u: %s%s\n", p->name, main_level,
           sub_level, ok ? "conforms" : "does not conform: ", why);
    /* the rates need a frame rate: the highest each level's allows */
    if (main_level > 0)
        printf("  main level %u (%.0f Msamples/s): up to %.2f fps", main_level,
               j2k_imf_main_level_msamples(main_level), by_main);
    else
        printf("  main level 0: samples a second not bounded");
    if (sub_level > 0)
        printf("; sub level %u (%.0f Mbit/s): up to %.2f fps\n", sub_level,
               j2k_imf_sub_level_mbits(sub_level), by_sub);
    else
        printf("; sub level 0: bits a second not bounded\n");
}

/* A codestream that names a cinema profile (Rsiz 3 or 4) checked against
 * it at each frame rate it allows, one line each, or a JSON member; one
 * that names an IMF profile, print_imf_check. */
static void print_profile_check(const j2k_codestream *cs, bool json)
{
    unsigned rsiz = cs->siz.capabilities;
    if (j2k_imf_profile_of(rsiz) != NULL && (rsiz & 0xF000u) == 0) {
        print_imf_check(cs, json);
        return;
    }
    if (rsiz != J2K_RSIZ_CINEMA_2K && rsiz != J2K_RSIZ_CINEMA_4K)
        return;
    const unsigned rates[] = {24, 48};
    if (json)
        printf(", \"profile\": {\"name\": \"digital cinema %s\"",
               rsiz == J2K_RSIZ_CINEMA_4K ? "4K" : "2K");
    for (int i = 0; i < 2; i++) {
        const j2k_cinema_limits *limits = j2k_cinema_limits_of(rsiz, rates[i]);
        if (limits == NULL)
            continue;
        char why[512];
        bool ok = j2k_cinema_check(cs, limits, why, sizeof why);
        if (json) {
            printf(", \"%ufps\": {\"conforms\": %s, \"problems\": ", rates[i],
                   ok ? "true" : "false");
            print_json_string(why, strlen(why), false);
            printf("}");
        } else {
            printf("profile: digital cinema %s at %u fps: %s%s\n",
                   rsiz == J2K_RSIZ_CINEMA_4K ? "4K" : "2K", rates[i],
                   ok ? "conforms" : "does not conform: ", why);
        }
    }
    if (json)
        printf("}");
}

int describe_jpeg2000(const char *path, bool json)
{
    uint8_t *data;
    size_t size;
    gj2k_error error = {0};
    if (file_read_all(path, &data, &size, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    jp2_file jp2;
    memset(&jp2, 0, sizeof jp2);
    bool is_jp2 = gj2k_format_from_signature(data, size) == GJ2K_FORMAT_JP2;
    const uint8_t *codestream = data;
    size_t codestream_size = size;
    j2k_codestream *cs = NULL;
    gj2k_status status = GJ2K_OK;
    if (is_jp2) {
        status = jp2_file_read(data, size, &jp2, report_warning, (void *)path, &error);
        codestream = data + jp2.codestream_offset;
        codestream_size = (size_t)jp2.codestream_length;
    }
    if (status == GJ2K_OK)
        status = j2k_codestream_parse(codestream, codestream_size, report_warning, (void *)path,
                                      &cs, &error);
    codeblock_census census = {0};
    bool counted = false;
    if (status == GJ2K_OK && census_wanted(cs)) {
        /* the headers are described whatever the packets hold */
        gj2k_error census_error = {0};
        counted = codeblock_census_of(cs, codestream, &census, &census_error) == GJ2K_OK;
        if (!counted) {
            char message[sizeof census_error.message + 40];
            snprintf(message, sizeof message, "code-blocks not counted: %s",
                     census_error.message);
            report_warning((void *)path, message);
        }
    }
    if (status == GJ2K_OK && json) {
        printf("{\"file\": ");
        print_json_string(path, strlen(path), false);
        printf(", \"format\": \"%s\", \"bytes\": %zu, ", is_jp2 ? "JP2" : "J2K", size);
        if (is_jp2)
            print_json_jp2(&jp2);
        print_json_codestream(cs);
        if (counted)
            print_census(&census, true);
        print_profile_check(cs, true);
        printf("}\n");
    } else if (status == GJ2K_OK) {
        printf("%s: %s, %zu bytes\n", path, is_jp2 ? "JP2 file" : "JPEG 2000 codestream", size);
        if (is_jp2)
            print_jp2_text(&jp2);
        byte_buffer text = {0};
        status = j2k_codestream_describe(cs, &text, &error);
        if (status == GJ2K_OK && !text.failed)
            fwrite(text.data, 1, text.size, stdout);
        byte_buffer_free(&text);
        if (counted)
            print_census(&census, false);
        print_profile_check(cs, false);
    }
    if (status != GJ2K_OK)
        report_error("%s: %s", path, error.message);
    j2k_codestream_destroy(cs);
    jp2_file_free(&jp2);
    free(data);
    return status == GJ2K_OK ? 0 : 1;
}
