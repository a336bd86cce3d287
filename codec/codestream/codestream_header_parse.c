/* codestream_header_parse.c - walks a codestream (A.3): SOC, the main header,
 * then each tile-part header to its SOD, noting where the tile-part's data
 * lies, up to EOC. */
#include "codestream_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t read_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static gj2k_status push_chunk(codestream_parser *p, chunk_list *list,
                              const j2k_indexed_chunk *chunk)
{
    j2k_indexed_chunk *grown = j2k_array_grow(list->items, &list->capacity, list->count + 1,
                                              sizeof *grown);
    if (grown == NULL)
        return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    list->items = grown;
    list->items[list->count++] = *chunk;
    return GJ2K_OK;
}

/* The segments that only describe (TLM, PLM, PLT, CRG, COM): one that breaks
 * the rules is reported and skipped, not fatal. */
static void warn_skipped(codestream_parser *p, const gj2k_error *why, size_t offset)
{
    gj2k_warn(p->warning, p->warning_user, "%s (segment at offset %zu ignored)", why->message,
              offset);
}

/* PPM, PLM, PPT, PLT: adds the segment's chunk to `list`. Broken packed
 * headers (PPM, PPT) are fatal; broken packet lengths are skipped. */
static gj2k_status read_indexed_segment(codestream_parser *p, uint16_t marker, byte_reader *body,
                                        size_t offset, chunk_list *list)
{
    bool fatal = marker == J2K_PPM || marker == J2K_PPT;
    j2k_indexed_chunk chunk;
    gj2k_error why = {0};
    gj2k_status status = j2k_indexed_chunk_read(body, j2k_marker_name(marker), &chunk,
                                                fatal ? p->error : &why);
    if (status == GJ2K_OK)
        return push_chunk(p, list, &chunk);
    if (fatal)
        return status;
    warn_skipped(p, &why, offset);
    return GJ2K_OK;
}

/* COD, COC, QCD, QCC, RGN, POC, COM: the parameters both kinds of header carry. */
static gj2k_status read_coding_segment(codestream_parser *p, j2k_header_params *h,
                                       uint16_t marker, byte_reader *body, size_t offset,
                                       const char *where)
{
    uint32_t num_components = p->cs->siz.num_components;
    gj2k_status status = GJ2K_OK;
    bool replaced = false;
    switch (marker) {
    case J2K_COD: {
        j2k_cod cod;
        if ((status = j2k_cod_read(body, &cod, p->error)) != GJ2K_OK)
            return status;
        replaced = h->cod != NULL;
        status = j2k_header_set_cod(h, &cod, p->error);
        break;
    }
    case J2K_QCD: {
        j2k_quantization q;
        if ((status = j2k_qcd_read(body, &q, p->error)) != GJ2K_OK)
            return status;
        replaced = h->qcd != NULL;
        status = j2k_header_set_qcd(h, &q, p->error);
        break;
    }
    /* Put in component order when the header ends (see finish_header). */
    case J2K_COC: {
        j2k_coc coc;
        if ((status = j2k_coc_read(body, num_components, &coc, p->error)) == GJ2K_OK)
            status = j2k_header_append_coc(h, &coc, p->error);
        break;
    }
    case J2K_QCC: {
        j2k_qcc qcc;
        if ((status = j2k_qcc_read(body, num_components, &qcc, p->error)) == GJ2K_OK)
            status = j2k_header_append_qcc(h, &qcc, p->error);
        break;
    }
    case J2K_RGN: {
        j2k_rgn rgn;
        if ((status = j2k_rgn_read(body, num_components, &rgn, p->error)) == GJ2K_OK)
            status = j2k_header_append_rgn(h, &rgn, p->error);
        break;
    }
    case J2K_POC: {
        /* At most one POC a header (A.6.6); a second one's changes are kept too. */
        replaced = h->num_pocs > 0;
        j2k_progression_change *changes = NULL;
        size_t count = 0;
        status = j2k_poc_read(body, num_components, &changes, &count, p->error);
        if (status == GJ2K_OK)
            status = j2k_header_add_pocs(h, changes, count, p->error);
        free(changes);
        break;
    }
    case J2K_COM: {
        j2k_comment comment;
        gj2k_error why = {0};
        if (j2k_com_read(body, &comment, &why) != GJ2K_OK) {
            warn_skipped(p, &why, offset);
            return GJ2K_OK;
        }
        status = j2k_header_add_comment(h, comment.registration, comment.data, comment.size,
                                        p->error);
        free(comment.data);
        if (status == GJ2K_OK && comment.registration > J2K_COMMENT_LATIN)
            gj2k_warn(p->warning, p->warning_user,
                      "COM at offset %zu: registration value %u (reserved)", offset,
                      comment.registration);
        break;
    }
    default:
        return gj2k_fail(p->error, GJ2K_ERROR_INVALID_ARGUMENT, "not a coding segment");
    }
    if (status == GJ2K_OK && replaced)
        gj2k_warn(p->warning, p->warning_user, "%s: a second %s at offset %zu (%s)", where,
                  j2k_marker_name(marker), offset,
                  marker == J2K_POC ? "its changes are appended" : "the later one applies");
    return status;
}

static gj2k_status main_header_segment(codestream_parser *p, uint16_t marker, byte_reader *body,
                                       size_t offset)
{
    j2k_codestream *cs = p->cs;
    gj2k_error why = {0};
    switch (marker) {
    case J2K_COD:
    case J2K_COC:
    case J2K_QCD:
    case J2K_QCC:
    case J2K_RGN:
    case J2K_POC:
    case J2K_COM:
        return read_coding_segment(p, &cs->main_header, marker, body, offset, "main header");
    case J2K_PPM:
    case J2K_PLM:
        return read_indexed_segment(p, marker, body, offset,
                                    marker == J2K_PPM ? &p->ppm : &p->plm);
    case J2K_TLM: {
        j2k_tlm tlm;
        if (j2k_tlm_read(body, &tlm, &why) != GJ2K_OK) {
            warn_skipped(p, &why, offset);
            return GJ2K_OK;
        }
        j2k_tlm *grown = j2k_array_grow(p->tlms, &p->tlm_capacity, p->num_tlms + 1,
                                        sizeof *grown);
        if (grown == NULL) {
            j2k_tlm_free(&tlm);
            return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "TLM: out of memory");
        }
        p->tlms = grown;
        p->tlms[p->num_tlms++] = tlm;
        return GJ2K_OK;
    }
    case J2K_CAP: {
        j2k_capabilities cap;
        if (j2k_cap_read(body, &cap, &why) != GJ2K_OK) {
            warn_skipped(p, &why, offset);
            return GJ2K_OK;
        }
        if (cs->capabilities.present)
            gj2k_warn(p->warning, p->warning_user, "a second CAP at offset %zu (the later one "
                      "applies)", offset);
        cs->capabilities = cap;
        return GJ2K_OK;
    }
    case J2K_CPF: /* a profile's number (T.814 A.3): nothing decoding needs */
        return GJ2K_OK;
    case J2K_CRG: {
        if (cs->registration != NULL) {
            gj2k_warn(p->warning, p->warning_user, "second CRG at offset %zu ignored", offset);
            return GJ2K_OK;
        }
        j2k_registration_offset *offsets = calloc(cs->siz.num_components, sizeof *offsets);
        if (offsets == NULL)
            return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "CRG: out of memory");
        if (j2k_crg_read(body, cs->siz.num_components, offsets, &why) != GJ2K_OK) {
            free(offsets);
            warn_skipped(p, &why, offset);
            return GJ2K_OK;
        }
        cs->registration = offsets;
        return GJ2K_OK;
    }
    case J2K_SIZ:
    case J2K_PLT:
    case J2K_PPT:
        gj2k_warn(p->warning, p->warning_user, "%s at offset %zu is out of place in the main "
                  "header (skipped)", j2k_marker_name(marker), offset);
        return GJ2K_OK;
    default:
        gj2k_warn(p->warning, p->warning_user, "unknown marker segment 0x%04X at offset %zu "
                  "skipped", marker, offset);
        return GJ2K_OK;
    }
}

/* `where` names the tile-part in messages. */
static gj2k_status tile_part_segment(codestream_parser *p, parsed_tile_part *tp, uint16_t marker,
                                     byte_reader *body, size_t offset, const char *where)
{
    switch (marker) {
    case J2K_COD:
    case J2K_COC:
    case J2K_QCD:
    case J2K_QCC:
    case J2K_RGN:
        /* A.6.1 - A.6.5: only in the first tile-part of a tile. */
        if (tp->part.part_index != 0 && !tp->warned_misplaced) {
            tp->warned_misplaced = true;
            gj2k_warn(p->warning, p->warning_user, "%s: %s at offset %zu belongs in the tile's "
                      "first tile-part (applied)", where, j2k_marker_name(marker), offset);
        }
        return read_coding_segment(p, &tp->header, marker, body, offset, where);
    case J2K_POC:
    case J2K_COM:
        return read_coding_segment(p, &tp->header, marker, body, offset, where);
    case J2K_PPT:
    case J2K_PLT: {
        bool ppt = marker == J2K_PPT;
        if (ppt && p->ppm.count > 0)
            return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                             "%s: PPT at offset %zu while the main header has PPM (A.7.4)", where,
                             offset);
        chunk_list *list = ppt ? &p->ppt : &p->plt;
        size_t *first = ppt ? &tp->first_ppt : &tp->first_plt;
        size_t *num = ppt ? &tp->num_ppt : &tp->num_plt;
        size_t before = list->count;
        gj2k_status status = read_indexed_segment(p, marker, body, offset, list);
        if (list->count > before && (*num)++ == 0) /* read, not skipped */
            *first = before;
        return status;
    }
    case J2K_SIZ:
    case J2K_TLM:
    case J2K_PLM:
    case J2K_PPM:
    case J2K_CRG:
        gj2k_warn(p->warning, p->warning_user, "%s: %s at offset %zu belongs in the main header "
                  "(skipped)", where, j2k_marker_name(marker), offset);
        return GJ2K_OK;
    default:
        gj2k_warn(p->warning, p->warning_user, "%s: unknown marker segment 0x%04X at offset %zu "
                  "skipped", where, marker, offset);
        return GJ2K_OK;
    }
}

/* Puts a header's COC, QCC and RGN in component order once it ends. */
static gj2k_status finish_header(codestream_parser *p, j2k_header_params *h, const char *where)
{
    size_t repeats = 0;
    gj2k_status status = j2k_header_sort_components(h, &repeats, p->error);
    if (status == GJ2K_OK && repeats > 0)
        gj2k_warn(p->warning, p->warning_user,
                  "%s: %zu repeated COC, QCC or RGN for one component (the later ones apply)",
                  where, repeats);
    return status;
}

/* Markers that cannot begin a header's next segment. */
static bool is_delimiter(uint16_t marker)
{
    return marker == J2K_SOC || marker == J2K_SOT || marker == J2K_SOD || marker == J2K_EOC ||
           marker == J2K_SOP || marker == J2K_EPH;
}

static gj2k_status parse_main_header(codestream_parser *p, size_t *position)
{
    j2k_codestream *cs = p->cs;
    size_t pos = 2;
    if (p->size - pos < 4)
        return gj2k_fail(p->error, GJ2K_ERROR_TRUNCATED, "main header: ends before SIZ");
    if (read_be16(p->data + pos) != J2K_SIZ)
        return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                         "main header: SIZ must follow SOC (found 0x%04X)",
                         read_be16(p->data + pos));
    for (;;) {
        if (p->size == pos && p->main_only)
            break;
        if (p->size - pos < 2)
            return gj2k_fail(p->error, GJ2K_ERROR_TRUNCATED,
                             "main header: the data ends at offset %zu before any tile-part", pos);
        uint16_t marker = read_be16(p->data + pos);
        if (marker == J2K_SOT || marker == J2K_EOC)
            break;
        if ((marker >> 8) != 0xFF)
            return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                             "main header: 0x%04X at offset %zu is not a marker", marker, pos);
        if (j2k_marker_has_no_segment(marker)) {
            pos += 2;
            continue;
        }
        if (is_delimiter(marker))
            return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED, "main header: %s at offset %zu",
                             j2k_marker_name(marker), pos);
        if (p->size - pos < 4)
            return gj2k_fail(p->error, GJ2K_ERROR_TRUNCATED,
                             "main header: %s at offset %zu is cut off", j2k_marker_name(marker),
                             pos);
        size_t length = read_be16(p->data + pos + 2);
        if (length < 2)
            return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                             "main header: marker segment 0x%04X at offset %zu has length %zu",
                             marker, pos, length);
        if (p->size - pos - 2 < length)
            return gj2k_fail(p->error, GJ2K_ERROR_TRUNCATED,
                             "main header: %s at offset %zu runs past the end of the data",
                             j2k_marker_name(marker), pos);
        byte_reader body = {p->data + pos + 4, length - 2, 0};
        gj2k_status status;
        if (pos == 2) {
            status = j2k_siz_read(&body, &cs->siz, p->error);
            if (status == GJ2K_OK)
                status = j2k_segment_check_consumed(&body, "SIZ", p->error);
        } else {
            status = main_header_segment(p, marker, &body, pos);
        }
        if (status != GJ2K_OK)
            return status;
        pos += 2 + length;
    }
    gj2k_status status = finish_header(p, &cs->main_header, "main header");
    if (status != GJ2K_OK)
        return status;
    if (cs->main_header.cod == NULL)
        return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED, "main header: no COD marker segment");
    if (cs->main_header.qcd == NULL)
        return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED, "main header: no QCD marker segment");
    if (cs->main_header.cod->mct && cs->siz.num_components < 3)
        gj2k_warn(p->warning, p->warning_user,
                  "COD: component transform with %u components (needs 3)",
                  cs->siz.num_components);
    cs->main_header_end = pos;
    *position = pos;
    return GJ2K_OK;
}

/* Reads the tile-part whose SOT lies at `sot_offset`. Sets *next to where
 * the following one starts, or *stop when the data ends inside this one. */
static gj2k_status parse_tile_part(codestream_parser *p, size_t sot_offset, size_t *next,
                                   bool *stop)
{
    const j2k_siz *siz = &p->cs->siz;
    if (p->size - sot_offset < J2K_SOT_SEGMENT_SIZE) {
        gj2k_warn(p->warning, p->warning_user, "tile-part at offset %zu is cut off in its SOT "
                  "segment (dropped)", sot_offset);
        p->cs->cut_short = true;
        p->cs->cut_offset = sot_offset;
        p->cs->cut_tile = UINT32_MAX;
        *stop = true;
        return GJ2K_OK;
    }
    uint16_t lsot = read_be16(p->data + sot_offset + 2);
    if (lsot != 10)
        return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED, "SOT at offset %zu: Lsot %u (must be 10)",
                         sot_offset, lsot);
    byte_reader sot_body = {p->data + sot_offset + 4, 8, 0};
    j2k_sot sot;
    gj2k_status status = j2k_sot_read(&sot_body, &sot, p->error);
    if (status != GJ2K_OK)
        return status;
    if (sot.tile_index >= siz->num_tiles)
        return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                         "SOT at offset %zu: tile %u (the image has %u tiles)", sot_offset,
                         sot.tile_index, siz->num_tiles);

    parsed_tile_part tp = {.part = {.tile_index = sot.tile_index, .part_index = sot.part_index,
                                    .num_parts = sot.num_parts, .psot = sot.length,
                                    .ordinal = p->num_parts, .sot_offset = sot_offset}};
    size_t end;
    if (sot.length == 0) {
        /* Psot 0: the tile-part runs to EOC (A.4.2). */
        end = p->size;
        if (p->size - sot_offset >= J2K_SOT_SEGMENT_SIZE + 2 &&
            read_be16(p->data + p->size - 2) == J2K_EOC)
            end = p->size - 2;
    } else if (sot.length > p->size - sot_offset) {
        gj2k_warn(p->warning, p->warning_user,
                  "tile %u, tile-part %u: Psot %u runs %zu bytes past the end of the data "
                  "(truncated)", sot.tile_index, sot.part_index, sot.length,
                  (size_t)sot.length - (p->size - sot_offset));
        tp.part.truncated = true;
        end = p->size;
    } else {
        end = sot_offset + sot.length;
    }
    /* When the header outgrows the data the stream was cut; when it
     * outgrows a Psot that fits the data, Psot is wrong. */
    bool cut_by_data_end = end == p->size && (tp.part.truncated || sot.length == 0);

    char where[64];
    snprintf(where, sizeof where, "tile %u, tile-part %u", sot.tile_index, sot.part_index);
    size_t pos = sot_offset + J2K_SOT_SEGMENT_SIZE;
    for (;;) {
        size_t left = end - pos;
        uint16_t marker = left >= 2 ? read_be16(p->data + pos) : 0;
        size_t length = left >= 4 ? read_be16(p->data + pos + 2) : 0;
        if (left >= 2 && marker == J2K_SOD) {
            pos += 2;
            break;
        }
        if (left >= 2 && (marker >> 8) != 0xFF) {
            status = gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                               "tile-part header: 0x%04X at offset %zu is not a marker", marker,
                               pos);
            goto fail;
        }
        if (left >= 2 && j2k_marker_has_no_segment(marker)) {
            pos += 2;
            continue;
        }
        if (left >= 2 && is_delimiter(marker)) {
            status = gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                               "tile-part header: %s at offset %zu before SOD",
                               j2k_marker_name(marker), pos);
            goto fail;
        }
        if (left >= 4 && length < 2) {
            status = gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                               "tile-part header: marker segment 0x%04X at offset %zu has length "
                               "%zu", marker, pos, length);
            goto fail;
        }
        if (left < 4 || left - 2 < length) {
            if (cut_by_data_end) {
                gj2k_warn(p->warning, p->warning_user,
                          "tile %u, tile-part %u: header cut off by the end of the data "
                          "(dropped)", sot.tile_index, sot.part_index);
                j2k_header_free(&tp.header);
                p->cs->cut_short = true;
                p->cs->cut_offset = sot_offset;
                p->cs->cut_tile = sot.tile_index;
                *stop = true;
                return GJ2K_OK;
            }
            status = gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                               "SOT at offset %zu: Psot %u ends inside the tile-part header",
                               sot_offset, sot.length);
            goto fail;
        }
        byte_reader body = {p->data + pos + 4, length - 2, 0};
        status = tile_part_segment(p, &tp, marker, &body, pos, where);
        if (status != GJ2K_OK)
            goto fail;
        pos += 2 + length;
    }
    status = finish_header(p, &tp.header, where);
    if (status != GJ2K_OK)
        goto fail;
    tp.part.data_start = pos;
    tp.part.data_end = end;
    parsed_tile_part *grown = j2k_array_grow(p->parts, &p->part_capacity, p->num_parts + 1,
                                             sizeof *grown);
    if (grown == NULL) {
        status = gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        goto fail;
    }
    p->parts = grown;
    p->parts[p->num_parts++] = tp;
    *next = end;
    return GJ2K_OK;
fail:
    j2k_header_free(&tp.header);
    return status;
}

static gj2k_status parse_tile_parts(codestream_parser *p, size_t pos)
{
    j2k_codestream *cs = p->cs;
    for (;;) {
        if (pos == p->size) {
            gj2k_warn(p->warning, p->warning_user, "no EOC marker: the data ends after %zu "
                      "tile-parts", p->num_parts);
            return GJ2K_OK;
        }
        if (p->size - pos < 2) {
            gj2k_warn(p->warning, p->warning_user, "no EOC marker: one stray byte at the end");
            return GJ2K_OK;
        }
        uint16_t marker = read_be16(p->data + pos);
        if (marker == J2K_EOC) {
            cs->has_eoc = true;
            cs->eoc_offset = pos;
            if (p->size - pos > 2)
                gj2k_warn(p->warning, p->warning_user, "%zu bytes after EOC ignored",
                          p->size - pos - 2);
            if (p->num_parts == 0)
                gj2k_warn(p->warning, p->warning_user, "the codestream has no tile-parts");
            return GJ2K_OK;
        }
        if (marker != J2K_SOT)
            return gj2k_fail(p->error, GJ2K_ERROR_MALFORMED,
                             "expected SOT or EOC at offset %zu, found 0x%04X", pos, marker);
        bool stop = false;
        gj2k_status status = parse_tile_part(p, pos, &pos, &stop);
        if (status != GJ2K_OK || stop)
            return status;
    }
}

static void parser_free(codestream_parser *p)
{
    free(p->ppm.items);
    free(p->plm.items);
    free(p->ppt.items);
    free(p->plt.items);
    for (size_t i = 0; i < p->num_tlms; i++)
        j2k_tlm_free(&p->tlms[i]);
    free(p->tlms);
    for (size_t i = 0; i < p->num_parts; i++) {
        j2k_header_free(&p->parts[i].header);
        free(p->parts[i].part.packet_lengths.lengths);
    }
    free(p->parts);
}

/* j2k_codestream_parse, or with main_only its main header alone. */
static gj2k_status parse_codestream(const uint8_t *data, size_t size, bool main_only,
                                    gj2k_warning_fn warning, void *warning_user,
                                    j2k_codestream **out, gj2k_error *error)
{
    *out = NULL;
    if (data == NULL && size > 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "no codestream data");
    if (size < 2 || read_be16(data) != J2K_SOC)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "not a JPEG 2000 codestream: it does not start with SOC");
    j2k_codestream *cs = calloc(1, sizeof *cs);
    if (cs == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    cs->size = size;
    codestream_parser p = {.data = data, .size = size, .warning = warning,
                           .warning_user = warning_user, .error = error, .cs = cs,
                           .main_only = main_only};
    size_t pos = 0;
    gj2k_status status = parse_main_header(&p, &pos);
    if (status == GJ2K_OK && !main_only)
        status = parse_tile_parts(&p, pos);
    if (status == GJ2K_OK && !main_only)
        status = j2k_parser_assemble_tiles(&p);
    parser_free(&p);
    if (status != GJ2K_OK) {
        j2k_codestream_destroy(cs);
        return status;
    }
    *out = cs;
    return GJ2K_OK;
}

gj2k_status j2k_codestream_parse(const uint8_t *data, size_t size, gj2k_warning_fn warning,
                                 void *warning_user, j2k_codestream **out, gj2k_error *error)
{
    return parse_codestream(data, size, false, warning, warning_user, out, error);
}

gj2k_status j2k_codestream_parse_main_header(const uint8_t *data, size_t size,
                                             gj2k_warning_fn warning, void *warning_user,
                                             j2k_codestream **out, gj2k_error *error)
{
    return parse_codestream(data, size, true, warning, warning_user, out, error);
}

void j2k_codestream_destroy(j2k_codestream *cs)
{
    if (cs == NULL)
        return;
    j2k_siz_free(&cs->siz);
    j2k_header_free(&cs->main_header);
    free(cs->registration);
    free(cs->tlm);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        j2k_tile *tile = &cs->tiles[t];
        j2k_header_free(&tile->header);
        for (size_t i = 0; i < tile->num_parts; i++)
            free(tile->parts[i].packet_lengths.lengths);
        free(tile->parts);
        free(tile->packed_headers);
    }
    free(cs->tiles);
    free(cs);
}

const j2k_tile *j2k_codestream_tile(const j2k_codestream *cs, uint32_t tile_index)
{
    size_t lo = 0, hi = cs->num_tiles_present;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cs->tiles[mid].index < tile_index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cs->num_tiles_present && cs->tiles[lo].index == tile_index ? &cs->tiles[lo]
                                                                            : NULL;
}
