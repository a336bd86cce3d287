/* test_cli.c - the gj2k program as a user runs it: exit codes, one-line
 * errors, no output files left by failures, and real conversions. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli_test_support.h"
#include "codestream.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "test_harness.h"

/* 3x2 big-endian 12-bit signed samples of one component (-F 3,2,1,12,s) and
 * what they read as. */
static const unsigned char raw_12_bit_bytes[] = {0x00, 0x01, 0xff, 0xff, 0x07, 0xff,
                                                 0xf8, 0x00, 0x00, 0x00, 0x01, 0x00};
static const int32_t raw_12_bit_samples[] = {1, -1, 2047, -2048, 0, 256};

static bool write_raw_12_bit(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    fwrite(raw_12_bit_bytes, 1, sizeof raw_12_bit_bytes, f);
    fclose(f);
    return true;
}

/* Checks that the image at `path` holds raw_12_bit_samples as 12-bit signed. */
static void check_raw_12_bit(const char *path)
{
    gj2k_image *image = read_image(path);
    REQUIRE(image != NULL);
    CHECK(image->components[0].is_signed);
    CHECK_EQ(image->components[0].precision, 12);
    CHECK(memcmp(image->components[0].samples, raw_12_bit_samples, sizeof raw_12_bit_samples) ==
          0);
    gj2k_image_destroy(image);
}

static void version(void)
{
    run_result r;
    run_gj2k(&r, "--version");
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "gj2k " GJ2K_VERSION_STRING) != NULL);
    /* Names the CUDA runtime and a GPU, or says why there is none. */
    CHECK(strstr(r.out, "CUDA") != NULL);
}

static void help_for_every_command(void)
{
    const char *commands[] = {"encode", "decode", "info", "bench", "convert", "transcode"};
    run_result r;
    run_gj2k(&r, "--help");
    CHECK_EQ(r.exit_code, 0);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        CHECK(strstr(r.out, commands[i]) != NULL);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        CHECK(strstr(r.out, "usage: gj2k") != NULL);
    }
}

static void unknown_option_and_command(void)
{
    run_result r;
    run_gj2k(&r, "convert --bogus -i a.png -o b.png");
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, "--bogus") != NULL);
    run_gj2k(&r, "transmogrify");
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, "transmogrify") != NULL);
    run_gj2k(&r, "");
    CHECK(r.exit_code != 0);
}

static void missing_values(void)
{
    run_result r;
    run_gj2k(&r, "convert -i");
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
    run_gj2k(&r, "convert -o x.png");
    CHECK_EQ(r.exit_code, 2);
    run_gj2k(&r, "bench -l 40");
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "-l") != NULL);
    run_gj2k(&r, "info");
    CHECK_EQ(r.exit_code, 2);
}

/* ------------------------------------------------------------ encode */

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* True when the file starts with the bytes a J2K codestream or JP2 file must. */
static bool has_signature(const char *path, gj2k_file_format format)
{
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    bool ok = data != NULL && size >= 12 && gj2k_format_from_signature(data, size) == format;
    free(data);
    return ok;
}

/* Lossless to .j2k and .jp2, RGB and 12-bit grey, and from raw and from
 * JPEG 2000 input: `gj2k decode` gives every sample back. */
static void encode_lossless_round_trip(void)
{
    char rgb_path[1024], grey_path[1024], out[1024], back[1024], args[4096];
    snprintf(rgb_path, sizeof rgb_path, "%s/rgb.ppm", test_temp_dir());
    snprintf(grey_path, sizeof grey_path, "%s/grey.pgm", test_temp_dir());
    gj2k_image *rgb = write_test_image(rgb_path, 67, 45, 3, 8);
    gj2k_image *grey = write_test_image(grey_path, 50, 33, 1, 12);
    REQUIRE(rgb != NULL && grey != NULL);
    const struct {
        const char *input, *extension, *decoded;
        const gj2k_image *image;
        gj2k_file_format format;
    } cases[] = {
        {rgb_path, "j2k", "ppm", rgb, GJ2K_FORMAT_J2K},
        {rgb_path, "jp2", "ppm", rgb, GJ2K_FORMAT_JP2},
        {grey_path, "j2c", "pgm", grey, GJ2K_FORMAT_J2K},
        {grey_path, "jp2", "pgm", grey, GJ2K_FORMAT_JP2},
    };
    run_result r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(out, sizeof out, "%s/out%zu.%s", test_temp_dir(), i, cases[i].extension);
        snprintf(back, sizeof back, "%s/back%zu.%s", test_temp_dir(), i, cases[i].decoded);
        snprintf(args, sizeof args, "encode -i '%s' -o '%s'", cases[i].input, out);
        run_gj2k(&r, args);
        if (r.exit_code != 0)
            fprintf(stderr, "gj2k %s: %s", args, r.err);
        CHECK_EQ(r.exit_code, 0);
        CHECK_EQ(r.err[0], '\0');
        CHECK(has_signature(out, cases[i].format));
        CHECK(decodes_to(out, back, cases[i].image));
    }
    /* A JPEG 2000 input is decoded and encoded again. */
    snprintf(out, sizeof out, "%s/again.jp2", test_temp_dir());
    snprintf(back, sizeof back, "%s/again.ppm", test_temp_dir());
    snprintf(args, sizeof args, "encode -i '%s/out0.j2k' -o '%s'", test_temp_dir(), out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(out, back, rgb));

    /* Raw input takes its geometry from -F: 12-bit signed samples. */
    char raw[1024];
    snprintf(raw, sizeof raw, "%s/in.raw", test_temp_dir());
    REQUIRE(write_raw_12_bit(raw));
    snprintf(out, sizeof out, "%s/raw.j2k", test_temp_dir());
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -F 3,2,1,12,s", raw, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(args, sizeof args, "decode -i '%s' -o '%s/raw.pgx'", out, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(back, sizeof back, "%s/raw_0.pgx", test_temp_dir());
    gj2k_image_destroy(rgb);
    gj2k_image_destroy(grey);
    check_raw_12_bit(back);
}

/* The PSNR the test measures itself (not codec/decode/image_compare.c, which
 * `encode -v` reports through), all components together, 8-bit peak; -1
 * when the file does not decode or its components differ in number or
 * size from the original's. */
static double measured_psnr(const gj2k_image *original, const char *encoded)
{
    gj2k_image *decoded = NULL;
    gj2k_error error = {0};
    if (gj2k_decode_file(encoded, NULL, &decoded, &error) != GJ2K_OK)
        return -1;
    double squares = 0, count = 0;
    bool alike = decoded->num_components == original->num_components;
    for (uint32_t c = 0; alike && c < original->num_components; c++) {
        const gj2k_component *a = &original->components[c], *b = &decoded->components[c];
        alike = a->width == b->width && a->height == b->height;
        for (size_t i = 0; alike && i < (size_t)a->width * a->height; i++) {
            double d = a->samples[i] - b->samples[i];
            squares += d * d;
            count++;
        }
    }
    gj2k_image_destroy(decoded);
    if (!alike)
        return -1;
    return squares == 0 ? 1e9 : 10 * log10(255.0 * 255.0 * count / squares);
}

/* -I -r 20 gives a file of about a twentieth of the raw bytes, smaller than
 * the lossless one, and -v reports its size and PSNR as they are. */
static void encode_lossy_report(void)
{
    char src[1024], lossless[1024], lossy[1024], args[4096];
    snprintf(src, sizeof src, "%s/in.ppm", test_temp_dir());
    snprintf(lossless, sizeof lossless, "%s/lossless.j2k", test_temp_dir());
    snprintf(lossy, sizeof lossy, "%s/lossy.j2k", test_temp_dir());
    gj2k_image *image = write_test_image(src, 160, 120, 3, 8);
    REQUIRE(image != NULL);
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -v", src, lossless);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "PSNR: lossless (bit-exact)") != NULL);
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -I -r 20 -v -threads 2", src, lossy);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    long lossless_bytes = file_size(lossless), lossy_bytes = file_size(lossy);
    const long raw_bytes = 160 * 120 * 3;
    fprintf(stderr, "lossless %ld bytes, lossy %ld bytes (target %ld)\n%s", lossless_bytes,
            lossy_bytes, raw_bytes / 20, r.out);
    CHECK(lossy_bytes > 0 && lossy_bytes < lossless_bytes);
    CHECK(lossy_bytes <= raw_bytes / 20);
    CHECK(lossy_bytes >= raw_bytes / 20 * 8 / 10); /* near the target, not far below */
    char expected[128];
    snprintf(expected, sizeof expected, "%ld bytes", lossy_bytes);
    CHECK(strstr(r.out, expected) != NULL);
    const char *psnr_line = strstr(r.out, "PSNR: ");
    REQUIRE(psnr_line != NULL);
    double reported = 0;
    CHECK(sscanf(psnr_line, "PSNR: %lf dB", &reported) == 1);
    double measured = measured_psnr(image, lossy);
    fprintf(stderr, "PSNR reported %.3f, measured %.3f\n", reported, measured);
    CHECK(measured > 20 && fabs(reported - measured) < 0.01);
    gj2k_image_destroy(image);
}

/* Each coding option reaches the codestream (as `gj2k info --json` reads
 * it) and, with a lossless last layer, the image still comes back exactly. */
static void encode_options_reach_codestream(void)
{
    char src[1024], out[1024], back[1024], args[4096];
    snprintf(src, sizeof src, "%s/in.ppm", test_temp_dir());
    snprintf(out, sizeof out, "%s/out.j2k", test_temp_dir());
    snprintf(back, sizeof back, "%s/back.ppm", test_temp_dir());
    gj2k_image *image = write_test_image(src, 100, 70, 3, 8);
    REQUIRE(image != NULL);
    run_result r;
    snprintf(args, sizeof args,
             "encode -i '%s' -o '%s' -n 4 -b 16,32 -c [64,64],[32,32] -t 48,40 -T 2,1 -d 5,3 "
             "-p RPCL -SOP -EPH -PLT -TLM -M 8 -mct 0 -C 'made by test_cli' -r 40,20,0",
             src, out);
    run_gj2k(&r, args);
    if (r.exit_code != 0)
        fprintf(stderr, "%s", r.err);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(out, back, image));
    snprintf(args, sizeof args, "info --json '%s'", out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    const char *expected[] = {
        "\"x0\": 5, \"y0\": 3, \"x1\": 105, \"y1\": 73",
        "\"tile_width\": 48, \"tile_height\": 40, \"tile_x0\": 2, \"tile_y0\": 1",
        "\"tiles_across\": 3, \"tiles_down\": 2",
        "\"progression\": \"RPCL\", \"layers\": 3, \"mct\": 0, \"sop\": true, \"eph\": true",
        "\"levels\": 3, \"transform\": \"5/3\", \"code_block\": [16, 32], \"code_block_style\": 8",
        "\"precincts\": [[8, 8], [16, 16], [32, 32], [64, 64]]", /* the last one given halves */
        "\"made by test_cli\"",
        "\"tlm\": true",
        "\"plt\": true",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        if (strstr(r.out, expected[i]) == NULL)
            fprintf(stderr, "info --json lacks %s\n", expected[i]);
        CHECK(strstr(r.out, expected[i]) != NULL);
    }
    /* Progression changes: T1 (opj_compress's first tile) goes in tile 0's
     * header; without T<n> they go in the main header. */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -n 4 -r 30,0 -t 64,64 "
             "-POC T1=0,0,2,2,3,CPRL/T1=2,0,2,4,3,LRCP", src, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(out, back, image));
    snprintf(args, sizeof args, "info --json '%s'", out);
    run_gj2k(&r, args);
    const char *tile0 = strstr(r.out, "{\"index\": 0, \"header\": ");
    const char *tile1 = strstr(r.out, "{\"index\": 1, \"header\": ");
    const char *first_change = strstr(r.out, "\"poc\": [{\"progression\": \"CPRL\", "
                                             "\"resolutions\": [0, 2], \"components\": [0, 3], "
                                             "\"layer_end\": 2}, {\"progression\": \"LRCP\"");
    REQUIRE(tile0 != NULL && tile1 != NULL);
    CHECK(first_change != NULL && first_change > tile0 && first_change < tile1);
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -n 4 -POC 0,0,1,2,3,CPRL/2,0,1,4,3,LRCP",
             src, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(out, back, image));
    snprintf(args, sizeof args, "info --json '%s'", out);
    run_gj2k(&r, args);
    const char *main_change = strstr(r.out, "\"poc\": [{\"progression\": \"CPRL\"");
    tile0 = strstr(r.out, "{\"index\": 0, \"header\": ");
    CHECK(main_change != NULL && tile0 != NULL && main_change < tile0);
    gj2k_image_destroy(image);
}

/* Usage errors (exit 2) and failures (exit 1): one line, no output file. */
static void encode_rejects_without_output(void)
{
    char src[1024], raw[1024], out[1024], args[4096];
    snprintf(src, sizeof src, "%s/in.ppm", test_temp_dir());
    snprintf(out, sizeof out, "%s/out.j2k", test_temp_dir());
    gj2k_image *image = write_test_image(src, 40, 30, 3, 8);
    REQUIRE(image != NULL);
    gj2k_image_destroy(image);
    snprintf(raw, sizeof raw, "%s/sub.raw", test_temp_dir());
    FILE *f = fopen(raw, "wb");
    REQUIRE(f != NULL);
    for (int i = 0; i < 5 * 4 + 3 * 2; i++) /* 5x4 and, subsampled 2x2, 3x2 */
        fputc(i, f);
    fclose(f);
    const struct {
        const char *options;
        int exit_code;
        const char *says;
    } cases[] = {
        {"-i '%s' -o '%s' --bogus", 2, "--bogus"},
        {"-i '%s' -o '%s' -r 20,abc", 2, "-r"},
        {"-i '%s' -o '%s' -r 10,20", 2, "-r"},
        {"-i '%s' -o '%s' -q 40,30", 2, "-q"},
        {"-i '%s' -o '%s' -r 20 -q 30", 2, "-q"},
        {"-i '%s' -o '%s' -b 3,3", 2, "-b"},
        {"-i '%s' -o '%s' -b 128,64", 2, "-b"},
        {"-i '%s' -o '%s' -n 0", 2, "-n"},
        {"-i '%s' -o '%s' -p LRCX", 2, "-p"},
        {"-i '%s' -o '%s' -c [64,60]", 2, "-c"},
        {"-i '%s' -o '%s' -POC T0=0,0,1,5,3,CPRL", 2, "T1"},
        {"-i '%s' -o '%s' -M 65", 2, "-M"},
        {"-i '%s' -o '%s' --ht -M 2", 2, "-M 2 with HT"},
        {"-i '%s' -o '%s' --ht -r 20,10", 2, "one quality layer"},
        {"-i '%s' -o '%s' -mct 2", 2, "-mct"},
        {"-i '%s' -o '%s.xyz'", 2, "-o"},
        {"-i '%s' -o '%s' -threads", 2, "-threads"},
        {"-i '%s.none.ppm' -o '%s'", 1, "none.ppm"},
        /* The library refuses: a tile grid beginning after the image does. */
        {"-i '%s' -o '%s' -T 5,5", 1, NULL},
    };
    run_result r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char options[512];
        snprintf(options, sizeof options, "encode %s", cases[i].options);
        snprintf(args, sizeof args, options, src, out);
        run_gj2k(&r, args);
        if (r.exit_code != cases[i].exit_code || count_lines(r.err) != 1)
            fprintf(stderr, "gj2k %s: exit %d: %s", args, r.exit_code, r.err);
        CHECK_EQ(r.exit_code, cases[i].exit_code);
        CHECK_EQ(count_lines(r.err), 1);
        CHECK(cases[i].says == NULL || strstr(r.err, cases[i].says) != NULL);
        CHECK_EQ(temp_entries(), 2); /* in.ppm and sub.raw: no output, no temporary file */
    }
    /* -d moving a subsampled component's grid so that its size would change. */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -F 5,4,2,8,u@1x1:2x2 -d 1,0", raw, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, "-d") != NULL);
    CHECK_EQ(temp_entries(), 2);
    /* The library refuses a component transform for unlike components. */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -F 5,4,2,8,u@1x1:2x2 -mct 1", raw, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK_EQ(temp_entries(), 2);
    /* An origin that keeps the sizes is taken, and decodes back exactly. */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -F 5,4,2,8,u@1x1:2x2 -d 2,2 -v", raw, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "lossless (bit-exact)") != NULL);
}

/* PPM -> each writable format -> PPM keeps every sample; PGX splits components. */
static void convert_round_trip_formats(void)
{
    char src[1024], back[1024], args[4096];
    snprintf(src, sizeof src, "%s", test_shared_path("images/Bretagne1.ppm"));
    snprintf(back, sizeof back, "%s/back.ppm", test_temp_dir());
    gj2k_image *original = read_image(src);
    REQUIRE(original != NULL);
    const char *extensions[] = {"ppm", "bmp", "png", "tif", "pam", "raw", "rawl"};
    run_result r;
    umask(022);
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
        char middle[1024];
        snprintf(middle, sizeof middle, "%s/middle.%s", test_temp_dir(), extensions[i]);
        if (!gj2k_format_can_write(gj2k_format_from_path(middle)))
            continue; /* e.g. TIFF in a build without libtiff */
        snprintf(args, sizeof args, "convert -i '%s' -o '%s'", src, middle);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        struct stat st;
        CHECK(stat(middle, &st) == 0 && (st.st_mode & 0777) == 0644); /* 0666 less umask 022 */
        bool raw = strncmp(extensions[i], "raw", 3) == 0;
        snprintf(args, sizeof args, "convert -i '%s' -o '%s'%s", middle, back,
                 raw ? " -F 640,480,3,8,u" : "");
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        gj2k_image *copy = read_image(back);
        if (!test_same_samples(original, copy))
            fprintf(stderr, "round trip through %s changed the image\n", extensions[i]);
        CHECK(test_same_samples(original, copy));
        gj2k_image_destroy(copy);
    }
    /* PGX holds one component a file: out_0.pgx .. out_2.pgx, as OpenJPEG names them. */
    snprintf(args, sizeof args, "convert -i '%s' -o '%s/out.pgx'", src, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    for (uint32_t c = 0; c < 3; c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/out_%u.pgx", test_temp_dir(), c);
        gj2k_image *plane = read_image(path);
        REQUIRE(plane != NULL);
        CHECK_EQ(plane->num_components, 1);
        CHECK(memcmp(plane->components[0].samples, original->components[c].samples,
                     sizeof(int32_t) * 640 * 480) == 0);
        gj2k_image_destroy(plane);
    }
    gj2k_image_destroy(original);
}

static void convert_raw_geometry(void)
{
    char path[1024], out[1024], args[4096];
    snprintf(path, sizeof path, "%s/in.raw", test_temp_dir());
    snprintf(out, sizeof out, "%s/out.pgx", test_temp_dir());
    REQUIRE(write_raw_12_bit(path));
    run_result r;
    snprintf(args, sizeof args, "convert -i '%s' -o '%s' -F 3,2,1,12,s", path, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(out, sizeof out, "%s/out_0.pgx", test_temp_dir());
    check_raw_12_bit(out);
    /* Missing or malformed geometry is a usage error naming the problem. */
    snprintf(args, sizeof args, "convert -i '%s' -o '%s/x.pgm'", path, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "-F") != NULL);
    snprintf(args, sizeof args, "convert -i '%s' -o '%s/x.pgm' -F 3,2,1,40,s", path, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
}

/* A truncated or corrupt input fails with one line and leaves no output. */
static void convert_rejects_bad_input_without_output(void)
{
    char bad[1024], out[1024], args[4096];
    snprintf(bad, sizeof bad, "%s/bad.ppm", test_temp_dir());
    FILE *f = fopen(bad, "wb");
    REQUIRE(f != NULL);
    fputs("P6\n640 480\n255\n\x01\x02\x03", f); /* pixel data cut short */
    fclose(f);
    snprintf(out, sizeof out, "%s/out.png", test_temp_dir());
    run_result r;
    snprintf(args, sizeof args, "convert -i '%s' -o '%s'", bad, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(!file_exists(out));
    CHECK_EQ(temp_entries(), 1); /* only bad.ppm: no temporary file either */
    /* Missing input, unknown output extension, unwritable directory. */
    snprintf(args, sizeof args, "convert -i '%s/none.png' -o '%s'", test_temp_dir(), out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    snprintf(args, sizeof args, "convert -i '%s' -o '%s/out.xyz'",
             test_shared_path("images/Bretagne1.ppm"), test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK(strstr(r.err, "unknown output format") != NULL);
    snprintf(args, sizeof args, "convert -i '%s' -o '%s/no/such/dir/out.ppm'",
             test_shared_path("images/Bretagne1.ppm"), test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK_EQ(temp_entries(), 1);
}

static void info_text_and_json(void)
{
    char args[2048];
    run_result r;
    snprintf(args, sizeof args, "info '%s'", test_shared_path("images/Rome.bmp"));
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "640 x 480") != NULL);
    CHECK(strstr(r.out, "8-bit unsigned") != NULL);
    snprintf(args, sizeof args, "info --json '%s'", test_shared_path("images/Rome.bmp"));
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "\"width\": 640") != NULL);
    CHECK(strstr(r.out, "\"height\": 480") != NULL);
    CHECK_EQ(count_lines(r.out), 1);
    /* JPEG 2000: boxes, markers, parameters and tiles. */
    snprintf(args, sizeof args, "info '%s'", test_shared_path("conformance/input/file9.jp2"));
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "pclr: 256 entries, 3 columns") != NULL);
    CHECK(strstr(r.out, "5 levels, 5/3 reversible, code-blocks 64x64") != NULL);
    snprintf(args, sizeof args, "info --json '%s'",
             test_shared_path("images/kodak_2layers_lrcp.j2c"));
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK_EQ(count_lines(r.out), 1);
    CHECK(strstr(r.out, "\"x1\": 2048") != NULL && strstr(r.out, "\"y1\": 1556") != NULL);
    CHECK(strstr(r.out, "\"progression\": \"LRCP\", \"layers\": 2") != NULL);
    run_gj2k(&r, "info /nonexistent/file.png");
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
}

static void bench_reports_exact(void)
{
    run_result r;
    run_gj2k(&r, "bench -s 97x61 -l 3 -n 1 -threads 2");
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "lossless round trip: exact") != NULL);
    CHECK(strstr(r.out, "MP/s") != NULL);
    CHECK(strstr(r.out, "PSNR") != NULL);
    /* Encode timings: lossless decodes back exactly, lossy has a PSNR. */
    CHECK(strstr(r.out, "2 threads") != NULL);
    const char *lossless = strstr(r.out, "lossless (5/3)");
    const char *lossy = strstr(r.out, "lossy (-I -r 20)");
    REQUIRE(lossless != NULL && lossy != NULL);
    CHECK(strstr(lossless, "bytes, exact") != NULL);
    CHECK(strstr(lossy, "bytes, PSNR") != NULL);
    CHECK(strstr(r.out, "whole run (read + encode + write)") != NULL);
}

/* `gj2k bench batch`: every case of the table, for one and for two jobs at
 * a time; each job's codestream must be the first encode's bytes (the
 * command fails otherwise); bad counts are usage errors. */
static void bench_batch_table(void)
{
    char path[1024], args[2048];
    snprintf(path, sizeof path, "%s/batch.ppm", test_temp_dir());
    gj2k_image *image = write_test_image(path, 71, 53, 3, 8);
    REQUIRE(image != NULL);
    gj2k_image_destroy(image);
    run_result r;
    snprintf(args, sizeof args, "bench batch -i '%s' -b 3 --device cpu -threads 2", path);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    const char *rows[] = {"| encode lossless ", "| encode -I -r 20 ", "| decode lossless ",
                          "| decode -I -r 20 "};
    for (int k = 0; k < 4; k++) {
        const char *first = strstr(r.out, rows[k]);
        CHECK(first != NULL && strstr(first + 1, rows[k]) != NULL); /* 1 and 4 at a time */
    }
    CHECK(strstr(r.out, "Tier-1") != NULL && strstr(r.out, "3 jobs") != NULL);
    snprintf(args, sizeof args, "bench batch -i '%s' -b 0", path);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
}

/* A JPH file of an HT main header and one empty packet (no block coded):
 * one tile of width x height, code-blocks 2^block_log2 square. */
static void write_header_only_jph(const char *path, uint32_t width, uint32_t height,
                                  unsigned block_log2)
{
    gj2k_component_info info = {1, 1, 8, false};
    gj2k_image *image = NULL;
    REQUIRE(gj2k_image_create(&image, 0, 0, 32, 16, 1, &info, NULL) == GJ2K_OK);
    /* the boxes describe a small image; the codestream may say another size */
    j2k_siz siz = {.capabilities = J2K_RSIZ_PART15, .image_x1 = width, .image_y1 = height,
                   .tile_width = width, .tile_height = height, .num_components = 1,
                   .components = &(j2k_component_size){.precision = 8, .dx = 1, .dy = 1}};
    j2k_cod cod = {.layers = 1};
    cod.coding = (j2k_component_coding){.levels = 2, .code_block_width_log2 = block_log2,
                                        .code_block_height_log2 = block_log2,
                                        .code_block_style = J2K_CBLK_HT | J2K_CBLK_VERTICAL_CAUSAL,
                                        .transform = J2K_TRANSFORM_97};
    j2k_component_coding_default_precincts(&cod.coding);
    j2k_quantization q = {.style = J2K_QUANT_EXPOUNDED, .guard_bits = 3, .num_steps = 7};
    for (unsigned b = 0; b < 7; b++) /* Mb up to 3 + 14 - 1 = 16: MAGB 8 */
        q.steps[b] = (quant_step){.exponent = (uint8_t)(12 + b % 3), .mantissa = 100};
    j2k_header_params header = {0};
    byte_buffer codestream = {0}, file = {0};
    size_t sot_offset = 0;
    REQUIRE(j2k_header_set_cod(&header, &cod, NULL) == GJ2K_OK &&
            j2k_header_set_qcd(&header, &q, NULL) == GJ2K_OK);
    REQUIRE(j2k_write_main_header(&codestream, &siz, &header, NULL) == GJ2K_OK);
    REQUIRE(j2k_write_tile_part_begin(&codestream, &siz, &(j2k_sot){.num_parts = 1}, NULL,
                                      &sot_offset, NULL) == GJ2K_OK);
    j2k_marker_write(&codestream, J2K_SOD);
    byte_buffer_put_u8(&codestream, 0);
    REQUIRE(j2k_write_tile_part_end(&codestream, sot_offset, NULL) == GJ2K_OK);
    j2k_marker_write(&codestream, J2K_EOC);
    jp2_file boxes;
    REQUIRE(jp2_file_describe_image(&boxes, image, NULL) == GJ2K_OK);
    REQUIRE(jp2_file_write(&boxes, codestream.data, codestream.size, &file, NULL) == GJ2K_OK);
    REQUIRE(test_write_file(path, file.data, file.size));
    jp2_file_free(&boxes);
    byte_buffer_free(&file);
    byte_buffer_free(&codestream);
    j2k_header_free(&header);
    gj2k_image_destroy(image);
}

/* `gj2k info` of a JPH file (T.814): the brand, Rsiz and CAP as written by
 * the main header and box writers (the header alone, no HT block coded). */
static void info_shows_htj2k_capabilities(void)
{
    char path[1024], args[2048];
    snprintf(path, sizeof path, "%s/header.jph", test_temp_dir());
    write_header_only_jph(path, 32, 16, 5);

    run_result r;
    snprintf(args, sizeof args, "info '%s'", path);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "brand 'jph ', compatible with 'jph '") != NULL);
    CHECK(strstr(r.out, "Part 15 (HTJ2K) (Rsiz 0x4000)") != NULL);
    CHECK(strstr(r.out, "CAP: Pcap 0x00020000, Part 15 Ccap15 0x0028: HTONLY, "
                        "irreversible (HTIRV), MAGB 8") != NULL);
    CHECK(strstr(r.out, "style 0x48 (HT)") != NULL);
    snprintf(args, sizeof args, "info '%s' --json", path);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "\"brand\": \"jph \", \"compatibility\": [\"jph \"]") != NULL);
    CHECK(strstr(r.out, "\"rsiz\": 16384") != NULL);
    CHECK(strstr(r.out, "\"cap\": {\"pcap\": 131072, \"ccap15\": 40, \"ht_set\": \"HTONLY\", "
                        "\"multiple_ht_sets\": false, \"rgn\": false, \"heterogeneous\": false, "
                        "\"irreversible\": true, \"magb\": 8}") != NULL);
    CHECK(strstr(r.out, "\"codeblocks\": {\"ht\": 0, \"part1\": 0,") != NULL); /* no data */
    /* a real HT file: every block with data HT, counted from its packets */
    char src[512], jph[512];
    snprintf(src, sizeof src, "%s/ht.ppm", test_temp_dir());
    snprintf(jph, sizeof jph, "%s/ht.jph", test_temp_dir());
    gj2k_image *picture = write_test_image(src, 100, 70, 3, 8);
    REQUIRE(picture != NULL);
    gj2k_image_destroy(picture);
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -b 16,16", src, jph);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(args, sizeof args, "info '%s'", jph);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    unsigned long long ht = 0, part1 = 1;
    const char *line = strstr(r.out, "code-blocks with data: ");
    CHECK(line != NULL && sscanf(line, "code-blocks with data: %llu HT (0 with placeholder "
                                       "passes, 0 in more than one HT set), %llu Part 1",
                                 &ht, &part1) == 2);
    CHECK(ht > 40 && part1 == 0);
    /* a header whose code-blocks are past gj2k's limits: described all the
       same, the census left out with a warning */
    write_header_only_jph(path, 65536, 65536, 2);
    snprintf(args, sizeof args, "info '%s'", path);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "style 0x48 (HT)") != NULL);
    CHECK(strstr(r.out, "code-blocks with data") == NULL);
    CHECK(strstr(r.err, "code-blocks not counted") != NULL);
}

/* The peers' spellings (issue 19): -h for help everywhere; -H, -num_threads
 * and -threads ALL_CPUS; opj_decompress's -force-rgb and -upsample; -quiet
 * for one file. Each gives what gj2k's own spelling gives. The peers'
 * options gj2k does not take are refused, saying what to do instead, and
 * nothing is written. */
static void peers_spellings(void)
{
    const char *commands[] = {"encode", "decode", "info", "bench", "convert", "transcode"};
    run_result r;
    char args[3 * 1024];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, "%s -h", commands[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        CHECK(strncmp(r.out, "usage: gj2k", 11) == 0);
    }
    char source[1024], own[1024], peer[1024];
    snprintf(source, sizeof source, "%s/peer.ppm", test_temp_dir());
    snprintf(own, sizeof own, "%s/own.j2k", test_temp_dir());
    snprintf(peer, sizeof peer, "%s/peer.j2k", test_temp_dir());
    gj2k_image *image = write_test_image(source, 45, 31, 3, 8);
    REQUIRE(image != NULL);
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -threads 2", source, own);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    char decoded[1024];
    snprintf(decoded, sizeof decoded, "%s/peer_out.ppm", test_temp_dir());
    const char *spellings[] = {"-H 2", "-num_threads 2", "-threads ALL_CPUS", "-quiet"};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        snprintf(args, sizeof args, "encode -i '%s' -o '%s' %s", source, peer, spellings[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        CHECK(decodes_to(peer, decoded, image) || (fprintf(stderr, "%s\n", spellings[i]), 0));
        remove(peer);
    }
    snprintf(args, sizeof args, "decode -i '%s' -o '%s' -force-rgb -upsample -H 1 -p 8S", own,
             decoded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    gj2k_image *back = read_image(decoded);
    CHECK(back != NULL && test_same_samples(image, back));
    gj2k_image_destroy(back);
    snprintf(args, sizeof args, "decode -i '%s' -o '%s.pgm' -p 8C", own, decoded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "clipping") != NULL);
    /* -TP is taken (R, L or C) */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -TP C -p CPRL", source, peer);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(peer, decoded, image));
    remove(peer);
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -TP X", source, peer);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "R, L or C") != NULL);
    /* the cinema profiles are taken: an 8-bit image is not theirs, 30 fps not a rate */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -cinema2K 24", source, peer);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK(strstr(r.err, "12-bit") != NULL);
    CHECK(!file_exists(peer));
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -cinema2K 30", source, peer);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    const char *refused[] = {"-ROI c=0,U=2", "-GuardBits 2", "-m mct.txt", "-jpip", "-s 2,2"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(args, sizeof args, "encode -i '%s' -o '%s' %s", source, peer, refused[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 2);
        CHECK_EQ(count_lines(r.err), 1);
        CHECK(strstr(r.err, "is not taken:") != NULL);
        CHECK(!file_exists(peer));
    }
    gj2k_image_destroy(image);
}

/* `gj2k help COMMAND` is COMMAND --help; every help fits 80 columns and
 * ends with examples (issue 19, item 3). */
static void help_fits_with_examples(void)
{
    const char *commands[] = {"encode", "decode", "info", "bench", "convert", "transcode"};
    run_result r, own;
    char args[64];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, "help %s", commands[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        snprintf(args, sizeof args, "%s --help", commands[i]);
        run_gj2k(&own, args);
        CHECK(strcmp(r.out, own.out) == 0);
        CHECK(strstr(r.out, "\nexamples:\n  gj2k ") != NULL);
        size_t column = 0, widest = 0;
        for (const char *c = r.out; *c; c++) {
            column = *c == '\n' ? 0 : column + 1;
            widest = column > widest ? column : widest;
        }
        CHECK(widest <= 80 || (fprintf(stderr, "%s: %zu columns\n", commands[i], widest), 0));
    }
    run_gj2k(&r, "--help");
    CHECK(strstr(r.out, "help COMMAND") != NULL);
    run_gj2k(&r, "help frobnicate");
    CHECK_EQ(r.exit_code, 2);
}

static const test_case cases[] = {
    {"version", version},
    {"help_for_every_command", help_for_every_command},
    {"unknown_option_and_command", unknown_option_and_command},
    {"missing_values", missing_values},
    {"encode_lossless_round_trip", encode_lossless_round_trip},
    {"encode_lossy_report", encode_lossy_report},
    {"encode_options_reach_codestream", encode_options_reach_codestream},
    {"encode_rejects_without_output", encode_rejects_without_output},
    {"convert_round_trip_formats", convert_round_trip_formats},
    {"convert_raw_geometry", convert_raw_geometry},
    {"convert_rejects_bad_input_without_output", convert_rejects_bad_input_without_output},
    {"info_text_and_json", info_text_and_json},
    {"info_shows_htj2k_capabilities", info_shows_htj2k_capabilities},
    {"bench_reports_exact", bench_reports_exact},
    {"bench_batch_table", bench_batch_table},
    {"peers_spellings", peers_spellings},
    {"help_fits_with_examples", help_fits_with_examples},
};
TEST_MAIN(cases)
