/* test_image_files.c - what spans the uncompressed formats (PNM, PGX, BMP and
 * raw): the writers' choices and refusals, the shared photographs, files on
 * disk, and robustness against truncated, corrupted and oversized input. */
#include "io_test_support.h"
#include "test_harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    {"writer_choices_and_refusals", writer_choices_and_refusals},
    {"shared_photographs", shared_photographs},
    {"truncated_and_corrupted_input", truncated_and_corrupted_input},
    {"oversized_input_and_limits", oversized_input_and_limits},
    {"file_writing", file_writing},
};

TEST_MAIN(cases)
