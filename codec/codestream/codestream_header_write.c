/* codestream_header_write.c - emits the main header and tile-part headers
 * (A.3) with the same segment writers the parser's readers mirror. */
#include "marker_io.h"

/* COC, QCD, QCC, RGN, POC, COM of a header (COD comes first, by the caller). */
static gj2k_status write_header_params(byte_buffer *out, const j2k_siz *siz,
                                       const j2k_header_params *h, bool coding_allowed,
                                       gj2k_error *error)
{
    gj2k_status status = GJ2K_OK;
    uint32_t num_components = siz->num_components;
    if (!coding_allowed && (h->cod || h->qcd || h->num_cocs || h->num_qccs || h->num_rgns))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "COD, COC, QCD, QCC and RGN belong in a tile's first tile-part");
    if (h->cod != NULL)
        status = j2k_cod_write(out, h->cod, error);
    for (size_t i = 0; status == GJ2K_OK && i < h->num_cocs; i++)
        status = j2k_coc_write(out, &h->cocs[i], num_components, error);
    if (status == GJ2K_OK && h->qcd != NULL)
        status = j2k_qcd_write(out, h->qcd, error);
    for (size_t i = 0; status == GJ2K_OK && i < h->num_qccs; i++)
        status = j2k_qcc_write(out, &h->qccs[i], num_components, error);
    for (size_t i = 0; status == GJ2K_OK && i < h->num_rgns; i++)
        status = j2k_rgn_write(out, &h->rgns[i], num_components, error);
    if (status == GJ2K_OK && h->num_pocs > 0)
        status = j2k_poc_write(out, h->pocs, h->num_pocs, num_components, error);
    for (size_t i = 0; status == GJ2K_OK && i < h->num_comments; i++)
        status = j2k_com_write(out, &h->comments[i], error);
    return status;
}

bool j2k_header_uses_ht(const j2k_header_params *h)
{
    if (h->cod != NULL && (h->cod->coding.code_block_style & J2K_CBLK_HT))
        return true;
    for (size_t i = 0; i < h->num_cocs; i++)
        if (h->cocs[i].coding.code_block_style & J2K_CBLK_HT)
            return true;
    return false;
}

gj2k_status j2k_write_main_header(byte_buffer *out, const j2k_siz *siz,
                                  const j2k_header_params *main_header, gj2k_error *error)
{
    return j2k_write_main_header_with_cap(out, siz, main_header, NULL, error);
}

gj2k_status j2k_write_main_header_with_cap(byte_buffer *out, const j2k_siz *siz,
                                           const j2k_header_params *main_header,
                                           const uint16_t *ccap15, gj2k_error *error)
{
    /* A.5, A.6: SIZ first, then COD and QCD are required. */
    if (main_header->cod == NULL || main_header->qcd == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "main header without %s",
                         main_header->cod == NULL ? "COD" : "QCD");
    if (main_header->cod->mct && siz->num_components < 3)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "COD: component transform with %u components (needs 3)",
                         siz->num_components);
    /* T.814 A.2: Part 15 sets Rsiz bit 14 and has a CAP; HT blocks need both. */
    bool part15 = (siz->capabilities & J2K_RSIZ_PART15) != 0;
    if (j2k_header_uses_ht(main_header) && !part15)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "SIZ: HT code-blocks need Rsiz bit 14 (Rsiz 0x%04X, T.814 A.2)",
                         siz->capabilities);
    j2k_capabilities cap = {.present = part15, .pcap = J2K_PCAP_PART15, .has_ccap15 = true};
    gj2k_status status = GJ2K_OK;
    if (part15 && ccap15 != NULL)
        cap.ccap15 = *ccap15;
    else if (part15)
        status = j2k_ccap15_for_header(siz, main_header, &cap.ccap15, error);
    if (status != GJ2K_OK)
        return status;
    j2k_marker_write(out, J2K_SOC);
    status = j2k_siz_write(out, siz, error);
    if (status == GJ2K_OK && cap.present)
        status = j2k_cap_write(out, &cap, error);
    if (status != GJ2K_OK)
        return status;
    return write_header_params(out, siz, main_header, true, error);
}

gj2k_status j2k_write_tile_part_begin(byte_buffer *out, const j2k_siz *siz, const j2k_sot *sot,
                                      const j2k_header_params *header, size_t *sot_offset,
                                      gj2k_error *error)
{
    j2k_siz grid = *siz;
    gj2k_status status = j2k_siz_validate(&grid, error);
    if (status != GJ2K_OK)
        return status;
    if (sot->tile_index >= grid.num_tiles)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "SOT: tile %u (the image has %u)",
                         sot->tile_index, grid.num_tiles);
    j2k_sot placeholder = *sot;
    placeholder.length = 0; /* set by j2k_write_tile_part_end */
    *sot_offset = out->size;
    status = j2k_sot_write(out, &placeholder, error);
    if (status == GJ2K_OK && header != NULL)
        status = write_header_params(out, siz, header, sot->part_index == 0, error);
    return status;
}

gj2k_status j2k_write_tile_part_end(byte_buffer *out, size_t sot_offset, gj2k_error *error)
{
    if (out->failed)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory writing a tile-part");
    if (sot_offset > out->size || out->size - sot_offset < J2K_SOT_SEGMENT_SIZE + 2 ||
        out->data[sot_offset] != 0xFF || out->data[sot_offset + 1] != 0x90)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "no tile-part begins at offset %zu",
                         sot_offset);
    size_t length = out->size - sot_offset;
    if (length > UINT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "SOT: tile-part of %zu bytes (Psot is 32 bits)",
                         length);
    uint8_t *psot = out->data + sot_offset + 6; /* SOT, Lsot, Isot, then Psot */
    psot[0] = (uint8_t)(length >> 24);
    psot[1] = (uint8_t)(length >> 16);
    psot[2] = (uint8_t)(length >> 8);
    psot[3] = (uint8_t)length;
    return GJ2K_OK;
}
