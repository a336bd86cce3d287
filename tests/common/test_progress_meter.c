/* test_progress_meter.c - gj2k_progress_fn through the public API: an
 * encode and a decode report rising counts, one caller at a time, and end
 * with done == total (the image's samples); a callback that returns false
 * stops either with GJ2K_ERROR_CANCELLED and no output; the meter itself
 * clamps and reports the end once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "progress_meter.h"
#include "test_harness.h"

typedef struct calls {
    atomic_int inside;      /* callers in the callback now */
    bool overlapped;        /* two were at once */
    bool fell;              /* a count went down */
    unsigned count;
    uint64_t last_done, last_total;
    unsigned stop_after;    /* return false at this call (0: never) */
} calls;

static bool record(void *user, uint64_t done, uint64_t total)
{
    calls *c = user;
    if (atomic_fetch_add(&c->inside, 1) != 0)
        c->overlapped = true;
    if (done < c->last_done || done > total)
        c->fell = true;
    c->last_done = done;
    c->last_total = total;
    c->count++;
    bool go_on = c->stop_after == 0 || c->count < c->stop_after;
    atomic_fetch_sub(&c->inside, 1);
    return go_on;
}

static void test_reports_to_the_end(void)
{
    gj2k_image *image = test_noise_image(301, 203, 3);
    REQUIRE(image != NULL);
    calls c = {0};
    gj2k_encode_options o = {.device = GJ2K_DEVICE_CPU, .progress = record, .progress_user = &c};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    CHECK(c.count >= 1);
    CHECK(!c.overlapped && !c.fell);
    CHECK_EQ(c.last_total, (uint64_t)301 * 203 * 3);
    CHECK_EQ(c.last_done, c.last_total);

    calls d = {0};
    gj2k_decode_options options = {.device = GJ2K_DEVICE_CPU, .progress = record,
                                   .progress_user = &d};
    gj2k_image *decoded = NULL;
    REQUIRE(gj2k_decode_memory(data, size, &options, &decoded, &error) == GJ2K_OK);
    CHECK(d.count >= 1);
    CHECK(!d.overlapped && !d.fell);
    CHECK(d.last_total >= (uint64_t)301 * 203 * 3);
    CHECK_EQ(d.last_done, d.last_total);
    gj2k_image_destroy(decoded);
    free(data);
    gj2k_image_destroy(image);
}

/* Large enough on one thread that the first report comes before the end. */
static void test_false_cancels(void)
{
    gj2k_image *image = test_noise_image(2400, 1600, 3);
    REQUIRE(image != NULL);
    calls c = {.stop_after = 1};
    gj2k_encode_options o = {.device = GJ2K_DEVICE_CPU, .threads = 1, .progress = record,
                             .progress_user = &c};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    CHECK_EQ(gj2k_encode_memory(image, &o, &data, &size, NULL, &error), GJ2K_ERROR_CANCELLED);
    CHECK(data == NULL);
    CHECK(strstr(error.message, "cancelled") != NULL);
    CHECK_EQ(c.count, 1u);

    o.progress = NULL; /* a codestream to decode, then the same for the decode */
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    calls d = {.stop_after = 1};
    gj2k_decode_options options = {.device = GJ2K_DEVICE_CPU, .threads = 1, .progress = record,
                                   .progress_user = &d};
    gj2k_image *decoded = NULL;
    CHECK_EQ(gj2k_decode_memory(data, size, &options, &decoded, &error), GJ2K_ERROR_CANCELLED);
    CHECK(decoded == NULL);
    CHECK_EQ(d.count, 1u);
    free(data);
    gj2k_image_destroy(image);
}

/* The meter alone: many threads adding at once, no callback twice at
 * once, the total never passed, the end told once. */
typedef struct adder {
    progress_meter *meter;
} adder;

static void *add_many(void *context)
{
    adder *a = context;
    for (int i = 0; i < 200000; i++)
        progress_meter_add(a->meter, 3);
    return NULL;
}

static void test_meter_from_threads(void)
{
    calls c = {0};
    progress_meter meter;
    progress_meter_init(&meter, record, &c, 1000000); /* less than added: clamped */
    pthread_t threads[4];
    adder a = {&meter};
    for (int t = 0; t < 4; t++)
        REQUIRE(pthread_create(&threads[t], NULL, add_many, &a) == 0);
    for (int t = 0; t < 4; t++)
        pthread_join(threads[t], NULL);
    unsigned before = c.count;
    progress_meter_finish(&meter);
    CHECK(!c.overlapped && !c.fell);
    CHECK_EQ(c.count, before + 1);
    CHECK_EQ(c.last_done, 1000000u);
    progress_meter_add(NULL, 5); /* no meter: nothing */
    CHECK(!progress_meter_cancelled(NULL));
}

static const test_case cases[] = {
    {"reports_to_the_end", test_reports_to_the_end},
    {"false_cancels", test_false_cancels},
    {"meter_from_threads", test_meter_from_threads},
};

TEST_MAIN(cases)
