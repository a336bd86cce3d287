/* test_cli_transcode.c - `gj2k transcode` as a user runs it: a JP2 file to
 * JPH and back decodes to the source, the output's name chooses the coder,
 * and bad input, a bad output or bad options give one line naming what is
 * wrong, a non-zero status and no file behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_support.h"
#include "test_harness.h"

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", test_temp_dir(), name);
}

static void transcode_round_trip(void)
{
    char source[1024], jp2[1024], jph[1024], back[1024], ht_in_jp2[1024], decoded[1024];
    char args[8192];
    path_of(source, sizeof source, "source.ppm");
    path_of(decoded, sizeof decoded, "decoded.ppm");
    path_of(jp2, sizeof jp2, "a.jp2");
    path_of(jph, sizeof jph, "b.jph");
    path_of(back, sizeof back, "c.jp2");
    path_of(ht_in_jp2, sizeof ht_in_jp2, "d.jp2");
    gj2k_image *image = write_test_image(source, 203, 151, 3, 8);
    REQUIRE(image != NULL);
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -t 128,128 -c '[64,64]' -p RPCL", source,
             jp2);
    run_gj2k(&r, args);
    REQUIRE(r.exit_code == 0);
    /* .jph: HT */
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s'", jp2, jph);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK_EQ(count_lines(r.err), 0);
    CHECK_EQ(count_lines(r.out), 0);
    CHECK(decodes_to(jph, decoded, image));
    snprintf(args, sizeof args, "info '%s'", jph);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "HTONLY") != NULL);
    /* .jp2: Part 1 again, -v says what it did */
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s' -v -threads 3", jph, back);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "Part 1") != NULL);
    CHECK(strstr(r.out, "exact") != NULL);
    CHECK(strstr(r.out, "1 quality layer") != NULL);
    CHECK(decodes_to(back, decoded, image));
    snprintf(args, sizeof args, "info '%s'", back);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "HTONLY") == NULL);
    /* --ht into a .jp2 name: a JPH file all the same */
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s' --ht", jp2, ht_in_jp2);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(ht_in_jp2, decoded, image));
    snprintf(args, sizeof args, "info '%s'", ht_in_jp2);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "HTONLY") != NULL);
    /* the help says one layer */
    run_gj2k(&r, "transcode --help");
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "ONE quality layer") != NULL);
    gj2k_image_destroy(image);
}

static void transcode_rejects_bad_input_without_output(void)
{
    char source[1024], good[1024], bad[1024], cut[1024], out[1024], args[8192];
    path_of(source, sizeof source, "source.pgm");
    path_of(good, sizeof good, "good.j2k");
    path_of(bad, sizeof bad, "corrupt.j2k");
    path_of(cut, sizeof cut, "cut.j2k");
    path_of(out, sizeof out, "out.jph");
    gj2k_image *image = write_test_image(source, 64, 64, 1, 8);
    REQUIRE(image != NULL);
    gj2k_image_destroy(image);
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s'", source, good);
    run_gj2k(&r, args);
    REQUIRE(r.exit_code == 0);
    size_t size = 0;
    uint8_t *data = test_read_file(good, &size);
    REQUIRE(data != NULL && size > 100);
    /* a SIZ that breaks its rules */
    uint8_t corrupt[64];
    memcpy(corrupt, data, sizeof corrupt);
    memset(corrupt + 6, 0xEE, 30);
    CHECK(test_write_file(bad, corrupt, sizeof corrupt));
    CHECK(test_write_file(cut, data, size / 2)); /* cut inside its tile */
    free(data);
    int entries = temp_entries();
    const char *inputs[] = {bad, cut};
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "transcode -i '%s' -o '%s'", inputs[i], out);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 1);
        CHECK_EQ(count_lines(r.err), 1);
        CHECK(strstr(r.err, inputs[i]) != NULL);
        fprintf(stderr, "%s", r.err);
        CHECK(!file_exists(out));
        CHECK_EQ(temp_entries(), entries);
    }
    /* a missing input */
    char missing[1024];
    path_of(missing, sizeof missing, "missing.jp2");
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s'", missing, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, missing) != NULL);
    CHECK(!file_exists(out));
    /* an output that cannot be written */
    char unwritable[1024];
    path_of(unwritable, sizeof unwritable, "no/such/dir/out.jph");
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s'", good, unwritable);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, unwritable) != NULL);
    fprintf(stderr, "%s", r.err);
    CHECK_EQ(temp_entries(), entries);
    /* usage: no output, an image name, both coders */
    snprintf(args, sizeof args, "transcode -i '%s'", good);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(count_lines(r.err), 1);
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s/out.png'", good, test_temp_dir());
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "out.png") != NULL);
    snprintf(args, sizeof args, "transcode -i '%s' -o '%s' --ht --part1", good, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK_EQ(temp_entries(), entries);
}

static const test_case cases[] = {
    {"transcode_round_trip", transcode_round_trip},
    {"transcode_rejects_bad_input_without_output", transcode_rejects_bad_input_without_output},
};
TEST_MAIN(cases)
