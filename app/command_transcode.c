/* command_transcode.c - `gj2k transcode -i IN -o OUT`: every code-block of
 * a JPEG 2000 file re-coded with the other block coder (Part 1 <-> HTJ2K)
 * and nothing else changed (gj2k_transcode_file). The output is written
 * whole or not at all; its name chooses the coder unless --ht or --part1 does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "commands.h"
#include "gj2k.h"
#include "interrupt.h"
#include "options.h"
#include "parallel_pool.h" /* parallel_thread_count */

static const option_spec transcode_options[] = {
    {"-i", "FILE", "input: a JPEG 2000 codestream (.j2k .j2c .jpc .jhc) or JP2 file (.jp2 .jph)"},
    {"-o", "FILE",
     "output: .jph or .jhc for HTJ2K code-blocks, .jp2 .j2k .j2c .jpc for Part 1 ones"},
    {"--ht", NULL,
     "HTJ2K code-blocks whatever the output's name (a .jp2 name then holds a JPH file)"},
    {"--part1", NULL, "Part 1 code-blocks whatever the output's name"},
    {"-threads", "N", "threads for Tier-1 (default: every core)"},
    {"-v", NULL, "describe what was transcoded"},
    {"--help", NULL, "this text"},
};
#define TRANSCODE_OPTION_COUNT (sizeof transcode_options / sizeof transcode_options[0])

static void print_report(const char *input, const char *output,
                         const gj2k_transcode_report *report, double seconds, unsigned threads)
{
    bool ht = report->coder == GJ2K_CODER_HT;
    printf("%s: %zu bytes, %s, from %s\n", output, report->bytes,
           report->format == GJ2K_FORMAT_JP2 ? (ht ? "JPH file" : "JP2 file") : "codestream",
           input);
    if (report->format == GJ2K_FORMAT_JP2)
        printf("  codestream %zu bytes\n", report->codestream_bytes);
    printf("  %s code-blocks: %llu re-coded (%llu of them HT in the input), %u tile%s, "
           "1 quality layer (the input had %u)\n",
           ht ? "HTJ2K (T.814)" : "Part 1 (T.800 Annex D)",
           (unsigned long long)report->num_codeblocks, (unsigned long long)report->ht_codeblocks,
           report->num_tiles, report->num_tiles == 1 ? "" : "s", report->input_layers);
    if (report->truncated_blocks == 0)
        printf("  every code-block decoded to bit-plane 0: exact (lossless input)\n");
    else
        printf("  %llu code-block%s truncated in the input (lossy); %llu lost a partial "
               "bit-plane, the rest re-coded exactly\n",
               (unsigned long long)report->truncated_blocks,
               report->truncated_blocks == 1 ? "" : "s",
               (unsigned long long)report->partial_plane_blocks);
    if (report->damaged_blocks > 0)
        printf("  %llu damaged code-block%s re-coded as far as %s\n",
               (unsigned long long)report->damaged_blocks,
               report->damaged_blocks == 1 ? "" : "s",
               report->damaged_blocks == 1 ? "it decodes" : "they decode");
    printf("  transcode time %.2f ms, %u thread%s: read %.2f, Tier-2 in %.2f, Tier-1 both ways "
           "%.2f, Tier-2 out and write %.2f ms\n",
           seconds * 1e3, threads, threads == 1 ? "" : "s", report->read_ms, report->tier2_in_ms,
           report->tier1_ms, report->write_ms);
}

int command_transcode(int argc, char **argv)
{
    parsed_options parsed;
    option_spec *specs;
    int refused = batch_options_parse("transcode", argc, argv, transcode_options,
                                      TRANSCODE_OPTION_COUNT, &parsed, &specs);
    if (refused != 0)
        return refused;
    if (!options_has(&parsed, "--help") &&
        (batch_requested(&parsed) || batch_options_refused(&parsed, "transcode"))) {
        int status = batch_requested(&parsed) ? transcode_batch(&parsed) : EXIT_USAGE;
        options_free(&parsed);
        free(specs);
        return status;
    }
    if (options_has(&parsed, "--help")) {
        options_print_help(
            "gj2k transcode -i INPUT -o OUTPUT [--ht | --part1] [-threads N] [-v]\n"
            "       gj2k transcode -i A -i B ... | -ImgDir DIR | --files-from LIST  -o OUTDIR "
            "[-OutFor jph] [options]",
            "Re-codes every code-block of a JPEG 2000 file with the other block coder, with\n"
            "no wavelet transform between: each block's quantized coefficients, as the\n"
            "decoder recovers them, are coded again, Part 1 (EBCOT) <-> HTJ2K (ITU-T T.814).\n"
            "An output named .jph or .jhc (or --ht) gets HT code-blocks, .jp2 .j2k .j2c .jpc\n"
            "Part 1 ones. Tiles, precincts, progression, quantization, comments and a JP2\n"
            "file's boxes (colour, ICC, resolution, XML ...) are carried across. The output\n"
            "has ONE quality layer (an input with several is re-coded from all of them) and\n"
            "one tile-part a tile. Lossless files come out exact: the same coefficients, so\n"
            "the same image. A lossy Part 1 block cut within a bit-plane loses that partial\n"
            "plane in HT (counted with -v); every other block is re-coded exactly.\n"
            "With several inputs, a directory or a list, every file is transcoded into the\n"
            "output directory (.jph unless -OutFor says), several at once.",
            specs, parsed.spec_count);
        static const char *const examples[] = {
            "gj2k transcode -i photo.jp2 -o photo.jph        # Part 1 to HTJ2K",
            "gj2k transcode -i photo.jph -o photo.jp2 -v     # and back",
            "gj2k transcode -ImgDir archive -o ht --verify",
            NULL};
        options_print_examples(examples);
        options_free(&parsed);
        free(specs);
        return 0;
    }
    const char *input = options_get(&parsed, "-i");
    const char *output = options_get(&parsed, "-o");
    const char *threads_text = options_get(&parsed, "-threads");
    bool ht = options_has(&parsed, "--ht"), part1 = options_has(&parsed, "--part1");
    bool verbose = options_has(&parsed, "-v");
    options_free(&parsed);
    free(specs);
    if (input == NULL || output == NULL) {
        report_error("transcode: needs -i INPUT and -o OUTPUT (see gj2k transcode --help)");
        return EXIT_USAGE;
    }
    if (ht && part1) {
        report_error("transcode: --ht and --part1 exclude each other");
        return EXIT_USAGE;
    }
    unsigned long threads = 0;
    if (threads_text != NULL && !options_parse_threads(threads_text, &threads)) {
        report_error("transcode: -threads %s: a number of threads, 1 to 1024, or ALL_CPUS", threads_text);
        return EXIT_USAGE;
    }
    gj2k_file_format format = gj2k_format_from_path(output);
    if (format != GJ2K_FORMAT_J2K && format != GJ2K_FORMAT_JP2) {
        report_error("transcode: %s: not a JPEG 2000 name (use .jph .jhc .jp2 .j2k .j2c .jpc)",
                     output);
        return EXIT_USAGE;
    }
    gj2k_transcode_report report = {0};
    held_warnings *held = calloc(1, sizeof *held);
    if (held == NULL) {
        report_error("transcode: out of memory");
        return 1;
    }
    held_warnings_init(held, input);
    gj2k_transcode_options options = {
        .coder = ht ? GJ2K_CODER_HT : part1 ? GJ2K_CODER_PART1 : GJ2K_CODER_AUTO,
        .format = format, .threads = (unsigned)threads, .warning = hold_warning,
        .warning_user = held, .temporary = interrupt_temporary, .report = &report};
    gj2k_error error = {0};
    double start = now_seconds();
    if (gj2k_transcode_file(input, output, &options, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        free(held);
        return 1;
    }
    print_held_warnings(held);
    free(held);
    if (verbose)
        print_report(input, output, &report, now_seconds() - start,
                     parallel_thread_count((unsigned)threads));
    return 0;
}
