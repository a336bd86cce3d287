/* codestream_describe.c - a human-readable summary of a parsed codestream's
 * headers, for `gj2k info`. */
#include "marker_io.h"

static const char *progression_name(unsigned progression)
{
    static const char *const names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    return progression <= J2K_CPRL ? names[progression] : "?";
}

static const char *capabilities_name(uint16_t rsiz)
{
    /* Table A.10 and its amendments; bit 15: Part 2, bit 14: Part 15 (HT). */
    if (rsiz & 0x8000)
        return "Part 2 extensions";
    if (rsiz & 0x4000)
        return "Part 15 (HTJ2K)";
    switch (rsiz) {
    case 0: return "Part 1";
    case 1: return "Part 1 profile 0";
    case 2: return "Part 1 profile 1";
    case 3: return "digital cinema 2K";
    case 4: return "digital cinema 4K";
    default: break;
    }
    /* T.800 Amd 8: bits 8-15 the IMF profile, 4-7 the sub level, 0-3 the main level */
    switch (J2K_RSIZ_IMF_PROFILE(rsiz)) {
    case J2K_RSIZ_IMF_2K: return "IMF 2K (single tile lossy)";
    case J2K_RSIZ_IMF_4K: return "IMF 4K (single tile lossy)";
    case J2K_RSIZ_IMF_8K: return "IMF 8K (single tile lossy)";
    case J2K_RSIZ_IMF_2K_R: return "IMF 2K_R (reversible)";
    case J2K_RSIZ_IMF_4K_R: return "IMF 4K_R (reversible)";
    case J2K_RSIZ_IMF_8K_R: return "IMF 8K_R (reversible)";
    default: return "other profile";
    }
}

static void describe_coding(byte_buffer *out, const j2k_component_coding *c)
{
    byte_buffer_printf(out, "%u levels, %s, code-blocks %ux%u, style 0x%02X%s", c->levels,
                       c->transform == J2K_TRANSFORM_53 ? "5/3 reversible" : "9/7 irreversible",
                       1u << c->code_block_width_log2, 1u << c->code_block_height_log2,
                       c->code_block_style,
                       (c->code_block_style & J2K_CBLK_HT_MIXED) ? " (HT and Part 1 mixed)"
                       : (c->code_block_style & J2K_CBLK_HT) ? " (HT)" : "");
    if (!c->precincts_defined) {
        byte_buffer_printf(out, ", maximal precincts\n");
        return;
    }
    byte_buffer_printf(out, ", precincts");
    for (unsigned r = 0; r <= c->levels; r++)
        byte_buffer_printf(out, " %ux%u", 1u << c->precinct_width_log2[r],
                           1u << c->precinct_height_log2[r]);
    byte_buffer_printf(out, "\n");
}

static void describe_quantization(byte_buffer *out, const j2k_quantization *q)
{
    static const char *const styles[] = {"none", "scalar derived", "scalar expounded"};
    byte_buffer_printf(out, "%s, %u guard bits, %u step sizes", styles[q->style % 3],
                       q->guard_bits, q->num_steps);
    byte_buffer_printf(out, " (first: exponent %u, mantissa %u)\n", q->steps[0].exponent,
                       q->steps[0].mantissa);
}

static void describe_header(byte_buffer *out, const j2k_header_params *h, const char *indent)
{
    if (h->cod != NULL) {
        const j2k_cod *cod = h->cod;
        byte_buffer_printf(out, "%sCOD: %s, %u layers, component transform %s%s%s\n%s  ", indent,
                           progression_name(cod->progression), cod->layers,
                           cod->mct ? "on" : "off", cod->use_sop ? ", SOP" : "",
                           cod->use_eph ? ", EPH" : "", indent);
        describe_coding(out, &cod->coding);
    }
    for (size_t i = 0; i < h->num_cocs; i++) {
        byte_buffer_printf(out, "%sCOC component %u: ", indent, h->cocs[i].component);
        describe_coding(out, &h->cocs[i].coding);
    }
    if (h->qcd != NULL) {
        byte_buffer_printf(out, "%sQCD: ", indent);
        describe_quantization(out, h->qcd);
    }
    for (size_t i = 0; i < h->num_qccs; i++) {
        byte_buffer_printf(out, "%sQCC component %u: ", indent, h->qccs[i].component);
        describe_quantization(out, &h->qccs[i].quantization);
    }
    for (size_t i = 0; i < h->num_rgns; i++)
        byte_buffer_printf(out, "%sRGN component %u: max-shift by %u\n", indent,
                           h->rgns[i].component, h->rgns[i].shift);
    for (size_t i = 0; i < h->num_pocs; i++) {
        const j2k_progression_change *c = &h->pocs[i];
        byte_buffer_printf(out, "%sPOC: %s to layer %u, resolutions %u..%u, components %u..%u\n",
                           indent, progression_name(c->progression), c->layer_end,
                           c->resolution_start, c->resolution_end - 1u, c->component_start,
                           c->component_end - 1u);
    }
    for (size_t i = 0; i < h->num_comments; i++) {
        const j2k_comment *com = &h->comments[i];
        if (com->registration != J2K_COMMENT_LATIN) {
            byte_buffer_printf(out, "%sCOM: %zu bytes of binary data\n", indent, com->size);
            continue;
        }
        /* Printable characters only, and at most a line's worth. */
        char text[121];
        size_t n = 0;
        for (size_t k = 0; k < com->size && n < sizeof text - 1; k++) {
            uint8_t ch = com->data[k];
            text[n++] = ch >= 0x20 && ch < 0x7F ? (char)ch : '.';
        }
        text[n] = '\0';
        byte_buffer_printf(out, "%sCOM: \"%s\"%s\n", indent, text,
                           com->size > n ? "..." : "");
    }
}

gj2k_status j2k_codestream_describe(const j2k_codestream *cs, byte_buffer *out,
                                    gj2k_error *error)
{
    const j2k_siz *siz = &cs->siz;
    byte_buffer_printf(out, "codestream: %zu bytes, %zu tile-parts in %zu tiles%s\n", cs->size,
                       cs->num_tile_parts, cs->num_tiles_present,
                       cs->has_eoc ? "" : ", no EOC");
    byte_buffer_printf(out, "SIZ: image %ux%u at (%u, %u), %s", siz->image_x1 - siz->image_x0,
                       siz->image_y1 - siz->image_y0, siz->image_x0, siz->image_y0,
                       capabilities_name(siz->capabilities));
    if (j2k_imf_profile_of(siz->capabilities) != NULL)
        byte_buffer_printf(out, ", main level %u, sub level %u",
                           J2K_RSIZ_IMF_MAIN_LEVEL(siz->capabilities),
                           J2K_RSIZ_IMF_SUB_LEVEL(siz->capabilities));
    byte_buffer_printf(out, " (Rsiz 0x%04X)\n", siz->capabilities);
    byte_buffer_printf(out, "  tiles %ux%u from (%u, %u): %u x %u = %u\n", siz->tile_width,
                       siz->tile_height, siz->tile_x0, siz->tile_y0, siz->tiles_across,
                       siz->tiles_down, siz->num_tiles);
    for (uint32_t c = 0; c < siz->num_components; c++) {
        const j2k_component_size *comp = &siz->components[c];
        byte_buffer_printf(out, "  component %u: %u-bit %s, subsampling %ux%u\n", c,
                           comp->precision, comp->is_signed ? "signed" : "unsigned", comp->dx,
                           comp->dy);
    }
    const j2k_capabilities *cap = &cs->capabilities;
    if (cap->present) {
        byte_buffer_printf(out, "CAP: Pcap 0x%08X", cap->pcap);
        if (cap->has_ccap15) /* T.814 Table A.3 */
            byte_buffer_printf(out, ", Part 15 Ccap15 0x%04X: %s%s%s%s, %s, MAGB %u", cap->ccap15,
                               j2k_ccap15_set_name(cap->ccap15),
                               cap->ccap15 & 0x2000 ? ", multiple HT sets" : "",
                               cap->ccap15 & 0x1000 ? ", RGN" : "",
                               cap->ccap15 & 0x0800 ? ", heterogeneous" : "",
                               cap->ccap15 & 0x0020 ? "irreversible (HTIRV)" : "reversible only",
                               cap->ccap15 & 0x1Fu);
        byte_buffer_printf(out, "\n");
    }
    describe_header(out, &cs->main_header, "");
    if (cs->registration != NULL)
        byte_buffer_printf(out, "CRG: component registration offsets present\n");
    if (cs->has_ppm)
        byte_buffer_printf(out, "PPM: packed packet headers in the main header\n");
    if (cs->num_tlm > 0)
        byte_buffer_printf(out, "TLM: %zu tile-part lengths\n", cs->num_tlm);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        const j2k_tile *tile = &cs->tiles[t];
        byte_buffer_printf(out, "tile %u: %zu tile-parts%s\n", tile->index, tile->num_parts,
                           tile->has_packed_headers ? ", packed packet headers" : "");
        describe_header(out, &tile->header, "  ");
        for (size_t i = 0; i < tile->num_parts; i++) {
            const j2k_tile_part *part = &tile->parts[i];
            byte_buffer_printf(out, "  tile-part %u: SOT at %zu, data [%zu, %zu)%s", part->part_index,
                               part->sot_offset, part->data_start, part->data_end,
                               part->truncated ? " truncated" : "");
            if (part->packet_lengths.count)
                byte_buffer_printf(out, ", %zu packet lengths", part->packet_lengths.count);
            byte_buffer_printf(out, "\n");
        }
    }
    if (out->failed)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory describing the codestream");
    return GJ2K_OK;
}
