/* test_metadata.c - XMP, EXIF and IPTC carried as they came: through JP2's
 * uuid boxes both ways (an encode and a decode, raw components too), PNG's
 * iTXt and eXIf chunks, TIFF's XMP and IPTC tags; what a format cannot
 * hold is named in a warning. Skips a format this build lacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "test_harness.h"

static const char xmp[] = "<?xpacket begin=\"\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
                          "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3."
                          "org/1999/02/22-rdf-syntax-ns#\"/></x:xmpmeta><?xpacket end=\"w\"?>";
/* A TIFF structure of one IFD with one entry (Artist, ASCII "gj2k"). */
static const uint8_t exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x3B, 0x01, 2, 0, 5, 0,
                               0, 0, 'g', 'j', '2', 'k', 0, 0, 0, 0, 0, 0};
/* An IPTC-IIM dataset (2:25 keyword "gj2k"), a multiple of 4 bytes for TIFF. */
static const uint8_t iptc[] = {0x1C, 2, 25, 0, 4, 'g', 'j', '2', 'k', 0, 0, 0};

typedef struct heard {
    char text[1024];
} heard;

static void hear(void *user, const char *message)
{
    heard *h = user;
    strncat(h->text, message, sizeof h->text - strlen(h->text) - 2);
    strcat(h->text, "\n");
}

static gj2k_image *image_with_metadata(bool with_iptc)
{
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, 21, 13, 3, info, NULL) != GJ2K_OK)
        return NULL;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < 21 * 13; i++)
            image->components[c].samples[i] = (int32_t)(test_random() % 256);
    if (gj2k_image_set_metadata(image, GJ2K_METADATA_XMP, (const uint8_t *)xmp, strlen(xmp),
                                NULL) != GJ2K_OK ||
        gj2k_image_set_metadata(image, GJ2K_METADATA_EXIF, exif, sizeof exif, NULL) != GJ2K_OK ||
        (with_iptc &&
         gj2k_image_set_metadata(image, GJ2K_METADATA_IPTC, iptc, sizeof iptc, NULL) != GJ2K_OK)) {
        gj2k_image_destroy(image);
        return NULL;
    }
    return image;
}

static bool same(const uint8_t *a, size_t a_size, const void *b, size_t b_size)
{
    return a != NULL && a_size == b_size && memcmp(a, b, b_size) == 0;
}

static void test_jp2_both_ways(void)
{
    gj2k_image *image = image_with_metadata(true);
    REQUIRE(image != NULL);
    gj2k_encode_options o = {.format = GJ2K_FORMAT_JP2};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    for (int raw = 0; raw < 2; raw++) {
        gj2k_decode_options d = {.raw_components = raw};
        gj2k_image *back = NULL;
        REQUIRE(gj2k_decode_memory(data, size, &d, &back, &error) == GJ2K_OK);
        CHECK(same(back->xmp, back->xmp_size, xmp, strlen(xmp)));
        CHECK(same(back->exif, back->exif_size, exif, sizeof exif));
        CHECK(same(back->iptc, back->iptc_size, iptc, sizeof iptc));
        gj2k_image_destroy(back);
    }
    /* a J2K codestream has no place for them */
    o.format = GJ2K_FORMAT_J2K;
    free(data);
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    gj2k_image *bare = NULL;
    REQUIRE(gj2k_decode_memory(data, size, NULL, &bare, &error) == GJ2K_OK);
    CHECK(bare->xmp == NULL && bare->exif == NULL && bare->iptc == NULL);
    gj2k_image_destroy(bare);
    free(data);
    gj2k_image_destroy(image);
}

/* Writes `image` as `format` and reads it back; NULL (a skip) when the
 * build cannot write it. */
static gj2k_image *round_trip(const gj2k_image *image, gj2k_file_format format, heard *h)
{
    if (!gj2k_format_can_write(format))
        return NULL;
    gj2k_write_options w = {.warning = hear, .warning_user = h};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    gj2k_image *back = NULL;
    CHECK(gj2k_image_write_memory(image, format, &w, &data, &size, &error) == GJ2K_OK &&
          gj2k_image_read_memory(data, size, format, NULL, &back, &error) == GJ2K_OK);
    free(data);
    return back;
}

static void test_png_keeps_xmp_and_exif(void)
{
    gj2k_image *image = image_with_metadata(true);
    REQUIRE(image != NULL);
    heard h = {{0}};
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNG, &h);
    if (back == NULL && !gj2k_format_can_write(GJ2K_FORMAT_PNG)) {
        gj2k_image_destroy(image);
        test_skip("no PNG in this build");
    }
    REQUIRE(back != NULL);
    CHECK(same(back->xmp, back->xmp_size, xmp, strlen(xmp)));
    CHECK(same(back->exif, back->exif_size, exif, sizeof exif));
    CHECK(back->iptc == NULL);
    CHECK(strstr(h.text, "IPTC") != NULL || (fprintf(stderr, "heard: %s", h.text), 0));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

static void test_tiff_keeps_xmp_and_iptc(void)
{
    gj2k_image *image = image_with_metadata(true);
    REQUIRE(image != NULL);
    heard h = {{0}};
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_TIFF, &h);
    if (back == NULL && !gj2k_format_can_write(GJ2K_FORMAT_TIFF)) {
        gj2k_image_destroy(image);
        test_skip("no TIFF in this build");
    }
    REQUIRE(back != NULL);
    CHECK(same(back->xmp, back->xmp_size, xmp, strlen(xmp)));
    CHECK(same(back->iptc, back->iptc_size, iptc, sizeof iptc));
    CHECK(back->exif == NULL);
    CHECK(strstr(h.text, "EXIF") != NULL || (fprintf(stderr, "heard: %s", h.text), 0));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"jp2_both_ways", test_jp2_both_ways},
    {"png_keeps_xmp_and_exif", test_png_keeps_xmp_and_exif},
    {"tiff_keeps_xmp_and_iptc", test_tiff_keeps_xmp_and_iptc},
};

TEST_MAIN(cases)
