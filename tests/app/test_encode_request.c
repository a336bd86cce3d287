/* test_encode_request.c - `gj2k encode`'s options read into an
 * encode_request (app/encode_request.c, built into the test): HTJ2K's --ht,
 * -M 64 and 72, the .jhc and .jph names that turn it on, and the
 * combinations refused before anything is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encode_request.h"
#include "gj2k.h"
#include "options.h"
#include "test_harness.h"

/* Reads `command_line` (words split at spaces) as `gj2k encode` would. */
static bool read_request(const char *command_line, encode_request *request)
{
    static char words[512];
    char *argv[32];
    int argc = 0;
    snprintf(words, sizeof words, "%s", command_line);
    for (char *word = strtok(words, " "); word != NULL && argc < 32; word = strtok(NULL, " "))
        argv[argc++] = word;
    parsed_options parsed;
    if (!options_parse("encode", argc, argv, encode_options, encode_option_count, 0, &parsed))
        return false;
    *request = (encode_request){0};
    bool ok = encode_request_read(&parsed, request);
    options_free(&parsed);
    return ok;
}

/* read_request with what it printed to stderr (one line on refusal) in `said`. */
static bool read_request_saying(const char *command_line, encode_request *request, char *said,
                                size_t said_size)
{
    said[0] = '\0';
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = dup(STDERR_FILENO);
    if (capture == NULL || saved < 0 || dup2(fileno(capture), STDERR_FILENO) < 0) {
        if (capture != NULL)
            fclose(capture);
        return read_request(command_line, request);
    }
    bool ok = read_request(command_line, request);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(capture);
    size_t n = fread(said, 1, said_size - 1, capture);
    said[n] = '\0';
    fclose(capture);
    return ok;
}

/* --ht and -M 64 / 72 ask for HT blocks; the output's name sets the format. */
static void ht_flag_and_style(void)
{
    const struct {
        const char *line;
        gj2k_file_format format;
        bool high_throughput;
        unsigned style;
    } cases[] = {
        {"-i in.ppm -o out.j2k --ht", GJ2K_FORMAT_J2K, true, 0},
        {"-i in.ppm -o out.jp2 --ht -M 8", GJ2K_FORMAT_JP2, true, 8},
        {"-i in.ppm -o out.j2k -M 64", GJ2K_FORMAT_J2K, false, 64},
        {"-i in.ppm -o out.j2c -M 72", GJ2K_FORMAT_J2K, false, 72},
        {"-i in.ppm -o out.j2k --ht -M 64 -r 20", GJ2K_FORMAT_J2K, true, 64},
        {"-i in.ppm -o out.j2k -M 63 -r 40,20", GJ2K_FORMAT_J2K, false, 63},
        {"-i in.ppm -o out.jp2", GJ2K_FORMAT_JP2, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        encode_request request;
        REQUIRE(read_request(cases[i].line, &request));
        CHECK_EQ(request.options.format, cases[i].format);
        CHECK_EQ(request.options.high_throughput, cases[i].high_throughput);
        CHECK_EQ(request.options.code_block_style, cases[i].style);
    }
}

/* .jph (a JPH file) and .jhc (an HT codestream) turn HT on (T.814 Annex D). */
static void ht_from_output_name(void)
{
    const struct {
        const char *line;
        gj2k_file_format format;
        bool high_throughput;
    } cases[] = {
        {"-i in.ppm -o out.jph", GJ2K_FORMAT_JP2, true},
        {"-i in.ppm -o dir/OUT.JPH -I -r 30", GJ2K_FORMAT_JP2, true},
        {"-i in.ppm -o out.jhc", GJ2K_FORMAT_J2K, true},
        {"-i in.ppm -o out.jhc -M 8", GJ2K_FORMAT_J2K, true},
        {"-i in.ppm -o out.jph.j2k", GJ2K_FORMAT_J2K, false},
        {"-i in.ppm -o out.jpc", GJ2K_FORMAT_J2K, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        encode_request request;
        REQUIRE(read_request(cases[i].line, &request));
        CHECK_EQ(request.options.format, cases[i].format);
        CHECK_EQ(request.options.high_throughput, cases[i].high_throughput);
    }
}

/* Part 1 bits but 8 beside HT, bit 128, and HT with several layers are usage
 * errors, whichever way HT was asked for. */
static void ht_refused_combinations(void)
{
    const struct {
        const char *line, *says;
    } refused[] = {
        {"-i in.ppm -o out.j2k -M 65", "-M 65: expected a code-block style of 0..63, or 64"},
        {"-i in.ppm -o out.j2k -M 80", "-M 80: expected"},
        {"-i in.ppm -o out.j2k -M 128", "-M 128: expected"},
        {"-i in.ppm -o out.j2k -M 192", "-M 192: expected"},
        {"-i in.ppm -o out.j2k -M 256", "-M 256: expected"},
        {"-i in.ppm -o out.j2k --ht -M 1", "-M 1 with HT code-blocks"},
        {"-i in.ppm -o out.jph -M 4", "-M 4 with HT code-blocks"},
        {"-i in.ppm -o out.jhc -M 32", "only 8 (vertically causal)"},
        {"-i in.ppm -o out.j2k --ht -r 20,10", "HT encoding takes one quality layer (-r"},
        {"-i in.ppm -o out.j2k -M 64 -q 30,40", "one quality layer (-q"},
        {"-i in.ppm -o out.jph --bpp 0.5,1", "one quality layer (--bpp"},
        {"-i in.ppm -o out.jhc --bytes 1000,0", "one quality layer (--bytes"},
        {"-i in.ppm -o out.jpx --ht", ".jhc, .jp2 or .jph file name"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        encode_request request;
        char said[1024];
        bool accepted = read_request_saying(refused[i].line, &request, said, sizeof said);
        if (accepted || strstr(said, refused[i].says) == NULL)
            fprintf(stderr, "%s: %s, said: %s\n", refused[i].line,
                    accepted ? "accepted" : "refused", said);
        CHECK(!accepted);
        CHECK(strstr(said, refused[i].says) != NULL);
        CHECK(strchr(said, '\n') == strrchr(said, '\n')); /* one line */
    }
}

static const test_case cases[] = {
    {"ht_flag_and_style", ht_flag_and_style},
    {"ht_from_output_name", ht_from_output_name},
    {"ht_refused_combinations", ht_refused_combinations},
};

TEST_MAIN(cases)
