/* test_cli.c - the gj2k program as a user runs it: exit codes, one-line
 * errors, no output files left by failures, and real conversions. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "gj2k.h"
#include "test_harness.h"

typedef struct run_result {
    int exit_code;
    char out[16384];
    char err[4096];
} run_result;

static void read_text(const char *path, char *text, size_t size)
{
    text[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return;
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* Runs `gj2k ARGS` through the shell, capturing both streams. */
static void run_gj2k(run_result *r, const char *args)
{
    char out_path[512], err_path[512], command[4096];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", test_temp_dir());
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", test_temp_dir());
    snprintf(command, sizeof command, "'%s' %s >'%s' 2>'%s' </dev/null", GJ2K_PROGRAM, args,
             out_path, err_path);
    int status = system(command);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    read_text(out_path, r->out, sizeof r->out);
    read_text(err_path, r->err, sizeof r->err);
    remove(out_path);
    remove(err_path);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in the temporary directory (stdout/stderr files are removed). */
static int temp_entries(void)
{
    DIR *dir = opendir(test_temp_dir());
    int count = 0;
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;)
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dir)
        closedir(dir);
    return count;
}

static gj2k_image *read_image(const char *path)
{
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(path, NULL, &image, &error) != GJ2K_OK)
        fprintf(stderr, "cannot read %s: %s\n", path, error.message);
    return image;
}

static bool same_samples(const gj2k_image *a, const gj2k_image *b)
{
    if (a == NULL || b == NULL || a->num_components != b->num_components)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *ca = &a->components[c], *cb = &b->components[c];
        if (ca->width != cb->width || ca->height != cb->height || ca->precision != cb->precision ||
            ca->is_signed != cb->is_signed ||
            memcmp(ca->samples, cb->samples, sizeof(int32_t) * ca->width * ca->height) != 0)
            return false;
    }
    return true;
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
    const char *commands[] = {"encode", "decode", "info", "bench", "convert"};
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

static void encode_not_implemented(void)
{
    run_result r;
    char args[1024];
    snprintf(args, sizeof args, "encode -i '%s' -o '%s/out.j2k'",
             test_shared_path("images/Bretagne1.ppm"), test_temp_dir());
    run_gj2k(&r, args);
    CHECK(r.exit_code != 0);
    CHECK(strstr(r.err, "not implemented") != NULL);
    CHECK_EQ(temp_entries(), 0);
}

/* A conformance codestream decodes to its reference; -r, -c and -d change
 * the output as opj_decompress's do; damaged input fails cleanly. */
static void decode_options(void)
{
    char input[1024], reference[1024], args[4096], out[1024];
    snprintf(input, sizeof input, "%s", test_shared_path("conformance/input/p0_09.j2k"));
    snprintf(reference, sizeof reference, "%s",
             test_shared_path("conformance/baseline/c1p0_09_0.pgx"));
    snprintf(out, sizeof out, "%s/out.pgx", test_temp_dir());
    run_result r;
    snprintf(args, sizeof args, "decode -i '%s' -o '%s'", input, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(out, sizeof out, "%s/out_0.pgx", test_temp_dir());
    gj2k_image *decoded = read_image(out), *expected = read_image(reference);
    CHECK(same_samples(decoded, expected));
    uint32_t width = decoded ? decoded->components[0].width : 0;
    uint32_t height = decoded ? decoded->components[0].height : 0;
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(expected);

    snprintf(out, sizeof out, "%s/half.pgm", test_temp_dir());
    snprintf(args, sizeof args, "decode -i '%s' -o '%s' -r 1 -threads 2", input, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    decoded = read_image(out);
    REQUIRE(decoded != NULL);
    CHECK_EQ(decoded->components[0].width, (width + 1) / 2);
    CHECK_EQ(decoded->components[0].height, (height + 1) / 2);
    gj2k_image_destroy(decoded);

    snprintf(out, sizeof out, "%s/region.pgm", test_temp_dir());
    snprintf(args, sizeof args, "decode -i '%s' -o '%s' -d 3,5,20,17", input, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    decoded = read_image(out);
    REQUIRE(decoded != NULL);
    CHECK_EQ(decoded->components[0].width, width - 3); /* clipped to the image's right edge */
    CHECK_EQ(decoded->components[0].height, 12);
    gj2k_image_destroy(decoded);

    /* Bad options and a truncated header: one line, no output. */
    snprintf(args, sizeof args, "decode -i '%s' -o '%s/x.pgm' -r 40", input, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    snprintf(args, sizeof args, "decode -i '%s' -o '%s/x.pgm' -c 5", input, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    char cut[1024];
    snprintf(cut, sizeof cut, "%s/cut.j2k", test_temp_dir());
    FILE *f = fopen(cut, "wb"), *in = fopen(input, "rb");
    REQUIRE(f != NULL && in != NULL);
    char head[20];
    size_t n = fread(head, 1, sizeof head, in);
    fwrite(head, 1, n, f);
    fclose(f);
    fclose(in);
    snprintf(args, sizeof args, "decode -i '%s' -o '%s/x.pgm'", cut, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    snprintf(out, sizeof out, "%s/x.pgm", test_temp_dir());
    CHECK(!file_exists(out));
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
        if (!same_samples(original, copy))
            fprintf(stderr, "round trip through %s changed the image\n", extensions[i]);
        CHECK(same_samples(original, copy));
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
    /* 3x2 big-endian 12-bit signed samples of one component. */
    char path[1024], out[1024], args[4096];
    snprintf(path, sizeof path, "%s/in.raw", test_temp_dir());
    snprintf(out, sizeof out, "%s/out.pgx", test_temp_dir());
    const unsigned char bytes[] = {0x00, 0x01, 0xff, 0xff, 0x07, 0xff, 0xf8, 0x00, 0x00, 0x00, 0x01, 0x00};
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fwrite(bytes, 1, sizeof bytes, f);
    fclose(f);
    run_result r;
    snprintf(args, sizeof args, "convert -i '%s' -o '%s' -F 3,2,1,12,s", path, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    snprintf(out, sizeof out, "%s/out_0.pgx", test_temp_dir());
    gj2k_image *image = read_image(out);
    REQUIRE(image != NULL);
    const int32_t expected[] = {1, -1, 2047, -2048, 0, 256};
    CHECK(image->components[0].is_signed);
    CHECK_EQ(image->components[0].precision, 12);
    CHECK(memcmp(image->components[0].samples, expected, sizeof expected) == 0);
    gj2k_image_destroy(image);
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
    run_gj2k(&r, "bench -s 97x61 -l 3 -n 1");
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "lossless round trip: exact") != NULL);
    CHECK(strstr(r.out, "MP/s") != NULL);
    CHECK(strstr(r.out, "PSNR") != NULL);
}

static const test_case cases[] = {
    {"version", version},
    {"help_for_every_command", help_for_every_command},
    {"unknown_option_and_command", unknown_option_and_command},
    {"missing_values", missing_values},
    {"encode_not_implemented", encode_not_implemented},
    {"decode_options", decode_options},
    {"convert_round_trip_formats", convert_round_trip_formats},
    {"convert_raw_geometry", convert_raw_geometry},
    {"convert_rejects_bad_input_without_output", convert_rejects_bad_input_without_output},
    {"info_text_and_json", info_text_and_json},
    {"bench_reports_exact", bench_reports_exact},
};
TEST_MAIN(cases)
