/* test_tier1_gpu.c - the GPU's batch Tier-1 decoder (tier1_gpu.h) against
 * the host's (tier1_decode_block) on fresh random blocks: every code-block
 * style, sizes from 1x1 to 1024x4 and 64x64, 1-31 planes, every band,
 * decoded whole, cut after a random pass, with bytes cut short or flipped,
 * and a few the decoder must refuse; HT blocks (T.814: ht_encode's cleanup
 * segments, some with random bytes as a SigProp/MagRef segment) among
 * them; outputs poisoned beforehand, every
 * coefficient, lowest known plane and result compared; and the same
 * batches dequantized into planes in device memory
 * (tier1_gpu_decode_placed) against the host's dequantize_halves, the
 * planes poisoned beforehand. Skips where there is no GPU (or no CUDA in
 * the build). `test_tier1_gpu bench` prints the time of a batch of 64x64
 * blocks on either side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dequantize.h"
#include "ht_encode.h"
#include "test_harness.h"
#include "tier1_gpu.h"
#include "tier1_test_support.h"

/* REQUIRE in a function that returns `value`. */
#define REQUIRE_VALUE(cond, value)                                                             \
    do {                                                                                       \
        bool require_ = (cond);                                                                \
        test_check(require_, __FILE__, __LINE__, #cond);                                       \
        if (!require_)                                                                         \
            return value;                                                                      \
    } while (0)

#define POISON_COEFFICIENT 0x5A5A5A5A
#define POISON_PLANE 0xA5

/* A batch under construction: blocks, their bytes and segments. */
typedef struct batch {
    tier1_gpu_block *blocks;
    size_t count, capacity;
    uint8_t *data;
    size_t data_size, data_capacity;
    tier1_segment *segments;
    size_t num_segments, segments_capacity;
    size_t samples;
} batch;

static void *grow(void *p, size_t *capacity, size_t need, size_t each)
{
    if (need <= *capacity)
        return p;
    size_t want = need * 2;
    void *q = realloc(p, want * each);
    if (q == NULL)
        abort();
    *capacity = want;
    return q;
}

/* Encodes a random block and adds it to the batch: all its passes or a
 * prefix, its bytes whole, cut short, or with a byte flipped. */
static void add_random_block(batch *b, uint32_t width, uint32_t height)
{
    unsigned planes = (unsigned)test_random_range(1, test_random() % 4 ? 16 : 31);
    dwt_band band = (dwt_band)(test_random() % 4);
    unsigned style = (unsigned)(test_random() % 64);
    int32_t *q = xmalloc((size_t)width * height * sizeof *q);
    random_block(q, width, height, width, planes);
    tier1_encoded_block e;
    REQUIRE(tier1_encode_block(q, width, width, height, band, style, planes, NULL, &e) ==
            GJ2K_OK);
    free(q);
    unsigned passes = e.num_passes;
    if (passes > 0 && test_random() % 3 == 0)
        passes = (unsigned)test_random_range(1, passes);
    b->segments = grow(b->segments, &b->segments_capacity, b->num_segments + TIER1_MAX_PASSES,
                       sizeof *b->segments);
    tier1_segment *segments = b->segments + b->num_segments;
    unsigned n = 0, first = 0;
    size_t start = 0;
    for (unsigned j = 0; j < passes; j++) {
        if (!e.passes[j].ends_segment && j != passes - 1)
            continue;
        segments[n++] = (tier1_segment){e.passes[j].length - start, j + 1 - first};
        start = e.passes[j].length;
        first = j + 1;
    }
    size_t size = start;
    int damage = (int)(test_random() % 6);
    if (damage == 0 && size > 0) /* cut short */
        size = (size_t)test_random_range(0, (int64_t)size - 1);
    b->data = grow(b->data, &b->data_capacity, b->data_size + start + 1, 1);
    if (start)
        memcpy(b->data + b->data_size, e.data, start);
    if (damage == 1 && size > 0) /* a byte flipped */
        b->data[b->data_size + test_random_range(0, (int64_t)size - 1)] ^=
            (uint8_t)test_random_range(1, 255);
    b->blocks = grow(b->blocks, &b->capacity, b->count + 1, sizeof *b->blocks);
    b->blocks[b->count++] = (tier1_gpu_block){
        .data_offset = b->data_size, .size = size, .first_segment = (uint32_t)b->num_segments,
        .num_segments = n, .num_planes = e.num_planes, .width = width, .height = height,
        .band = band, .style = style, .output_offset = b->samples};
    b->data_size += start;
    b->num_segments += n;
    b->samples += (size_t)width * height;
    tier1_encoded_block_release(&e);
}

/* An HT block (T.814): a cleanup segment of random coefficients at a
 * random plane, sometimes followed by random bytes as its refinement
 * segment (one or two passes), cut short or with a byte flipped at times. */
static void add_random_ht_block(batch *b, uint32_t width, uint32_t height,
                                const ht_encode_tables *tables)
{
    unsigned planes = (unsigned)test_random_range(1, test_random() % 4 ? 16 : 29);
    int32_t *q = xmalloc((size_t)width * height * sizeof *q);
    random_block(q, width, height, width, planes);
    unsigned plane = (unsigned)test_random_range(0, planes - 1);
    size_t capacity = ht_cleanup_bound(width, height) + 64, length = 0;
    uint8_t *segment = xmalloc(capacity);
    REQUIRE(ht_encode_cleanup(q, width, width, height, plane, tables, segment, capacity,
                              &length) == GJ2K_OK);
    free(q);
    size_t refinement = plane > 0 && test_random() % 3 == 0 ? (size_t)test_random_range(1, 60) : 0;
    for (size_t i = 0; i < refinement; i++)
        segment[length + i] = (uint8_t)test_random();
    b->segments = grow(b->segments, &b->segments_capacity, b->num_segments + 2,
                       sizeof *b->segments);
    tier1_segment *segments = b->segments + b->num_segments;
    unsigned n = 0;
    segments[n++] = (tier1_segment){length, 1};
    if (refinement)
        segments[n++] = (tier1_segment){refinement, (unsigned)test_random_range(1, 2)};
    size_t whole = length + refinement, size = whole;
    int damage = (int)(test_random() % 6);
    if (damage == 0) /* cut short */
        size = (size_t)test_random_range(0, (int64_t)whole - 1);
    b->data = grow(b->data, &b->data_capacity, b->data_size + whole + 1, 1);
    memcpy(b->data + b->data_size, segment, whole);
    free(segment);
    if (damage == 1) /* a byte flipped */
        b->data[b->data_size + test_random_range(0, (int64_t)whole - 1)] ^=
            (uint8_t)test_random_range(1, 255);
    b->blocks = grow(b->blocks, &b->capacity, b->count + 1, sizeof *b->blocks);
    b->blocks[b->count++] = (tier1_gpu_block){
        .data_offset = b->data_size, .size = size, .first_segment = (uint32_t)b->num_segments,
        .num_segments = n, .num_planes = plane + 1, .width = width, .height = height,
        .band = (dwt_band)(test_random() % 4),
        .style = TIER1_STYLE_HT | (test_random() % 2 ? TIER1_STYLE_VERTICALLY_CAUSAL : 0u),
        .output_offset = b->samples};
    b->data_size += whole;
    b->num_segments += n;
    b->samples += (size_t)width * height;
}

static void batch_free(batch *b)
{
    free(b->blocks);
    free(b->data);
    free(b->segments);
}

/* The host's decode of every block, as the GPU's must come out; a block
 * whose segments or bytes lie outside the batch is refused, as
 * tier1_gpu_decode says. */
static void decode_on_host(const batch *b, int32_t *coefficients, uint8_t *lowest,
                           tier1_gpu_result *results)
{
    for (size_t i = 0; i < b->count; i++) {
        const tier1_gpu_block *k = &b->blocks[i];
        if ((uint64_t)k->first_segment + k->num_segments > b->num_segments ||
            k->data_offset + k->size > b->data_size) {
            results[i] = (tier1_gpu_result){GJ2K_ERROR_INVALID_ARGUMENT, 0, 0};
            continue;
        }
        tier1_decode_request request = {
            .data = k->size ? b->data + k->data_offset : NULL, .size = k->size,
            .segments = b->segments + k->first_segment, .num_segments = k->num_segments,
            .num_planes = k->num_planes, .width = k->width, .height = k->height,
            .band = (dwt_band)k->band, .style = k->style};
        tier1_decode_result r = {0};
        static ht_lookup ht; /* built once: the same tables each time */
        if (ht.entry[0][0] == 0)
            ht_lookup_build(&ht);
        gj2k_status s = (k->style & TIER1_STYLE_HT)
                            ? ht_decode_block(&request, &ht, coefficients + k->output_offset,
                                              k->width, lowest + k->output_offset, &r)
                            : tier1_decode_block(&request, NULL, coefficients + k->output_offset,
                                                 k->width, lowest + k->output_offset, &r);
        results[i] = (tier1_gpu_result){s, r.passes_decoded, r.segmentation_errors};
    }
}

static tier1_gpu *open_gpu(void)
{
    tier1_gpu *gpu = NULL;
    gj2k_error error = {0};
    if (tier1_gpu_create(0, &gpu, &error) != GJ2K_OK)
        test_skip(error.message);
    return gpu;
}

static bool same_decode(tier1_gpu *gpu, const batch *b)
{
    size_t n = b->samples ? b->samples : 1;
    int32_t *want = xmalloc(n * sizeof *want), *got = xmalloc(n * sizeof *got);
    uint8_t *want_low = xmalloc(n), *got_low = xmalloc(n);
    tier1_gpu_result *want_r = xmalloc((b->count + 1) * sizeof *want_r);
    tier1_gpu_result *got_r = xmalloc((b->count + 1) * sizeof *got_r);
    for (size_t i = 0; i < n; i++) {
        want[i] = got[i] = POISON_COEFFICIENT;
        want_low[i] = got_low[i] = POISON_PLANE;
    }
    decode_on_host(b, want, want_low, want_r);
    gj2k_error error = {0};
    gj2k_status s = tier1_gpu_decode(gpu, b->data, b->data_size, b->segments, b->num_segments,
                                     b->blocks, b->count, got, got_low, b->samples, got_r, &error);
    if (s != GJ2K_OK)
        fprintf(stderr, "  tier1_gpu_decode: %s\n", error.message);
    bool same = s == GJ2K_OK && memcmp(want, got, b->samples * sizeof *want) == 0 &&
                memcmp(want_low, got_low, b->samples) == 0;
    for (size_t i = 0; same && i < b->count; i++)
        same = want_r[i].status == got_r[i].status &&
               want_r[i].passes_decoded == got_r[i].passes_decoded &&
               want_r[i].segmentation_errors == got_r[i].segmentation_errors;
    for (size_t i = 0; !same && s == GJ2K_OK && i < b->count; i++) {
        const tier1_gpu_block *k = &b->blocks[i];
        size_t at = k->output_offset, count = (size_t)k->width * k->height;
        if (memcmp(want + at, got + at, count * 4) != 0 || memcmp(want_low + at, got_low + at, count) ||
            want_r[i].status != got_r[i].status) {
            fprintf(stderr, "  block %zu (%ux%u, %u planes, band %u, style 0x%02x) differs\n", i,
                    k->width, k->height, k->num_planes, k->band, k->style);
            break;
        }
    }
    free(want), free(got), free(want_low), free(got_low), free(want_r), free(got_r);
    return same;
}

/* A random batch of `blocks` blocks, a third of them HT, the first three
 * of which must be refused: a reserved style bit, too many planes, a
 * segment outside the batch. */
static batch random_batch(int blocks)
{
    batch b = {0};
    ht_encode_tables *tables = xmalloc(sizeof *tables);
    ht_encode_tables_build(tables);
    for (int k = 0; k < blocks; k++) {
        uint32_t w, h;
        random_block_shape(&w, &h);
        if (k >= 3 && test_random() % 3 == 0)
            add_random_ht_block(&b, w, h, tables);
        else
            add_random_block(&b, w, h);
    }
    free(tables);
    b.blocks[0].style = 0x80;
    b.blocks[1].num_planes = 32;
    b.blocks[2].num_segments = (uint32_t)b.num_segments + 1;
    return b;
}

static void gpu_matches_host(void)
{
    tier1_gpu *gpu = open_gpu();
    /* GJ2K_GPU_TEST_CASES=N (the sanitizers' runs): one round of 10 N blocks */
    const char *cases = getenv("GJ2K_GPU_TEST_CASES");
    int rounds = cases ? 1 : 3, blocks = cases ? 10 * atoi(cases) : 400;
    blocks = blocks < 3 ? 3 : blocks;
    for (int round = 0; round < rounds; round++) {
        batch b = random_batch(blocks); /* three of which are refused alike */
        static const unsigned lanes[] = {1, 32, 5};
        tier1_gpu_set_lanes(gpu, lanes[round % 3]);
        CHECK(same_decode(gpu, &b));
        batch_free(&b);
    }
    tier1_gpu_destroy(gpu);
}

/* Places each block in one of SETS planes objects at random, at a random
 * gap after the block before, its rows a random few elements longer than
 * it; the last block's placement reaches past its planes and the one
 * before names a set that is not there, which must refuse them. Returns
 * the size of each planes object. */
#define SETS 2
static size_t random_placements(const batch *b, tier1_gpu_placement *placements)
{
    uint64_t cursor = 0;
    for (size_t i = 0; i < b->count; i++) {
        const tier1_gpu_block *k = &b->blocks[i];
        uint64_t stride = k->width + (uint64_t)test_random_range(0, 5);
        cursor += (uint64_t)test_random_range(0, 7);
        unsigned roi = test_random() % 3 == 0 ? (unsigned)test_random_range(1, 12) : 0;
        placements[i] = (tier1_gpu_placement){.origin = cursor, .stride = stride,
                                              .set = test_random() % SETS, .roi_shift = roi};
        cursor += (uint64_t)(k->height - 1) * stride + k->width;
    }
    size_t samples = (size_t)cursor + 3;
    placements[b->count - 1].origin = samples - b->blocks[b->count - 1].width / 2;
    placements[b->count - 2].set = SETS;
    return samples;
}

/* Decodes the batch into poisoned planes on the GPU and compares them with
 * the host's decode, dequantized in half steps where each block lies. */
static bool same_placed_decode(tier1_gpu *gpu, const batch *b)
{
    size_t n = b->samples ? b->samples : 1;
    int32_t *coefficients = xmalloc(n * sizeof *coefficients);
    uint8_t *lowest = xmalloc(n);
    tier1_gpu_result *want_r = xmalloc(b->count * sizeof *want_r);
    tier1_gpu_result *got_r = xmalloc(b->count * sizeof *got_r);
    tier1_gpu_placement *placements = xmalloc(b->count * sizeof *placements);
    decode_on_host(b, coefficients, lowest, want_r);
    size_t samples = random_placements(b, placements);
    want_r[b->count - 2] = want_r[b->count - 1] =
        (tier1_gpu_result){GJ2K_ERROR_INVALID_ARGUMENT, 0, 0};
    int32_t *want = xmalloc(SETS * samples * sizeof *want);
    int32_t *got = xmalloc(SETS * samples * sizeof *got);
    for (size_t i = 0; i < SETS * samples; i++)
        want[i] = got[i] = POISON_COEFFICIENT;
    for (size_t i = 0; i < b->count; i++) {
        const tier1_gpu_block *k = &b->blocks[i];
        if (want_r[i].status == GJ2K_ERROR_INVALID_ARGUMENT ||
            want_r[i].status == GJ2K_ERROR_UNSUPPORTED)
            continue; /* left alone */
        int32_t *to = want + placements[i].set * samples + placements[i].origin;
        for (uint32_t y = 0; y < k->height; y++)
            for (uint32_t x = 0; x < k->width; x++) {
                size_t from = k->output_offset + (size_t)y * k->width + x;
                int32_t q = coefficients[from];
                uint64_t magnitude = q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
                uint64_t halves = dequantize_halves(magnitude, lowest[from],
                                                    placements[i].roi_shift);
                /* modulo 2^32 as on the device (31 planes can pass 2^31) */
                int64_t value = q < 0 ? -(int64_t)halves : (int64_t)halves;
                to[y * placements[i].stride + x] = (int32_t)(uint32_t)(uint64_t)value;
            }
    }
    gj2k_error error = {0};
    tier1_gpu_planes *planes[SETS] = {NULL};
    gj2k_status s = GJ2K_OK;
    for (int k = 0; k < SETS && s == GJ2K_OK; k++) {
        s = tier1_gpu_planes_create(gpu, samples, &planes[k], &error);
        if (s == GJ2K_OK)
            s = tier1_gpu_planes_put(planes[k], 0, samples, got + k * samples, &error);
    }
    if (s == GJ2K_OK)
        s = tier1_gpu_decode_placed(gpu, b->data, b->data_size, b->segments, b->num_segments,
                                    b->blocks, b->count, placements, planes, SETS, got_r,
                                    &error);
    for (int k = 0; k < SETS && s == GJ2K_OK; k++)
        s = tier1_gpu_planes_fetch(planes[k], 0, samples, got + k * samples, &error);
    if (s != GJ2K_OK)
        fprintf(stderr, "  placed decode: %s\n", error.message);
    bool same = s == GJ2K_OK && memcmp(want, got, SETS * samples * sizeof *want) == 0;
    for (size_t i = 0; same && i < b->count; i++)
        same = want_r[i].status == got_r[i].status &&
               want_r[i].passes_decoded == got_r[i].passes_decoded &&
               want_r[i].segmentation_errors == got_r[i].segmentation_errors;
    for (size_t i = 0; !same && s == GJ2K_OK && i < SETS * samples; i++)
        if (want[i] != got[i]) {
            fprintf(stderr, "  planes differ first at %zu: %d, want %d\n", i, got[i], want[i]);
            break;
        }
    for (int k = 0; k < SETS; k++)
        tier1_gpu_planes_destroy(planes[k]);
    free(coefficients), free(lowest), free(want_r), free(got_r), free(placements);
    free(want), free(got);
    return same;
}

static void placed_matches_host(void)
{
    tier1_gpu *gpu = open_gpu();
    const char *cases = getenv("GJ2K_GPU_TEST_CASES");
    int rounds = cases ? 1 : 2, blocks = cases ? 10 * atoi(cases) : 400;
    for (int round = 0; round < rounds; round++) {
        batch b = random_batch(blocks < 5 ? 5 : blocks);
        tier1_gpu_set_lanes(gpu, round == 0 ? 1 : 32);
        CHECK(same_placed_decode(gpu, &b));
        batch_free(&b);
    }
    tier1_gpu_destroy(gpu);
}

/* Prints the time of a batch of 64x64 blocks, as coded from 8-bit images
 * losslessly (~9 planes, 30% zeros), on the GPU and on one host thread. */
/* 2048 blocks of 64x64, Part 1 or HT (all planes of the same kind of
 * coefficients: a lossless HT cleanup segment each). */
static batch bench_batch(bool ht)
{
    batch b = {0};
    int32_t *q = xmalloc(4096 * sizeof *q);
    ht_encode_tables *tables = xmalloc(sizeof *tables);
    ht_encode_tables_build(tables);
    size_t capacity = ht_cleanup_bound(64, 64);
    uint8_t *segment = xmalloc(capacity);
    for (int k = 0; k < 2048; k++) {
        for (int i = 0; i < 4096; i++)
            q[i] = test_random() % 10 < 3 ? 0 : (int32_t)test_random_range(-200, 200);
        tier1_encoded_block e = {0};
        size_t size = 0;
        unsigned passes = 1, planes = 9;
        if (ht) {
            REQUIRE_VALUE(ht_encode_cleanup(q, 64, 64, 64, 0, tables, segment, capacity,
                                            &size) == GJ2K_OK, b);
            planes = 1; /* the cleanup pass codes plane 0 up */
        } else {
            REQUIRE_VALUE(tier1_encode_block(q, 64, 64, 64, DWT_BAND_HH, 0, 9, NULL, &e) ==
                              GJ2K_OK, b);
            size = e.size;
            passes = e.num_passes;
            planes = e.num_planes;
        }
        b.segments = grow(b.segments, &b.segments_capacity, b.num_segments + 1, sizeof *b.segments);
        b.segments[b.num_segments] = (tier1_segment){size, passes};
        b.data = grow(b.data, &b.data_capacity, b.data_size + size, 1);
        memcpy(b.data + b.data_size, ht ? segment : e.data, size);
        b.blocks = grow(b.blocks, &b.capacity, b.count + 1, sizeof *b.blocks);
        b.blocks[b.count++] = (tier1_gpu_block){.data_offset = b.data_size, .size = size,
                                                .first_segment = (uint32_t)b.num_segments,
                                                .num_segments = 1, .num_planes = planes,
                                                .width = 64, .height = 64, .band = DWT_BAND_HH,
                                                .style = ht ? TIER1_STYLE_HT : 0u,
                                                .output_offset = b.samples};
        b.data_size += size;
        b.num_segments++;
        b.samples += 4096;
        tier1_encoded_block_release(&e);
    }
    free(q);
    free(tables);
    free(segment);
    return b;
}

static void bench_one(tier1_gpu *gpu, bool ht)
{
    const char *kind = ht ? "HT " : "";
    batch b = bench_batch(ht);
    int32_t *out = xmalloc(b.samples * sizeof *out);
    uint8_t *low = xmalloc(b.samples);
    tier1_gpu_result *r = xmalloc(b.count * sizeof *r);
    gj2k_error error = {0};
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = tier1_test_seconds();
        REQUIRE(tier1_gpu_decode(gpu, b.data, b.data_size, b.segments, b.num_segments, b.blocks,
                                 b.count, out, low, b.samples, r, &error) == GJ2K_OK);
        double t = tier1_test_seconds() - t0;
        best = t < best ? t : best;
    }
    /* the same blocks dequantized into planes on the device: nothing comes back */
    tier1_gpu_placement *placements = xmalloc(b.count * sizeof *placements);
    for (size_t i = 0; i < b.count; i++)
        placements[i] = (tier1_gpu_placement){.origin = b.blocks[i].output_offset, .stride = 64};
    tier1_gpu_planes *planes = NULL;
    REQUIRE(tier1_gpu_planes_create(gpu, b.samples, &planes, &error) == GJ2K_OK);
    double placed = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = tier1_test_seconds();
        REQUIRE(tier1_gpu_decode_placed(gpu, b.data, b.data_size, b.segments, b.num_segments,
                                        b.blocks, b.count, placements, &planes, 1, r,
                                        &error) == GJ2K_OK);
        double t = tier1_test_seconds() - t0;
        placed = t < placed ? t : placed;
    }
    tier1_gpu_planes_destroy(planes);
    free(placements);
    printf("tier1 %sdecode placed on the device, %zu blocks of 64x64: GPU %.2f ms "
           "(%.0f Msamples/s)\n", kind, b.count, placed * 1e3, (double)b.samples / placed / 1e6);
    double t0 = tier1_test_seconds();
    decode_on_host(&b, out, low, r);
    double host = tier1_test_seconds() - t0;
    printf("tier1 %sdecode, %zu blocks of 64x64 (%.1f MB coded): GPU %.2f ms with transfers "
           "(%.0f Msamples/s), one host thread %.2f ms (%.0f Msamples/s)\n",
           kind, b.count, (double)b.data_size / 1e6, best * 1e3, (double)b.samples / best / 1e6,
           host * 1e3, (double)b.samples / host / 1e6);
    free(out), free(low), free(r);
    batch_free(&b);
}

static void bench(void)
{
    tier1_gpu *gpu = open_gpu();
    /* GJ2K_TIER1_LANES=N: N threads of each warp at work */
    const char *lanes = getenv("GJ2K_TIER1_LANES");
    tier1_gpu_set_lanes(gpu, lanes ? (unsigned)atoi(lanes) : 0);
    bench_one(gpu, false);
    bench_one(gpu, true);
    tier1_gpu_destroy(gpu);
}

static const test_case cases[] = {
    {"gpu_matches_host", gpu_matches_host},
    {"placed_matches_host", placed_matches_host},
    {"bench", bench},
};
TEST_MAIN(cases)
