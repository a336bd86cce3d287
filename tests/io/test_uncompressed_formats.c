/* test_uncompressed_formats.c - PNM, PGX, BMP and raw: round trips, hand-made
 * files with known samples, the shared photographs, and robustness against
 * truncated, corrupted and oversized input. */
#include "byte_buffer.h"
#include "gj2k.h"
#include "test_harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

typedef struct warnings {
    int count;
    char last[256];
} warnings;

static void record_warning(void *user, const char *message)
{
    warnings *w = user;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
}

static gj2k_status read_bytes(const void *data, size_t size, gj2k_file_format format,
                              const gj2k_read_options *options, gj2k_image **out)
{
    gj2k_error error = {0};
    gj2k_status status = gj2k_image_read_memory(data, size, format, options, out, &error);
    if (status == GJ2K_OK)
        CHECK(*out != NULL);
    else
        CHECK(*out == NULL && error.message[0] != '\0');
    return status;
}

/* Reads a NUL-terminated header followed by `extra` raw bytes. */
static gj2k_status read_text(const char *header, const void *extra, size_t extra_size,
                             gj2k_file_format format, const gj2k_read_options *options,
                             gj2k_image **out)
{
    byte_buffer b = {0};
    byte_buffer_append(&b, header, strlen(header));
    byte_buffer_append(&b, extra, extra_size);
    gj2k_status status = read_bytes(b.data, b.size, format, options, out);
    byte_buffer_free(&b);
    return status;
}

static gj2k_image *make_image(uint32_t width, uint32_t height, uint32_t n, uint32_t precision,
                              bool is_signed, const uint32_t *dx, const uint32_t *dy)
{
    gj2k_component_info info[8];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (gj2k_component_info){.dx = dx ? dx[c] : 1, .dy = dy ? dy[c] : 1,
                                        .precision = precision, .is_signed = is_signed};
    gj2k_image *image = NULL;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, width, height, n, info, &error) != GJ2K_OK) {
        fprintf(stderr, "gj2k_image_create: %s\n", error.message);
        return NULL;
    }
    return image;
}

static void fill_random(gj2k_image *image)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *comp = &image->components[c];
        int64_t lo = comp->is_signed ? -((int64_t)1 << (comp->precision - 1)) : 0;
        int64_t hi = comp->is_signed ? ((int64_t)1 << (comp->precision - 1)) - 1
                                     : ((int64_t)1 << comp->precision) - 1;
        for (size_t i = 0; i < (size_t)comp->width * comp->height; i++) {
            int64_t r = test_random_range(0, 9);
            comp->samples[i] = (int32_t)(r == 0 ? lo : r == 1 ? hi : test_random_range(lo, hi));
        }
    }
}

static gj2k_image *random_image(uint32_t n, uint32_t precision, bool is_signed)
{
    static const uint32_t sizes[] = {1, 2, 3, 7, 17, 33};
    uint32_t w = test_random_range(0, 2) ? (uint32_t)test_random_range(1, 40)
                                         : sizes[test_random_range(0, 5)];
    uint32_t h = test_random_range(0, 2) ? (uint32_t)test_random_range(1, 40)
                                         : sizes[test_random_range(0, 5)];
    gj2k_image *image = make_image(w, h, n, precision, is_signed, NULL, NULL);
    if (image != NULL)
        fill_random(image);
    return image;
}

/* True when both images have the same geometry, components and samples. */
static bool images_equal(const gj2k_image *a, const gj2k_image *b)
{
    if (a->x0 != b->x0 || a->y0 != b->y0 || a->x1 != b->x1 || a->y1 != b->y1 ||
        a->num_components != b->num_components) {
        fprintf(stderr, "images differ: %ux%u %u components vs %ux%u %u components\n", a->x1,
                a->y1, a->num_components, b->x1, b->y1, b->num_components);
        return false;
    }
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *p = &a->components[c], *q = &b->components[c];
        if (p->dx != q->dx || p->dy != q->dy || p->width != q->width ||
            p->height != q->height || p->precision != q->precision ||
            p->is_signed != q->is_signed || p->role != q->role) {
            fprintf(stderr,
                    "component %u differs: %ux%u /%u,%u %u bits %s role %d vs %ux%u /%u,%u %u "
                    "bits %s role %d\n", c, p->width, p->height, p->dx, p->dy, p->precision,
                    p->is_signed ? "signed" : "unsigned", (int)p->role, q->width, q->height,
                    q->dx, q->dy, q->precision, q->is_signed ? "signed" : "unsigned",
                    (int)q->role);
            return false;
        }
        for (size_t i = 0; i < (size_t)p->width * p->height; i++)
            if (p->samples[i] != q->samples[i]) {
                fprintf(stderr, "component %u sample %zu: %d vs %d\n", c, i, p->samples[i],
                        q->samples[i]);
                return false;
            }
    }
    return true;
}

/* Writes `image` in `format` and reads it back (NULL on failure). */
static gj2k_image *round_trip(const gj2k_image *image, gj2k_file_format format,
                              const gj2k_read_options *read_options, warnings *warned)
{
    gj2k_write_options write_options = {.warning = record_warning, .warning_user = warned};
    uint8_t *data;
    size_t size;
    gj2k_error error = {0};
    gj2k_status status = gj2k_image_write_memory(image, format, warned ? &write_options : NULL,
                                                 &data, &size, &error);
    if (status != GJ2K_OK) {
        fprintf(stderr, "writing %s: %s\n", gj2k_format_name(format), error.message);
        return NULL;
    }
    gj2k_image *back = NULL;
    status = gj2k_image_read_memory(data, size, format, read_options, &back, &error);
    free(data);
    if (status != GJ2K_OK)
        fprintf(stderr, "reading %s back: %s\n", gj2k_format_name(format), error.message);
    return back;
}

/* Component c's samples; a missing component fails the check and reads as zeros. */
static const int32_t *samples_of(const gj2k_image *image, uint32_t c)
{
    static const int32_t zeros[1024];
    CHECK(c < image->num_components);
    return c < image->num_components ? image->components[c].samples : zeros;
}

/* Compares component c's samples with the expected list. */
static bool samples_are(const gj2k_image *image, uint32_t c, const int32_t *expected, size_t n)
{
    if (c >= image->num_components) {
        fprintf(stderr, "no component %u\n", c);
        return false;
    }
    const gj2k_component *comp = &image->components[c];
    if ((size_t)comp->width * comp->height != n) {
        fprintf(stderr, "component %u holds %zu samples, expected %zu\n", c,
                (size_t)comp->width * comp->height, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (comp->samples[i] != expected[i]) {
            fprintf(stderr, "component %u sample %zu: %d, expected %d\n", c, i, comp->samples[i],
                    expected[i]);
            return false;
        }
    return true;
}

/* ------------------------------------------------------- round trips */

static void pnm_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t n = (uint32_t)test_random_range(1, 4);
        uint32_t precision = (uint32_t)(iteration < 16 ? iteration + 1 : test_random_range(1, 16));
        gj2k_image *image = random_image(n, precision, false);
        REQUIRE(image != NULL);
        image->color_space = n <= 2 ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
        if (n == 2 || n == 4)
            image->components[n - 1].role = GJ2K_ROLE_OPACITY;
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNM, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->color_space == image->color_space);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
    /* Signed samples come back offset by 2^(precision-1), with a warning. */
    gj2k_image *image = make_image(3, 1, 1, 10, true, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = -512;
    image->components[0].samples[1] = 0;
    image->components[0].samples[2] = 511;
    warnings warned = {0};
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNM, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count == 1);
    CHECK(!back->components[0].is_signed && back->components[0].precision == 10);
    CHECK(samples_are(back, 0, (const int32_t[]){0, 512, 1023}, 3));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

static void pgx_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t precision = (uint32_t)(iteration < 31 ? iteration + 1 : test_random_range(1, 31));
        bool is_signed = test_random_range(0, 1) != 0;
        gj2k_image *image = random_image(1, precision, is_signed);
        REQUIRE(image != NULL);
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_PGX, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->color_space == GJ2K_COLOR_GRAY);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
}

static void bmp_random_round_trips(void)
{
    static const uint32_t counts[] = {1, 3, 4};
    for (int iteration = 0; iteration < 120; iteration++) {
        uint32_t n = counts[iteration % 3];
        gj2k_image *image = random_image(n, 8, false);
        REQUIRE(image != NULL);
        if (n == 4)
            image->components[3].role = GJ2K_ROLE_OPACITY;
        image->resolution_x = (double)test_random_range(0, 10000);
        image->resolution_y = (double)test_random_range(0, 10000);
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->resolution_x == image->resolution_x);
        CHECK(back == NULL || back->resolution_y == image->resolution_y);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }

    /* Grey + alpha becomes 32-bit with the grey replicated. */
    gj2k_image *image = make_image(3, 2, 2, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    fill_random(image);
    image->components[1].role = GJ2K_ROLE_OPACITY;
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_BMP, NULL, NULL);
    REQUIRE(back != NULL);
    CHECK_EQ(back->num_components, 4);
    CHECK(back->components[3].role == GJ2K_ROLE_OPACITY);
    for (uint32_t c = 0; c < 3; c++)
        CHECK(samples_are(back, c, samples_of(image, 0), 6));
    CHECK(samples_are(back, 3, samples_of(image, 1), 6));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    /* Other precisions become 8 bits, with a warning: 4 bits shift up, 12
     * bits round; signed samples are offset. */
    image = make_image(2, 1, 1, 4, false, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = 15;
    image->components[0].samples[1] = 3;
    warnings warned = {0};
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count >= 1);
    CHECK(samples_are(back, 0, (const int32_t[]){240, 48}, 2));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    image = make_image(3, 1, 1, 12, true, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = -2048;
    image->components[0].samples[1] = 0;
    image->components[0].samples[2] = 2047;
    warned = (warnings){0};
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count >= 2);
    CHECK(samples_are(back, 0, (const int32_t[]){0, (2048 * 255 + 2047) / 4095, 255}, 3));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    /* An ICC profile travels in a V5 header. */
    image = make_image(5, 3, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    fill_random(image);
    uint8_t profile[300];
    for (size_t i = 0; i < sizeof profile; i++)
        profile[i] = (uint8_t)(i * 7 + 1);
    REQUIRE(gj2k_image_set_icc_profile(image, profile, sizeof profile, NULL) == GJ2K_OK);
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, NULL);
    REQUIRE(back != NULL);
    CHECK(images_equal(image, back));
    CHECK(back->icc_profile_size == sizeof profile &&
          memcmp(back->icc_profile, profile, sizeof profile) == 0);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

static void raw_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        gj2k_raw_geometry g = {.num_components = (uint32_t)test_random_range(1, 5),
                               .precision = (uint32_t)test_random_range(1, 16),
                               .is_signed = test_random_range(0, 1) != 0};
        uint32_t dx[8], dy[8];
        for (uint32_t c = 0; c < g.num_components; c++) {
            dx[c] = c < 4 ? (uint32_t)test_random_range(1, 3) : 1;
            dy[c] = c < 4 ? (uint32_t)test_random_range(1, 3) : 1;
            if (c < 4) {
                g.dx[c] = dx[c] == 1 && test_random_range(0, 1) ? 0 : dx[c]; /* 0 means 1 */
                g.dy[c] = dy[c];
            }
        }
        g.width = (uint32_t)test_random_range(1, 37);
        g.height = (uint32_t)test_random_range(1, 37);
        gj2k_image *image = make_image(g.width, g.height, g.num_components, g.precision,
                                       g.is_signed, dx, dy);
        REQUIRE(image != NULL);
        fill_random(image);
        gj2k_read_options options = {.raw = &g};
        gj2k_file_format format = iteration % 2 ? GJ2K_FORMAT_RAW : GJ2K_FORMAT_RAWL;
        gj2k_image *back = round_trip(image, format, &options, NULL);
        CHECK(back != NULL && images_equal(image, back));
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
}

/* ------------------------------------------------------- writers */

/* Writes `image` and returns its first bytes as text (status through *status). */
static void write_header(const gj2k_image *image, gj2k_file_format format, warnings *warned,
                         gj2k_status *status, char *text, size_t capacity)
{
    gj2k_write_options options = {.warning = record_warning, .warning_user = warned};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    *status = gj2k_image_write_memory(image, format, &options, &data, &size, &error);
    text[0] = '\0';
    if (*status != GJ2K_OK) {
        CHECK(data == NULL && error.message[0] != '\0');
        return;
    }
    size_t n = size < capacity - 1 ? size : capacity - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    free(data);
}

static void writer_choices_and_refusals(void)
{
    char text[128];
    gj2k_status status;
    warnings warned = {0};
    gj2k_image *image = make_image(3, 2, 4, 8, false, NULL, NULL);
    REQUIRE(image != NULL);

    /* PNM: P5 for grey, P6 for colour, PAM when there is alpha. */
    static const struct { uint32_t n; int alpha; const char *start; int warnings; } pnm[] = {
        {1, -1, "P5\n3 2\n255\n", 0},
        {3, -1, "P6\n3 2\n255\n", 0},
        {2, 1, "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n", 0},
        {4, 3, "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", 0},
        {1, 0, "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n", 1},
        {2, -1, "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 2\n", 1},
    };
    for (size_t i = 0; i < sizeof pnm / sizeof pnm[0]; i++) {
        image->num_components = pnm[i].n;
        for (uint32_t c = 0; c < 4; c++)
            image->components[c].role = (int)c == pnm[i].alpha ? GJ2K_ROLE_OPACITY
                                                                : GJ2K_ROLE_COLOR;
        warned.count = 0;
        write_header(image, GJ2K_FORMAT_PNM, &warned, &status, text, sizeof text);
        CHECK(status == GJ2K_OK && strncmp(text, pnm[i].start, strlen(pnm[i].start)) == 0);
        if (warned.count != pnm[i].warnings)
            fprintf(stderr, "PNM case %zu: %d warnings (%s)\n", i, warned.count, warned.last);
        CHECK(warned.count == pnm[i].warnings);
    }
    for (uint32_t c = 0; c < 4; c++)
        image->components[c].role = GJ2K_ROLE_COLOR;

    /* PGX names the sign and depth. */
    image->num_components = 1;
    image->components[0].is_signed = true;
    image->components[0].precision = 5;
    write_header(image, GJ2K_FORMAT_PGX, &warned, &status, text, sizeof text);
    CHECK(status == GJ2K_OK && strncmp(text, "PG ML - 5 3 2\n", 14) == 0);
    image->components[0].is_signed = false;
    image->components[0].precision = 8;

    /* Refusals: more than 4 components, unequal sizes, too many bits. */
    gj2k_image *five = make_image(2, 2, 5, 8, false, NULL, NULL);
    gj2k_image *uneven = make_image(4, 4, 3, 8, false, (const uint32_t[]){1, 2, 2},
                                    (const uint32_t[]){1, 2, 2});
    gj2k_image *deep = make_image(2, 2, 1, 17, false, NULL, NULL);
    gj2k_component_info wide_info = {.dx = 1, .dy = 1, .precision = 32};
    gj2k_image *wide = NULL;
    REQUIRE(five && uneven && deep &&
            gj2k_image_create(&wide, 0, 0, 2, 2, 1, &wide_info, NULL) == GJ2K_OK);
    const struct { const gj2k_image *image; gj2k_file_format format; } refused[] = {
        {five, GJ2K_FORMAT_PNM}, {five, GJ2K_FORMAT_BMP}, {uneven, GJ2K_FORMAT_PNM},
        {uneven, GJ2K_FORMAT_BMP}, {deep, GJ2K_FORMAT_PNM}, {deep, GJ2K_FORMAT_RAW},
        {deep, GJ2K_FORMAT_RAWL}, {wide, GJ2K_FORMAT_PGX}, {wide, GJ2K_FORMAT_PNM},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        write_header(refused[i].image, refused[i].format, &warned, &status, text, sizeof text);
        CHECK(status == GJ2K_ERROR_UNSUPPORTED);
    }
    /* ...but raw takes subsampled components and BMP takes deep ones (rescaled). */
    write_header(uneven, GJ2K_FORMAT_RAW, &warned, &status, text, sizeof text);
    CHECK(status == GJ2K_OK);
    warned.count = 0;
    write_header(deep, GJ2K_FORMAT_BMP, &warned, &status, text, sizeof text);
    CHECK(status == GJ2K_OK && warned.count == 1);
    write_header(wide, GJ2K_FORMAT_BMP, &warned, &status, text, sizeof text);
    CHECK(status == GJ2K_OK);
    gj2k_image_destroy(five);
    gj2k_image_destroy(uneven);
    gj2k_image_destroy(deep);
    gj2k_image_destroy(wide);
    image->num_components = 4;
    gj2k_image_destroy(image);
}

/* ------------------------------------------------- hand-made files */

static void pnm_hand_made_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};

    /* P1: 1 is black, so samples are inverted; digits need no separator. */
    REQUIRE(read_text("P1\n# a comment\n3 2\n1 0 1\n001\n", NULL, 0, GJ2K_FORMAT_PNM, &options,
                      &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->num_components == 1);
    CHECK(image->components[0].precision == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 1, 0, 1, 1, 0}, 6));
    gj2k_image_destroy(image);

    /* P2 with maxval 1000 (10 bits) and comments between fields. */
    REQUIRE(read_text("P2 # grey\n2 2 # size\n1000\n0 999\n1000\n7\n", NULL, 0, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 10);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 999, 1000, 7}, 4));
    gj2k_image_destroy(image);

    /* P3 */
    REQUIRE(read_text("P3\n2 1\n255\n255 0 10   1 2 3", NULL, 0, GJ2K_FORMAT_PNM, &options,
                      &image) == GJ2K_OK);
    CHECK(image->num_components == 3 && image->color_space == GJ2K_COLOR_SRGB);
    CHECK(samples_are(image, 0, (const int32_t[]){255, 1}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 2}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){10, 3}, 2));
    gj2k_image_destroy(image);

    /* P4: rows of 10 pixels take 2 bytes; the spare bits are ignored. */
    REQUIRE(read_text("P4\n10 2\n", (const uint8_t[]){0xff, 0xc0, 0xaa, 0x9f}, 4,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 1);
    CHECK(samples_are(image, 0,
                      (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, 20));
    gj2k_image_destroy(image);

    /* P5 16-bit big-endian, and a comment right after maxval. */
    REQUIRE(read_text("P5 2 1 65535#x\n", (const uint8_t[]){1, 2, 0xff, 0xff}, 4,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 16);
    CHECK(samples_are(image, 0, (const int32_t[]){258, 65535}, 2));
    gj2k_image_destroy(image);

    /* P6 with maxval 1023 */
    REQUIRE(read_text("P6\n1 1\n1023\n", (const uint8_t[]){3, 0xff, 0, 0, 2, 1}, 6,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 10);
    CHECK(samples_of(image, 0)[0] == 1023 && samples_of(image, 1)[0] == 0 &&
          samples_of(image, 2)[0] == 513);
    gj2k_image_destroy(image);

    /* PAM grey + alpha, RGB_ALPHA with comments, an unknown TUPLTYPE. */
    REQUIRE(read_text("P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\n"
                      "ENDHDR\n", (const uint8_t[]){10, 20, 30, 40}, 4, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 2);
    CHECK(image->color_space == GJ2K_COLOR_GRAY);
    CHECK(image->components[0].role == GJ2K_ROLE_COLOR &&
          image->components[1].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_are(image, 0, (const int32_t[]){10, 30}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){20, 40}, 2));
    gj2k_image_destroy(image);
    REQUIRE(read_text("P7\n# made by hand\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 4095\n"
                      "TUPLTYPE RGB_ALPHA\n# last\nENDHDR\n",
                      (const uint8_t[]){0, 1, 0, 2, 0x0f, 0xff, 0, 4}, 8, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->color_space == GJ2K_COLOR_SRGB);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY && image->components[0].precision == 12);
    CHECK(samples_of(image, 2)[0] == 4095 && samples_of(image, 3)[0] == 4);
    gj2k_image_destroy(image);
    warned.count = 0;
    REQUIRE(read_text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 1\nTUPLTYPE FOO\nENDHDR\n",
                      (const uint8_t[]){1, 0, 1}, 3, GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1 && image->num_components == 3 && image->components[0].precision == 1);
    gj2k_image_destroy(image);

    /* Malformed headers and samples. */
    static const struct { const char *text; size_t extra; gj2k_status status; } bad[] = {
        {"P5 2 1 0\n", 2, GJ2K_ERROR_MALFORMED},         /* maxval 0 */
        {"P5 2 1 70000\n", 4, GJ2K_ERROR_MALFORMED},     /* maxval too large */
        {"P2 2 1 10\n5 11\n", 0, GJ2K_ERROR_MALFORMED},  /* sample above maxval */
        {"P5 2 1 100\n\x05\xc8", 0, GJ2K_ERROR_MALFORMED},
        {"P3 1 1 255\n1 2 x", 0, GJ2K_ERROR_MALFORMED},
        {"P1\n2 1\n1 2\n", 0, GJ2K_ERROR_MALFORMED},
        {"P5 0 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P5 99999999999 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P5 2x 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P7\nWIDTH 2\nENDHDR\n", 2, GJ2K_ERROR_MALFORMED},
        {"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n", 5, GJ2K_ERROR_UNSUPPORTED},
        {"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nSIZE 3\nENDHDR\n", 5, GJ2K_ERROR_MALFORMED},
        {"P8 1 1 255\n", 1, GJ2K_ERROR_MALFORMED},
        {"P5 2 1 255\n", 1, GJ2K_ERROR_TRUNCATED},
        {"P2 2 1 255\n1", 0, GJ2K_ERROR_TRUNCATED},
        {"P6 1 1 255", 0, GJ2K_ERROR_TRUNCATED},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gj2k_status status = read_text(bad[i].text, "\0\0\0\0\0", bad[i].extra, GJ2K_FORMAT_PNM,
                                       &options, &image);
        if (status != bad[i].status)
            fprintf(stderr, "case %zu: status %s\n", i, gj2k_status_name(status));
        CHECK(status == bad[i].status);
        gj2k_image_destroy(image);
    }
}

static void pgx_hand_made_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};

    REQUIRE(read_text("PG ML +12 3 2\n", (const uint8_t[]){0, 1, 0x0f, 0xff, 1, 0, 0, 0, 2, 0,
                                                          0, 9}, 12, GJ2K_FORMAT_PGX, &options,
                      &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->num_components == 1);
    CHECK(image->components[0].precision == 12 && !image->components[0].is_signed);
    CHECK(image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){1, 4095, 256, 0, 512, 9}, 6));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG LM - 8 3 2\n", (const uint8_t[]){0xff, 0x80, 0x7f, 0, 1, 0xfe}, 6,
                      GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].is_signed && image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){-1, -128, 127, 0, 1, -2}, 6));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG ML -16 2 1\n", (const uint8_t[]){0x80, 0, 0x7f, 0xff}, 4,
                      GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){-32768, 32767}, 2));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG\tLM\t1 3 1\n", (const uint8_t[]){0, 1, 1}, 3, GJ2K_FORMAT_PGX,
                      &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 1 && !image->components[0].is_signed);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 1, 1}, 3));
    gj2k_image_destroy(image);

    /* 20 bits unsigned, little-endian, 4 bytes each: a value above range is clamped. */
    warned.count = 0;
    REQUIRE(read_text("PG LM + 20 2 1\n", (const uint8_t[]){0xff, 0xff, 0x0f, 0, 0, 0, 0x10, 0},
                      8, GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    CHECK(samples_are(image, 0, (const int32_t[]){0xfffff, 0xfffff}, 2));
    gj2k_image_destroy(image);

    /* 24 bits signed, big-endian. */
    warned.count = 0;
    REQUIRE(read_text("PG ML -24 3 1\n", (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0,
                                                          0, 0, 0x7f, 0xff, 0xff},
                      12, GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 0);
    CHECK(samples_are(image, 0, (const int32_t[]){-1, -8388608, 8388607}, 3));
    gj2k_image_destroy(image);

    /* Every depth 1..16 in both byte orders gives the same samples. */
    for (uint32_t depth = 1; depth <= 16; depth++) {
        uint8_t be[8], le[8];
        int32_t expected[4];
        unsigned bytes = depth <= 8 ? 1 : 2;
        for (int i = 0; i < 4; i++) {
            uint32_t v = (uint32_t)test_random_range(0, ((int64_t)1 << depth) - 1);
            expected[i] = (int32_t)v;
            if (bytes == 1) {
                be[i] = le[i] = (uint8_t)v;
            } else {
                be[2 * i] = le[2 * i + 1] = (uint8_t)(v >> 8);
                be[2 * i + 1] = le[2 * i] = (uint8_t)v;
            }
        }
        char header[64];
        for (int order = 0; order < 2; order++) {
            snprintf(header, sizeof header, "PG %s %u 2 2\n", order ? "LM" : "ML", depth);
            REQUIRE(read_text(header, order ? le : be, 4 * bytes, GJ2K_FORMAT_PGX, &options,
                              &image) == GJ2K_OK);
            CHECK(image->components[0].precision == depth);
            CHECK(samples_are(image, 0, expected, 4));
            gj2k_image_destroy(image);
        }
    }

    static const struct { const char *text; size_t extra; gj2k_status status; } bad[] = {
        {"PG XX + 8 1 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 0 1 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 32 1 1\n", 4, GJ2K_ERROR_UNSUPPORTED},
        {"PG ML + 8 0 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 8 2 2\n", 3, GJ2K_ERROR_TRUNCATED},
        {"PG ML + 8 2 2", 0, GJ2K_ERROR_TRUNCATED},
        {"PG ML + 8 2x2\n", 4, GJ2K_ERROR_MALFORMED},
        {"PGML + 8 1 1\n", 1, GJ2K_ERROR_MALFORMED},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gj2k_status status = read_text(bad[i].text, "\0\0\0\0", bad[i].extra, GJ2K_FORMAT_PGX,
                                       &options, &image);
        if (status != bad[i].status)
            fprintf(stderr, "case %zu: status %s\n", i, gj2k_status_name(status));
        CHECK(status == bad[i].status);
        gj2k_image_destroy(image);
    }
}

/* ------------------------------------------------------ BMP builder */

typedef struct bmp_spec {
    uint32_t header_size;          /* 12, 40, 52, 56, 108 or 124 */
    int32_t width, height;
    uint16_t bits;
    uint32_t compression;
    uint32_t colors_used;
    uint32_t masks[4];
    uint32_t masks_after_header;   /* 3 or 4 masks after a 40-byte header */
    const uint8_t *palette;        /* entries of 4 bytes (3 for a 12-byte header) */
    size_t palette_bytes;
    const uint8_t *pixels;
    size_t pixel_bytes;
    int32_t x_ppm, y_ppm;
} bmp_spec;

static void put32(byte_buffer *b, uint32_t v) { byte_buffer_put_u32_le(b, v); }

static byte_buffer build_bmp(const bmp_spec *s)
{
    byte_buffer b = {0};
    uint32_t offset = 14 + s->header_size + 4 * s->masks_after_header + (uint32_t)s->palette_bytes;
    byte_buffer_append(&b, "BM", 2);
    put32(&b, offset + (uint32_t)s->pixel_bytes);
    put32(&b, 0);
    put32(&b, offset);
    put32(&b, s->header_size);
    if (s->header_size == 12) {
        byte_buffer_put_u16_le(&b, (uint16_t)s->width);
        byte_buffer_put_u16_le(&b, (uint16_t)s->height);
        byte_buffer_put_u16_le(&b, 1);
        byte_buffer_put_u16_le(&b, s->bits);
    } else {
        put32(&b, (uint32_t)s->width);
        put32(&b, (uint32_t)s->height);
        byte_buffer_put_u16_le(&b, 1);
        byte_buffer_put_u16_le(&b, s->bits);
        put32(&b, s->compression);
        put32(&b, (uint32_t)s->pixel_bytes);
        put32(&b, (uint32_t)s->x_ppm);
        put32(&b, (uint32_t)s->y_ppm);
        put32(&b, s->colors_used);
        put32(&b, 0);
        for (uint32_t i = 0; 40 + 4 * i < s->header_size && i < 4; i++)
            put32(&b, s->masks[i]);
        while (b.size < 14 + s->header_size)
            byte_buffer_put_u8(&b, 0);
        for (uint32_t i = 0; i < s->masks_after_header; i++)
            put32(&b, s->masks[i]);
    }
    byte_buffer_append(&b, s->palette, s->palette_bytes);
    byte_buffer_append(&b, s->pixels, s->pixel_bytes);
    return b;
}

static gj2k_status read_bmp(const bmp_spec *spec, const gj2k_read_options *options,
                            gj2k_image **out)
{
    byte_buffer b = build_bmp(spec);
    gj2k_status status = read_bytes(b.data, b.size, GJ2K_FORMAT_UNKNOWN, options, out);
    byte_buffer_free(&b);
    return status;
}

/* A 16-entry colour palette: entry i is r = 10i, g = 10i + 1, b = 10i + 2. */
static void colour_palette(uint8_t *palette, int entries)
{
    for (int i = 0; i < entries; i++) {
        palette[4 * i + 0] = (uint8_t)(10 * i + 2);
        palette[4 * i + 1] = (uint8_t)(10 * i + 1);
        palette[4 * i + 2] = (uint8_t)(10 * i);
        palette[4 * i + 3] = 0;
    }
}

/* Checks an RGB image against palette indices of colour_palette. */
static bool indices_are(const gj2k_image *image, const uint8_t *indices, size_t n)
{
    if (image->num_components != 3)
        return false;
    for (uint32_t c = 0; c < 3; c++)
        for (size_t i = 0; i < n; i++)
            if (image->components[c].samples[i] != 10 * indices[i] + (int32_t)c) {
                fprintf(stderr, "component %u pixel %zu: %d, expected index %u\n", c, i,
                        image->components[c].samples[i], indices[i]);
                return false;
            }
    return true;
}

static void bmp_palette_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};
    uint8_t palette[16 * 4];
    colour_palette(palette, 16);

    /* 1-bit, bottom-up, width 3: stored rows are padded to 4 bytes. */
    bmp_spec s = {.header_size = 40, .width = 3, .height = 2, .bits = 1, .palette = palette,
                  .palette_bytes = 8, .pixels = (const uint8_t[]){0xa0, 0, 0, 0, 0x60, 0, 0, 0},
                  .pixel_bytes = 8, .x_ppm = 2835, .y_ppm = 1000};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->color_space == GJ2K_COLOR_SRGB);
    CHECK(indices_are(image, (const uint8_t[]){0, 1, 1, 1, 0, 1}, 6));
    CHECK(image->resolution_x == 2835 && image->resolution_y == 1000);
    gj2k_image_destroy(image);

    /* 4-bit grey palette, top-down: one grey component. */
    uint8_t grey[16 * 4];
    for (int i = 0; i < 16; i++)
        memset(grey + 4 * i, 17 * i, 3), grey[4 * i + 3] = 0;
    s = (bmp_spec){.header_size = 40, .width = 5, .height = -2, .bits = 4, .palette = grey,
                   .palette_bytes = 64,
                   .pixels = (const uint8_t[]){0x01, 0x23, 0x40, 0, 0xfe, 0xdc, 0xb0, 0},
                   .pixel_bytes = 8};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 17, 34, 51, 68, 255, 238, 221, 204, 187},
                      10));
    gj2k_image_destroy(image);

    /* 8-bit with 3 palette entries; index 5 lies beyond them. */
    s = (bmp_spec){.header_size = 40, .width = 2, .height = 1, .bits = 8, .colors_used = 3,
                   .palette = palette, .palette_bytes = 12,
                   .pixels = (const uint8_t[]){2, 1, 0, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(indices_are(image, (const uint8_t[]){2, 1}, 2));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 5, 0, 0};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);
    s.pixels = (const uint8_t[]){3, 0, 0, 0};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);

    /* Only the entries in use decide between grey and colour. */
    uint8_t mixed[3 * 4] = {40, 40, 40, 0, 0, 0, 255, 0, 90, 90, 90, 0};
    s = (bmp_spec){.header_size = 40, .width = 3, .height = 1, .bits = 8, .colors_used = 3,
                   .palette = mixed, .palette_bytes = sizeof mixed,
                   .pixels = (const uint8_t[]){2, 0, 2, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){90, 40, 90}, 3));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 1, 2, 0};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_are(image, 0, (const int32_t[]){90, 255, 90}, 3));
    CHECK(samples_are(image, 1, (const int32_t[]){90, 0, 90}, 3));
    gj2k_image_destroy(image);

    /* OS/2 core header: 3-byte palette entries, 8 bits. */
    s = (bmp_spec){.header_size = 12, .width = 3, .height = 1, .bits = 8,
                   .palette = (const uint8_t[]){0, 0, 255, 0, 255, 0, 255, 0, 0},
                   .palette_bytes = 9,
                   .pixels = (const uint8_t[]){2, 0, 1, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 255, 0}, 3));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 0, 255}, 3));
    CHECK(samples_are(image, 2, (const int32_t[]){255, 0, 0}, 3));
    gj2k_image_destroy(image);

    /* RLE8: a run, an absolute run with its pad byte, end of line, a delta
     * and end of bitmap. Skipped pixels take index 0. */
    static const uint8_t rle8[] = {3, 1, 0, 3, 2, 3, 2, 0, 0, 0,   /* row 0 */
                                   2, 4, 0, 2, 2, 1,               /* row 1, delta (2,1) */
                                   2, 5, 0, 1};                    /* row 2 at x = 4, end */
    s = (bmp_spec){.header_size = 40, .width = 6, .height = 3, .bits = 8, .compression = 1,
                   .palette = palette, .palette_bytes = 64, .colors_used = 16,
                   .pixels = rle8, .pixel_bytes = sizeof rle8};
    warned.count = 0;
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 0);
    CHECK(indices_are(image, (const uint8_t[]){0, 0, 0, 0, 5, 5, 4, 4, 0, 0, 0, 0,
                                               1, 1, 1, 2, 3, 2}, 18));
    gj2k_image_destroy(image);

    /* RLE4: alternating run nibbles, absolute runs (one padded), a delta. */
    static const uint8_t rle4[] = {4, 0x12, 0, 3, 0x34, 0x50, 0, 0,             /* row 0 */
                                   0, 5, 0x67, 0x89, 0xa0, 0, 0, 2, 1, 0,       /* row 1 */
                                   1, 0xf0, 0, 1};
    s = (bmp_spec){.header_size = 40, .width = 7, .height = 2, .bits = 4, .compression = 2,
                   .palette = palette, .palette_bytes = 64,
                   .pixels = rle4, .pixel_bytes = sizeof rle4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(indices_are(image, (const uint8_t[]){6, 7, 8, 9, 10, 0, 15, 1, 2, 1, 2, 3, 4, 5}, 14));
    gj2k_image_destroy(image);

    /* A run past the row's end is clipped with a warning; a delta past the
     * last row is harmless; data that stops early is truncated. */
    static const uint8_t rle_long[] = {9, 3, 0, 2, 0, 5, 0, 1};
    s = (bmp_spec){.header_size = 40, .width = 4, .height = 2, .bits = 8, .compression = 1,
                   .palette = palette, .palette_bytes = 64,
                   .pixels = rle_long, .pixel_bytes = sizeof rle_long};
    warned.count = 0;
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    CHECK(indices_are(image, (const uint8_t[]){0, 0, 0, 0, 3, 3, 3, 3}, 8));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 3, 0, 0};
    s.pixel_bytes = 4;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
    s.pixels = (const uint8_t[]){0, 8, 1, 2};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
}

static void bmp_direct_colour_files(void)
{
    gj2k_image *image;
    gj2k_read_options options = {0};

    /* 16-bit BI_RGB is 5-5-5, scaled to 8 bits. */
    bmp_spec s = {.header_size = 40, .width = 2, .height = 1, .bits = 16,
                  .pixels = (const uint8_t[]){0x00, 0x7c, 0xf0, 0x03}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3 && image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){255, 0}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 255}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){0, (16 * 255 + 15) / 31}, 2));
    gj2k_image_destroy(image);

    /* 16-bit 5-6-5 bit fields after a 40-byte header. */
    s = (bmp_spec){.header_size = 40, .width = 2, .height = 1, .bits = 16, .compression = 3,
                   .masks = {0xf800, 0x07e0, 0x001f}, .masks_after_header = 3,
                   .pixels = (const uint8_t[]){0xff, 0xff, 0x41, 0x08}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){255, (255 + 15) / 31}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){255, (2 * 255 + 31) / 63}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){255, (255 + 15) / 31}, 2));
    gj2k_image_destroy(image);

    /* 24-bit, 3 wide (rows padded to 12 bytes), bottom-up then top-down. */
    uint8_t rows[24];
    for (int i = 0; i < 24; i++)
        rows[i] = (uint8_t)(i % 12 < 9 ? 100 + i : 0);
    for (int top_down = 0; top_down < 2; top_down++) {
        s = (bmp_spec){.header_size = 40, .width = 3, .height = top_down ? -2 : 2, .bits = 24,
                       .pixels = rows, .pixel_bytes = 24};
        REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
        for (uint32_t y = 0; y < 2; y++)
            for (uint32_t x = 0; x < 3; x++) {
                const uint8_t *px = rows + 12 * (top_down ? y : 1 - y) + 3 * x;
                size_t i = y * 3 + x;
                CHECK(samples_of(image, 0)[i] == px[2] && samples_of(image, 1)[i] == px[1] &&
                      samples_of(image, 2)[i] == px[0]);
            }
        gj2k_image_destroy(image);
    }

    /* 32-bit BI_RGB: BGRX, the fourth byte is not alpha. */
    s = (bmp_spec){.header_size = 40, .width = 1, .height = 1, .bits = 32,
                   .pixels = (const uint8_t[]){1, 2, 3, 99}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_of(image, 0)[0] == 3 && samples_of(image, 1)[0] == 2 &&
          samples_of(image, 2)[0] == 1);
    gj2k_image_destroy(image);

    /* 32-bit BI_RGB in a V4 header whose alpha mask is set: BGRA. */
    s = (bmp_spec){.header_size = 108, .width = 1, .height = 1, .bits = 32,
                   .masks = {0, 0, 0, 0xff000000},
                   .pixels = (const uint8_t[]){1, 2, 3, 99}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_of(image, 0)[0] == 3 && samples_of(image, 3)[0] == 99);
    gj2k_image_destroy(image);

    /* 32-bit bit fields in a V4 header with an alpha mask. */
    s = (bmp_spec){.header_size = 108, .width = 2, .height = 1, .bits = 32, .compression = 3,
                   .masks = {0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000},
                   .pixels = (const uint8_t[]){1, 2, 3, 4, 5, 6, 7, 8}, .pixel_bytes = 8};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_are(image, 0, (const int32_t[]){3, 7}, 2));
    CHECK(samples_are(image, 3, (const int32_t[]){4, 8}, 2));
    gj2k_image_destroy(image);

    /* Unusual masks in a 56-byte header: 10 bits of red, 2 of alpha. */
    s = (bmp_spec){.header_size = 56, .width = 1, .height = 1, .bits = 32, .compression = 3,
                   .masks = {0x3ff00000, 0x000ffc00, 0x000003ff, 0xc0000000},
                   .pixels = (const uint8_t[]){0xff, 0x03, 0xf0, 0x7f}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(samples_of(image, 0)[0] == (0x3ff * 255 + 511) / 1023 && samples_of(image, 1)[0] == 0 &&
          samples_of(image, 2)[0] == 255 && samples_of(image, 3)[0] == (255 + 1) / 3);
    gj2k_image_destroy(image);

    /* Unsupported and malformed headers. */
    s = (bmp_spec){.header_size = 40, .width = 1, .height = 1, .bits = 24, .compression = 4,
                   .pixels = (const uint8_t[]){1, 2, 3, 0}, .pixel_bytes = 4};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
    s.compression = 0;
    s.bits = 2;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
    s.bits = 24;
    s.width = 0;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);
    s.width = 2;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
    s.width = 1;
    s.header_size = 64;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
}

static void bmp_v5_embedded_profile(void)
{
    /* A hand-made V5 header whose profile lies after the pixels. */
    uint8_t profile[40];
    for (size_t i = 0; i < sizeof profile; i++)
        profile[i] = (uint8_t)(200 - i);
    bmp_spec s = {.header_size = 124, .width = 1, .height = 1, .bits = 24,
                  .pixels = (const uint8_t[]){9, 8, 7, 0}, .pixel_bytes = 4};
    byte_buffer b = build_bmp(&s);
    byte_buffer_append(&b, profile, sizeof profile);
    uint8_t *h = b.data + 14;
    memcpy(h + 56, "DEBM", 4); /* 'MBED' little-endian */
    uint32_t offset = (uint32_t)(b.size - sizeof profile - 14);
    for (int i = 0; i < 4; i++) {
        h[112 + i] = (uint8_t)(offset >> (8 * i));
        h[116 + i] = (uint8_t)(sizeof profile >> (8 * i));
    }
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};
    REQUIRE(read_bytes(b.data, b.size, GJ2K_FORMAT_BMP, &options, &image) == GJ2K_OK);
    CHECK(image->icc_profile_size == sizeof profile &&
          memcmp(image->icc_profile, profile, sizeof profile) == 0);
    CHECK(samples_of(image, 0)[0] == 7);
    gj2k_image_destroy(image);
    /* A profile reaching past the end of the file is ignored with a warning. */
    h[116] = (uint8_t)(sizeof profile + 1);
    REQUIRE(read_bytes(b.data, b.size, GJ2K_FORMAT_BMP, &options, &image) == GJ2K_OK);
    CHECK(image->icc_profile == NULL && warned.count == 1);
    gj2k_image_destroy(image);
    byte_buffer_free(&b);
}

static void raw_subsampled_and_signed(void)
{
    gj2k_image *image;
    warnings warned = {0};
    /* 4:2:0 on a 3x3 grid: the chroma planes are 2x2. */
    gj2k_raw_geometry g = {.width = 3, .height = 3, .num_components = 3, .precision = 8,
                           .dx = {1, 2, 2}, .dy = {1, 2, 2}};
    gj2k_read_options options = {.raw = &g, .warning = record_warning, .warning_user = &warned};
    uint8_t bytes[18];
    for (int i = 0; i < 18; i++)
        bytes[i] = (uint8_t)(i * 3);
    REQUIRE(read_bytes(bytes, 17, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 3);
    CHECK(image->x1 == 3 && image->y1 == 3);
    CHECK(image->components[1].width == 2 && image->components[1].height == 2 &&
          image->components[1].dx == 2 && image->components[2].dy == 2);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 3, 6, 9, 12, 15, 18, 21, 24}, 9));
    CHECK(samples_are(image, 1, (const int32_t[]){27, 30, 33, 36}, 4));
    CHECK(samples_are(image, 2, (const int32_t[]){39, 42, 45, 48}, 4));
    CHECK(warned.count == 0);
    gj2k_image_destroy(image);
    CHECK(read_bytes(bytes, 16, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_ERROR_TRUNCATED);
    REQUIRE(read_bytes(bytes, 18, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    gj2k_image_destroy(image);

    /* Signed 12-bit: full 16-bit two's complement or 12-bit patterns. */
    g = (gj2k_raw_geometry){.width = 4, .height = 1, .num_components = 1, .precision = 12,
                            .is_signed = true};
    static const uint8_t be[] = {0xf8, 0x00, 0x07, 0xff, 0x0f, 0xff, 0x08, 0x00};
    static const uint8_t le[] = {0x00, 0xf8, 0xff, 0x07, 0xff, 0x0f, 0x00, 0x08};
    REQUIRE(read_bytes(be, 8, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].is_signed && image->components[0].precision == 12);
    CHECK(samples_are(image, 0, (const int32_t[]){-2048, 2047, -1, -2048}, 4));
    gj2k_image_destroy(image);
    REQUIRE(read_bytes(le, 8, GJ2K_FORMAT_RAWL, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){-2048, 2047, -1, -2048}, 4));
    gj2k_image_destroy(image);
    /* -4096 and 4096 do not fit in 12 bits. */
    CHECK(read_bytes((const uint8_t[]){0xf0, 0, 0, 0, 0, 0, 0, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    CHECK(read_bytes((const uint8_t[]){0x10, 0, 0, 0, 0, 0, 0, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    g.is_signed = false;
    CHECK(read_bytes((const uint8_t[]){0, 0, 0, 0, 0, 0, 0x10, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    g.precision = 7;
    CHECK(read_bytes((const uint8_t[]){0, 0x80, 0, 0}, 4, GJ2K_FORMAT_RAW, &options, &image) ==
          GJ2K_ERROR_MALFORMED);

    /* No geometry, or an unusable one. */
    options.raw = NULL;
    CHECK(read_bytes(bytes, 4, GJ2K_FORMAT_RAW, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    options.raw = &g;
    g.precision = 17;
    CHECK(read_bytes(bytes, 18, GJ2K_FORMAT_RAWL, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    g.precision = 8;
    g.width = 0;
    CHECK(read_bytes(bytes, 18, GJ2K_FORMAT_RAWL, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------- shared images */

/* Component c of `image` as an image of its own (shares the samples). */
static gj2k_image component_view(const gj2k_image *image, uint32_t c)
{
    gj2k_image view = *image;
    view.num_components = 1;
    view.components = &image->components[c];
    view.icc_profile = NULL;
    view.icc_profile_size = 0;
    return view;
}

/* Converts an 8-bit RGB image to every writable uncompressed format and back. */
static void check_conversions(const gj2k_image *image)
{
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNM, NULL, NULL);
    CHECK(back != NULL && images_equal(image, back));
    gj2k_image_destroy(back);
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, NULL);
    CHECK(back != NULL && images_equal(image, back));
    gj2k_image_destroy(back);
    gj2k_raw_geometry g = {.width = image->x1, .height = image->y1,
                           .num_components = image->num_components, .precision = 8};
    gj2k_read_options options = {.raw = &g};
    back = round_trip(image, GJ2K_FORMAT_RAW, &options, NULL);
    CHECK(back != NULL && images_equal(image, back));
    gj2k_image_destroy(back);
    back = round_trip(image, GJ2K_FORMAT_RAWL, &options, NULL);
    CHECK(back != NULL && images_equal(image, back));
    gj2k_image_destroy(back);
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_image view = component_view(image, c);
        back = round_trip(&view, GJ2K_FORMAT_PGX, NULL, NULL);
        CHECK(back != NULL && images_equal(&view, back));
        gj2k_image_destroy(back);
    }
}

static void shared_photographs(void)
{
    static const char *const names[] = {"images/Bretagne1.ppm", "images/Cevennes2.ppm",
                                        "images/Rome.bmp"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", test_shared_path(names[k]));
        gj2k_image *image;
        gj2k_error error = {0};
        gj2k_status status = gj2k_image_read_file(path, NULL, &image, &error);
        if (status != GJ2K_OK)
            fprintf(stderr, "%s\n", error.message);
        REQUIRE(status == GJ2K_OK);
        CHECK(image->x0 == 0 && image->y0 == 0 && image->x1 == 640 && image->y1 == 480);
        CHECK(image->num_components == 3 && image->color_space == GJ2K_COLOR_SRGB);
        for (uint32_t c = 0; c < image->num_components; c++) {
            const gj2k_component *comp = &image->components[c];
            CHECK(comp->precision == 8 && !comp->is_signed && comp->role == GJ2K_ROLE_COLOR);
            CHECK(comp->dx == 1 && comp->dy == 1 && comp->width == 640 && comp->height == 480);
            /* A photograph, not a blank: varied samples. */
            int64_t sum = 0, lo = 255, hi = 0;
            for (size_t i = 0; i < 640 * 480; i++) {
                sum += comp->samples[i];
                lo = comp->samples[i] < lo ? comp->samples[i] : lo;
                hi = comp->samples[i] > hi ? comp->samples[i] : hi;
            }
            CHECK(sum / (640 * 480) > 10 && sum / (640 * 480) < 245 && hi - lo > 100);
        }
        check_conversions(image);
        gj2k_image_destroy(image);
    }

    /* Bretagne1.ppm has the very header the writer produces: byte-identical. */
    FILE *file = fopen(test_shared_path("images/Bretagne1.ppm"), "rb");
    REQUIRE(file != NULL);
    uint8_t *original = malloc(1 << 20);
    size_t original_size = fread(original, 1, 1 << 20, file);
    fclose(file);
    gj2k_image *image;
    REQUIRE(read_bytes(original, original_size, GJ2K_FORMAT_UNKNOWN, NULL, &image) == GJ2K_OK);
    uint8_t *written;
    size_t written_size;
    REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, NULL, &written, &written_size,
                                    NULL) == GJ2K_OK);
    CHECK(written_size == original_size && memcmp(written, original, original_size) == 0);
    free(written);
    free(original);
    gj2k_image_destroy(image);
}

/* ------------------------------------------------------- robustness */

/* Reads every prefix (all of them for small files, a dense sample for big
 * ones) and many corrupted copies. Prefixes shorter than `essential` must
 * fail; nothing may crash or leak. */
static void torture(const uint8_t *data, size_t size, gj2k_file_format format,
                    const gj2k_read_options *options, size_t essential)
{
    gj2k_image *image;
    size_t step = size <= 4096 ? 1 : size / 1500;
    for (size_t length = 0; length < size; length += (length + 64 > size ? 1 : step)) {
        gj2k_status status = read_bytes(data, length, format, options, &image);
        if (status == GJ2K_OK && length < essential)
            fprintf(stderr, "%s prefix of %zu/%zu bytes read as valid\n",
                    gj2k_format_name(format), length, size);
        CHECK(status != GJ2K_OK || length >= essential);
        gj2k_image_destroy(image);
    }
    gj2k_status status = read_bytes(data, size, format, options, &image);
    CHECK(status == GJ2K_OK);
    gj2k_image_destroy(image);

    uint8_t *copy = malloc(size);
    for (int round = 0; round < 300; round++) {
        memcpy(copy, data, size);
        int flips = (int)test_random_range(1, 4);
        for (int f = 0; f < flips; f++) {
            size_t at = (size_t)test_random_range(0, (int64_t)size - 1);
            /* Favour the headers, where the interesting fields are. */
            if (test_random_range(0, 1))
                at %= size < 160 ? size : 160;
            copy[at] = test_random_range(0, 1) ? (uint8_t)test_random()
                                               : (uint8_t)(copy[at] ^ (1u << test_random_range(0, 7)));
        }
        read_bytes(copy, size, format, options, &image);
        gj2k_image_destroy(image);
    }
    free(copy);
}

static void torture_written(const gj2k_image *image, gj2k_file_format format,
                            const gj2k_read_options *options)
{
    uint8_t *data;
    size_t size;
    REQUIRE(gj2k_image_write_memory(image, format, NULL, &data, &size, NULL) == GJ2K_OK);
    torture(data, size, format, options, size);
    free(data);
}

static void truncated_and_corrupted_input(void)
{
    gj2k_read_options quiet = {0};
    /* PNM: the writer's P5, P6 (16-bit) and P7 files, and hand-made ASCII and P4. */
    struct { uint32_t w, h, n, precision; } pnm[] = {{7, 5, 1, 8}, {5, 3, 3, 16}, {4, 3, 4, 8},
                                                      {3, 3, 2, 12}};
    for (size_t i = 0; i < sizeof pnm / sizeof pnm[0]; i++) {
        gj2k_image *image = make_image(pnm[i].w, pnm[i].h, pnm[i].n, pnm[i].precision, false,
                                       NULL, NULL);
        REQUIRE(image != NULL);
        fill_random(image);
        torture_written(image, GJ2K_FORMAT_PNM, &quiet);
        gj2k_image_destroy(image);
    }
#define TEXT(literal) (const uint8_t *)(literal), sizeof(literal) - 1
    static const struct { const uint8_t *data; size_t size; bool strict; } hand[] = {
        {TEXT("P1\n# c\n3 2\n1 0 1\n001\n"), false},
        {TEXT("P2 # grey\n2 2 # size\n1000\n0 999\n1000\n7\n"), false},
        {TEXT("P3\n2 1\n255\n255 0 10   1 2 3\n"), false},
        {TEXT("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 1\nTUPLTYPE X\nENDHDR\n\x01\x00\x01"),
         true},
        {TEXT("P4\n10 2\n\xff\xc0\xaa\x9f"), true},
    };
#undef TEXT
    /* ASCII samples may lose digits and stay valid: only the binary ones are strict. */
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
        torture(hand[i].data, hand[i].size, GJ2K_FORMAT_PNM, &quiet,
                hand[i].strict ? hand[i].size : 0);

    /* PGX at 1, 2 and 4 bytes a sample. */
    static const uint32_t depths[] = {8, 12, 24};
    for (size_t i = 0; i < 3; i++) {
        gj2k_image *image = make_image(6, 5, 1, depths[i], i != 1, NULL, NULL);
        REQUIRE(image != NULL);
        fill_random(image);
        torture_written(image, GJ2K_FORMAT_PGX, &quiet);
        gj2k_image_destroy(image);
    }

    /* BMP: the writer's 8, 24 and 32-bit files (rows without padding), and
     * the hand-made RLE files. */
    for (uint32_t n = 1; n <= 4; n++) {
        gj2k_image *image = make_image(n == 1 ? 8 : 4, 3, n, 8, false, NULL, NULL);
        REQUIRE(image != NULL);
        fill_random(image);
        torture_written(image, GJ2K_FORMAT_BMP, &quiet);
        gj2k_image_destroy(image);
    }
    uint8_t palette[64];
    colour_palette(palette, 16);
    static const uint8_t rle8[] = {3, 1, 0, 3, 2, 3, 2, 0, 0, 0, 2, 4, 0, 2, 2, 1, 2, 5, 0, 1};
    static const uint8_t rle4[] = {4, 0x12, 0, 3, 0x34, 0x50, 0, 0, 0, 5, 0x67, 0x89, 0xa0, 0,
                                   0, 2, 1, 0, 1, 0xf0, 0, 1};
    bmp_spec specs[] = {
        {.header_size = 40, .width = 6, .height = 3, .bits = 8, .compression = 1,
         .palette = palette, .palette_bytes = 64, .pixels = rle8, .pixel_bytes = sizeof rle8},
        {.header_size = 40, .width = 7, .height = 2, .bits = 4, .compression = 2,
         .palette = palette, .palette_bytes = 64, .pixels = rle4, .pixel_bytes = sizeof rle4},
        {.header_size = 40, .width = 2, .height = 1, .bits = 16, .compression = 3,
         .masks = {0xf800, 0x07e0, 0x001f}, .masks_after_header = 3,
         .pixels = (const uint8_t[]){0xff, 0xff, 0x41, 0x08}, .pixel_bytes = 4},
        {.header_size = 12, .width = 3, .height = 1, .bits = 8,
         .palette = (const uint8_t[]){0, 0, 255, 0, 255, 0, 255, 0, 0}, .palette_bytes = 9,
         .pixels = (const uint8_t[]){2, 0, 1, 0}, .pixel_bytes = 4},
        {.header_size = 40, .width = 3, .height = 2, .bits = 1, .palette = palette,
         .palette_bytes = 8, .pixels = (const uint8_t[]){0xa0, 0, 0, 0, 0x60, 0, 0, 0},
         .pixel_bytes = 8},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        byte_buffer b = build_bmp(&specs[i]);
        /* The last row's padding (1 byte in the OS/2 file, 3 in the 1-bit
         * one) may go missing. */
        torture(b.data, b.size, GJ2K_FORMAT_BMP, &quiet, b.size - (i == 3 ? 1 : i == 4 ? 3 : 0));
        byte_buffer_free(&b);
    }

    /* Raw, big- and little-endian, subsampled and signed. */
    uint32_t dx[3] = {1, 2, 2}, dy[3] = {1, 2, 1};
    gj2k_image *image = make_image(5, 4, 3, 12, true, dx, dy);
    REQUIRE(image != NULL);
    fill_random(image);
    gj2k_raw_geometry g = {.width = 5, .height = 4, .num_components = 3, .precision = 12,
                           .is_signed = true, .dx = {1, 2, 2}, .dy = {1, 2, 1}};
    gj2k_read_options options = {.raw = &g};
    torture_written(image, GJ2K_FORMAT_RAW, &options);
    torture_written(image, GJ2K_FORMAT_RAWL, &options);
    gj2k_image_destroy(image);
}

static void oversized_input_and_limits(void)
{
    gj2k_image *image;
    gj2k_read_options options = {0};
    static const char zeros[16] = {0};
    static const struct {
        const char *header;
        gj2k_file_format format;
        gj2k_status status;
    } huge[] = {
        {"P5\n100000 100000\n255\n", GJ2K_FORMAT_PNM, GJ2K_ERROR_TRUNCATED},
        {"P4 4000000000 4000000000\n", GJ2K_FORMAT_PNM, GJ2K_ERROR_LIMIT},
        {"P1 100000 100000\n", GJ2K_FORMAT_PNM, GJ2K_ERROR_TRUNCATED},
        {"P3 100000 100000 65535\n", GJ2K_FORMAT_PNM, GJ2K_ERROR_TRUNCATED},
        {"P7\nWIDTH 4294967295\nHEIGHT 4294967295\nDEPTH 4\nMAXVAL 65535\nENDHDR\n",
         GJ2K_FORMAT_PNM, GJ2K_ERROR_LIMIT},
        {"PG ML + 31 100000 100000\n", GJ2K_FORMAT_PGX, GJ2K_ERROR_TRUNCATED},
        {"PG LM - 8 4294967295 4294967295\n", GJ2K_FORMAT_PGX, GJ2K_ERROR_TRUNCATED},
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        CHECK(read_text(huge[i].header, zeros, 10, huge[i].format, &options, &image) ==
              huge[i].status);

    /* BMP: uncompressed, and RLE that would cover 2^62 pixels with a few bytes. */
    bmp_spec s = {.header_size = 40, .width = 100000, .height = 100000, .bits = 8,
                  .pixels = (const uint8_t *)zeros, .pixel_bytes = 10,
                  .palette = (const uint8_t *)zeros, .palette_bytes = 4};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
    s.width = INT32_MAX;
    s.height = -INT32_MAX;
    s.compression = 1;
    s.pixels = (const uint8_t[]){0, 1};
    s.pixel_bytes = 2;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_LIMIT);

    /* Raw geometry that the bytes cannot hold, including sums that would overflow. */
    gj2k_raw_geometry g = {.width = 100000, .height = 100000, .num_components = 1,
                           .precision = 8};
    options.raw = &g;
    CHECK(read_bytes(zeros, 10, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_ERROR_TRUNCATED);
    g = (gj2k_raw_geometry){.width = UINT32_MAX, .height = UINT32_MAX,
                            .num_components = GJ2K_MAX_COMPONENTS, .precision = 16};
    CHECK(read_bytes(zeros, 16, GJ2K_FORMAT_RAWL, &options, &image) == GJ2K_ERROR_TRUNCATED);

    /* max_samples: a 16x16 image of each format is refused at one sample less. */
    gj2k_image *grey = make_image(16, 16, 1, 8, false, NULL, NULL);
    gj2k_image *rgb = make_image(16, 16, 3, 8, false, NULL, NULL);
    REQUIRE(grey != NULL && rgb != NULL);
    fill_random(grey);
    fill_random(rgb);
    g = (gj2k_raw_geometry){.width = 16, .height = 16, .num_components = 3, .precision = 8};
    const struct { const gj2k_image *image; gj2k_file_format format; } cases[] = {
        {grey, GJ2K_FORMAT_PNM}, {rgb, GJ2K_FORMAT_PNM}, {grey, GJ2K_FORMAT_PGX},
        {grey, GJ2K_FORMAT_BMP}, {rgb, GJ2K_FORMAT_BMP}, {rgb, GJ2K_FORMAT_RAW},
        {rgb, GJ2K_FORMAT_RAWL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *data;
        size_t size;
        REQUIRE(gj2k_image_write_memory(cases[i].image, cases[i].format, NULL, &data, &size,
                                        NULL) == GJ2K_OK);
        uint64_t samples = 256ull * cases[i].image->num_components;
        options.max_samples = samples - 1;
        CHECK(read_bytes(data, size, cases[i].format, &options, &image) == GJ2K_ERROR_LIMIT);
        options.max_samples = samples;
        CHECK(read_bytes(data, size, cases[i].format, &options, &image) == GJ2K_OK);
        gj2k_image_destroy(image);
        free(data);
    }
    gj2k_image_destroy(grey);
    gj2k_image_destroy(rgb);
}

/* ------------------------------------------------------------ files */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's entries, sorted and joined by spaces. */
static void list_directory(const char *dir, char *out, size_t capacity)
{
    char *names[64];
    size_t count = 0;
    DIR *d = opendir(dir);
    out[0] = '\0';
    if (d == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL && count < 64)
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            names[count++] = strdup(entry->d_name);
    closedir(d);
    qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; i++) {
        size_t length = strlen(out);
        snprintf(out + length, capacity - length, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
}

static void file_writing(void)
{
    const char *dir = test_temp_dir();
    char path[512], listing[2048];
    gj2k_error error = {0};
    gj2k_image *image = make_image(13, 7, 3, 12, false, NULL, NULL);
    REQUIRE(image != NULL);
    fill_random(image);
    image->components[1].is_signed = true;
    image->components[1].precision = 9;
    for (size_t i = 0; i < 13 * 7; i++)
        image->components[1].samples[i] = (int32_t)test_random_range(-256, 255);

    /* PGX: one file a component, named as OpenJPEG names them. */
    snprintf(path, sizeof path, "%s/out.pgx", dir);
    REQUIRE(gj2k_image_write_file(image, path, NULL, &error) == GJ2K_OK);
    list_directory(dir, listing, sizeof listing);
    CHECK(strcmp(listing, "out_0.pgx out_1.pgx out_2.pgx") == 0);
    for (uint32_t c = 0; c < 3; c++) {
        snprintf(path, sizeof path, "%s/out_%u.pgx", dir, c);
        gj2k_image *back;
        REQUIRE(gj2k_image_read_file(path, NULL, &back, &error) == GJ2K_OK);
        gj2k_image view = component_view(image, c);
        CHECK(images_equal(&view, back));
        gj2k_image_destroy(back);
    }

    /* Writes that fail leave nothing behind. */
    gj2k_image *deep = make_image(4, 4, 1, 20, false, NULL, NULL);
    gj2k_image *five = make_image(4, 4, 5, 8, false, NULL, NULL);
    gj2k_component_info info[3] = {{1, 1, 8, false}, {1, 1, 8, false}, {1, 1, 33, false}};
    gj2k_image *wide = NULL;
    REQUIRE(deep && five && gj2k_image_create(&wide, 0, 0, 4, 4, 3, info, NULL) == GJ2K_OK);
    snprintf(path, sizeof path, "%s/deep.ppm", dir);
    CHECK(gj2k_image_write_file(deep, path, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    snprintf(path, sizeof path, "%s/deep.raw", dir);
    CHECK(gj2k_image_write_file(deep, path, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    snprintf(path, sizeof path, "%s/five.bmp", dir);
    CHECK(gj2k_image_write_file(five, path, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    snprintf(path, sizeof path, "%s/five.pam", dir);
    CHECK(gj2k_image_write_file(five, path, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    snprintf(path, sizeof path, "%s/wide.pgx", dir);
    CHECK(gj2k_image_write_file(wide, path, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    list_directory(dir, listing, sizeof listing);
    CHECK(strcmp(listing, "out_0.pgx out_1.pgx out_2.pgx") == 0);
    if (strcmp(listing, "out_0.pgx out_1.pgx out_2.pgx") != 0)
        fprintf(stderr, "directory holds: %s\n", listing);
    gj2k_image_destroy(deep);
    gj2k_image_destroy(five);
    gj2k_image_destroy(wide);

    /* The other formats through files. */
    for (uint32_t c = 0; c < 3; c++) {
        image->components[c].is_signed = false;
        image->components[c].precision = 8;
        for (size_t i = 0; i < 13 * 7; i++)
            image->components[c].samples[i] = (int32_t)test_random_range(0, 255);
    }
    image->color_space = GJ2K_COLOR_SRGB;
    gj2k_raw_geometry g = {.width = 13, .height = 7, .num_components = 3, .precision = 8};
    gj2k_read_options options = {.raw = &g};
    static const char *const names[] = {"a.ppm", "a.pnm", "a.bmp", "a.raw", "a.rawl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        REQUIRE(gj2k_image_write_file(image, path, NULL, &error) == GJ2K_OK);
        gj2k_image *back;
        REQUIRE(gj2k_image_read_file(path, &options, &back, &error) == GJ2K_OK);
        CHECK(images_equal(image, back));
        gj2k_image_destroy(back);
    }
    list_directory(dir, listing, sizeof listing);
    CHECK(strcmp(listing, "a.bmp a.pnm a.ppm a.raw a.rawl out_0.pgx out_1.pgx out_2.pgx") == 0);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"pnm_random_round_trips", pnm_random_round_trips},
    {"pgx_random_round_trips", pgx_random_round_trips},
    {"bmp_random_round_trips", bmp_random_round_trips},
    {"raw_random_round_trips", raw_random_round_trips},
    {"writer_choices_and_refusals", writer_choices_and_refusals},
    {"pnm_hand_made_files", pnm_hand_made_files},
    {"pgx_hand_made_files", pgx_hand_made_files},
    {"bmp_palette_files", bmp_palette_files},
    {"bmp_direct_colour_files", bmp_direct_colour_files},
    {"bmp_v5_embedded_profile", bmp_v5_embedded_profile},
    {"raw_subsampled_and_signed", raw_subsampled_and_signed},
    {"shared_photographs", shared_photographs},
    {"truncated_and_corrupted_input", truncated_and_corrupted_input},
    {"oversized_input_and_limits", oversized_input_and_limits},
    {"file_writing", file_writing},
};

TEST_MAIN(cases)
