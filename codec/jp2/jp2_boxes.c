/* jp2_boxes.c - a JP2 file's top-level boxes listed as they lie (Annex
 * I.4), and the file written again around another codestream with every
 * other box kept (jp2_file.h). */
#include "error.h"
#include "jp2_file.h"

#include <stdlib.h>
#include <string.h>

const uint8_t jp2_metadata_uuids[JP2_METADATA_KINDS][16] = {
    {0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC},
    {'J', 'p', 'g', 'T', 'i', 'f', 'f', 'E', 'x', 'i', 'f', '-', '>', 'J', 'P', '2'},
    {0x33, 0xC7, 0xA4, 0xD2, 0xB8, 0x1D, 0x47, 0x23, 0xA0, 0xBA, 0xF1, 0xA3, 0xE0, 0x97, 0xAD, 0x38},
};

gj2k_status jp2_file_list_boxes(const uint8_t *data, size_t size, jp2_box_span **boxes,
                                size_t *count, gj2k_error *error)
{
    *boxes = NULL;
    *count = 0;
    if (data == NULL && size > 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "JP2: no data");
    size_t capacity = 0, n = 0;
    jp2_box_span *list = NULL;
    gj2k_status status = GJ2K_OK;
    for (size_t at = 0; at < size && status == GJ2K_OK;) {
        jp2_box_span box;
        status = jp2_box_span_read(data, at, size, NULL, NULL, &box, error);
        if (status != GJ2K_OK)
            break;
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            jp2_box_span *grown = realloc(list, capacity * sizeof *grown);
            if (grown == NULL) {
                status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory");
                break;
            }
            list = grown;
        }
        list[n++] = box;
        at = box.end;
    }
    if (status != GJ2K_OK) {
        free(list);
        return status;
    }
    *boxes = list;
    *count = n;
    return GJ2K_OK;
}

/* ftyp (I.5.2) for the new codestream, from the old one's contents. */
static gj2k_status write_file_type(byte_buffer *out, const uint8_t *content, size_t size,
                                   bool jph, gj2k_error *error)
{
    if (size < 8 || size % 4 != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "JP2: ftyp box of %zu bytes (8 + 4n expected)", size);
    uint32_t brand = jp2_be32(content), minor = jp2_be32(content + 4);
    if (jph)
        brand = JP2_BRAND_JPH;
    else if (brand == JP2_BRAND_JPH)
        brand = JP2_BRAND_JP2;
    size_t start = out->size;
    byte_buffer_put_u32_be(out, 0); /* LBox, below */
    byte_buffer_put_u32_be(out, JP2_BOX_FILE_TYPE);
    byte_buffer_put_u32_be(out, brand);
    byte_buffer_put_u32_be(out, minor);
    byte_buffer_put_u32_be(out, jph ? JP2_BRAND_JPH : JP2_BRAND_JP2);
    for (size_t at = 8; at < size; at += 4) {
        uint32_t listed = jp2_be32(content + at);
        if (listed != JP2_BRAND_JP2 && listed != JP2_BRAND_JPH)
            byte_buffer_put_u32_be(out, listed);
    }
    if (!out->failed) {
        size_t length = out->size - start;
        out->data[start] = (uint8_t)(length >> 24);
        out->data[start + 1] = (uint8_t)(length >> 16);
        out->data[start + 2] = (uint8_t)(length >> 8);
        out->data[start + 3] = (uint8_t)length;
    }
    return GJ2K_OK;
}

gj2k_status jp2_file_rewrap(const uint8_t *file, size_t size, const uint8_t *codestream,
                            size_t codestream_size, byte_buffer *out, gj2k_error *error)
{
    if (codestream == NULL || codestream_size == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "JP2: no codestream to wrap");
    jp2_box_span *boxes;
    size_t count;
    gj2k_status status = jp2_file_list_boxes(file, size, &boxes, &count, error);
    if (status != GJ2K_OK)
        return status;
    if (count < 2 || boxes[0].type != JP2_BOX_SIGNATURE || boxes[1].type != JP2_BOX_FILE_TYPE) {
        free(boxes);
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "JP2: the file does not start with the signature and ftyp boxes");
    }
    bool jph = jp2_codestream_is_htj2k(codestream, codestream_size), replaced = false;
    size_t start = out->size;
    for (size_t i = 0; i < count && status == GJ2K_OK; i++) {
        const jp2_box_span *box = &boxes[i];
        if (box->type == JP2_BOX_FILE_TYPE && i == 1) {
            status = write_file_type(out, file + box->content, box->end - box->content, jph,
                                     error);
        } else if (box->type == JP2_BOX_CODESTREAM && !replaced) {
            jp2_write_codestream_box(out, codestream, codestream_size);
            replaced = true;
        } else {
            byte_buffer_append(out, file + box->start, box->end - box->start);
        }
    }
    free(boxes);
    if (status == GJ2K_OK && !replaced)
        status = gj2k_fail(error, GJ2K_ERROR_MALFORMED, "JP2: no jp2c codestream box");
    if (status == GJ2K_OK && out->failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory writing the file");
    if (status != GJ2K_OK)
        out->size = start < out->size ? start : out->size;
    return status;
}
