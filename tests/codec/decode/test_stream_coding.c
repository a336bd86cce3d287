/* test_stream_coding.c - gj2k_encode_stream and gj2k_decode_stream: the
 * bytes and samples of the memory calls through callbacks (a reader that
 * gives a few bytes at a time, handed over part-way and rewound by seek),
 * and refusals: a writer or reader that fails, a stream past max_memory. */
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "test_harness.h"

typedef struct sink {
    uint8_t *data;
    size_t size, pieces;
    size_t fail_at_piece; /* 0: never */
} sink;

static bool sink_write(void *user, const uint8_t *data, size_t size)
{
    sink *s = user;
    if (++s->pieces == s->fail_at_piece || size > ((size_t)1 << 20))
        return false;
    uint8_t *grown = realloc(s->data, s->size + size);
    if (grown == NULL)
        return false;
    memcpy(grown + s->size, data, size);
    s->data = grown;
    s->size += size;
    return true;
}

typedef struct source {
    const uint8_t *data;
    size_t size, at;
    size_t fail_after;  /* bytes; 0: never */
} source;

static int64_t source_read(void *user, uint8_t *buffer, size_t size)
{
    source *s = user;
    if (s->fail_after != 0 && s->at >= s->fail_after)
        return -1;
    size_t n = (size_t)test_random_range(1, 7); /* a few bytes at a time */
    n = n < size ? n : size;
    n = n < s->size - s->at ? n : s->size - s->at;
    memcpy(buffer, s->data + s->at, n);
    s->at += n;
    return (int64_t)n;
}

static bool source_seek(void *user, uint64_t offset)
{
    source *s = user;
    if (offset > s->size)
        return false;
    s->at = (size_t)offset;
    return true;
}

static gj2k_image *noise_image(void)
{
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    uint32_t w = (uint32_t)test_random_range(20, 200), h = (uint32_t)test_random_range(20, 150);
    if (gj2k_image_create(&image, 0, 0, w, h, 3, info, NULL) != GJ2K_OK)
        return NULL;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < (size_t)w * h; i++)
            image->components[c].samples[i] = (int32_t)((i % w) * 2 + test_random() % 16) % 256;
    return image;
}

static void test_same_as_memory(void)
{
    for (int i = 0; i < 4; i++) {
        gj2k_image *image = noise_image();
        REQUIRE(image != NULL);
        gj2k_encode_options o = {.format = i % 2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K};
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_error error = {0};
        REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
        sink out = {0};
        gj2k_writer writer = {.write = sink_write, .user = &out};
        REQUIRE(gj2k_encode_stream(image, &o, &writer, NULL, &error) == GJ2K_OK);
        CHECK(out.size == size && memcmp(out.data, data, size) == 0);

        source in = {.data = data, .size = size, .at = size / 2}; /* handed over part-way */
        gj2k_reader reader = {.read = source_read, .seek = source_seek, .user = &in};
        gj2k_image *decoded = NULL;
        REQUIRE(gj2k_decode_stream(&reader, NULL, &decoded, &error) == GJ2K_OK);
        CHECK(test_same_samples(image, decoded));
        gj2k_image_destroy(decoded);
        free(out.data);
        free(data);
        gj2k_image_destroy(image);
    }
}

static void test_refusals(void)
{
    gj2k_image *image = noise_image();
    REQUIRE(image != NULL);
    gj2k_error error = {0};
    sink out = {.fail_at_piece = 1};
    gj2k_writer writer = {.write = sink_write, .user = &out};
    CHECK_EQ(gj2k_encode_stream(image, NULL, &writer, NULL, &error), GJ2K_ERROR_IO);
    CHECK_EQ(gj2k_encode_stream(image, NULL, NULL, NULL, &error), GJ2K_ERROR_INVALID_ARGUMENT);
    uint8_t *data = NULL;
    size_t size = 0;
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, NULL, &error) == GJ2K_OK);
    gj2k_image *decoded = NULL;
    source in = {.data = data, .size = size, .fail_after = size / 3};
    gj2k_reader reader = {.read = source_read, .user = &in};
    CHECK_EQ(gj2k_decode_stream(&reader, NULL, &decoded, &error), GJ2K_ERROR_IO);
    CHECK(decoded == NULL);
    source all = {.data = data, .size = size};
    gj2k_reader whole = {.read = source_read, .user = &all};
    gj2k_decode_options small = {.max_memory = size / 2};
    CHECK_EQ(gj2k_decode_stream(&whole, &small, &decoded, &error), GJ2K_ERROR_LIMIT);
    CHECK(decoded == NULL);
    free(data);
    free(out.data);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"same_as_memory", test_same_as_memory},
    {"refusals", test_refusals},
};

TEST_MAIN(cases)
