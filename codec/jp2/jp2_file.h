/* jp2_file.h - the JP2 file format (T.800 Annex I): the boxes a JP2 file
 * carries around its codestream, read from and written to memory.
 *
 * Reading: jp2_file_read parses the box structure of a whole file held in
 * memory and records the header boxes and where the first codestream lies;
 * it does not decode the codestream. Writing: jp2_file_describe_image fills a
 * jp2_file from an image's description, and jp2_file_write wraps a codestream
 * in the boxes a jp2_file holds. */
#ifndef GJ2K_JP2_FILE_H
#define GJ2K_JP2_FILE_H

#include "byte_buffer.h"
#include "gj2k.h"

/* Box types as 4-byte big-endian integers (Annex I.4, Table I.2). */
#define JP2_FOURCC(a, b, c, d)                                                                 \
    (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#define JP2_BOX_SIGNATURE JP2_FOURCC('j', 'P', ' ', ' ')
#define JP2_BOX_FILE_TYPE JP2_FOURCC('f', 't', 'y', 'p')
#define JP2_BOX_HEADER JP2_FOURCC('j', 'p', '2', 'h')
#define JP2_BOX_IMAGE_HEADER JP2_FOURCC('i', 'h', 'd', 'r')
#define JP2_BOX_BITS_PER_COMPONENT JP2_FOURCC('b', 'p', 'c', 'c')
#define JP2_BOX_COLOR JP2_FOURCC('c', 'o', 'l', 'r')
#define JP2_BOX_PALETTE JP2_FOURCC('p', 'c', 'l', 'r')
#define JP2_BOX_COMPONENT_MAPPING JP2_FOURCC('c', 'm', 'a', 'p')
#define JP2_BOX_CHANNEL_DEFINITION JP2_FOURCC('c', 'd', 'e', 'f')
#define JP2_BOX_RESOLUTION JP2_FOURCC('r', 'e', 's', ' ')
#define JP2_BOX_CAPTURE_RESOLUTION JP2_FOURCC('r', 'e', 's', 'c')
#define JP2_BOX_DISPLAY_RESOLUTION JP2_FOURCC('r', 'e', 's', 'd')
#define JP2_BOX_CODESTREAM JP2_FOURCC('j', 'p', '2', 'c')
#define JP2_BOX_UUID JP2_FOURCC('u', 'u', 'i', 'd')  /* Annex I.7.2 */
#define JP2_BRAND_JP2 JP2_FOURCC('j', 'p', '2', ' ')
#define JP2_BRAND_JPH JP2_FOURCC('j', 'p', 'h', ' ') /* JPH (T.814 Annex D): read as JP2 */
#define JP2_SIGNATURE_CONTENT 0x0D0A870Au

/* The uuid boxes of metadata, as exiftool and Exiv2 write them: XMP,
 * EXIF (the UUID spells "JpgTiffExif->JP2"; a TIFF structure follows,
 * sometimes after "Exif\0\0"), IPTC-IIM; indexed by gj2k_metadata. */
#define JP2_METADATA_KINDS 3
extern const uint8_t jp2_metadata_uuids[JP2_METADATA_KINDS][16];

/* colr METH (Annex I.5.3.3; 3 and 4 from T.801 JPX). */
#define JP2_COLOR_METHOD_ENUMERATED 1
#define JP2_COLOR_METHOD_RESTRICTED_ICC 2
#define JP2_COLOR_METHOD_ANY_ICC 3
/* colr EnumCS values of Part 1 (Table I.10). */
#define JP2_ENUM_SRGB 16
#define JP2_ENUM_GREYSCALE 17
#define JP2_ENUM_SYCC 18
#define JP2_ENUM_ESYCC 24 /* e-sYCC: a JPX value (T.801 Annex M) that JP2 files carry too */

/* cdef Typ and Asoc (Annex I.5.3.6, Tables I.18 and I.19). */
#define JP2_CHANNEL_COLOR 0
#define JP2_CHANNEL_OPACITY 1
#define JP2_CHANNEL_PREMULTIPLIED_OPACITY 2
#define JP2_CHANNEL_UNSPECIFIED 65535
#define JP2_ASSOCIATION_WHOLE_IMAGE 0
#define JP2_ASSOCIATION_NONE 65535

#define JP2_BPC_VARIES 0xFF         /* ihdr BPC: depths are in the bpcc box */
#define JP2_MAX_PALETTE_ENTRIES 1024 /* pclr NE (Annex I.5.3.4) */

/* A bit depth and sign as ihdr BPC, bpcc and pclr code them: bits 0..6 hold
 * the depth minus 1, bit 7 the sign (Table I.14). */
typedef struct jp2_depth {
    uint8_t precision; /* 1..38 */
    bool is_signed;
} jp2_depth;

/* ihdr (Annex I.5.3.1). */
typedef struct jp2_image_header {
    uint32_t height, width;   /* of the image area */
    uint16_t num_components;
    uint8_t bits_per_component; /* coded BPC, or JP2_BPC_VARIES */
    uint8_t compression;        /* C: 7 for JPEG 2000 */
    uint8_t colorspace_unknown; /* UnkC: 1 when the colr boxes may be wrong */
    uint8_t has_ipr;            /* IPR: 1 when an ipr box exists */
} jp2_image_header;

/* colr (Annex I.5.3.3). */
typedef struct jp2_color_spec {
    uint8_t method;
    int8_t precedence;
    uint8_t approximation;
    uint32_t enumerated;  /* EnumCS, method 1 */
    uint8_t *icc_profile; /* methods 2 and 3: the profile (owned), else NULL */
    size_t icc_profile_size;
} jp2_color_spec;

/* pclr (Annex I.5.3.4): entry e of column c is values[e * num_columns + c]. */
typedef struct jp2_palette {
    uint16_t num_entries;   /* 1..1024 */
    uint8_t num_columns;    /* 1..255 */
    jp2_depth *column_depths;
    int64_t *values;
} jp2_palette;

/* One cmap entry (Annex I.5.3.5): channel i comes from component `component`,
 * directly (map_type 0) or through palette column `palette_column` (1). */
typedef struct jp2_component_mapping {
    uint16_t component;
    uint8_t map_type;
    uint8_t palette_column;
} jp2_component_mapping;

/* One cdef entry (Annex I.5.3.6). */
typedef struct jp2_channel_definition {
    uint16_t channel;
    uint16_t type;        /* JP2_CHANNEL_* */
    uint16_t association; /* 0 whole image, 1..n colour n, 65535 none */
} jp2_channel_definition;

/* resc / resd (Annex I.5.3.7): grid points per metre, vertical
 * VR_N / VR_D * 10^VR_E and horizontal likewise. */
typedef struct jp2_resolution {
    uint16_t vertical_numerator, vertical_denominator;
    uint16_t horizontal_numerator, horizontal_denominator;
    int8_t vertical_exponent, horizontal_exponent;
} jp2_resolution;

typedef struct jp2_file {
    uint32_t brand, minor_version;
    uint32_t *compatibility; /* ftyp CL entries (owned) */
    uint32_t num_compatibility;

    jp2_image_header header;
    jp2_depth *component_depths; /* bpcc: header.num_components entries, or NULL */

    jp2_color_spec *colors; /* every colr box in file order (owned) */
    uint32_t num_colors;

    bool has_palette;
    jp2_palette palette;
    jp2_component_mapping *mappings; /* cmap, or NULL */
    uint32_t num_mappings;
    jp2_channel_definition *channels; /* cdef, or NULL */
    uint32_t num_channels;

    bool has_capture_resolution, has_display_resolution;
    jp2_resolution capture_resolution, display_resolution;

    /* Metadata in uuid boxes (I.7.2), by gj2k_metadata: the first box of
     * each kind (owned), as gj2k_image holds it. */
    uint8_t *metadata[JP2_METADATA_KINDS];
    size_t metadata_size[JP2_METADATA_KINDS];

    /* The first jp2c box's contents, as an offset into the file. */
    uint64_t codestream_offset, codestream_length;
} jp2_file;

/*
 * Parses a JP2 file (or a JPX file compatible with JP2) of `size` bytes.
 * On success *out holds the boxes (free with jp2_file_free); on failure *out
 * is left empty. Box order faults that do not hide information (jp2h after
 * jp2c, ihdr not first in jp2h, duplicate boxes, unknown boxes in jp2h) are
 * warnings; anything that would make the header unreadable is an error.
 */
gj2k_status jp2_file_read(const uint8_t *data, size_t size, jp2_file *out,
                          gj2k_warning_fn warning, void *warning_user, gj2k_error *error);

/* Releases what a jp2_file owns and empties it. */
void jp2_file_free(jp2_file *file);

/* Depth of codestream component `component` as the file declares it (bpcc,
 * else ihdr BPC); false when the file does not say. */
bool jp2_file_component_depth(const jp2_file *file, uint32_t component, jp2_depth *depth);

/* The ppm that a resolution box gives (vertical, horizontal); false when a
 * denominator is 0. */
bool jp2_resolution_to_ppm(const jp2_resolution *resolution, double *vertical,
                           double *horizontal);

/* The resolution box fields closest to (vertical, horizontal) ppm; false
 * when a value is not positive and finite. */
bool jp2_resolution_from_ppm(double vertical, double horizontal, jp2_resolution *resolution);

/*
 * Fills `out` (which the caller frees with jp2_file_free) to describe `image`
 * as a plain JP2 file: brand 'jp2 ', ihdr of the image area, bpcc when the
 * components' depths differ, one colr box (method 2 with the image's ICC
 * profile when it has one, else enumerated sRGB / greyscale / sYCC; an
 * unknown colour space is written as greyscale for one colour component
 * and sRGB otherwise, with UnkC = 1), resd when the image has a resolution,
 * and cdef when a component is not a plain colour one. Colour components are
 * associated with colours 1, 2, 3.. in component order; opacity components
 * with the whole image.
 */
gj2k_status jp2_file_describe_image(jp2_file *out, const gj2k_image *image, gj2k_error *error);

/*
 * Appends a JP2 file to `out`: signature, ftyp, jp2h (ihdr, bpcc, every colr,
 * pclr, cmap, cdef, res as `file` holds them) and a jp2c box of `codestream`.
 * The codestream offset and length in `file` are ignored. A codestream whose
 * Rsiz has bit 14 (HTJ2K) makes it a JPH file (T.814 Annex D): ftyp's brand
 * is 'jph ' and its list 'jph ' with the file's other brands but 'jp2 '.
 */
gj2k_status jp2_file_write(const jp2_file *file, const uint8_t *codestream,
                           size_t codestream_size, byte_buffer *out, gj2k_error *error);

/* One box of a file's top level (Annex I.4): its type, where its LBox lies,
 * where its contents start and where it ends. */
typedef struct jp2_box_span {
    uint32_t type;
    size_t start, content, end;
} jp2_box_span;

/* The big-endian 32-bit value at p (box fields, Annex I.4). */
static inline uint32_t jp2_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Reads the box header at `position` of `data`, the box to end by `end`
 * (Annex I.4: LBox 1 means a 64-bit XLBox follows, LBox 0 that the box runs
 * to `end`). A jp2c box claiming more than remains is clipped to `end`
 * with a warning (a cut-off file decodes to what it holds); any other box
 * fails (GJ2K_ERROR_TRUNCATED). */
gj2k_status jp2_box_span_read(const uint8_t *data, size_t position, size_t end,
                              gj2k_warning_fn warning, void *warning_user, jp2_box_span *box,
                              gj2k_error *error);

/* Whether a codestream declares Part 15 (HTJ2K): SOC, then SIZ whose Rsiz
 * has bit 14 (T.814 A.2). */
bool jp2_codestream_is_htj2k(const uint8_t *codestream, size_t size);

/* Appends a jp2c box (I.5.4) holding `codestream`, with XLBox when its
 * length does not fit LBox. */
void jp2_write_codestream_box(byte_buffer *out, const uint8_t *codestream, size_t size);

/*
 * Lists the top-level boxes of a JP2 (or JPH) file in file order, as a new
 * array (free it). A box whose length runs past the data fails
 * (GJ2K_ERROR_TRUNCATED), as jp2_file_read does, but a last jp2c box cut
 * short is clipped to the data; LBox 0 runs to the end.
 */
gj2k_status jp2_file_list_boxes(const uint8_t *data, size_t size, jp2_box_span **boxes,
                                size_t *count, gj2k_error *error);

/*
 * Appends to `out` the JP2 file `file` (size bytes, a whole JP2 or JPH file)
 * with its first codestream replaced by `codestream`: every other box is
 * copied as it is, in its place (the signature, jp2h with its colour, ICC,
 * resolution and channel boxes, xml, uuid, ipr boxes ...), and ftyp is
 * rewritten for the new codestream: one whose Rsiz has bit 14 (HTJ2K) makes
 * a JPH file (T.814 Annex D: brand 'jph ', 'jph ' listed, never 'jp2 '),
 * else a JP2 file (brand 'jp2 ' where it was 'jph ', 'jp2 ' listed, never
 * 'jph '); the other brands listed stay.
 */
gj2k_status jp2_file_rewrap(const uint8_t *file, size_t size, const uint8_t *codestream,
                            size_t codestream_size, byte_buffer *out, gj2k_error *error);

#endif
