/* test_tier1_encode_gpu.c - the GPU's batch Tier-1 encoder (tier1_gpu.h)
 * against the host's (tier1_encode_block_with_fractions) on fresh random
 * blocks: every code-block style, sizes from 1x1 to 1024x4 and 64x64, 1-31
 * planes, every band, with and without fractions, spread over several
 * spans in host memory or already in the encoder's input memory; a few
 * the encoder must refuse, and a round with too little room so that
 * blocks overflow (the input memory must keep them for the host); a third
 * of the blocks HT (ht_encode_block at plane 0 on the host). Every byte,
 * plane count, truncation point and
 * distortion reduction is compared. Skips where there is no GPU (or no
 * CUDA in the build). `test_tier1_encode_gpu bench` prints the time of a
 * batch of 64x64 blocks on either side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ht_encode.h"
#include "test_harness.h"
#include "tier1_gpu.h"
#include "tier1_test_support.h"

#define NUM_SPANS 3

/* A batch under construction: its spans' coefficients and fractions. */
typedef struct batch {
    tier1_gpu_encode_block *blocks;
    size_t count;
    int32_t *coefficients[NUM_SPANS];
    uint8_t *fractions[NUM_SPANS];
    size_t samples[NUM_SPANS];
    size_t capacity[NUM_SPANS];
} batch;

/* Adds a random block to a random span (span 2 has no fractions). */
static void add_random_block(batch *b, uint32_t width, uint32_t height, unsigned max_planes)
{
    uint32_t s = (uint32_t)(test_random() % NUM_SPANS);
    size_t area = (size_t)width * height;
    if (b->samples[s] + area > b->capacity[s]) {
        b->capacity[s] = 2 * (b->samples[s] + area);
        b->coefficients[s] = realloc(b->coefficients[s], b->capacity[s] * sizeof(int32_t));
        b->fractions[s] = realloc(b->fractions[s], b->capacity[s]);
        REQUIRE(b->coefficients[s] != NULL && b->fractions[s] != NULL);
    }
    unsigned planes = (unsigned)test_random_range(1, max_planes);
    random_block(b->coefficients[s] + b->samples[s], width, height, width, planes);
    for (size_t i = 0; i < area; i++)
        b->fractions[s][b->samples[s] + i] = (uint8_t)test_random();
    b->blocks = realloc(b->blocks, (b->count + 1) * sizeof *b->blocks);
    REQUIRE(b->blocks != NULL);
    b->blocks[b->count++] = (tier1_gpu_encode_block){
        .span = s, .offset = b->samples[s], .width = width, .height = height,
        .band = (uint32_t)(test_random() % 4), .style = (uint32_t)(test_random() % 64)};
    if (test_random() % 3 == 0) /* HT (T.814), vertically causal or not */
        b->blocks[b->count - 1].style = TIER1_STYLE_HT | (test_random() % 2 ? 8u : 0u);
    b->samples[s] += area;
}

static void batch_free(batch *b)
{
    free(b->blocks);
    for (int s = 0; s < NUM_SPANS; s++) {
        free(b->coefficients[s]);
        free(b->fractions[s]);
    }
}

/* The batch's spans in host memory, or put in the encoder's input memory
 * first (`resident`). */
static void spans_of(tier1_gpu_encoder *gpu, const batch *b, bool resident,
                     tier1_gpu_span spans[NUM_SPANS])
{
    size_t total = 0;
    for (int s = 0; s < NUM_SPANS; s++)
        total += b->samples[s];
    int32_t *device = NULL;
    uint8_t *device_fractions = NULL;
    gj2k_error error = {0};
    if (resident)
        CHECK(tier1_gpu_encoder_input(gpu, total, true, &device, &device_fractions, &error) ==
              GJ2K_OK);
    size_t base = 0;
    for (int s = 0; s < NUM_SPANS; s++) {
        const uint8_t *fractions = s == 2 ? NULL : b->fractions[s];
        spans[s] = (tier1_gpu_span){.coefficients = b->coefficients[s], .fractions = fractions,
                                    .samples = b->samples[s], .resident = resident,
                                    .resident_fractions = fractions != NULL};
        if (resident)
            CHECK(tier1_gpu_encoder_put(gpu, base, b->samples[s], b->coefficients[s], fractions,
                                        &error) == GJ2K_OK);
        base += b->samples[s];
    }
}

/* The input memory holds the spans still (a block the host must code
 * comes from there). */
static bool input_kept(tier1_gpu_encoder *gpu, const batch *b)
{
    bool same = true;
    size_t base = 0;
    gj2k_error error = {0};
    for (int s = 0; s < NUM_SPANS && same; s++) {
        size_t n = b->samples[s] ? b->samples[s] : 1;
        int32_t *q = xmalloc(n * sizeof *q);
        uint8_t *f = xmalloc(n);
        same = tier1_gpu_encoder_fetch(gpu, base, b->samples[s], q, s == 2 ? NULL : f, &error) ==
                   GJ2K_OK &&
               memcmp(q, b->coefficients[s], b->samples[s] * sizeof *q) == 0 &&
               (s == 2 || memcmp(f, b->fractions[s], b->samples[s]) == 0);
        free(q), free(f);
        base += b->samples[s];
    }
    return same;
}

static tier1_gpu_encoder *open_gpu(void)
{
    tier1_gpu_encoder *gpu = NULL;
    gj2k_error error = {0};
    if (tier1_gpu_encoder_create(0, &gpu, &error) != GJ2K_OK)
        test_skip(error.message);
    return gpu;
}

/* Whether the GPU's result for block i is the host's: the same status, or
 * GJ2K_ERROR_LIMIT where the host's bytes, and the final 0xFF a segment may
 * hold before it is dropped, exceed the room. */
/* As same_block for an HT block: the host's ht_encode_block at plane 0. */
static bool same_ht_block(const batch *b, size_t i, const tier1_gpu_encoded *got,
                          const uint8_t *data, const tier1_pass_info *passes, unsigned room)
{
    const tier1_gpu_encode_block *k = &b->blocks[i];
    static ht_encode_tables tables; /* built once: the same tables each time */
    if (tables.code[0][0][1][0][0] == 0)
        ht_encode_tables_build(&tables);
    ht_encoded_block want = {0};
    gj2k_status s = GJ2K_ERROR_INVALID_ARGUMENT;
    if (k->span < NUM_SPANS && k->offset + (uint64_t)k->width * k->height <= b->samples[k->span])
        s = ht_encode_block(b->coefficients[k->span] + k->offset,
                            k->span == 2 ? NULL : b->fractions[k->span] + k->offset, k->width,
                            k->width, k->height, 0, 0, false, false, &tables, &want);
    size_t room_bytes = (size_t)k->width * k->height * (room ? room : 4) + TIER1_GPU_ROOM_PER_BLOCK;
    bool same;
    if (got->status == GJ2K_ERROR_LIMIT && s == GJ2K_OK)
        same = want.num_choices == 1 && want.lengths[0] + 1 > room_bytes;
    else
        same = got->status == s;
    if (same && s == GJ2K_OK && got->status == GJ2K_OK) {
        same = got->num_planes == want.num_planes && got->num_passes == want.num_choices &&
               got->size == want.size &&
               (want.size == 0 || memcmp(data + got->data_offset, want.data, want.size) == 0);
        if (same && want.num_choices == 1) {
            const tier1_pass_info *g = &passes[got->passes_offset];
            same = g->length == want.lengths[0] && g->ends_segment &&
                   memcmp(&g->distortion_reduction, &want.distortion_reduction[0],
                          sizeof(double)) == 0;
        }
    }
    if (!same)
        fprintf(stderr, "  HT block %zu (%ux%u): GPU %s %u planes %llu bytes, host %s %u planes "
                        "%zu bytes\n",
                i, k->width, k->height, gj2k_status_name(got->status), got->num_planes,
                (unsigned long long)got->size, gj2k_status_name(s), want.num_planes, want.size);
    ht_encoded_block_release(&want);
    return same;
}

static bool same_block(const batch *b, size_t i, const tier1_gpu_encoded *got,
                       const uint8_t *data, const tier1_pass_info *passes, unsigned room,
                       tier1_workspace *ws)
{
    if (b->blocks[i].style & TIER1_STYLE_HT)
        return same_ht_block(b, i, got, data, passes, room);
    const tier1_gpu_encode_block *k = &b->blocks[i];
    tier1_encoded_block want;
    gj2k_status s = GJ2K_ERROR_INVALID_ARGUMENT;
    memset(&want, 0, sizeof want);
    if (k->span < NUM_SPANS && k->offset + (uint64_t)k->width * k->height <= b->samples[k->span])
        s = tier1_encode_block_with_fractions(
            b->coefficients[k->span] + k->offset,
            k->span == 2 ? NULL : b->fractions[k->span] + k->offset, k->width, k->width,
            k->height, (dwt_band)k->band, k->style, TIER1_MAX_PLANES, ws, &want);
    bool same;
    if (got->status == GJ2K_ERROR_LIMIT)
        same = s == GJ2K_OK &&
               want.size + 1 > (size_t)k->width * k->height * room + TIER1_GPU_ROOM_PER_BLOCK;
    else
        same = got->status == s;
    if (same && s == GJ2K_OK && got->status == GJ2K_OK) {
        same = got->num_planes == want.num_planes && got->num_passes == want.num_passes &&
               got->size == want.size &&
               (want.size == 0 || memcmp(data + got->data_offset, want.data, want.size) == 0);
        for (unsigned j = 0; same && j < want.num_passes; j++) {
            const tier1_pass_info *g = &passes[got->passes_offset + j], *w = &want.passes[j];
            same = g->length == w->length && g->ends_segment == w->ends_segment &&
                   memcmp(&g->distortion_reduction, &w->distortion_reduction,
                          sizeof(double)) == 0;
        }
    }
    if (!same)
        fprintf(stderr, "  block %zu (%ux%u, band %u, style 0x%02x): GPU %s %u planes %llu bytes,"
                        " host %s %u planes %zu bytes\n",
                i, k->width, k->height, k->band, k->style, gj2k_status_name(got->status),
                got->num_planes, (unsigned long long)got->size, gj2k_status_name(s),
                want.num_planes, want.size);
    tier1_encoded_block_release(&want);
    return same;
}

static bool same_encode(tier1_gpu_encoder *gpu, const batch *b, unsigned room, bool resident)
{
    tier1_gpu_span spans[NUM_SPANS];
    spans_of(gpu, b, resident, spans);
    tier1_gpu_encoded *results = xmalloc((b->count + 1) * sizeof *results);
    memset(results, 0xA5, (b->count + 1) * sizeof *results); /* poisoned */
    uint8_t *data = NULL;
    tier1_pass_info *passes = NULL;
    size_t data_size = 0, num_passes = 0;
    gj2k_error error = {0};
    tier1_gpu_encoder_set_room(gpu, room);
    gj2k_status s = tier1_gpu_encode(gpu, spans, NUM_SPANS, b->blocks, b->count, results, &data,
                                     &data_size, &passes, &num_passes, &error);
    if (s != GJ2K_OK)
        fprintf(stderr, "  tier1_gpu_encode: %s\n", error.message);
    bool same = s == GJ2K_OK;
    tier1_workspace *ws = tier1_workspace_create();
    if (ws == NULL)
        abort();
    size_t bytes = 0, total_passes = 0, overflowed = 0;
    for (size_t i = 0; same && i < b->count; i++) {
        same = same_block(b, i, &results[i], data, passes, room, ws);
        if (results[i].status == GJ2K_OK) {
            same = same && results[i].data_offset == bytes &&
                   results[i].passes_offset == total_passes;
            bytes += results[i].size;
            total_passes += results[i].num_passes;
        }
        overflowed += results[i].status == GJ2K_ERROR_LIMIT;
    }
    same = same && bytes == data_size && total_passes == num_passes;
    if (resident)
        CHECK(input_kept(gpu, b));
    if (room == 1) /* the round meant to overflow must have */
        CHECK(overflowed > 0);
    tier1_workspace_destroy(ws);
    free(results), free(data), free(passes);
    return same;
}

static void gpu_matches_host(void)
{
    tier1_gpu_encoder *gpu = open_gpu();
    /* GJ2K_GPU_TEST_CASES=N (the sanitizers' runs): one round of 10 N blocks */
    const char *cases = getenv("GJ2K_GPU_TEST_CASES");
    int rounds = cases ? 1 : 3, blocks = cases ? 10 * atoi(cases) : 400;
    blocks = blocks < 4 ? 4 : blocks;
    for (int round = 0; round < rounds + 1; round++) {
        bool overflow_round = round == rounds; /* deep planes, one byte a sample of room */
        batch b = {0};
        for (int k = 0; k < blocks; k++) {
            uint32_t w, h;
            random_block_shape(&w, &h);
            add_random_block(&b, w, h, overflow_round ? 31 : test_random() % 4 ? 16 : 31);
        }
        /* refused alike: a reserved style bit, a block past its span, INT32_MIN */
        b.blocks[0].style = 0x80;
        b.blocks[1].offset = b.samples[b.blocks[1].span];
        b.coefficients[b.blocks[2].span][b.blocks[2].offset] = INT32_MIN;
        b.blocks[3].span = NUM_SPANS;
        static const unsigned lanes[] = {1, 32, 5};
        tier1_gpu_encoder_set_lanes(gpu, lanes[round % 3]);
        /* rounds 1 and 3 (the overflowing one) from the input memory */
        CHECK(same_encode(gpu, &b, overflow_round ? 1 : 0, round % 2 == 1));
        batch_free(&b);
    }
    tier1_gpu_encoder_destroy(gpu);
}

/* Prints the time of a batch of 64x64 blocks like those of 8-bit images
 * coded losslessly (~9 planes, 30% zeros), on the GPU and on one host
 * thread. */
/* The batch on the GPU and one host thread, Part 1 or HT (plane 0). */
static void bench_one(tier1_gpu_encoder *gpu, bool ht)
{
    batch b = {0};
    /* GJ2K_TIER1_BLOCKS=N: N blocks (default 2048) */
    const char *blocks = getenv("GJ2K_TIER1_BLOCKS");
    const size_t count = blocks && atoi(blocks) > 0 ? (size_t)atoi(blocks) : 2048, area = 4096;
    b.coefficients[0] = xmalloc(count * area * sizeof(int32_t));
    b.samples[0] = count * area;
    b.blocks = xmalloc(count * sizeof *b.blocks);
    for (size_t i = 0; i < count * area; i++)
        b.coefficients[0][i] = test_random() % 10 < 3 ? 0 : (int32_t)test_random_range(-200, 200);
    for (size_t k = 0; k < count; k++)
        b.blocks[k] = (tier1_gpu_encode_block){.span = 0, .offset = k * area, .width = 64,
                                               .height = 64, .band = DWT_BAND_HH,
                                               .style = ht ? TIER1_STYLE_HT : 0u};
    b.count = count;
    tier1_gpu_span span = {.coefficients = b.coefficients[0], .samples = b.samples[0]};
    tier1_gpu_encoded *r = xmalloc(count * sizeof *r);
    gj2k_error error = {0};
    size_t bytes = 0;
    /* GJ2K_TIER1_LANES=N: N threads of each warp at work */
    const char *lanes = getenv("GJ2K_TIER1_LANES");
    tier1_gpu_encoder_set_lanes(gpu, lanes ? (unsigned)atoi(lanes) : 0);
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        uint8_t *data = NULL;
        tier1_pass_info *passes = NULL;
        size_t num_passes = 0;
        double t0 = tier1_test_seconds();
        REQUIRE(tier1_gpu_encode(gpu, &span, 1, b.blocks, count, r, &data, &bytes, &passes,
                                 &num_passes, &error) == GJ2K_OK);
        double t = tier1_test_seconds() - t0;
        best = t < best ? t : best;
        free(data), free(passes);
    }
    tier1_workspace *ws = tier1_workspace_create();
    ht_encode_tables *tables = xmalloc(sizeof *tables);
    ht_encode_tables_build(tables);
    double t0 = tier1_test_seconds();
    for (size_t k = 0; k < count; k++) {
        if (ht) {
            ht_encoded_block e;
            REQUIRE(ht_encode_block(b.coefficients[0] + k * area, NULL, 64, 64, 64, 0, 0, false, false, tables,
                                    &e) == GJ2K_OK);
            ht_encoded_block_release(&e);
            continue;
        }
        tier1_encoded_block e;
        REQUIRE(tier1_encode_block(b.coefficients[0] + k * area, 64, 64, 64, DWT_BAND_HH, 0,
                                   TIER1_MAX_PLANES, ws, &e) == GJ2K_OK);
        tier1_encoded_block_release(&e);
    }
    double host = tier1_test_seconds() - t0;
    tier1_workspace_destroy(ws);
    free(tables);
    printf("tier1 %sencode, %zu blocks of 64x64 (%.1f MB coded): GPU %.2f ms with transfers "
           "(%.0f Msamples/s, %s lanes a warp), one host thread %.2f ms (%.0f Msamples/s)\n",
           ht ? "HT " : "", count, (double)bytes / 1e6, best * 1e3, (double)(count * area) / best / 1e6,
           lanes ? lanes : "1",
           host * 1e3, (double)(count * area) / host / 1e6);
    free(r);
    batch_free(&b);
}

static void bench(void)
{
    tier1_gpu_encoder *gpu = open_gpu();
    bench_one(gpu, false);
    bench_one(gpu, true);
    tier1_gpu_encoder_destroy(gpu);
}

static const test_case cases[] = {
    {"gpu_matches_host", gpu_matches_host},
    {"bench", bench},
};
TEST_MAIN(cases)
