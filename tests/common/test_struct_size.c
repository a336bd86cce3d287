/* test_struct_size.c - the public structs that carry their size (gj2k.h,
 * "Structs that carry their size"; common/struct_size.h): options of an
 * older, shorter layout get the defaults for the fields past their
 * struct_size, whatever bytes lie there; reports are written no further
 * than their struct_size; a struct_size of 1 or 1 MiB is refused, naming
 * the struct; 0 is the first release's layout (gj2k 0.1.0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "struct_size.h"
#include "test_harness.h"

#define GARBAGE 0xA5  /* fills the bytes past an older caller's struct */
#define SENTINEL 0xEE /* fills the bytes past a report's struct_size */

/* A copy of `whole` (`size` bytes) as a caller built against an older
 * layout would hand it over: struct_size `older`, garbage past it. */
static void *older(const void *whole, size_t size, size_t older_size)
{
    unsigned char *copy = xmalloc(size);
    memcpy(copy, whole, older_size);
    memset(copy + older_size, GARBAGE, size - older_size);
    memcpy(copy, &older_size, sizeof older_size);
    return copy;
}

/* A report's buffer of `buffer` bytes full of SENTINEL, its struct_size `size`. */
static void *sentinel_report(size_t buffer, size_t size)
{
    unsigned char *report = xmalloc(buffer);
    memset(report, SENTINEL, buffer);
    memcpy(report, &size, sizeof size);
    return report;
}

/* Whether bytes [from, to) of `p` all hold SENTINEL. */
static bool untouched(const void *p, size_t from, size_t to)
{
    const unsigned char *bytes = p;
    for (size_t i = from; i < to; i++)
        if (bytes[i] != SENTINEL)
            return false;
    return true;
}

static bool same_bytes(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size)
{
    return a_size == b_size && memcmp(a, b, a_size) == 0;
}

/* Encode options of a layout that ends before `mct` (garbage in every
 * later field: pointers, callbacks, targets) code exactly as the same
 * options zero-initialised; so do decode and transcode options cut before
 * their callbacks, and write options cut before `split_components`; describe
 * options cut before their callback describe as the whole struct does. */
static void test_older_options_take_defaults(void)
{
    gj2k_image *image = test_noise_image(67, 45, 3);
    REQUIRE(image != NULL);
    gj2k_encode_options current = {.num_resolutions = 3, .code_block_width = 32,
                                   .code_block_height = 16, .progression = GJ2K_RPCL};
    gj2k_encode_options *old = older(&current, sizeof current,
                                     offsetof(gj2k_encode_options, mct));
    uint8_t *want = NULL, *got = NULL;
    size_t want_size = 0, got_size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, &current, &want, &want_size, NULL, &error) == GJ2K_OK);
    REQUIRE(gj2k_encode_memory(image, old, &got, &got_size, NULL, &error) == GJ2K_OK);
    CHECK(same_bytes(want, want_size, got, got_size));
    free(got);
    char path[1024];
    snprintf(path, sizeof path, "%s/older.j2k", test_temp_dir());
    REQUIRE(gj2k_encode_file(image, path, old, NULL, &error) == GJ2K_OK);
    got = test_read_file(path, &got_size);
    CHECK(got != NULL && same_bytes(want, want_size, got, got_size));
    free(got);
    free(old);

    gj2k_decode_options decode = {.reduce = 1};
    gj2k_decode_options *old_decode = older(&decode, sizeof decode,
                                            offsetof(gj2k_decode_options, device));
    gj2k_image *a = NULL, *b = NULL;
    REQUIRE(gj2k_decode_memory(want, want_size, &decode, &a, &error) == GJ2K_OK);
    REQUIRE(gj2k_decode_memory(want, want_size, old_decode, &b, &error) == GJ2K_OK);
    CHECK(test_same_samples(a, b));
    CHECK_EQ(b->x1, 34);
    gj2k_image_destroy(a);
    gj2k_image_destroy(b);
    free(old_decode);

    gj2k_transcode_options transcode = {.coder = GJ2K_CODER_HT, .threads = 2};
    gj2k_transcode_options *old_transcode =
        older(&transcode, sizeof transcode, offsetof(gj2k_transcode_options, warning));
    uint8_t *ht = NULL, *ht_old = NULL;
    size_t ht_size = 0, ht_old_size = 0;
    REQUIRE(gj2k_transcode_memory(want, want_size, &transcode, &ht, &ht_size, &error) == GJ2K_OK);
    REQUIRE(gj2k_transcode_memory(want, want_size, old_transcode, &ht_old, &ht_old_size, &error) ==
            GJ2K_OK);
    CHECK(same_bytes(ht, ht_size, ht_old, ht_old_size));
    free(ht);
    free(ht_old);
    free(old_transcode);

    gj2k_write_options write = {0};
    gj2k_write_options *old_write =
        older(&write, sizeof write, offsetof(gj2k_write_options, split_components));
    uint8_t *pnm = NULL, *pnm_old = NULL;
    size_t pnm_size = 0, pnm_old_size = 0;
    REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, &write, &pnm, &pnm_size, &error) ==
            GJ2K_OK);
    REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, old_write, &pnm_old, &pnm_old_size,
                                    &error) == GJ2K_OK);
    CHECK(same_bytes(pnm, pnm_size, pnm_old, pnm_old_size));
    /* to a file, where split_components is read: one file, not one a component */
    char written[1024], split[1024];
    snprintf(written, sizeof written, "%s/older.ppm", test_temp_dir());
    snprintf(split, sizeof split, "%s/older_0.pgm", test_temp_dir());
    REQUIRE(gj2k_image_write_file(image, written, old_write, &error) == GJ2K_OK);
    FILE *one = fopen(written, "rb"), *first = fopen(split, "rb");
    CHECK(one != NULL && first == NULL);
    if (one != NULL)
        fclose(one);
    if (first != NULL)
        fclose(first);
    free(old_write);

    /* read options cut before their callback, raw geometry before dx */
    gj2k_raw_geometry geometry = {.width = 67, .height = 45, .num_components = 1, .precision = 8};
    gj2k_raw_geometry *old_geometry =
        older(&geometry, sizeof geometry, offsetof(gj2k_raw_geometry, dx));
    gj2k_read_options read = {.raw = old_geometry};
    gj2k_read_options *old_read = older(&read, sizeof read, offsetof(gj2k_read_options, warning));
    gj2k_image *raw = NULL;
    REQUIRE(gj2k_image_read_memory(pnm + pnm_size - 67 * 45 * 3, 67 * 45, GJ2K_FORMAT_RAW,
                                   old_read, &raw, &error) == GJ2K_OK);
    CHECK(raw->components[0].dx == 1 && raw->components[0].width == 67);
    gj2k_image_destroy(raw);
    free(old_read);
    free(old_geometry);
    free(pnm);
    free(pnm_old);

    /* describe options cut before their callback: the same JSON, of a file
     * that warns (no EOC), so that a callback read past the cut is called */
    char no_eoc[1024];
    snprintf(no_eoc, sizeof no_eoc, "%s/no_eoc.j2k", test_temp_dir());
    REQUIRE(test_write_file(no_eoc, want, want_size - 2));
    test_warnings heard = {0};
    gj2k_describe_options describe = {.style = GJ2K_DESCRIBE_JSON, .warning = record_warning,
                                      .warning_user = &heard};
    char *described = NULL, *described_old = NULL;
    REQUIRE(gj2k_describe_file(no_eoc, &describe, &described, NULL, &error) == GJ2K_OK);
    CHECK(heard.count > 0);
    gj2k_describe_options *old_describe =
        older(&describe, sizeof describe, offsetof(gj2k_describe_options, warning));
    REQUIRE(gj2k_describe_file(no_eoc, old_describe, &described_old, NULL, &error) == GJ2K_OK);
    CHECK(strcmp(described, described_old) == 0);
    free(described);
    free(described_old);
    free(old_describe);
    free(want);
    gj2k_image_destroy(image);
}

/* Each report, its struct_size short of the struct, inside a buffer of
 * SENTINEL: the library writes no byte past its struct_size, fills what
 * lies before, and leaves struct_size saying so; one longer than this
 * release's (a later caller's) is written to this release's size. */
static void test_reports_written_to_their_size(void)
{
    gj2k_image *image = test_noise_image(40, 30, 3);
    REQUIRE(image != NULL);
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;

    size_t short_encode = offsetof(gj2k_encode_report, num_tiles);
    gj2k_encode_report *encoded = sentinel_report(sizeof *encoded, short_encode);
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, encoded, &error) == GJ2K_OK);
    CHECK(untouched(encoded, short_encode, sizeof *encoded));
    CHECK_EQ(encoded->struct_size, short_encode);
    CHECK_EQ(encoded->bytes, size);
    CHECK_EQ(encoded->num_layers, 1);
    free(encoded);

    size_t later = sizeof(gj2k_encode_report) + 40; /* a later release's, longer */
    encoded = sentinel_report(later, later);
    uint8_t *again = NULL;
    size_t again_size = 0;
    REQUIRE(gj2k_encode_memory(image, NULL, &again, &again_size, encoded, &error) == GJ2K_OK);
    CHECK(untouched(encoded, sizeof(gj2k_encode_report), later));
    CHECK_EQ(encoded->struct_size, sizeof(gj2k_encode_report));
    CHECK_EQ(encoded->num_tiles, 1);
    free(encoded);
    free(again);

    size_t short_decode = offsetof(gj2k_decode_report, width);
    gj2k_decode_report *decoded = sentinel_report(sizeof *decoded, short_decode);
    gj2k_decode_options decode = {.report = decoded};
    gj2k_image *out = NULL;
    REQUIRE(gj2k_decode_memory(data, size, &decode, &out, &error) == GJ2K_OK);
    CHECK(untouched(decoded, short_decode, sizeof *decoded));
    CHECK_EQ(decoded->struct_size, short_decode);
    CHECK_EQ(decoded->num_tiles, 1);
    gj2k_image_destroy(out);
    /* a file that does not read still gets its report, as short */
    memset(decoded, SENTINEL, sizeof *decoded);
    decoded->struct_size = short_decode;
    CHECK(gj2k_decode_file("/nonexistent/x.j2k", &decode, &out, &error) == GJ2K_ERROR_IO);
    CHECK(untouched(decoded, short_decode, sizeof *decoded));
    CHECK_EQ(decoded->num_tiles, 0);
    free(decoded);

    size_t short_transcode = offsetof(gj2k_transcode_report, num_tiles);
    gj2k_transcode_report *transcoded = sentinel_report(sizeof *transcoded, short_transcode);
    gj2k_transcode_options transcode = {.report = transcoded};
    uint8_t *ht = NULL;
    size_t ht_size = 0;
    REQUIRE(gj2k_transcode_memory(data, size, &transcode, &ht, &ht_size, &error) == GJ2K_OK);
    CHECK(untouched(transcoded, short_transcode, sizeof *transcoded));
    CHECK_EQ(transcoded->struct_size, short_transcode);
    CHECK_EQ(transcoded->bytes, ht_size);
    CHECK(transcoded->coder == GJ2K_CODER_HT);
    free(transcoded);
    free(ht);

    size_t short_device = offsetof(gj2k_device_info, device_name);
    gj2k_device_info *device = sentinel_report(sizeof *device, short_device);
    gj2k_device_probe(device);
    CHECK(untouched(device, short_device, sizeof *device));
    CHECK_EQ(device->struct_size, short_device);
    CHECK(device->device_count >= 0);
    free(device);

    gj2k_header *header = NULL;
    REQUIRE(gj2k_header_read_memory(data, size, &header, &error) == GJ2K_OK);
    CHECK_EQ(header->struct_size, sizeof *header);
    gj2k_header_free(header);
    free(data);
    gj2k_image_destroy(image);
}

static bool writer_keeps(void *user, const uint8_t *data, size_t size)
{
    (void)user, (void)data, (void)size;
    return true;
}

static int64_t reader_ends(void *user, uint8_t *buffer, size_t size)
{
    (void)user, (void)buffer, (void)size;
    return 0;
}

/* A refusal with GJ2K_ERROR_INVALID_ARGUMENT naming `name`. */
static bool refused(gj2k_status status, gj2k_error *error, const char *name)
{
    bool named = status == GJ2K_ERROR_INVALID_ARGUMENT && strstr(error->message, name) != NULL &&
                 strstr(error->message, "struct_size") != NULL;
    *error = (gj2k_error){0}; /* no message left over for the next call's check */
    return named;
}

/* struct_size 1 (short of any first field) and 1 MiB (garbage) are
 * refused at every entry point, naming the struct, with nothing written. */
static void test_bad_sizes_refused(void)
{
    gj2k_image *image = test_noise_image(16, 16, 1);
    REQUIRE(image != NULL);
    gj2k_error error = {0};
    uint8_t *codestream = NULL;
    size_t codestream_size = 0;
    REQUIRE(gj2k_encode_memory(image, NULL, &codestream, &codestream_size, NULL, &error) ==
            GJ2K_OK);
    const char *dir = test_temp_dir();
    char path[1024];
    snprintf(path, sizeof path, "%s/out.j2k", dir);
    static const size_t bad[] = {1, (size_t)1 << 20};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_image *out = NULL;
        gj2k_encode_options encode = {.struct_size = bad[k]};
        CHECK(refused(gj2k_encode_memory(image, &encode, &data, &size, NULL, &error), &error,
                      "gj2k_encode_options"));
        CHECK(data == NULL);
        CHECK(refused(gj2k_encode_file(image, path, &encode, NULL, &error), &error,
                      "gj2k_encode_options"));
        CHECK(test_read_file(path, &size) == NULL);
        gj2k_encode_report encoded = {.struct_size = bad[k], .bytes = 7};
        CHECK(refused(gj2k_encode_memory(image, NULL, &data, &size, &encoded, &error), &error,
                      "gj2k_encode_report"));
        CHECK(encoded.bytes == 7 && encoded.struct_size == bad[k]);
        gj2k_writer writer = {.struct_size = bad[k], .write = writer_keeps};
        CHECK(refused(gj2k_encode_stream(image, NULL, &writer, NULL, &error), &error,
                      "gj2k_writer"));

        gj2k_decode_options decode = {.struct_size = bad[k]};
        CHECK(refused(gj2k_decode_memory(codestream, codestream_size, &decode, &out, &error),
                      &error, "gj2k_decode_options"));
        CHECK(out == NULL);
        gj2k_decode_report decoded = {.struct_size = bad[k], .num_tiles = 7};
        gj2k_decode_options reporting = {.report = &decoded};
        CHECK(refused(gj2k_decode_memory(codestream, codestream_size, &reporting, &out, &error),
                      &error, "gj2k_decode_report"));
        CHECK(out == NULL && decoded.num_tiles == 7);
        CHECK(refused(gj2k_decode_file("/nonexistent/x.j2k", &reporting, &out, &error), &error,
                      "gj2k_decode_report"));
        CHECK(decoded.num_tiles == 7);
        CHECK(refused(gj2k_decode_to_file("/nonexistent/x.j2k", path, &decode, NULL, &error),
                      &error, "gj2k_decode_options"));
        gj2k_reader reader = {.struct_size = bad[k], .read = reader_ends};
        CHECK(refused(gj2k_decode_stream(&reader, NULL, &out, &error), &error, "gj2k_reader"));

        gj2k_transcode_options transcode = {.struct_size = bad[k]};
        CHECK(refused(gj2k_transcode_memory(codestream, codestream_size, &transcode, &data, &size,
                                            &error), &error, "gj2k_transcode_options"));
        CHECK(refused(gj2k_transcode_file("/nonexistent/x.j2k", path, &transcode, &error), &error,
                      "gj2k_transcode_options"));
        gj2k_transcode_report transcoded = {.struct_size = bad[k], .bytes = 7};
        gj2k_transcode_options reporting_transcode = {.report = &transcoded};
        CHECK(refused(gj2k_transcode_memory(codestream, codestream_size, &reporting_transcode,
                                            &data, &size, &error),
                      &error, "gj2k_transcode_report"));
        CHECK(transcoded.bytes == 7);

        gj2k_write_options write = {.struct_size = bad[k]};
        CHECK(refused(gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, &write, &data, &size, &error),
                      &error, "gj2k_write_options"));
        CHECK(refused(gj2k_image_write_file(image, path, &write, &error), &error,
                      "gj2k_write_options"));
        CHECK(refused(gj2k_decode_to_file("/nonexistent/x.j2k", path, NULL, &write, &error),
                      &error, "gj2k_write_options"));
        gj2k_read_options read = {.struct_size = bad[k]};
        CHECK(refused(gj2k_image_read_memory(codestream, 4, GJ2K_FORMAT_PNM, &read, &out, &error),
                      &error, "gj2k_read_options"));
        CHECK(refused(gj2k_image_read_file("/nonexistent/x.pgm", &read, &out, &error), &error,
                      "gj2k_read_options"));
        gj2k_raw_geometry geometry = {.struct_size = bad[k], .width = 1, .height = 1,
                                      .num_components = 1, .precision = 8};
        gj2k_read_options raw = {.raw = &geometry};
        CHECK(refused(gj2k_image_read_memory(codestream, 1, GJ2K_FORMAT_RAW, &raw, &out, &error),
                      &error, "gj2k_raw_geometry"));

        gj2k_describe_options describe = {.struct_size = bad[k]};
        char *text = NULL;
        CHECK(refused(gj2k_describe_file(path, &describe, &text, NULL, &error), &error,
                      "gj2k_describe_options"));
        CHECK(text == NULL);

        gj2k_device_info device;
        memset(&device, SENTINEL, sizeof device);
        device.struct_size = bad[k];
        gj2k_device_probe(&device);
        CHECK(untouched(&device, sizeof bad[k], sizeof device));
    }
    free(codestream);
    gj2k_image_destroy(image);
}

/* struct_size 0 is the first release's layout, options and reports alike,
 * and a report comes back with the size it reaches (STRUCT_SIZE_ZERO); the
 * INIT macros record sizeof. In 0.1.0 itself both reach every field, so
 * the two agree here; a later release's fields would tell them apart. */
static void test_zero_is_the_first_layout(void)
{
    gj2k_encode_options init = GJ2K_ENCODE_OPTIONS_INIT;
    gj2k_decode_options decode_init = GJ2K_DECODE_OPTIONS_INIT;
    gj2k_encode_report report_init = GJ2K_ENCODE_REPORT_INIT;
    gj2k_device_info device = GJ2K_DEVICE_INFO_INIT;
    CHECK_EQ(init.struct_size, sizeof init);
    CHECK_EQ(decode_init.struct_size, sizeof decode_init);
    CHECK_EQ(report_init.struct_size, sizeof report_init);
    gj2k_describe_options describe_init = GJ2K_DESCRIBE_OPTIONS_INIT;
    CHECK_EQ(describe_init.struct_size, sizeof describe_init);
    gj2k_image *image = test_noise_image(33, 21, 3);
    REQUIRE(image != NULL);
    gj2k_error error = {0};
    gj2k_encode_options zero = {0};
    gj2k_encode_report report = {0};
    uint8_t *a = NULL, *b = NULL;
    size_t a_size = 0, b_size = 0;
    REQUIRE(gj2k_encode_memory(image, &zero, &a, &a_size, &report, &error) == GJ2K_OK);
    REQUIRE(gj2k_encode_memory(image, &init, &b, &b_size, &report_init, &error) == GJ2K_OK);
    CHECK(same_bytes(a, a_size, b, b_size));
    CHECK_EQ(report.struct_size, STRUCT_SIZE_ZERO(gj2k_encode_report));
    CHECK_EQ(report.bytes, a_size);
    CHECK_EQ(report_init.bytes, b_size);
    gj2k_decode_report decoded = {0};
    gj2k_decode_options decode = {.report = &decoded};
    gj2k_image *out = NULL;
    REQUIRE(gj2k_decode_memory(a, a_size, &decode, &out, &error) == GJ2K_OK);
    CHECK(test_same_samples(image, out));
    CHECK_EQ(decoded.struct_size, STRUCT_SIZE_ZERO(gj2k_decode_report));
    CHECK_EQ(decoded.width, 33);
    gj2k_image_destroy(out);
    REQUIRE(gj2k_decode_memory(a, a_size, &decode_init, &out, &error) == GJ2K_OK);
    CHECK(test_same_samples(image, out));
    gj2k_image_destroy(out);
    char path[1024];
    snprintf(path, sizeof path, "%s/zero.j2k", test_temp_dir());
    REQUIRE(gj2k_encode_file(image, path, &zero, NULL, &error) == GJ2K_OK);
    /* JSON, not the default text: a struct_size of 0 must still reach style */
    gj2k_describe_options describe_zero = {.style = GJ2K_DESCRIBE_JSON};
    describe_init.style = GJ2K_DESCRIBE_JSON;
    char *described = NULL, *described_init = NULL;
    REQUIRE(gj2k_describe_file(path, &describe_zero, &described, NULL, &error) == GJ2K_OK);
    REQUIRE(gj2k_describe_file(path, &describe_init, &described_init, NULL, &error) == GJ2K_OK);
    CHECK(described[0] == '{');
    CHECK(strcmp(described, described_init) == 0);
    free(described);
    free(described_init);
    gj2k_device_info zero_device = {0};
    gj2k_device_probe(&zero_device);
    gj2k_device_probe(&device);
    /* 0: the first release's layout, to the end of its last field (its tail
     * padding not written) */
    CHECK_EQ(zero_device.struct_size, STRUCT_SIZE_ZERO(gj2k_device_info));
    CHECK(strcmp(zero_device.detail, device.detail) == 0);
    CHECK(zero_device.device_count == device.device_count);
    free(a);
    free(b);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"older_options_take_defaults", test_older_options_take_defaults},
    {"reports_written_to_their_size", test_reports_written_to_their_size},
    {"bad_sizes_refused", test_bad_sizes_refused},
    {"zero_is_the_first_layout", test_zero_is_the_first_layout},
};
TEST_MAIN(cases)
