/* test_device_warm_up.c - the program's opening of the GPU beside reading
 * the input (app/device_warm_up.c): the samples it reads from the first
 * bytes of a codestream and a JP2 file made here, nothing from files that
 * do not tell, and a warm-up that starts only when the GPU is wanted and
 * succeeds exactly where a GPU is found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_warm_up.h"
#include "test_harness.h"

/* Writes a w x h image of c components, encoded as `format`, to `path`. */
static void write_encoded(char *path, const char *name, uint32_t w, uint32_t h, uint32_t c,
                          gj2k_file_format format)
{
    snprintf(path, 4096, "%s/%s", test_temp_dir(), name);
    gj2k_component_info info[3];
    for (uint32_t i = 0; i < c; i++)
        info[i] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    REQUIRE(gj2k_image_create(&image, 3, 5, 3 + w, 5 + h, c, info, NULL) == GJ2K_OK);
    for (uint32_t i = 0; i < c; i++)
        memset(image->components[i].samples, 0, (size_t)w * h * sizeof(int32_t));
    gj2k_encode_options options = {.format = format, .device = GJ2K_DEVICE_CPU};
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_file(image, path, &options, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
}

/* Writes a Netpbm header and `bytes` bytes of samples to `path`. */
static void write_netpbm(char *path, const char *name, const char *header, int bytes)
{
    snprintf(path, 4096, "%s/%s", test_temp_dir(), name);
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs(header, f);
    for (int i = 0; i < bytes; i++)
        fputc(i, f);
    fclose(f);
}

static void samples_from_headers(void)
{
    char path[4096];
    write_encoded(path, "a.j2k", 37, 21, 3, GJ2K_FORMAT_J2K);
    CHECK_EQ(device_warm_up_codestream_samples(path), 37 * 21 * 3);
    write_encoded(path, "b.jp2", 50, 9, 1, GJ2K_FORMAT_JP2);
    CHECK_EQ(device_warm_up_codestream_samples(path), 50 * 9);
    snprintf(path, sizeof path, "%s/junk.j2k", test_temp_dir());
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs("\xFF\x4F\xFF\x51 not a SIZ", f);
    fclose(f);
    CHECK_EQ(device_warm_up_codestream_samples(path), 0);
    CHECK_EQ(device_warm_up_image_samples(path), 7); /* 14 bytes, at most 2 a sample */
    write_netpbm(path, "a.ppm", "P6\n# made here\n 13 7\n255\n", 13 * 7 * 3);
    CHECK_EQ(device_warm_up_image_samples(path), 13 * 7 * 3);
    write_netpbm(path, "a.pgm", "P5 40 30 65535\n", 40 * 30 * 2);
    CHECK_EQ(device_warm_up_image_samples(path), 40 * 30);
    snprintf(path, sizeof path, "%s/missing.j2k", test_temp_dir());
    CHECK_EQ(device_warm_up_codestream_samples(path), 0);
    CHECK_EQ(device_warm_up_image_samples(path), 0);
}

static void starts_only_when_wanted(void)
{
    device_warm_up w;
    double ms = -1.0;
    device_warm_up_start(&w, GJ2K_DEVICE_CPU, UINT64_MAX, 1);
    CHECK(!w.started);
    CHECK(!device_warm_up_finish(&w, &ms));
    device_warm_up_start(&w, GJ2K_DEVICE_AUTO, 1000, 1001);
    CHECK(!w.started);
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    device_warm_up_start(&w, GJ2K_DEVICE_GPU, 0, 1);
    CHECK(w.started);
    CHECK_EQ(device_warm_up_finish(&w, &ms), info.device_count > 0);
    CHECK(ms >= 0.0);
    CHECK(!device_warm_up_finish(&w, &ms)); /* once only */
}

static const test_case cases[] = {
    {"samples_from_headers", samples_from_headers},
    {"starts_only_when_wanted", starts_only_when_wanted},
};
TEST_MAIN(cases)
