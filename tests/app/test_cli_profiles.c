/* test_cli_profiles.c - opj_compress's -IMF PROFILE[,mainlevel=X]
 * [,sublevel=Y][,framerate=FPS] as a user runs it: each of the six IMF
 * profiles encodes to a codestream `gj2k info` names and finds conforming,
 * which OpenJPEG decodes to gj2k's samples (the _R ones exactly, to the
 * source's; 9/7 within 1, the rounding two decoders may differ by);
 * levels asked for reach Rsiz; impossible requests are refused, writing
 * nothing; opj_compress's IMF codestreams are found conforming too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_support.h"
#include "gj2k.h"
#include "test_harness.h"

static void imf_profiles_round_trip(void)
{
    static const char *const profiles[] = {"2K", "4K", "8K", "2K_R", "4K_R", "8K_R"};
    char source[1024], coded[1024], ours[1024], theirs[1024], args[4096], expected[128];
    snprintf(source, sizeof source, "%s/source.ppm", test_temp_dir());
    snprintf(ours, sizeof ours, "%s/ours.ppm", test_temp_dir());
    snprintf(theirs, sizeof theirs, "%s/theirs.ppm", test_temp_dir());
    gj2k_image *image = write_test_image(source, 150, 90, 3, 10);
    REQUIRE(image != NULL);
    bool peer = program_available("opj_decompress");
    run_result r;
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        bool reversible = strchr(profiles[i], 'R') != NULL;
        snprintf(coded, sizeof coded, "%s/out%zu.%s", test_temp_dir(), i, i == 4 ? "jp2" : "j2k");
        snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF %s,framerate=24", source, coded,
                 profiles[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        CHECK(r.err[0] == '\0' || (fprintf(stderr, "%s", r.err), 0));
        snprintf(args, sizeof args, "info '%s'", coded);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        /* 150x90x3 at 24 fps: under 1 Msample/s and a few Mbit/s, levels 1 */
        snprintf(expected, sizeof expected, "profile: IMF %s, main level 1, sub level 1: conforms",
                 profiles[i]);
        CHECK(strstr(r.out, expected) != NULL || (fprintf(stderr, "%s", r.out), 0));
        snprintf(expected, sizeof expected, "(Rsiz 0x0%X11)", 4 + (unsigned)i);
        CHECK(strstr(r.out, expected) != NULL);
        CHECK(strstr(r.out, "CPRL, 1 layers") != NULL);
        CHECK(strstr(r.out, "code-blocks 32x32, style 0x00, precincts 128x128 256x256") != NULL);
        snprintf(args, sizeof args, "decode -i '%s' -o '%s'", coded, ours);
        run_gj2k(&r, args);
        REQUIRE(r.exit_code == 0);
        gj2k_image *decoded = read_image(ours);
        CHECK(!reversible || test_same_samples(image, decoded));
        if (peer) {
            snprintf(args, sizeof args, "opj_decompress -i '%s' -o '%s' >/dev/null 2>&1", coded,
                     theirs);
            gj2k_image *peer_decoded = system(args) == 0 ? read_image(theirs) : NULL;
            /* two 9/7 decoders may round a sample 1 apart; 5/3: none */
            CHECK(test_samples_within(decoded, peer_decoded, reversible ? 0 : 1) ||
                  (fprintf(stderr, "OpenJPEG decodes IMF %s otherwise\n", profiles[i]), 0));
            gj2k_image_destroy(peer_decoded);
        }
        gj2k_image_destroy(decoded);
    }
    gj2k_image_destroy(image);
}

/* Levels asked for reach Rsiz, in the text and the JSON of `gj2k info`. */
static void imf_levels_reach_rsiz(void)
{
    char source[1024], coded[1024], decoded[1024], args[4096];
    snprintf(source, sizeof source, "%s/source.ppm", test_temp_dir());
    snprintf(coded, sizeof coded, "%s/out.j2k", test_temp_dir());
    snprintf(decoded, sizeof decoded, "%s/decoded.ppm", test_temp_dir());
    gj2k_image *image = write_test_image(source, 64, 48, 3, 12);
    REQUIRE(image != NULL);
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF 4K_R,mainlevel=5,sublevel=3,"
             "framerate=50", source, coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(decodes_to(coded, decoded, image));
    snprintf(args, sizeof args, "info '%s'", coded);
    run_gj2k(&r, args);
    CHECK(strstr(r.out, "IMF 4K_R (reversible), main level 5, sub level 3 (Rsiz 0x0835)") !=
          NULL);
    CHECK(strstr(r.out, "main level 5 (520 Msamples/s): up to") != NULL);
    CHECK(strstr(r.out, "sub level 3 (800 Mbit/s): up to") != NULL);
    snprintf(args, sizeof args, "info --json '%s'", coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "\"profile\": {\"name\": \"IMF 4K_R\", \"main_level\": 5, "
                        "\"sub_level\": 3, \"conforms\": true") != NULL);
    /* without a frame rate, as asked, with a warning */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF 8K,sublevel=2", source, coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.err, "without a frame rate") != NULL);
    snprintf(args, sizeof args, "info '%s'", coded);
    run_gj2k(&r, args);
    CHECK(strstr(r.out, "(Rsiz 0x0620)") != NULL);
    gj2k_image_destroy(image);
}

static void imf_refusals(void)
{
    char source[1024], wide[1024], coded[1024], args[4096];
    snprintf(source, sizeof source, "%s/source.ppm", test_temp_dir());
    snprintf(wide, sizeof wide, "%s/wide.pgm", test_temp_dir());
    snprintf(coded, sizeof coded, "%s/out.j2k", test_temp_dir());
    gj2k_image *image = write_test_image(source, 256, 128, 3, 8);
    gj2k_image *too_wide = write_test_image(wide, 2100, 8, 1, 8);
    REQUIRE(image != NULL && too_wide != NULL);
    run_result r;
    /* 256x128x3 at 1000 fps is 98.3 Msamples/s: main level 1 allows 65 */
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF 2K,mainlevel=1,framerate=1000",
             source, coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK(strstr(r.err, "main level 1 allows 65 Msamples/s") != NULL);
    CHECK(!file_exists(coded));
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF 2K_R", wide, coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 1);
    CHECK(strstr(r.err, "at most 2048x1556") != NULL);
    CHECK(!file_exists(coded));
    snprintf(args, sizeof args, "encode -i '%s' -o '%s' -IMF 4K_R", wide, coded);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0); /* 4K takes it */
    remove(coded);
    const char *malformed[] = {"-IMF 3K", "-IMF 2K,sublevel=10", "-IMF 2K,mainlevel=12",
                               "-IMF 2K,mainlevel=", "-IMF 2K,speed=3", "-IMF 2K,framerate=0",
                               "-IMF 2K -cinema2K 24", "-IMF 2k"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        snprintf(args, sizeof args, "encode -i '%s' -o '%s' %s", source, coded, malformed[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 2);
        CHECK_EQ(count_lines(r.err), 1);
        CHECK(strstr(r.err, "-IMF") != NULL || (fprintf(stderr, "%s", r.err), 0));
        CHECK(!file_exists(coded));
    }
    run_gj2k(&r, "encode --help");
    CHECK(strstr(r.out, "-IMF PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS]") != NULL);
    gj2k_image_destroy(image);
    gj2k_image_destroy(too_wide);
}

/* OpenJPEG's IMF codestreams, read by `gj2k info`: named and conforming. */
static void imf_peer_codestreams_conform(void)
{
    if (!program_available("opj_compress"))
        test_skip("opj_compress is not installed");
    char source[1024], coded[1024], args[4096];
    snprintf(source, sizeof source, "%s/source.ppm", test_temp_dir());
    snprintf(coded, sizeof coded, "%s/peer.j2k", test_temp_dir());
    gj2k_image *image = write_test_image(source, 200, 100, 3, 8);
    REQUIRE(image != NULL);
    const char *asked[] = {"2K,mainlevel=3,sublevel=1,framerate=24", "4K_R,mainlevel=2"};
    const char *named[] = {"profile: IMF 2K, main level 3, sub level 1: conforms",
                           "profile: IMF 4K_R, main level 2, sub level 0: conforms"};
    run_result r;
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "opj_compress -i '%s' -o '%s' -IMF %s >/dev/null 2>&1",
                 source, coded, asked[i]);
        REQUIRE(system(args) == 0);
        snprintf(args, sizeof args, "info '%s'", coded);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        CHECK(strstr(r.out, named[i]) != NULL || (fprintf(stderr, "%s", r.out), 0));
    }
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"imf_profiles_round_trip", imf_profiles_round_trip},
    {"imf_levels_reach_rsiz", imf_levels_reach_rsiz},
    {"imf_refusals", imf_refusals},
    {"imf_peer_codestreams_conform", imf_peer_codestreams_conform},
};

TEST_MAIN(cases)
