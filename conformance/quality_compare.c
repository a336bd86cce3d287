/* quality_compare.c - gj2k's encoder against opj_compress on real images:
 * the shared photographs and the 2K cinema frame.
 *
 *   quality_compare IMAGES_DIR [--gj2k PATH] [--quick] [--equal-size] [-k SUBSTRING]
 *
 * Each image is read by gj2k and encoded by gj2k (with --gj2k, the program:
 * `gj2k encode`; else gj2k_encode_memory, the encoder behind it) and by
 * opj_compress with the same settings.
 * opj_compress gets the samples gj2k read, written as PNM: its own PNG
 * reader applies a file's gAMA chunk (cinema2k_rgb8.png), so it would encode
 * other samples. The settings and conditions (the issue's):
 *  - lossless, the defaults of both: gj2k's file no larger than
 *    opj_compress's within 0.1%, both decoding to the source;
 *  - -I -r 20: gj2k's PSNR at least opj_compress's, at no more bytes; gj2k's
 *    file must also meet its own target: at most floor(raw bytes / 20) and
 *    within 1% of it (the ratio is raw bytes / file bytes, gj2k.h).
 * When gj2k's -r 20 file is the larger, gj2k also encodes to exactly
 * opj_compress's size (a byte target), and the table shows that PSNR too;
 * with --equal-size that comparison replaces the -r 20 one (PSNR at no more
 * bytes than opj_compress's, the ratio's own size aside).
 * Both files are decoded by the same decoder, gj2k's (which the OpenJPEG
 * cross-checks hold to opj_decompress's output), and compared with the
 * source as gj2k read it; PSNR over all components (codec/decode/image_compare.h).
 *
 * Prints a Markdown table, then one line per failed condition and a summary.
 * Exit 1 on any failure; 77 (skip) when the images or opj_compress are
 * missing, except that a missing opj_compress fails when CI is set. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crosscheck_support.h"
#include "gj2k.h"
#include "image_compare.h"
#include "image_formats.h"

/* The photographs and the cinema frame (../shared/images/README.md), in
 * formats that both gj2k and opj_compress read. */
static const char *const image_names[] = {"Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp",
                                          "cinema2k_rgb12.tif", "cinema2k_rgb8.png"};

#define LOSSY_RATIO 20.0

typedef struct setting {
    const char *name;
    bool irreversible;
    double ratio; /* 0: lossless */
} setting;

static const setting settings_compared[] = {{"lossless", false, 0},
                                            {"-I -r 20", true, LOSSY_RATIO}};

/* One file's outcome. */
typedef struct coded {
    size_t bytes;
    double psnr;
    bool ok;
    char why[400];
} coded;

typedef struct context {
    char opj[4096], dir[4096];
    const char *gj2k; /* the gj2k program, or NULL: the library */
    bool equal_size;
    unsigned failures;
    char failures_text[8192];
} context;

static void record_failure(context *k, const char *image, const setting *st, const char *what)
{
    size_t used = strlen(k->failures_text);
    text(k->failures_text + used, sizeof k->failures_text - used, "FAIL %s %s: %s\n", image,
         st->name, what);
    k->failures++;
}

/* Decodes `data` with gj2k and measures it against the source. */
static void measure(const gj2k_image *source, const uint8_t *data, size_t size, coded *out)
{
    gj2k_decode_options options = {0};
    gj2k_image *decoded = NULL;
    gj2k_error error = {0};
    out->bytes = size;
    if (gj2k_decode_memory(data, size, &options, &decoded, &error) != GJ2K_OK) {
        text(out->why, sizeof out->why, "gj2k cannot decode it: %s", error.message);
        return;
    }
    image_difference difference;
    out->ok = image_compare(source, decoded, &difference, out->why, sizeof out->why);
    out->psnr = difference.psnr;
    for (uint32_t c = 0; out->ok && c < source->num_components; c++) {
        const gj2k_component *a = &source->components[c], *b = &decoded->components[c];
        if (a->precision != b->precision || a->is_signed != b->is_signed) {
            text(out->why, sizeof out->why, "component %u: %u-bit in the file, %u-bit read",
                 (unsigned)c, (unsigned)b->precision, (unsigned)a->precision);
            out->ok = false;
        }
    }
    gj2k_image_destroy(decoded);
}

/* Reads an encoder's output file and measures it. */
static void measure_file(const char *output, const gj2k_image *source, coded *out)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (file_read_all(output, &data, &size, NULL) != GJ2K_OK)
        text(out->why, sizeof out->why, "the encoder wrote nothing readable");
    else
        measure(source, data, size, out);
    free(data);
    unlink(output);
}

/* Runs an encoder's command line; on success measures `output`. */
static void run_encoder(const context *k, char **argv, const char *output,
                        const gj2k_image *source, coded *out)
{
    char log[4200];
    text(log, sizeof log, "%s/encoder.log", k->dir);
    int rc = tool_run(argv, log);
    if (rc != 0) {
        char tail[300];
        tool_log_tail(log, tail, sizeof tail);
        text(out->why, sizeof out->why, "%s failed (exit %d): %s", argv[0], rc, tail);
    } else {
        measure_file(output, source, out);
    }
    unlink(log);
}

/* gj2k with the setting's options; with `bytes` > 0, to that many bytes
 * instead of the setting's ratio. `input` is the source as PNM. */
static void encode_with_gj2k(const context *k, const char *input, const gj2k_image *source,
                             const setting *st, size_t bytes, coded *out)
{
    double target = bytes ? (double)bytes : st->ratio;
    if (k->gj2k) {
        char output[4200], value[32];
        text(output, sizeof output, "%s/gj2k.j2k", k->dir);
        text(value, sizeof value, bytes ? "%.0f" : "%g", target);
        char *argv[] = {(char *)k->gj2k, "encode", "-i", (char *)input, "-o", output,
                        NULL, NULL, NULL, NULL};
        if (st->irreversible)
            argv[6] = "-I";
        if (target > 0) {
            argv[7] = bytes ? "--bytes" : "-r";
            argv[8] = value;
        }
        run_encoder(k, argv, output, source, out);
        return;
    }
    gj2k_encode_options options = {.irreversible = st->irreversible};
    if (target > 0) {
        options.target = bytes ? GJ2K_TARGET_BYTES : GJ2K_TARGET_RATIO;
        options.num_layers = 1;
        options.targets = &target;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    if (gj2k_encode_memory(source, &options, &data, &size, NULL, &error) != GJ2K_OK)
        text(out->why, sizeof out->why, "gj2k cannot encode it: %s", error.message);
    else
        measure(source, data, size, out);
    free(data);
}

static void encode_with_opj(const context *k, const char *input, const gj2k_image *source,
                            const setting *st, coded *out)
{
    char output[4200], ratio[32];
    text(output, sizeof output, "%s/opj.j2k", k->dir);
    text(ratio, sizeof ratio, "%g", st->ratio);
    char *argv[] = {(char *)k->opj, "-i", (char *)input, "-o", output, NULL, NULL, NULL, NULL};
    if (st->irreversible) {
        argv[5] = "-I";
        argv[6] = "-r";
        argv[7] = ratio;
    }
    run_encoder(k, argv, output, source, out);
}

/* The conditions of the comparison; false with the reason in `why`.
 * `same_size` is gj2k at opj_compress's size (bytes 0 when not made). */
static bool judge(const context *k, const gj2k_image *source, const setting *st,
                  const coded *mine, const coded *opj, const coded *same_size, char *why,
                  size_t size)
{
    if (!mine->ok || !opj->ok) {
        text(why, size, "%s", !mine->ok ? mine->why : opj->why);
        return false;
    }
    if (st->ratio == 0) {
        if (!isinf(mine->psnr) || !isinf(opj->psnr)) {
            text(why, size, "not lossless: PSNR gj2k %.2f dB, opj_compress %.2f dB", mine->psnr,
                 opj->psnr);
            return false;
        }
        if ((double)mine->bytes > (double)opj->bytes * 1.001) {
            text(why, size, "gj2k's %zu bytes exceed opj_compress's %zu by more than 0.1%%",
                 mine->bytes, opj->bytes);
            return false;
        }
        return true;
    }
    double requested = floor(image_raw_bytes(source) / st->ratio);
    if ((double)mine->bytes > requested || (double)mine->bytes < 0.99 * requested) {
        text(why, size, "gj2k's %zu bytes are not within 1%% under the %.0f requested",
             mine->bytes, requested);
        return false;
    }
    const coded *compared = mine;
    if (k->equal_size && mine->bytes > opj->bytes) {
        if (!same_size->ok) {
            text(why, size, "at opj_compress's size: %s", same_size->why);
            return false;
        }
        compared = same_size;
    }
    if (compared->bytes > opj->bytes || compared->psnr < opj->psnr) {
        text(why, size, "gj2k %zu bytes at %.3f dB against opj_compress's %zu bytes at %.3f dB",
             compared->bytes, compared->psnr, opj->bytes, opj->psnr);
        return false;
    }
    return true;
}

static void format_psnr(double psnr, bool ok, char *out, size_t size)
{
    if (!ok)
        text(out, size, "-");
    else if (isinf(psnr))
        text(out, size, "lossless");
    else
        text(out, size, "%.3f", psnr);
}

/* Writes the source as PNM for the encoders: PGM, PPM, else PAM. */
static bool write_for_opj(const context *k, const gj2k_image *source, char *path, size_t size,
                          char *why, size_t why_size)
{
    static const char *const extensions[] = {"pgm", "pam", "ppm", "pam"};
    uint32_t n = source->num_components;
    text(path, size, "%s/source.%s", k->dir, extensions[n >= 1 && n <= 4 ? n - 1 : 3]);
    gj2k_error error = {0};
    if (gj2k_image_write_file(source, path, NULL, &error) != GJ2K_OK) {
        text(why, why_size, "cannot write it for opj_compress: %s", error.message);
        return false;
    }
    return true;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Both encoders on one image, both settings; prints the table rows. */
static void compare_image(context *k, const char *dir, const char *name)
{
    char path[4200], pnm[4200], why[600] = "";
    text(path, sizeof path, "%s/%s", dir, name);
    gj2k_image *source = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(path, NULL, &source, &error) != GJ2K_OK)
        text(why, sizeof why, "%s", error.message);
    else
        write_for_opj(k, source, pnm, sizeof pnm, why, sizeof why);
    if (why[0]) {
        printf("| %s | - | - | - | - | - | - | - | FAIL | - |\n", name);
        record_failure(k, name, &settings_compared[0], why);
        gj2k_image_destroy(source);
        return;
    }
    for (size_t i = 0; i < sizeof settings_compared / sizeof settings_compared[0]; i++) {
        const setting *st = &settings_compared[i];
        coded mine = {0}, opj = {0}, same_size = {0};
        struct timespec t0, t1, t2;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        encode_with_gj2k(k, pnm, source, st, 0, &mine);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        encode_with_opj(k, pnm, source, st, &opj);
        clock_gettime(CLOCK_MONOTONIC, &t2);
        if (st->ratio > 0 && mine.ok && opj.ok && mine.bytes > opj.bytes)
            encode_with_gj2k(k, pnm, source, st, opj.bytes, &same_size);
        why[0] = '\0';
        bool pass = judge(k, source, st, &mine, &opj, &same_size, why, sizeof why);
        if (!pass)
            record_failure(k, name, st, why);
        char mine_psnr[32], opj_psnr[32], same_psnr[32] = "-", ratio[32] = "-";
        format_psnr(mine.psnr, mine.ok, mine_psnr, sizeof mine_psnr);
        format_psnr(opj.psnr, opj.ok, opj_psnr, sizeof opj_psnr);
        if (same_size.bytes)
            format_psnr(same_size.psnr, same_size.ok, same_psnr, sizeof same_psnr);
        if (mine.ok && opj.ok)
            text(ratio, sizeof ratio, "%.4f", (double)mine.bytes / (double)opj.bytes);
        printf("| %s | %s | %zu | %s | %zu | %s | %s | %s | %s | %.2f / %.2f |\n", name,
               st->name, mine.bytes, mine_psnr, opj.bytes, opj_psnr, ratio, same_psnr,
               pass ? "pass" : "FAIL", seconds_between(&t0, &t1), seconds_between(&t1, &t2));
        fflush(stdout);
    }
    unlink(pnm);
    gj2k_image_destroy(source);
}

int main(int argc, char **argv)
{
    crosscheck_arguments arguments;
    if (!crosscheck_arguments_parse(argc, argv, &arguments) || arguments.operand == NULL ||
        arguments.only || arguments.opj) {
        fprintf(stderr, "usage: quality_compare IMAGES_DIR [--gj2k PATH] [--quick] "
                        "[--equal-size] [-k SUBSTRING]\n");
        return 2;
    }
    const char *dir = arguments.operand, *filter = arguments.filter;
    bool quick = arguments.quick, equal_size = arguments.equal_size;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("SKIP: the shared images are missing (%s); put ../shared beside the checkout or "
               "set GJ2K_SHARED_DIR\n", dir);
        return 77;
    }
    context k = {.equal_size = equal_size, .gj2k = arguments.gj2k};
    int missing = tool_require("opj_compress", k.opj, sizeof k.opj);
    if (missing)
        return missing;
    if (!temp_dir_create("gj2k-quality", k.dir, sizeof k.dir)) {
        printf("FAIL: cannot create a temporary directory %s\n", k.dir);
        return 1;
    }
    printf("gj2k (%s) against %s on the samples gj2k reads (given to both as PNM); both files "
           "decoded by gj2k's library; PSNR over all components%s%s\n\n",
           k.gj2k ? "`gj2k encode`" : "gj2k_encode_memory", k.opj,
           equal_size ? "; -r 20 judged at equal size" : "",
           quick ? " (quick: the first image only)" : "");
    printf("| image | setting | gj2k bytes | gj2k PSNR (dB) | opj_compress bytes | "
           "opj_compress PSNR (dB) | bytes gj2k / opj | gj2k PSNR at opj's bytes (dB) | "
           "result | encode s gj2k / opj |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n");
    size_t count = quick ? 1 : sizeof image_names / sizeof image_names[0];
    unsigned compared = 0;
    for (size_t i = 0; i < count; i++) {
        if (filter && !strstr(image_names[i], filter))
            continue;
        char path[4200];
        text(path, sizeof path, "%s/%s", dir, image_names[i]);
        if (access(path, R_OK) != 0) {
            printf("| %s | - | - | - | - | - | - | - | missing | - |\n", image_names[i]);
            continue;
        }
        compare_image(&k, dir, image_names[i]);
        compared++;
    }
    temp_dir_remove(k.dir);
    printf("\n%s", k.failures_text);
    printf("quality comparison: %u image(s), %u failure(s)\n", compared, k.failures);
    if (compared == 0)
        return 77;
    return k.failures ? 1 : 0;
}
