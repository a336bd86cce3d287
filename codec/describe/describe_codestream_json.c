/* describe_codestream_json.c - a codestream (T.800 Annex A) as the JSON
 * member "codestream" of `gj2k info --json`: SIZ (A.5.1), the main and
 * tile-part headers' COD, COC, QCD, QCC, RGN, POC and COM (A.6, A.9), the
 * markers present (TLM, PPM, CRG, EOC), CAP (T.814 Table A.3) and each
 * tile's parts (SOT, A.4.2). The text is j2k_codestream_describe's. */
#include "describe.h"

static const char *progression_name(unsigned p)
{
    static const char *names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    return p < 5 ? names[p] : "unknown";
}

static void describe_coding(const j2k_component_coding *c, byte_buffer *out)
{
    byte_buffer_printf(out, "{\"levels\": %u, \"transform\": \"%s\", \"code_block\": [%u, %u], "
                    "\"code_block_style\": %u, \"precincts\": [",
                    c->levels, c->transform == J2K_TRANSFORM_53 ? "5/3" : "9/7",
                    1u << c->code_block_width_log2, 1u << c->code_block_height_log2,
                    c->code_block_style);
    for (unsigned r = 0; r <= c->levels; r++)
        byte_buffer_printf(out, "%s[%u, %u]", r ? ", " : "", 1u << c->precinct_width_log2[r],
                        1u << c->precinct_height_log2[r]);
    byte_buffer_printf(out, "]}");
}

static void describe_quantization(const j2k_quantization *q, byte_buffer *out)
{
    static const char *styles[] = {"none", "derived", "expounded"};
    byte_buffer_printf(out, "{\"style\": \"%s\", \"guard_bits\": %u, \"steps\": [",
                    q->style < 3 ? styles[q->style] : "unknown", q->guard_bits);
    for (unsigned s = 0; s < q->num_steps; s++)
        byte_buffer_printf(out, "%s[%u, %u]", s ? ", " : "", q->steps[s].exponent,
                        q->steps[s].mantissa);
    byte_buffer_printf(out, "]}");
}

/* A main or tile-part header's markers. */
static void describe_header(const j2k_header_params *h, byte_buffer *out)
{
    byte_buffer_printf(out, "{\"cod\": ");
    if (h->cod) {
        byte_buffer_printf(out, "{\"progression\": \"%s\", \"layers\": %u, \"mct\": %u, "
                        "\"sop\": %s, \"eph\": %s, \"coding\": ",
                        progression_name(h->cod->progression), h->cod->layers, h->cod->mct,
                        describe_json_bool(h->cod->use_sop), describe_json_bool(h->cod->use_eph));
        describe_coding(&h->cod->coding, out);
        byte_buffer_printf(out, "}");
    } else {
        byte_buffer_printf(out, "null");
    }
    byte_buffer_printf(out, ", \"qcd\": ");
    if (h->qcd)
        describe_quantization(h->qcd, out);
    else
        byte_buffer_printf(out, "null");
    byte_buffer_printf(out, ", \"coc\": [");
    for (size_t i = 0; i < h->num_cocs; i++) {
        byte_buffer_printf(out, "%s{\"component\": %u, \"coding\": ", i ? ", " : "",
                        h->cocs[i].component);
        describe_coding(&h->cocs[i].coding, out);
        byte_buffer_printf(out, "}");
    }
    byte_buffer_printf(out, "], \"qcc\": [");
    for (size_t i = 0; i < h->num_qccs; i++) {
        byte_buffer_printf(out, "%s{\"component\": %u, \"quantization\": ", i ? ", " : "",
                        h->qccs[i].component);
        describe_quantization(&h->qccs[i].quantization, out);
        byte_buffer_printf(out, "}");
    }
    byte_buffer_printf(out, "], \"rgn\": [");
    for (size_t i = 0; i < h->num_rgns; i++)
        byte_buffer_printf(out, "%s{\"component\": %u, \"shift\": %u}", i ? ", " : "",
                        h->rgns[i].component, h->rgns[i].shift);
    byte_buffer_printf(out, "], \"poc\": [");
    for (size_t i = 0; i < h->num_pocs; i++) {
        const j2k_progression_change *p = &h->pocs[i];
        byte_buffer_printf(out, "%s{\"progression\": \"%s\", \"resolutions\": [%u, %u], "
                        "\"components\": [%u, %u], \"layer_end\": %u}",
                        i ? ", " : "", progression_name(p->progression), p->resolution_start,
                        p->resolution_end, p->component_start, p->component_end, p->layer_end);
    }
    byte_buffer_printf(out, "], \"comments\": [");
    for (size_t i = 0; i < h->num_comments; i++) {
        byte_buffer_printf(out, "%s", i ? ", " : "");
        if (h->comments[i].registration == J2K_COMMENT_LATIN) /* A.9.2: Latin text */
            describe_json_string(out, (const char *)h->comments[i].data, h->comments[i].size,
                                 true);
        else
            byte_buffer_printf(out, "{\"binary_bytes\": %zu}", h->comments[i].size);
    }
    byte_buffer_printf(out, "]}");
}

void describe_codestream_json(const j2k_codestream *cs, byte_buffer *out)
{
    const j2k_siz *siz = &cs->siz;
    byte_buffer_printf(out, "\"codestream\": {\"bytes\": %zu, \"siz\": {\"rsiz\": %u, \"x0\": %u, "
                    "\"y0\": %u, \"x1\": %u, \"y1\": %u, \"tile_width\": %u, "
                    "\"tile_height\": %u, \"tile_x0\": %u, \"tile_y0\": %u, "
                    "\"tiles_across\": %u, \"tiles_down\": %u, \"components\": [",
                    cs->size, siz->capabilities, siz->image_x0, siz->image_y0, siz->image_x1,
                    siz->image_y1, siz->tile_width, siz->tile_height, siz->tile_x0,
                    siz->tile_y0, siz->tiles_across, siz->tiles_down);
    for (uint32_t c = 0; c < siz->num_components; c++)
        byte_buffer_printf(out, "%s{\"precision\": %u, \"signed\": %s, \"dx\": %u, \"dy\": %u}",
                        c ? ", " : "", siz->components[c].precision,
                        describe_json_bool(siz->components[c].is_signed), siz->components[c].dx,
                        siz->components[c].dy);
    byte_buffer_printf(out, "]}, \"main_header\": ");
    describe_header(&cs->main_header, out);
    byte_buffer_printf(out, ", \"markers\": {\"tlm\": %s, \"ppm\": %s, \"crg\": %s, \"eoc\": %s}",
                    describe_json_bool(cs->num_tlm), describe_json_bool(cs->has_ppm),
                    describe_json_bool(cs->registration), describe_json_bool(cs->has_eoc));
    const j2k_capabilities *cap = &cs->capabilities;
    if (cap->present) {
        byte_buffer_printf(out, ", \"cap\": {\"pcap\": %u", cap->pcap);
        if (cap->has_ccap15) /* T.814 Table A.3 */
            byte_buffer_printf(out, ", \"ccap15\": %u, \"ht_set\": \"%s\", "
                            "\"multiple_ht_sets\": %s, \"rgn\": %s, \"heterogeneous\": %s, "
                            "\"irreversible\": %s, \"magb\": %u",
                            cap->ccap15, j2k_ccap15_set_name(cap->ccap15),
                            describe_json_bool(cap->ccap15 & 0x2000),
                            describe_json_bool(cap->ccap15 & 0x1000),
                            describe_json_bool(cap->ccap15 & 0x0800),
                            describe_json_bool(cap->ccap15 & 0x0020),
                            cap->ccap15 & 0x1Fu);
        byte_buffer_printf(out, "}");
    }
    byte_buffer_printf(out, ", \"tiles\": [");
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        const j2k_tile *tile = &cs->tiles[t];
        byte_buffer_printf(out, "%s{\"index\": %u, \"header\": ", t ? ", " : "", tile->index);
        describe_header(&tile->header, out);
        byte_buffer_printf(out, ", \"parts\": [");
        for (size_t p = 0; p < tile->num_parts; p++)
            byte_buffer_printf(out, "%s{\"part\": %u, \"data_start\": %zu, \"data_end\": %zu, "
                            "\"plt\": %s}",
                            p ? ", " : "", tile->parts[p].part_index, tile->parts[p].data_start,
                            tile->parts[p].data_end,
                            describe_json_bool(tile->parts[p].packet_lengths.count));
        byte_buffer_printf(out, "]}");
    }
    byte_buffer_printf(out, "]}");
}
