/* test_jp2.c - the JP2 file format (T.800 Annex I): writing and reading every
 * box kind, the conformance suite's .jp2 files, malformed and damaged input.
 *
 * Sources: common/error.c common/byte_buffer.c io/image.c codec/jp2/jp2_read.c
 *          codec/jp2/jp2_write.c tests/test_harness.c tests/codec/jp2/test_jp2.c
 *          (includes: -Iinclude -Icommon -Iio -Icodec/jp2 -Itests; link -lm) */
#include "byte_buffer.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "test_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

typedef test_warnings warnings;

static const uint8_t fake_codestream[] = {0xFF, 0x4F, 0xFF, 0x51, 0, 41, 0, 0, 1, 2, 3, 4,
                                          5,    6,    7,    8,    0xFF, 0xD9};

static void put_box(byte_buffer *b, const char *type, const void *content, size_t size)
{
    byte_buffer_put_u32_be(b, (uint32_t)(size + 8));
    byte_buffer_append(b, type, 4);
    byte_buffer_append(b, content, size);
}

/* An ihdr box of `height` x `width`, nc components of coded depth `bpc`. */
static void put_ihdr(byte_buffer *b, uint32_t height, uint32_t width, uint16_t nc, uint8_t bpc)
{
    byte_buffer c = {0};
    byte_buffer_put_u32_be(&c, height);
    byte_buffer_put_u32_be(&c, width);
    byte_buffer_put_u16_be(&c, nc);
    byte_buffer_put_u8(&c, bpc);
    byte_buffer_put_u8(&c, 7);
    byte_buffer_put_u8(&c, 0);
    byte_buffer_put_u8(&c, 0);
    put_box(b, "ihdr", c.data, c.size);
    byte_buffer_free(&c);
}

static void put_colr_enumerated(byte_buffer *b, uint32_t space)
{
    uint8_t c[7] = {1, 0, 0, (uint8_t)(space >> 24), (uint8_t)(space >> 16),
                    (uint8_t)(space >> 8), (uint8_t)space};
    put_box(b, "colr", c, sizeof c);
}

/* Signature, ftyp of `brand` listing `compatible`, then the given boxes. */
static void put_preamble(byte_buffer *b, const char *brand, const char *compatible)
{
    static const uint8_t signature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    byte_buffer_append(b, signature, sizeof signature);
    byte_buffer c = {0};
    byte_buffer_append(&c, brand, 4);
    byte_buffer_put_u32_be(&c, 0);
    byte_buffer_append(&c, compatible, 4);
    put_box(b, "ftyp", c.data, c.size);
    byte_buffer_free(&c);
}

/* A whole file: preamble, a jp2h of `header` contents, the fake codestream. */
static void make_file(byte_buffer *b, const byte_buffer *header)
{
    put_preamble(b, "jp2 ", "jp2 ");
    put_box(b, "jp2h", header->data, header->size);
    put_box(b, "jp2c", fake_codestream, sizeof fake_codestream);
}

/* Reads; on failure checks the message names JP2 and contains `expect`. */
static gj2k_status read_expect(const byte_buffer *b, jp2_file *file, warnings *w,
                               const char *expect)
{
    gj2k_error error = {0};
    gj2k_status status = jp2_file_read(b->data, b->size, file, record_warning, w, &error);
    if (status != GJ2K_OK) {
        CHECK(error.status == status);
        CHECK(strncmp(error.message, "JP2: ", 5) == 0);
        if (expect != NULL && strstr(error.message, expect) == NULL) {
            fprintf(stderr, "message '%s' lacks '%s'\n", error.message, expect);
            CHECK(!"expected message");
        }
        CHECK(file->colors == NULL && file->num_colors == 0);
    }
    return status;
}

/* ---------------------------------------------------------------- cases */

/* A jp2_file holding every box kind survives write -> read unchanged. */
static void round_trip_every_box(void)
{
    jp2_file f = {0};
    uint32_t compat[2] = {JP2_BRAND_JP2, JP2_FOURCC('j', 'p', 'x', 'b')};
    f.brand = JP2_FOURCC('j', 'p', 'x', ' ');
    f.minor_version = 5;
    f.compatibility = compat;
    f.num_compatibility = 2;
    f.header = (jp2_image_header){.height = 300, .width = 401, .num_components = 3,
                                  .bits_per_component = JP2_BPC_VARIES, .compression = 7,
                                  .colorspace_unknown = 1, .has_ipr = 0};
    jp2_depth depths[3] = {{8, false}, {12, true}, {38, false}};
    f.component_depths = depths;
    uint8_t icc[200];
    for (size_t i = 0; i < sizeof icc; i++)
        icc[i] = (uint8_t)(i * 7 + 3);
    jp2_color_spec colors[2] = {{.method = 2, .precedence = -3, .approximation = 1,
                                 .icc_profile = icc, .icc_profile_size = sizeof icc},
                                {.method = 1, .precedence = 2, .enumerated = 18}};
    f.colors = colors;
    f.num_colors = 2;
    jp2_depth column_depths[3] = {{8, false}, {5, true}, {38, false}};
    int64_t values[4 * 3] = {0,   -16, 0,  255, 15, ((int64_t)1 << 38) - 1,
                             17,  -1,  12345678901LL, 128, 7, 1};
    f.has_palette = true;
    f.palette = (jp2_palette){.num_entries = 4, .num_columns = 3, .column_depths = column_depths,
                              .values = values};
    jp2_component_mapping maps[4] = {{0, 1, 2}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}};
    f.mappings = maps;
    f.num_mappings = 4;
    jp2_channel_definition defs[4] = {{0, 0, 1}, {1, 0, 2}, {2, 0, 3}, {3, 1, 0}};
    f.channels = defs;
    f.num_channels = 4;
    f.has_capture_resolution = f.has_display_resolution = true;
    f.capture_resolution = (jp2_resolution){300, 254, 72, 1, 2, -1};
    f.display_resolution = (jp2_resolution){65535, 3, 1, 65535, 0, 127};

    byte_buffer out = {0};
    byte_buffer_put_u8(&out, 0xAB); /* writing appends */
    gj2k_error error = {0};
    REQUIRE(jp2_file_write(&f, fake_codestream, sizeof fake_codestream, &out, &error) == GJ2K_OK);
    REQUIRE(out.data[0] == 0xAB);

    jp2_file r;
    warnings w = {0};
    REQUIRE(jp2_file_read(out.data + 1, out.size - 1, &r, record_warning, &w, &error) == GJ2K_OK);
    CHECK_EQ(w.count, 0);
    CHECK(r.brand == f.brand && r.minor_version == 5 && r.num_compatibility == 2);
    CHECK(r.compatibility[0] == compat[0] && r.compatibility[1] == compat[1]);
    CHECK(memcmp(&r.header, &f.header, sizeof r.header) == 0);
    REQUIRE(r.component_depths != NULL);
    for (int c = 0; c < 3; c++) {
        jp2_depth d;
        CHECK(jp2_file_component_depth(&r, (uint32_t)c, &d));
        CHECK(d.precision == depths[c].precision && d.is_signed == depths[c].is_signed);
    }
    REQUIRE(r.num_colors == 2);
    CHECK(r.colors[0].method == 2 && r.colors[0].precedence == -3 &&
          r.colors[0].approximation == 1);
    CHECK(r.colors[0].icc_profile_size == sizeof icc &&
          memcmp(r.colors[0].icc_profile, icc, sizeof icc) == 0);
    CHECK(r.colors[1].method == 1 && r.colors[1].enumerated == 18 && r.colors[1].precedence == 2);
    REQUIRE(r.has_palette && r.palette.num_entries == 4 && r.palette.num_columns == 3);
    for (int c = 0; c < 3; c++)
        CHECK(r.palette.column_depths[c].precision == column_depths[c].precision &&
              r.palette.column_depths[c].is_signed == column_depths[c].is_signed);
    for (int i = 0; i < 12; i++)
        CHECK_EQ(r.palette.values[i], values[i]);
    REQUIRE(r.num_mappings == 4);
    CHECK(memcmp(r.mappings, maps, sizeof maps) == 0);
    REQUIRE(r.num_channels == 4);
    CHECK(memcmp(r.channels, defs, sizeof defs) == 0);
    CHECK(r.has_capture_resolution && r.has_display_resolution);
    CHECK(memcmp(&r.capture_resolution, &f.capture_resolution, sizeof r.capture_resolution) == 0);
    CHECK(memcmp(&r.display_resolution, &f.display_resolution, sizeof r.display_resolution) == 0);
    CHECK_EQ(r.codestream_length, sizeof fake_codestream);
    CHECK(memcmp(out.data + 1 + r.codestream_offset, fake_codestream, sizeof fake_codestream) == 0);
    jp2_file_free(&r);
    CHECK(r.colors == NULL && r.palette.values == NULL);
    byte_buffer_free(&out);
}

/* describe_image + write + read keeps depths, ICC, roles and resolution. */
static void describe_image_round_trip(void)
{
    gj2k_component_info info[4] = {{1, 1, 8, false}, {1, 1, 8, false}, {1, 1, 10, false},
                                   {1, 1, 8, false}};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_create(&image, 5, 7, 25, 17, 4, info, &error) == GJ2K_OK);
    image->components[3].role = GJ2K_ROLE_OPACITY;
    image->color_space = GJ2K_COLOR_SRGB;
    image->resolution_x = 300 / 0.0254; /* 300 dpi */
    image->resolution_y = 150 / 0.0254;
    jp2_file f;
    REQUIRE(jp2_file_describe_image(&f, image, &error) == GJ2K_OK);
    CHECK(f.header.width == 20 && f.header.height == 10 && f.header.num_components == 4);
    CHECK(f.header.bits_per_component == JP2_BPC_VARIES && f.component_depths != NULL);
    REQUIRE(f.num_colors == 1);
    CHECK(f.colors[0].method == 1 && f.colors[0].enumerated == JP2_ENUM_SRGB);
    CHECK(f.header.colorspace_unknown == 0);
    byte_buffer out = {0};
    REQUIRE(jp2_file_write(&f, fake_codestream, sizeof fake_codestream, &out, &error) == GJ2K_OK);
    jp2_file_free(&f);

    jp2_file r;
    warnings w = {0};
    REQUIRE(jp2_file_read(out.data, out.size, &r, record_warning, &w, &error) == GJ2K_OK);
    CHECK_EQ(w.count, 0);
    jp2_depth d;
    CHECK(jp2_file_component_depth(&r, 2, &d) && d.precision == 10 && !d.is_signed);
    CHECK(jp2_file_component_depth(&r, 0, &d) && d.precision == 8);
    CHECK(!jp2_file_component_depth(&r, 4, &d));
    REQUIRE(r.num_channels == 4);
    jp2_channel_definition expect[4] = {{0, 0, 1}, {1, 0, 2}, {2, 0, 3}, {3, 1, 0}};
    CHECK(memcmp(r.channels, expect, sizeof expect) == 0);
    REQUIRE(r.has_display_resolution && !r.has_capture_resolution);
    double v, h;
    REQUIRE(jp2_resolution_to_ppm(&r.display_resolution, &v, &h));
    CHECK(fabs(h - 300 / 0.0254) < 1e-6 * h && fabs(v - 150 / 0.0254) < 1e-6 * v);
    jp2_file_free(&r);
    byte_buffer_free(&out);

    /* An ICC profile becomes colr method 2; one depth means no bpcc; a grey
     * unknown-space image gets greyscale with UnkC = 1. */
    image->components[2].precision = 8;
    image->components[3].role = GJ2K_ROLE_COLOR;
    uint8_t icc[132] = {0};
    memcpy(icc + 16, "RGB ", 4);
    REQUIRE(gj2k_image_set_icc_profile(image, icc, sizeof icc, &error) == GJ2K_OK);
    image->resolution_x = image->resolution_y = 0;
    REQUIRE(jp2_file_describe_image(&f, image, &error) == GJ2K_OK);
    CHECK(f.header.bits_per_component == 7 && f.component_depths == NULL);
    CHECK(f.colors[0].method == 2 && f.colors[0].icc_profile_size == sizeof icc);
    CHECK(f.channels == NULL && !f.has_display_resolution);
    jp2_file_free(&f);
    gj2k_image_destroy(image);

    gj2k_image *grey = NULL;
    REQUIRE(gj2k_image_create(&grey, 0, 0, 3, 3, 1, info, &error) == GJ2K_OK);
    REQUIRE(jp2_file_describe_image(&f, grey, &error) == GJ2K_OK);
    CHECK(f.colors[0].enumerated == JP2_ENUM_GREYSCALE && f.header.colorspace_unknown == 1);
    jp2_file_free(&f);
    gj2k_image_destroy(grey);
}

/* Resolution fields: exact fractions where they exist, else within 1e-6. */
static void resolution_encoding(void)
{
    jp2_resolution res;
    double v, h;
    REQUIRE(jp2_resolution_from_ppm(3937.0, 0.5, &res));
    REQUIRE(jp2_resolution_to_ppm(&res, &v, &h));
    CHECK(v == 3937.0 && h == 0.5);
    for (int i = 0; i < 200; i++) {
        double a = exp((double)test_random_range(-5000, 15000) / 1000.0);
        double b = exp((double)test_random_range(-5000, 15000) / 1000.0);
        REQUIRE(jp2_resolution_from_ppm(a, b, &res));
        REQUIRE(jp2_resolution_to_ppm(&res, &v, &h));
        CHECK(fabs(v - a) <= 1e-6 * a && fabs(h - b) <= 1e-6 * b);
    }
    CHECK(!jp2_resolution_from_ppm(0, 1, &res));
    CHECK(!jp2_resolution_from_ppm(1, NAN, &res));
}

typedef struct conformance_fact {
    const char *name;
    uint32_t brand, height, width;
    uint16_t components;
    uint8_t bpc;
    uint8_t method;         /* of the first colr box */
    uint32_t enumerated;    /* method 1 */
    size_t icc_size;        /* methods 2, 3 */
    const char *icc_space;  /* ICC header bytes 16..19 */
    uint32_t num_colors;
    bool palette;
    uint32_t num_channels;  /* cdef entries */
    uint64_t codestream_offset;
} conformance_fact;

/* Facts checked by a box dump of ../shared/conformance/input (hexdump). */
static void conformance_files_parse(void)
{
    const uint32_t jp2 = JP2_BRAND_JP2, jpx = JP2_FOURCC('j', 'p', 'x', ' ');
    static const conformance_fact facts[] = {
        {"file1.jp2", JP2_BRAND_JP2, 512, 768, 3, 7, 1, 16, 0, NULL, 1, false, 0, 1277},
        {"file2.jp2", JP2_BRAND_JP2, 640, 480, 3, 7, 1, 18, 0, NULL, 1, false, 3, 117},
        {"file3.jp2", JP2_BRAND_JP2, 640, 480, 3, 7, 1, 18, 0, NULL, 1, false, 0, 89},
        {"file4.jp2", JP2_BRAND_JP2, 512, 768, 1, 7, 1, 17, 0, NULL, 1, false, 0, 89},
        {"file5.jp2", 0, 512, 768, 3, 7, 2, 0, 546, "RGB ", 2, false, 0, 678},
        {"file6.jp2", JP2_BRAND_JP2, 512, 768, 1, 11, 1, 17, 0, NULL, 1, false, 0, 89},
        {"file7.jp2", 0, 640, 480, 3, 15, 2, 0, 13332, "RGB ", 2, false, 0, 13464},
        {"file8.jp2", JP2_BRAND_JP2, 400, 700, 1, 7, 2, 0, 414, "GRAY", 1, false, 0, 884},
        {"file9.jp2", JP2_BRAND_JP2, 512, 768, 1, 7, 1, 16, 0, NULL, 1, true, 0, 891},
        {"subsampling_1.jp2", JP2_BRAND_JP2, 1024, 1280, 3, 7, 1, 18, 0, NULL, 1, false, 0, 113},
        {"subsampling_2.jp2", JP2_BRAND_JP2, 1024, 1280, 3, 7, 1, 16, 0, NULL, 1, false, 0, 113},
        {"zoo2.jp2", JP2_BRAND_JP2, 2602, 3906, 3, 7, 1, 16, 0, NULL, 1, false, 0, 113},
    };
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const conformance_fact *fact = &facts[i];
        char relative[128];
        snprintf(relative, sizeof relative, "conformance/input/%s", fact->name);
        size_t size;
        uint8_t *data = test_read_file(test_shared_path(relative), &size);
        if (data == NULL) {
            fprintf(stderr, "cannot read %s\n", relative);
            CHECK(!"conformance file readable");
            continue;
        }
        jp2_file f;
        warnings w = {0};
        gj2k_error error = {0};
        gj2k_status status = jp2_file_read(data, size, &f, record_warning, &w, &error);
        if (status != GJ2K_OK)
            fprintf(stderr, "%s: %s\n", fact->name, error.message);
        CHECK(status == GJ2K_OK);
        if (status != GJ2K_OK) {
            free(data);
            continue;
        }
        CHECK_EQ(w.count, 0);
        CHECK(f.brand == (fact->brand ? fact->brand : jpx));
        bool lists_jp2 = false;
        for (uint32_t k = 0; k < f.num_compatibility; k++)
            lists_jp2 = lists_jp2 || f.compatibility[k] == jp2;
        CHECK(lists_jp2);
        CHECK_EQ(f.header.height, fact->height);
        CHECK_EQ(f.header.width, fact->width);
        CHECK_EQ(f.header.num_components, fact->components);
        CHECK_EQ(f.header.bits_per_component, fact->bpc);
        CHECK(f.component_depths == NULL);
        REQUIRE(f.num_colors == fact->num_colors);
        CHECK_EQ(f.colors[0].method, fact->method);
        if (fact->method == 1) {
            CHECK_EQ(f.colors[0].enumerated, fact->enumerated);
        } else {
            CHECK_EQ(f.colors[0].icc_profile_size, fact->icc_size);
            CHECK(memcmp(f.colors[0].icc_profile + 16, fact->icc_space, 4) == 0);
            CHECK(memcmp(f.colors[0].icc_profile + 12, "scnr", 4) == 0); /* input class */
        }
        CHECK(f.has_palette == fact->palette);
        CHECK_EQ(f.num_channels, fact->num_channels);
        CHECK_EQ(f.codestream_offset, fact->codestream_offset);
        /* jp2c is the last box except in file8.jp2, where an xml box follows. */
        CHECK_EQ(f.codestream_offset + f.codestream_length,
                 strcmp(fact->name, "file8.jp2") == 0 ? 149709u : size);
        CHECK(data[f.codestream_offset] == 0xFF && data[f.codestream_offset + 1] == 0x4F &&
              data[f.codestream_offset + 2] == 0xFF && data[f.codestream_offset + 3] == 0x51);
        if (strcmp(fact->name, "file2.jp2") == 0) {
            /* Components in Cr, Cb, Y order, put right by cdef. */
            jp2_channel_definition expect[3] = {{0, 0, 3}, {1, 0, 2}, {2, 0, 1}};
            CHECK(memcmp(f.channels, expect, sizeof expect) == 0);
        }
        if (f.num_colors == 2) {
            /* JPX: ICC first (precedence 0), then e-sRGB (20) or ROMM-RGB (21). */
            CHECK(f.colors[0].precedence == 0 && f.colors[0].approximation == 1);
            CHECK(f.colors[1].method == 1 && f.colors[1].precedence == 1);
            CHECK(f.colors[1].enumerated == (strcmp(fact->name, "file5.jp2") == 0 ? 21u : 20u));
        }
        if (fact->palette) {
            CHECK(f.palette.num_entries == 256 && f.palette.num_columns == 3);
            for (int c = 0; c < 3; c++)
                CHECK(f.palette.column_depths[c].precision == 8 &&
                      !f.palette.column_depths[c].is_signed);
            REQUIRE(f.num_mappings == 3);
            for (uint32_t k = 0; k < 3; k++)
                CHECK(f.mappings[k].component == 0 && f.mappings[k].map_type == 1 &&
                      f.mappings[k].palette_column == k);
        }
        jp2_file_free(&f);
        free(data);
    }
}

/* Broken files are refused with a message naming the fault. */
static void malformed_inputs_rejected(void)
{
    jp2_file f;
    warnings w = {0};
    byte_buffer header = {0}, b = {0};
    put_ihdr(&header, 4, 4, 3, 7);
    put_colr_enumerated(&header, 16);

    make_file(&b, &header); /* the valid baseline */
    CHECK(read_expect(&b, &f, &w, NULL) == GJ2K_OK);
    jp2_file_free(&f);

    b.data[9] ^= 1; /* signature content */
    CHECK(read_expect(&b, &f, &w, "signature") == GJ2K_ERROR_MALFORMED);
    b.size = 0;
    CHECK(read_expect(&b, &f, &w, "signature") == GJ2K_ERROR_MALFORMED);

    put_preamble(&b, "mjp2", "mjp2"); /* no 'jp2 ' compatibility */
    put_box(&b, "jp2h", header.data, header.size);
    CHECK(read_expect(&b, &f, &w, "'jp2 '") == GJ2K_ERROR_UNSUPPORTED);
    b.size = 0;

    put_preamble(&b, "jpx ", "jp2 "); /* JPX that lists JP2: accepted */
    put_box(&b, "jp2h", header.data, header.size);
    put_box(&b, "jp2c", fake_codestream, sizeof fake_codestream);
    CHECK(read_expect(&b, &f, &w, NULL) == GJ2K_OK);
    jp2_file_free(&f);

    b.size = 12; /* second box not ftyp */
    put_box(&b, "jp2h", header.data, header.size);
    CHECK(read_expect(&b, &f, &w, "ftyp expected") == GJ2K_ERROR_MALFORMED);
    b.size = 0;

    make_file(&b, &header); /* truncated inside jp2h */
    b.size = 12 + 20 + 8 + 10;
    CHECK(read_expect(&b, &f, &w, "jp2h") == GJ2K_ERROR_TRUNCATED);
    b.size = 0;

    put_preamble(&b, "jp2 ", "jp2 "); /* LBox beyond the file, before jp2c */
    byte_buffer_put_u32_be(&b, 5000);
    byte_buffer_append(&b, "xml <a/>", 8);
    CHECK(read_expect(&b, &f, &w, "claims 5000 bytes") == GJ2K_ERROR_TRUNCATED);
    b.size = 0;

    put_preamble(&b, "jp2 ", "jp2 "); /* reserved LBox value */
    byte_buffer_put_u32_be(&b, 4);
    byte_buffer_append(&b, "jp2h", 4);
    CHECK(read_expect(&b, &f, &w, "reserved length 4") == GJ2K_ERROR_MALFORMED);
    b.size = 0;

    put_preamble(&b, "jp2 ", "jp2 "); /* XLBox too small */
    byte_buffer_put_u32_be(&b, 1);
    byte_buffer_append(&b, "jp2c", 4);
    byte_buffer_put_u32_be(&b, 0);
    byte_buffer_put_u32_be(&b, 12);
    CHECK(read_expect(&b, &f, &w, "XLBox 12") == GJ2K_ERROR_MALFORMED);
    b.size = 0;

    byte_buffer h2 = {0}; /* jp2h without ihdr */
    put_colr_enumerated(&h2, 16);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "without an ihdr") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    uint8_t short_ihdr[12] = {0, 0, 0, 4, 0, 0, 0, 4, 0, 3, 7, 7};
    put_box(&h2, "ihdr", short_ihdr, sizeof short_ihdr);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "ihdr box of 12 bytes, 14 expected") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    put_ihdr(&h2, 4, 4, 3, 0xFF); /* BPC 255 without bpcc */
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "bpcc") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    uint8_t big_palette[3] = {0x07, 0xD0, 3}; /* NE = 2000 */
    put_ihdr(&h2, 4, 4, 1, 7);
    put_box(&h2, "pclr", big_palette, sizeof big_palette);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "2000 entries") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    uint8_t short_palette[3 + 3 + 10] = {0x01, 0x00, 3, 7, 7, 7}; /* 256 x 3 promised */
    put_ihdr(&h2, 4, 4, 1, 7);
    put_box(&h2, "pclr", short_palette, sizeof short_palette);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "16 bytes, 774 needed") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    uint8_t palette[3 + 1 + 2] = {0, 2, 1, 7, 10, 20};
    uint8_t bad_map[4] = {0, 0, 1, 1}; /* column 1 of 1 */
    put_ihdr(&h2, 4, 4, 1, 7);
    put_box(&h2, "pclr", palette, sizeof palette);
    put_box(&h2, "cmap", bad_map, sizeof bad_map);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "palette column 1 of 1") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    uint8_t repeated_map[8] = {0, 0, 1, 0, 0, 0, 1, 0}; /* column 0 twice */
    put_ihdr(&h2, 4, 4, 1, 7);
    put_box(&h2, "pclr", palette, sizeof palette);
    put_box(&h2, "cmap", repeated_map, sizeof repeated_map);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "through palette column 0 twice") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    put_ihdr(&h2, 4, 4, 1, 7); /* pclr without cmap */
    put_box(&h2, "pclr", palette, sizeof palette);
    make_file(&b, &h2);
    CHECK(read_expect(&b, &f, &w, "without a cmap") == GJ2K_ERROR_MALFORMED);
    b.size = h2.size = 0;

    /* Channel 0 described twice (colour 1, then opacity): redundant, not
     * ambiguous enough to refuse: the first description stands, warned. */
    uint8_t twice[14] = {0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
    put_ihdr(&h2, 4, 4, 3, 7);
    put_colr_enumerated(&h2, 16);
    put_box(&h2, "cdef", twice, sizeof twice);
    make_file(&b, &h2);
    int before = w.count;
    CHECK(read_expect(&b, &f, &w, NULL) == GJ2K_OK);
    CHECK(w.count == before + 1 && strstr(w.last, "channel 0 again") != NULL);
    CHECK(f.num_channels == 1 && f.channels[0].channel == 0 &&
          f.channels[0].type == JP2_CHANNEL_COLOR && f.channels[0].association == 1);
    jp2_file_free(&f);
    b.size = h2.size = 0;

    put_preamble(&b, "jp2 ", "jp2 "); /* no codestream */
    put_box(&b, "jp2h", header.data, header.size);
    CHECK(read_expect(&b, &f, &w, "no jp2c") == GJ2K_ERROR_MALFORMED);
    b.size = 0;

    put_preamble(&b, "jp2 ", "jp2 "); /* no header */
    put_box(&b, "jp2c", fake_codestream, sizeof fake_codestream);
    CHECK(read_expect(&b, &f, &w, "no jp2h") == GJ2K_ERROR_MALFORMED);

    byte_buffer_free(&b);
    byte_buffer_free(&h2);
    byte_buffer_free(&header);
}

/* Order faults real files show are read with a warning; XLBox and LBox 0 work. */
static void lenient_box_order(void)
{
    jp2_file f;
    warnings w = {0};
    byte_buffer header = {0}, b = {0};
    put_colr_enumerated(&header, 17); /* colr before ihdr, unknown box inside */
    put_ihdr(&header, 2, 3, 1, 7);
    put_box(&header, "abcd", "xy", 2);

    put_preamble(&b, "jp2 ", "jp2 ");
    byte_buffer_put_u32_be(&b, 1); /* jp2c first, with an XLBox */
    byte_buffer_append(&b, "jp2c", 4);
    byte_buffer_put_u32_be(&b, 0);
    byte_buffer_put_u32_be(&b, 16 + sizeof fake_codestream);
    byte_buffer_append(&b, fake_codestream, sizeof fake_codestream);
    put_box(&b, "jp2h", header.data, header.size);
    byte_buffer_put_u32_be(&b, 0); /* a last box running to the end */
    byte_buffer_append(&b, "xml <a/>", 8);
    REQUIRE(read_expect(&b, &f, &w, NULL) == GJ2K_OK);
    CHECK_EQ(w.count, 3); /* jp2h after jp2c, ihdr not first, unknown 'abcd' */
    CHECK(f.codestream_offset == 32 + 16 && f.codestream_length == sizeof fake_codestream);
    CHECK(f.header.width == 3 && f.header.height == 2 && f.colors[0].enumerated == 17);
    jp2_file_free(&f);

    /* Trailing garbage after everything needed is a warning. */
    b.size = 0;
    w.count = 0;
    make_file(&b, &header);
    byte_buffer_append(&b, "\0\0\0", 3);
    REQUIRE(read_expect(&b, &f, &w, NULL) == GJ2K_OK);
    CHECK(w.count == 3 && strstr(w.last, "ignored") != NULL);
    jp2_file_free(&f);
    byte_buffer_free(&b);
    byte_buffer_free(&header);
}

/* Every prefix and many random corruptions of file1.jp2 end cleanly. */
static void damaged_file_never_crashes(void)
{
    size_t size;
    uint8_t *data = test_read_file(test_shared_path("conformance/input/file1.jp2"), &size);
    REQUIRE(data != NULL);
    jp2_file f;
    gj2k_error error;
    REQUIRE(jp2_file_read(data, size, &f, NULL, NULL, &error) == GJ2K_OK);
    size_t codestream_start = (size_t)f.codestream_offset;
    jp2_file_free(&f);
    for (size_t cut = 0; cut < size; cut += cut < 1400 ? 1 : 997) {
        /* An exact copy, so ASan sees reads past the prefix. */
        uint8_t *prefix = malloc(cut ? cut : 1);
        REQUIRE(prefix != NULL);
        memcpy(prefix, data, cut);
        warnings w = {0};
        gj2k_status status = jp2_file_read(prefix, cut, &f, record_warning, &w, &error);
        /* jp2c runs to the end: a prefix holding its header and some of its
         * contents is a truncated file whose codestream is clipped, with a
         * warning; a shorter one fails. */
        if (status == GJ2K_OK) {
            CHECK(cut > codestream_start);
            CHECK(f.codestream_offset == codestream_start &&
                  f.codestream_offset + f.codestream_length == cut);
            CHECK(w.count > 0);
            jp2_file_free(&f);
        } else {
            CHECK(cut <= codestream_start); /* an empty jp2c box holds nothing to decode */
            CHECK(error.message[0] != '\0');
        }
        free(prefix);
    }
    for (int round = 0; round < 3000; round++) {
        size_t at = (size_t)test_random_range(0, 1300);
        uint8_t saved = data[at];
        data[at] ^= (uint8_t)test_random_range(1, 255);
        size_t at2 = (size_t)test_random_range(0, 1300);
        uint8_t saved2 = data[at2];
        data[at2] = (uint8_t)test_random();
        if (jp2_file_read(data, size, &f, NULL, NULL, &error) == GJ2K_OK) {
            CHECK(f.codestream_offset + f.codestream_length <= size);
            jp2_file_free(&f);
        }
        data[at2] = saved2;
        data[at] = saved;
    }
    free(data);
}

/* The ftyp box's brand and compatibility list as written: bytes 16.. of a
 * file whose ftyp follows the 12-byte signature box. */
static bool file_type_is(const byte_buffer *file, uint32_t brand, const uint32_t *list,
                         uint32_t count)
{
    const uint8_t *p = file->data + 12;
    uint32_t length = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (file->size < 12 + (size_t)length || length != 16 + 4 * count || memcmp(p + 4, "ftyp", 4))
        return false;
    for (uint32_t i = 0; i <= count; i++) {
        const uint8_t *q = p + (i == 0 ? 8 : 12 + 4 * i);
        uint32_t value = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        if (value != (i == 0 ? brand : list[i - 1]))
            return false;
    }
    return true;
}

/* A codestream with Rsiz bit 14 (HTJ2K) makes a JPH file (T.814 Annex D):
 * brand 'jph ', 'jph ' listed instead of 'jp2 '; the reader takes it. Part 1
 * codestreams keep 'jp2 '. */
static void jph_brand_for_htj2k_codestream(void)
{
    gj2k_component_info info = {1, 1, 8, false};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_create(&image, 0, 0, 16, 8, 1, &info, &error) == GJ2K_OK);
    jp2_file f;
    REQUIRE(jp2_file_describe_image(&f, image, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
    uint8_t htj2k[sizeof fake_codestream];
    memcpy(htj2k, fake_codestream, sizeof htj2k);
    htj2k[6] = 0x40; /* Rsiz 0x4000 */

    byte_buffer out = {0};
    REQUIRE(jp2_file_write(&f, htj2k, sizeof htj2k, &out, &error) == GJ2K_OK);
    const uint32_t jph[] = {JP2_BRAND_JPH};
    CHECK(file_type_is(&out, JP2_BRAND_JPH, jph, 1));
    jp2_file r;
    warnings w = {0};
    REQUIRE(jp2_file_read(out.data, out.size, &r, record_warning, &w, &error) == GJ2K_OK);
    CHECK_EQ(w.count, 0);
    CHECK(r.brand == JP2_BRAND_JPH && r.num_compatibility == 1 &&
          r.compatibility[0] == JP2_BRAND_JPH);
    CHECK(r.codestream_length == sizeof htj2k &&
          memcmp(out.data + r.codestream_offset, htj2k, sizeof htj2k) == 0);
    CHECK(gj2k_format_from_signature(out.data, out.size) == GJ2K_FORMAT_JP2);
    jp2_file_free(&r);

    /* Part 1: unchanged */
    out.size = 0;
    REQUIRE(jp2_file_write(&f, fake_codestream, sizeof fake_codestream, &out, &error) == GJ2K_OK);
    const uint32_t jp2[] = {JP2_BRAND_JP2};
    CHECK(file_type_is(&out, JP2_BRAND_JP2, jp2, 1));

    /* other brands of the list stay; 'jp2 ' goes, 'jph ' comes once, first */
    uint32_t *grown = realloc(f.compatibility, 3 * sizeof *grown);
    REQUIRE(grown != NULL);
    f.compatibility = grown;
    f.compatibility[1] = JP2_FOURCC('j', 'p', 'x', 'b');
    f.compatibility[2] = JP2_BRAND_JPH;
    f.num_compatibility = 3;
    out.size = 0;
    REQUIRE(jp2_file_write(&f, htj2k, sizeof htj2k, &out, &error) == GJ2K_OK);
    const uint32_t mixed[] = {JP2_BRAND_JPH, JP2_FOURCC('j', 'p', 'x', 'b')};
    CHECK(file_type_is(&out, JP2_BRAND_JPH, mixed, 2));
    jp2_file_free(&f);
    byte_buffer_free(&out);
}

static const test_case cases[] = {
    {"jph_brand_for_htj2k_codestream", jph_brand_for_htj2k_codestream},
    {"round_trip_every_box", round_trip_every_box},
    {"describe_image_round_trip", describe_image_round_trip},
    {"resolution_encoding", resolution_encoding},
    {"conformance_files_parse", conformance_files_parse},
    {"malformed_inputs_rejected", malformed_inputs_rejected},
    {"lenient_box_order", lenient_box_order},
    {"damaged_file_never_crashes", damaged_file_never_crashes},
};

TEST_MAIN(cases)
