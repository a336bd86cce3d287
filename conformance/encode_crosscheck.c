/* encode_crosscheck.c - gj2k's encoder against OpenJPEG.
 *
 *   encode_crosscheck [--quick] [--only matrix|reverse|rate] [-k SUBSTRING] [-v]
 *
 * Over the option matrix of encode_cases.c (synthetic images with structure,
 * every coding parameter varied around a small default):
 *  - matrix: gj2k_encode_memory writes each case; its headers must say what
 *    was asked (encode_stream_checks.h); the file is decoded by
 *    gj2k_decode_memory and by opj_decompress (to PGX, one file a
 *    component), fully and at each quality layer (-l). Lossless cases must
 *    give the source exactly in both; every case must give the same image in
 *    both: exactly with the 5/3 wavelet, within +-1 with the 9/7 at every
 *    depth (decoder_tolerance).
 *    Lossy pictures must keep a plausible PSNR that rises with the layers and
 *    meets PSNR targets; no size target may be exceeded.
 *  - reverse: the cases marked `reverse` are also written by opj_compress from
 *    the same image (as raw samples) with the equivalent options; gj2k must
 *    decode that file as opj_decompress does (same rule), lossless ones to the
 *    source. opj_compress's own quality is not judged.
 *  - rate: larger images with ratio, bits-per-pixel and byte targets: the
 *    file must be at most the requested size and within 1% of it.
 *
 * OpenJPEG's limits kept out of the comparison: opj_decompress cannot decode
 * a component with a tile-component of no samples (it is not asked for it:
 * gj2k's decode is then checked against the source only); it renders some
 * subsampled three-component images as sYCC (components go one at a time,
 * -c); opj_compress reads subsampled raw input wrongly, wants tiles of at
 * least 2^(resolutions-1) samples, and writes -POC files that no decoder
 * restores (those cases are not reversed; encode_cases.c says which).
 *
 * One line per case (PASS/FAIL, name, bytes, details), then a summary.
 * Exit 1 on any failure; 77 (skip) when opj_decompress or opj_compress is
 * missing, except that this fails when the environment variable CI is set. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crosscheck_support.h"
#include "encode_cases.h"
#include "encode_stream_checks.h"
#include "gj2k.h"
#include "image_compare.h"
#include "image_formats.h"

typedef struct settings {
    char opj_decompress[4096], opj_compress[4096];
    char dir[4096]; /* the temporary directory */
    const char *only, *filter;
    bool quick, verbose;
} settings;

typedef struct tally {
    unsigned passed, failed;
} tally;

static void report_case(const encode_case *c, const char *direction, size_t bytes,
                        const verdict *v, tally *t)
{
    const char *separator = v->details[0] && v->failed ? "; " : "";
    printf("%s %s%s: %zu bytes; %s%s%s\n", v->failed ? "FAIL" : "PASS", c->name, direction,
           bytes, v->details, separator, v->failed ? v->why : "");
    fflush(stdout);
    if (v->failed)
        t->failed++;
    else
        t->passed++;
}

/* ------------------------------------------------------- size targets */

/* The largest file a size target allows, in bytes; 0 when the target sets
 * none (PSNR, or a lossless last layer). A ratio r allows raw / r bytes
 * (gj2k.h: raw bytes / file bytes), so floor(raw / r) whole bytes, as the
 * encoder plans it (codec/encode/encode_plan.c). */
static double requested_bytes(const gj2k_image *image, gj2k_rate_target kind, double target)
{
    double area = (double)(image->x1 - image->x0) * (image->y1 - image->y0);
    switch (kind) {
    case GJ2K_TARGET_RATIO:
        return target > 1 ? floor(image_raw_bytes(image) / target) : 0;
    case GJ2K_TARGET_BPP:
        return target > 0 ? floor(target * area / 8) : 0;
    case GJ2K_TARGET_BYTES:
        return target;
    default:
        return 0;
    }
}

/* The report against the file and the targets: at most the requested
 * size per layer, and within 1% of it for the rate part. */
static void check_sizes(const encode_case *c, const gj2k_image *image, size_t size,
                        const gj2k_encode_report *report, verdict *v)
{
    unsigned layers = c->options.num_layers ? c->options.num_layers : 1;
    if (report->bytes != size)
        verdict_fail(v, "the report says %zu bytes, the output has %zu", report->bytes, size);
    if (report->num_layers != layers)
        verdict_fail(v, "the report says %u layers, %u were asked", report->num_layers, layers);
    if (c->options.target == GJ2K_TARGET_NONE || c->options.target == GJ2K_TARGET_PSNR)
        return;
    for (unsigned l = 0; l < layers && l < GJ2K_MAX_LAYERS; l++) {
        double limit = requested_bytes(image, c->options.target, c->targets[l]);
        size_t got = l + 1 == layers ? size : report->layer_bytes[l];
        if (limit <= 0)
            continue;
        if (got > limit)
            verdict_fail(v, "layer %u: %zu bytes, more than the %.0f requested", l + 1, got, limit);
        else if (c->part == PART_RATE && l + 1 == layers && got < 0.99 * limit)
            verdict_fail(v, "%zu bytes, less than 99%% of the %.0f requested", got, limit);
        if (l + 1 == layers)
            verdict_detail(v, "target %.0f bytes (%.2f%% used)", limit,
                           100.0 * (double)got / limit);
    }
}

/* ----------------------------------------------------------- decoding */

static bool is_subsampled(const gj2k_image *image)
{
    for (uint32_t c = 0; c < image->num_components; c++)
        if (image->components[c].dx != 1 || image->components[c].dy != 1)
            return true;
    return false;
}

/* How far the two decoders may differ: not at all with the 5/3 wavelet
 * (integer arithmetic); with the 9/7 both compute in single precision with
 * the same constants (the decoder's 1/K is OpenJPEG's, dwt.h), each in its
 * own order: +-1 at every depth. (With the exact 1/K, 16-bit samples were
 * up to 3 apart.) */
static int64_t decoder_tolerance(const encode_case *c)
{
    return c->options.irreversible ? 1 : 0;
}

/* Decodes `path` (the bytes `data`) with both decoders, `layers` layers (0:
 * all), and compares them; gives gj2k's image in *decoded (NULL on failure).
 * opj_decompress decodes one component at a time where any is subsampled (it
 * would take three for sYCC), and skips those with empty tile-components. */
static void decode_both(const settings *s, const char *path, const uint8_t *data, size_t size,
                        unsigned layers, int64_t tolerance, const gj2k_image *source,
                        gj2k_image **decoded, verdict *v)
{
    gj2k_decode_options options = {.max_layers = layers, .threads = 1};
    gj2k_error error = {0};
    *decoded = NULL;
    if (gj2k_decode_memory(data, size, &options, decoded, &error) != GJ2K_OK) {
        verdict_fail(v, "gj2k cannot decode it (-l %u): %s", layers, error.message);
        return;
    }
    uint32_t n = source->num_components;
    bool skip[CASE_MAX_COMPONENTS] = {false}, any_skipped = false;
    if (!find_empty_tile_components(data, size, skip, n)) {
        verdict_fail(v, "gj2k's parser refuses the file");
        return;
    }
    for (uint32_t c = 0; c < n; c++)
        any_skipped |= skip[c];
    char layer_text[16], why[600];
    text(layer_text, sizeof layer_text, "%u", layers);
    const char *args[] = {layers ? "-l" : NULL, layer_text, NULL};
    opj_decode_request request = {.opj = s->opj_decompress, .dir = s->dir, .input = path,
                                  .args = args, .num_components = n,
                                  .per_component = is_subsampled(source) || any_skipped,
                                  .skip = skip};
    gj2k_image **opj = calloc(n, sizeof *opj);
    uint32_t count = 0;
    int64_t max_diff = 0;
    if (opj == NULL)
        verdict_fail(v, "out of memory");
    else if (!opj_decompress_to_images(&request, opj, &count, why, sizeof why))
        verdict_fail(v, "-l %u: %s", layers, why);
    else if (!decoders_compare(*decoded, opj, count, skip, NULL, NULL, tolerance, &max_diff,
                               why, sizeof why))
        verdict_fail(v, "-l %u: %s", layers, why);
    else if (layers == 0)
        verdict_detail(v, "decoders differ by %lld at most%s", (long long)max_diff,
                       any_skipped ? " (opj_decompress not asked for components with empty "
                       "tile-components)" : "");
    images_destroy(opj, count);
}

/* The image against its source: exactly, or above a PSNR floor. */
static double check_quality(const gj2k_image *source, const gj2k_image *decoded, bool lossless,
                            double floor_db, verdict *v)
{
    image_difference difference;
    char why[300] = "";
    if (!image_compare(source, decoded, &difference, why, sizeof why)) {
        verdict_fail(v, "against the source: %s", why);
        return NAN;
    }
    if (lossless && !difference.identical) {
        for (uint32_t c = 0; c < source->num_components && !why[0]; c++) {
            int64_t max_diff = 0;
            component_compare(&source->components[c], &decoded->components[c], 0, 0, 0, c,
                              &max_diff, why, sizeof why);
        }
        verdict_fail(v, "lossless, but the decoded image differs from the source: %s", why);
    } else if (!lossless && difference.psnr < floor_db) {
        verdict_fail(v, "PSNR %.2f dB against the source, below %.0f dB", difference.psnr,
                     floor_db);
    }
    return difference.psnr;
}

/* A floor for the PSNR of lossy cases, which only catches broken coding:
 * pictures (noise does not compress) of 8 bits or more (fewer have too
 * coarse a scale), higher without a target. */
static double psnr_floor(const encode_case *c)
{
    if (c->image.precision < 8 || c->image.pattern != PATTERN_PICTURE)
        return -INFINITY;
    return c->options.target == GJ2K_TARGET_NONE ? 38.0 : 20.0;
}

/* How far under a PSNR target a layer may land: the encoder estimates the
 * error of truncated code-blocks in the wavelet domain. */
#define PSNR_TARGET_SLACK_DB 0.5

/* Decodes every quality layer with both decoders and checks each against
 * the source: exactly for the last layer of a lossless case; and when the
 * file is gj2k's (`ours`), a PSNR floor and PSNR rising with the layers. */
static void check_decoding(const settings *s, const encode_case *c, const gj2k_image *source,
                           const char *path, const uint8_t *data, size_t size, bool lossless,
                           bool ours, verdict *v)
{
    unsigned layers = c->options.num_layers ? c->options.num_layers : 1;
    double previous = -INFINITY;
    for (unsigned l = 1; l <= layers && !v->failed; l++) {
        gj2k_image *decoded = NULL;
        decode_both(s, path, data, size, l == layers ? 0 : l, decoder_tolerance(c), source,
                    &decoded, v);
        if (decoded == NULL)
            return;
        double psnr = check_quality(source, decoded, lossless && l == layers,
                                    l == layers && ours ? psnr_floor(c) : -INFINITY, v);
        double asked = c->options.target == GJ2K_TARGET_PSNR ? c->targets[l - 1] : 0;
        if (ours && asked > 0 && psnr < asked - PSNR_TARGET_SLACK_DB)
            verdict_fail(v, "layer %u: PSNR %.2f dB, below its %.2f dB target", l, psnr, asked);
        if (ours && psnr < previous - 0.01)
            verdict_fail(v, "layer %u: PSNR %.2f dB, below layer %u's %.2f dB", l, psnr, l - 1,
                         previous);
        if (layers == 1 && isinf(psnr))
            verdict_detail(v, "exact");
        else if (isinf(psnr))
            verdict_detail(v, "layer %u exact", l);
        else
            verdict_detail(v, "layer %u %.2f dB", l, psnr);
        previous = psnr;
        gj2k_image_destroy(decoded);
    }
}

/* ---------------------------------------------------------- the parts */

static void case_path(const settings *s, const encode_case *c, const char *stem, char *out,
                      size_t size)
{
    text(out, size, "%s/%s.%s", s->dir, stem,
         c->options.format == GJ2K_FORMAT_JP2 ? "jp2" : "j2k");
}

/* The encoder's remarks during one case. */
typedef struct warnings {
    unsigned count;
    char first[300];
} warnings;

static void collect_warning(void *user, const char *message)
{
    warnings *w = user;
    if (w->count++ == 0)
        text(w->first, sizeof w->first, "%s", message);
}

/* matrix and rate: gj2k writes, both decode. */
static void run_forward(const settings *s, const encode_case *c, const gj2k_image *source,
                        tally *t)
{
    verdict v = {0};
    gj2k_encode_options options = encode_case_options(c);
    warnings remarks = {0};
    options.warning = collect_warning;
    options.warning_user = &remarks;
    gj2k_encode_report report = {0};
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    char path[4200];
    case_path(s, c, "gj2k", path, sizeof path);
    bool lossless = encode_case_is_lossless(c);
    if (gj2k_encode_memory(source, &options, &data, &size, &report, &error) != GJ2K_OK)
        verdict_fail(&v, "gj2k cannot encode it: %s (%s)", error.message,
                     gj2k_status_name(error.status));
    else if (file_write_whole(path, data, size, NULL, &error) != GJ2K_OK)
        verdict_fail(&v, "%s", error.message);
    if (!v.failed) {
        encode_headers_check(c, source, data, size, &report, &v);
        check_sizes(c, source, size, &report, &v);
    }
    if (remarks.count)
        verdict_detail(&v, "%u encoder warning(s), the first: %s", remarks.count, remarks.first);
    if (!v.failed)
        check_decoding(s, c, source, path, data, size, lossless, true, &v);
    report_case(c, "", size, &v, t);
    unlink(path);
    free(data);
}

/* A command line under construction; its formatted words live in `storage`. */
typedef struct command_line {
    char *argv[64];
    size_t count;
    char storage[24][160];
    size_t stored;
} command_line;

static void add_word(command_line *line, const char *word)
{
    if (line->count + 1 < sizeof line->argv / sizeof line->argv[0])
        line->argv[line->count++] = (char *)word;
    line->argv[line->count] = NULL;
}

__attribute__((format(printf, 2, 3))) static void add_formatted(command_line *line,
                                                                const char *format, ...)
{
    if (line->stored == sizeof line->storage / sizeof line->storage[0])
        return;
    char *word = line->storage[line->stored++];
    va_list args;
    va_start(args, format);
    vsnprintf(word, sizeof line->storage[0], format, args);
    va_end(args);
    add_word(line, word);
}

/* An option and its value (a copy of it). */
static void add_option(command_line *line, const char *option, const char *value)
{
    add_word(line, option);
    add_formatted(line, "%s", value);
}

/* An option and its value, which outlives the command. */
static void add_option_borrowed(command_line *line, const char *option, const char *value)
{
    add_word(line, option);
    add_word(line, value);
}

/* The opj_compress command equivalent to the case's gj2k options. */
static void opj_compress_command(const settings *s, const encode_case *c, const char *input,
                                 const char *output, command_line *line)
{
    const gj2k_encode_options *o = &c->options;
    const image_spec *im = &c->image;
    char list[160];
    add_word(line, s->opj_compress);
    add_option_borrowed(line, "-i", input);
    add_option_borrowed(line, "-o", output);
    add_word(line, "-F"); /* raw samples: width, height, components, bits, sign */
    add_formatted(line, "%u,%u,%u,%u,%c", (unsigned)im->width, (unsigned)im->height,
                  (unsigned)im->num_components, (unsigned)im->precision,
                  im->is_signed ? 's' : 'u');
    if (im->x0 || im->y0) {
        add_word(line, "-d");
        add_formatted(line, "%u,%u", (unsigned)im->x0, (unsigned)im->y0);
    }
    if (o->irreversible)
        add_word(line, "-I");
    if (o->num_resolutions) {
        add_word(line, "-n");
        add_formatted(line, "%u", o->num_resolutions);
    }
    if (o->code_block_width) {
        add_word(line, "-b");
        add_formatted(line, "%u,%u", (unsigned)o->code_block_width,
                      (unsigned)o->code_block_height);
    }
    if (o->num_precinct_sizes) {
        list[0] = '\0';
        for (unsigned i = 0; i < o->num_precinct_sizes; i++)
            text(list + strlen(list), sizeof list - strlen(list), "%s[%u,%u]", i ? "," : "",
                 (unsigned)o->precinct_width[i], (unsigned)o->precinct_height[i]);
        add_option(line, "-c", list);
    }
    if (o->tile_width) {
        add_word(line, "-t");
        add_formatted(line, "%u,%u", (unsigned)o->tile_width, (unsigned)o->tile_height);
        add_word(line, "-T");
        add_formatted(line, "%u,%u", (unsigned)o->tile_x0, (unsigned)o->tile_y0);
    }
    add_option_borrowed(line, "-p", progression_name(o->progression));
    if (o->code_block_style) {
        add_word(line, "-M");
        add_formatted(line, "%u", o->code_block_style);
    }
    if (o->mct != GJ2K_MCT_AUTO)
        add_option_borrowed(line, "-mct", o->mct == GJ2K_MCT_ON ? "1" : "0");
    if (o->guard_bits) {
        add_word(line, "-GuardBits");
        add_formatted(line, "%u", o->guard_bits);
    }
    if (o->target == GJ2K_TARGET_RATIO || o->target == GJ2K_TARGET_PSNR) {
        list[0] = '\0';
        for (unsigned i = 0; i < o->num_layers; i++)
            text(list + strlen(list), sizeof list - strlen(list), "%s%g", i ? "," : "",
                 c->targets[i]);
        add_option(line, o->target == GJ2K_TARGET_RATIO ? "-r" : "-q", list);
    }
    if (o->num_progression_changes) { /* opj numbers the tiles of -POC from 1 */
        list[0] = '\0';
        for (size_t i = 0; i < o->num_progression_changes; i++) {
            const gj2k_progression_change *p = &c->changes[i];
            text(list + strlen(list), sizeof list - strlen(list), "%sT%d=%u,%u,%u,%u,%u,%s",
                 i ? "/" : "", p->tile < 0 ? 1 : p->tile + 1, (unsigned)p->resolution_start,
                 (unsigned)p->component_start, (unsigned)p->layer_end,
                 (unsigned)p->resolution_end, (unsigned)p->component_end,
                 progression_name(p->progression));
        }
        add_option(line, "-POC", list);
    }
    static const char *const splits[] = {"", "R", "L", "C"}; /* gj2k_tile_parts order */
    if (o->tile_parts != GJ2K_TILE_PARTS_ONE && (unsigned)o->tile_parts < 4)
        add_option_borrowed(line, "-TP", splits[o->tile_parts]);
    const bool flags[] = {o->use_sop, o->use_eph, o->use_plt, o->use_tlm};
    const char *const flag_names[] = {"-SOP", "-EPH", "-PLT", "-TLM"};
    for (size_t i = 0; i < 4; i++)
        if (flags[i])
            add_word(line, flag_names[i]);
}

/* reverse: opj_compress writes the same image with the same options, both decode. */
static void run_reverse(const settings *s, const encode_case *c, const gj2k_image *source,
                        tally *t)
{
    verdict v = {0};
    char raw[4200], output[4200], log[4200];
    command_line line = {0};
    text(raw, sizeof raw, "%s/source.raw", s->dir);
    text(log, sizeof log, "%s/opj_compress.log", s->dir);
    case_path(s, c, "opj", output, sizeof output);
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    opj_compress_command(s, c, raw, output, &line);
    if (s->verbose) {
        printf("   ");
        for (size_t i = 0; i < line.count; i++)
            printf(" %s", line.argv[i]);
        printf("\n");
    }
    if (gj2k_image_write_file(source, raw, NULL, &error) != GJ2K_OK) {
        verdict_fail(&v, "cannot write the source: %s", error.message);
    } else {
        int rc = tool_run(line.argv, log);
        char tail[400];
        tool_log_tail(log, tail, sizeof tail);
        if (rc != 0)
            verdict_fail(&v, "opj_compress failed (exit %d): %s", rc, tail);
        else if (file_read_all(output, &data, &size, &error) != GJ2K_OK)
            verdict_fail(&v, "opj_compress wrote nothing readable: %s", error.message);
    }
    if (!v.failed)
        check_decoding(s, c, source, output, data, size, encode_case_is_lossless(c), false, &v);
    report_case(c, " (opj_compress)", size, &v, t);
    unlink(raw);
    unlink(output);
    unlink(log);
    free(data);
}

/* ---------------------------------------------------------------- main */

static bool wanted(const settings *s, const encode_case *c, const char *part)
{
    if (s->only && strcmp(s->only, part) != 0)
        return false;
    if (s->quick && !c->quick)
        return false;
    if (strcmp(part, "reverse") == 0 && !c->reverse)
        return false;
    if (strcmp(part, "rate") == 0 ? c->part != PART_RATE
                                  : strcmp(part, "matrix") == 0 && c->part != PART_MATRIX)
        return false;
    return s->filter == NULL || strstr(c->name, s->filter) != NULL;
}

static int usage(void)
{
    fprintf(stderr, "usage: encode_crosscheck [--quick] [--only matrix|reverse|rate] "
                    "[-k SUBSTRING] [-v]\n");
    return 2;
}

int main(int argc, char **argv)
{
    settings s = {0};
    crosscheck_arguments arguments;
    if (!crosscheck_arguments_parse(argc, argv, &arguments) || arguments.operand ||
        arguments.opj || arguments.equal_size || arguments.gj2k)
        return usage();
    s.only = arguments.only;
    s.filter = arguments.filter;
    s.quick = arguments.quick;
    s.verbose = arguments.verbose;
    if (s.only && strcmp(s.only, "matrix") != 0 && strcmp(s.only, "reverse") != 0 &&
        strcmp(s.only, "rate") != 0)
        return usage();
    int missing = tool_require("opj_decompress", s.opj_decompress, sizeof s.opj_decompress);
    if (!missing && (s.only == NULL || strcmp(s.only, "reverse") == 0))
        missing = tool_require("opj_compress", s.opj_compress, sizeof s.opj_compress);
    if (missing)
        return missing;
    if (!temp_dir_create("gj2k-encode", s.dir, sizeof s.dir)) {
        printf("FAIL: cannot create a temporary directory %s\n", s.dir);
        return 1;
    }
    size_t count = 0;
    encode_case *cases = encode_cases_build(&count);
    if (cases == NULL) {
        printf("FAIL: out of memory\n");
        temp_dir_remove(s.dir);
        return 1;
    }
    printf("encoder cross-check: %zu cases in all%s\n", count, s.quick ? " (quick subset)" : "");
    tally t = {0};
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    static const char *const parts[] = {"matrix", "reverse", "rate"};
    for (size_t p = 0; p < 3; p++) {
        for (size_t i = 0; i < count; i++) {
            if (!wanted(&s, &cases[i], parts[p]))
                continue;
            gj2k_image *source = NULL;
            gj2k_error error = {0};
            if (synthetic_image_create(&cases[i].image, &source, &error) != GJ2K_OK) {
                printf("FAIL %s: cannot draw its image: %s\n", cases[i].name, error.message);
                t.failed++;
                continue;
            }
            if (p == 1)
                run_reverse(&s, &cases[i], source, &t);
            else
                run_forward(&s, &cases[i], source, &t);
            gj2k_image_destroy(source);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    free(cases);
    temp_dir_remove(s.dir);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("encoder cross-check%s%s: %u passed, %u failed (%.1f s)\n", s.only ? " " : "",
           s.only ? s.only : "", t.passed, t.failed, seconds);
    return t.failed ? 1 : 0;
}
