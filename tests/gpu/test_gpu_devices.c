/* test_gpu_devices.c - the choice of GPU (gj2k_encode_options.gpu,
 * gj2k_decode_options.gpu) and GPUs held open (gj2k_gpu_context): every
 * visible GPU codes the CPU's bytes and samples; a context kept across
 * images of growing and shrinking sizes does too; several threads coding at
 * once, each on its own GPU (or, with one GPU, all on it) and its own
 * context (of its own rank), as a batch's workers do, get them too; a GPU that is not there
 * is refused by number. Every case skips without a usable GPU. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "test_harness.h"

/* The visible GPUs (skips the case when there are none). */
static unsigned gpu_count(void)
{
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    if (!info.cuda_built || info.device_count <= 0)
        test_skip(info.cuda_built ? info.detail : "this build has no CUDA");
    return (unsigned)info.device_count;
}

/* Gradients and noise of odd size, 3 components of 8 bits. */
static gj2k_image *make_image(void)
{
    uint32_t w = (uint32_t)test_random_range(50, 600), h = (uint32_t)test_random_range(40, 400);
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, w, h, 3, info, NULL) != GJ2K_OK)
        return NULL;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < (size_t)w * h; i++) {
            int64_t v = (int64_t)((i % w) * 255 / w + (i / w) * 3 * (c + 1)) % 256;
            v += test_random_range(-12, 12);
            image->components[c].samples[i] = (int32_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    return image;
}

/* One image's references from the CPU: a codestream and its decode. */
typedef struct reference {
    gj2k_image *image, *decoded;
    gj2k_encode_options options;
    uint8_t *codestream;
    size_t size;
} reference;

static const double lossy_ratio[1] = {20.0};

static void reference_make(reference *r, bool lossy)
{
    r->image = make_image();
    REQUIRE(r->image != NULL);
    r->options = (gj2k_encode_options){.device = GJ2K_DEVICE_CPU, .threads = 2};
    if (lossy) {
        r->options.irreversible = true;
        r->options.target = GJ2K_TARGET_RATIO;
        r->options.num_layers = 1;
        r->options.targets = lossy_ratio;
    }
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(r->image, &r->options, &r->codestream, &r->size, NULL, &error) ==
            GJ2K_OK);
    gj2k_decode_options d = {.device = GJ2K_DEVICE_CPU, .threads = 2};
    REQUIRE(gj2k_decode_memory(r->codestream, r->size, &d, &r->decoded, &error) == GJ2K_OK);
}

static void reference_free(reference *r)
{
    gj2k_image_destroy(r->image);
    gj2k_image_destroy(r->decoded);
    free(r->codestream);
}

/* Encodes and decodes r's image on GPU `gpu`, or on `context` (with
 * --device auto: a context takes any image); what differs from the CPU, or
 * NULL when nothing does. */
static const char *code_on(const reference *r, unsigned gpu, gj2k_gpu_context *context)
{
    gj2k_encode_options o = r->options;
    o.device = context != NULL ? GJ2K_DEVICE_AUTO : GJ2K_DEVICE_GPU;
    o.gpu = gpu;
    o.gpu_context = context;
    uint8_t *bytes = NULL;
    size_t size = 0;
    gj2k_encode_report report = {0};
    gj2k_error error = {0};
    const char *why = NULL;
    if (gj2k_encode_memory(r->image, &o, &bytes, &size, &report, &error) != GJ2K_OK)
        why = "the encode failed";
    else if (report.gpu_tiles != report.num_tiles)
        why = "the encode's transforms did not run on the GPU";
    else if (report.gpu_blocks != report.num_codeblocks)
        why = "the encode's Tier-1 did not run on the GPU (or its count is off)";
    else if (size != r->size || memcmp(bytes, r->codestream, size) != 0)
        why = "the encode's bytes differ from the CPU's";
    free(bytes);
    if (why != NULL)
        return why;
    gj2k_decode_report decode_report = {0};
    gj2k_decode_options d = {.device = o.device, .gpu = gpu, .gpu_context = context,
                             .threads = 2, .report = &decode_report};
    gj2k_image *decoded = NULL;
    if (gj2k_decode_memory(r->codestream, r->size, &d, &decoded, &error) != GJ2K_OK)
        why = "the decode failed";
    else if (decode_report.gpu_tiles != decode_report.num_tiles)
        why = "the decode's transforms did not run on the GPU";
    else if (decode_report.gpu_blocks == 0 || decode_report.gpu_blocks > report.num_codeblocks)
        why = "the decode's Tier-1 did not run on the GPU (or counts earlier calls' blocks)";
    else if (!test_same_samples(decoded, r->decoded))
        why = "the decoded samples differ from the CPU's";
    gj2k_image_destroy(decoded);
    return why;
}

static void test_every_device_codes_alike(void)
{
    unsigned count = gpu_count();
    for (unsigned gpu = 0; gpu < count; gpu++)
        for (int lossy = 0; lossy < 2; lossy++) {
            reference r;
            reference_make(&r, lossy);
            const char *why = code_on(&r, gpu, NULL);
            if (why != NULL)
                printf("GPU %u, %s: %s\n", gpu, lossy ? "9/7" : "5/3", why);
            CHECK(why == NULL);
            reference_free(&r);
        }
}

/* Workers coding at once, worker k on GPU k % count, as a batch's are; those
 * holding a context take rank k (their streams at higher priorities). */
enum { WORKERS = 4, ROUNDS = 3 };

typedef struct worker {
    const reference *r;
    unsigned gpu;
    bool held;          /* a context of its own, kept over its rounds */
    unsigned rank;      /* the context's */
    const char *why;
} worker;

static void *worker_run(void *context)
{
    worker *w = context;
    gj2k_gpu_context *held = NULL;
    gj2k_error error = {0};
    if (w->held && gj2k_gpu_context_create_ranked(w->gpu, w->rank, &held, &error) != GJ2K_OK)
        w->why = "the context did not open";
    for (int round = 0; round < ROUNDS && w->why == NULL; round++)
        w->why = code_on(w->r, w->gpu, held);
    gj2k_gpu_context_destroy(held);
    return NULL;
}

static void test_workers_on_devices_at_once(void)
{
    unsigned count = gpu_count();
    reference r[WORKERS];
    worker w[WORKERS];
    pthread_t threads[WORKERS];
    for (int k = 0; k < WORKERS; k++) {
        reference_make(&r[k], k % 2 == 1);
        w[k] = (worker){
            .r = &r[k], .gpu = (unsigned)k % count, .held = k >= 2, .rank = (unsigned)k};
    }
    for (int k = 0; k < WORKERS; k++)
        REQUIRE(pthread_create(&threads[k], NULL, worker_run, &w[k]) == 0);
    for (int k = 0; k < WORKERS; k++) {
        pthread_join(threads[k], NULL);
        if (w[k].why != NULL)
            printf("worker %d on GPU %u: %s\n", k, w[k].gpu, w[k].why);
        CHECK(w[k].why == NULL);
        reference_free(&r[k]);
    }
}

/* One context on each GPU over images of random sizes, larger and smaller
 * than those before (its buffers grown, then reused), both wavelets. */
static void test_context_kept_across_calls(void)
{
    unsigned count = gpu_count();
    for (unsigned gpu = 0; gpu < count; gpu++) {
        gj2k_gpu_context *context = NULL;
        gj2k_error error = {0};
        REQUIRE(gj2k_gpu_context_create(gpu, &context, &error) == GJ2K_OK);
        for (int i = 0; i < 6; i++) {
            reference r;
            reference_make(&r, i % 2 == 1);
            const char *why = code_on(&r, gpu, context);
            if (why != NULL)
                printf("GPU %u, image %d (%ux%u): %s\n", gpu, i, r.image->x1, r.image->y1, why);
            CHECK(why == NULL);
            reference_free(&r);
        }
        gj2k_gpu_context_destroy(context);
    }
    gj2k_gpu_context *none = NULL;
    gj2k_error error = {0};
    CHECK(gj2k_gpu_context_create(count, &none, &error) == GJ2K_ERROR_DEVICE);
    CHECK(none == NULL);
}

static void test_missing_device_refused(void)
{
    unsigned count = gpu_count();
    reference r;
    reference_make(&r, false);
    gj2k_encode_options o = r.options;
    o.device = GJ2K_DEVICE_GPU;
    o.gpu = count; /* one past the last */
    uint8_t *bytes = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    CHECK(gj2k_encode_memory(r.image, &o, &bytes, &size, NULL, &error) == GJ2K_ERROR_DEVICE);
    char number[32];
    snprintf(number, sizeof number, "GPU %u", count);
    CHECK(strstr(error.message, number) != NULL);
    gj2k_decode_options d = {.device = GJ2K_DEVICE_GPU, .gpu = count};
    gj2k_image *decoded = NULL;
    CHECK(gj2k_decode_memory(r.codestream, r.size, &d, &decoded, &error) == GJ2K_ERROR_DEVICE);
    CHECK(decoded == NULL);
    free(bytes);
    reference_free(&r);
}

static const test_case cases[] = {
    {"every_device_codes_alike", test_every_device_codes_alike},
    {"workers_on_devices_at_once", test_workers_on_devices_at_once},
    {"context_kept_across_calls", test_context_kept_across_calls},
    {"missing_device_refused", test_missing_device_refused},
};

TEST_MAIN(cases)
