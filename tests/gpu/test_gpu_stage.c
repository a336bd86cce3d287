/* test_gpu_stage.c - the GPU stage against the CPU reference: the same bits
 * for fresh random data of odd sizes and origins, both wavelets, forward
 * and inverse, whole and in strips (planes larger than the stage may hold);
 * byte-identical codestreams from --device gpu and cpu; the
 * same decoded images over the conformance codestreams. Every case skips
 * (exit 77) on a machine without a usable GPU. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "component_transform.h"
#include "dwt.h"
#include "gj2k.h"
#include "gpu_stage.h"
#include "gpu_test_support.h"
#include "level_shift.h"
#include "quantization.h"
#include "test_harness.h"

static gpu_stage *open_gpu(void)
{
    gpu_stage *gpu = NULL;
    gj2k_error error = {0};
    if (gpu_stage_create(0, &gpu, &error) != GJ2K_OK)
        test_skip(error.message);
    return gpu; /* each case reserves its buffers before poisoning them (case_rect) */
}

/* The rows a warp gives in the level kernels, case by case: 2 puts a
 * block boundary (and its warm-up) at every row pair; 0 is the default. */
static int rows_choice(int i)
{
    static const int choices[] = {2, 0, 6, 16, 128};
    return choices[i % 5];
}

/* Every device buffer and the host outputs start as garbage (the device's
 * by gpu_stage_poison, once a case, the host's by this byte): an element
 * left unwritten cannot pass for a result. */
#define POISON_BYTE 0xAB

static size_t area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* A plane for the strips cases: tall enough for several strips when the
 * stage may hold only a part of it (strips_limit), any origin. */
static dwt_rect random_tall_rect(void)
{
    uint32_t x0 = (uint32_t)test_random_range(0, 9), y0 = (uint32_t)test_random_range(0, 9);
    uint32_t w = (uint32_t)test_random_range(1, 260), h = (uint32_t)test_random_range(120, 700);
    return (dwt_rect){x0, y0, x0 + w, y0 + h};
}

/* A buffer size, in elements, that makes the stage take a plane `r` in
 * strips (a few dozen rows at least, and less than the plane). */
static size_t strips_limit(dwt_rect r)
{
    size_t w = r.x1 - r.x0, h = r.y1 - r.y0;
    size_t rows = (size_t)test_random_range(32, (int64_t)(h > 64 ? h - 32 : 33));
    return w * rows;
}

/* The planes a case codes: of any shape up to 300x300, tall ones taken in
 * strips, or large ones (1100x1100 to 1700x1700: a photo's planes, whose
 * copies pass 1 MiB). */
typedef enum case_shape { CASE_ANY, CASE_STRIPS, CASE_LARGE } case_shape;

static dwt_rect random_large_rect(void)
{
    uint32_t x0 = (uint32_t)test_random_range(0, 9), y0 = (uint32_t)test_random_range(0, 9);
    uint32_t w = (uint32_t)test_random_range(1100, 1700);
    uint32_t h = (uint32_t)test_random_range(1100, 1700);
    return (dwt_rect){x0, y0, x0 + w, y0 + h};
}

/* A case's plane, and the stage's buffers for it taken now, before the
 * poison reaches them: all of it, or (strips) a part of it. */
static dwt_rect case_rect(gpu_stage *gpu, case_shape shape)
{
    bool strips = shape == CASE_STRIPS;
    dwt_rect r = strips ? random_tall_rect() : shape == CASE_LARGE ? random_large_rect()
                                                                   : gpu_test_random_rect();
    size_t limit = strips ? strips_limit(r) : 0;
    gj2k_error error = {0};
    gpu_stage_set_memory_limit(gpu, limit);
    CHECK(gpu_stage_reserve(gpu, strips ? limit : area(r), &error) == GJ2K_OK);
    return r;
}

/* The CPU's forward path (as encode_tile runs it) for 1 or 3 planes. */
static void cpu_forward(int32_t **samples, uint8_t **fractions, dwt_rect r, unsigned levels,
                        uint32_t precision, bool is_signed, bool reversible, bool mct,
                        uint32_t count, const float *steps)
{
    size_t n = area(r), stride = r.x1 - r.x0;
    float *floats[3] = {NULL, NULL, NULL};
    for (uint32_t c = 0; c < count; c++) {
        level_shift_forward(samples[c], n, precision, is_signed);
        if (!reversible) {
            floats[c] = xmalloc(n * sizeof(float));
            for (size_t i = 0; i < n; i++)
                floats[c][i] = (float)samples[c][i];
        }
    }
    if (mct && reversible)
        rct_forward(samples[0], samples[1], samples[2], n);
    if (mct && !reversible)
        ict_forward(floats[0], floats[1], floats[2], n);
    for (uint32_t c = 0; c < count; c++) {
        if (reversible) {
            dwt_forward_53(samples[c], stride, r, levels);
            continue;
        }
        dwt_forward_97(floats[c], stride, r, levels);
        for (unsigned s = 0; s < 3 * levels + 1; s++) {
            unsigned level = dwt_subband_level(s, levels);
            dwt_band band = dwt_subband_band(s);
            uint32_t x, y, w, h;
            dwt_band_placement(r, level, band, &x, &y, &w, &h);
            for (uint32_t row = 0; row < h; row++) {
                size_t at = (size_t)(y + row) * stride + x;
                quant_forward_with_fractions(floats[c] + at, samples[c] + at, fractions[c] + at, w,
                                             steps[s]);
            }
        }
        free(floats[c]);
    }
}

/* A code-block layout with random code-block sizes (2^1..2^6) per band. */
static void random_layout(codeblock_layout_band *layout, dwt_rect r, unsigned levels)
{
    for (unsigned s = 0; s < 3 * levels + 1; s++) {
        dwt_rect b = dwt_band_rect(r, dwt_subband_level(s, levels), dwt_subband_band(s));
        layout[s] = (codeblock_layout_band){.x0 = b.x0, .y0 = b.y0, .x1 = b.x1, .y1 = b.y1,
                                            .width_log2 = (uint8_t)test_random_range(1, 6),
                                            .height_log2 = (uint8_t)test_random_range(1, 6)};
    }
    codeblock_layout_set_bases(layout, 3 * levels + 1);
}

/* The Mallat layout's coefficients (and fractions) moved into `layout`. */
static void reorder_to_layout(int32_t *values, uint8_t *fractions, dwt_rect r, unsigned levels,
                              const codeblock_layout_band *layout)
{
    size_t n = area(r), stride = r.x1 - r.x0;
    int32_t *v = xmalloc((n ? n : 1) * sizeof *v);
    uint8_t *f = xmalloc(n ? n : 1);
    for (unsigned s = 0; s < 3 * levels + 1; s++) {
        unsigned level = dwt_subband_level(s, levels);
        dwt_band band = dwt_subband_band(s);
        uint32_t px, py, pw, ph;
        dwt_band_placement(r, level, band, &px, &py, &pw, &ph);
        for (uint32_t j = 0; j < ph; j++)
            for (uint32_t i = 0; i < pw; i++) {
                size_t from = (size_t)(py + j) * stride + px + i;
                size_t to = codeblock_layout_offset(&layout[s], layout[s].x0 + i, layout[s].y0 + j);
                v[to] = values[from];
                f[to] = fractions[from];
            }
    }
    memcpy(values, v, n * sizeof *v);
    memcpy(fractions, f, n);
    free(v);
    free(f);
}

static void forward_case(gpu_stage *gpu, bool reversible, bool mct, case_shape shape,
                         const char *label)
{
    bool strips = shape == CASE_STRIPS;
    dwt_rect r = case_rect(gpu, shape);
    unsigned levels = (unsigned)test_random_range(0, 7);
    uint32_t precision = (uint32_t)test_random_range(1, 16);
    uint32_t count = mct ? 3 : 1;
    size_t n = area(r);
    float steps[3 * 7 + 1];
    for (unsigned s = 0; s < 3 * levels + 1; s++)
        steps[s] = (float)ldexp(1.0 + (double)test_random_range(0, 2047) / 2048.0,
                                (int)test_random_range(-4, 3));
    int32_t *cpu[3], *gpu_out[3];
    uint8_t *cpu_fr[3], *gpu_fr[3];
    void *packed[3];
    gpu_forward_plane jobs[3];
    /* Samples at storage width, as the encoder sends them, or as int32. */
    unsigned bytes = test_random_range(0, 1) ? gpu_input_bytes(precision) : 4;
    bool is_signed = test_random_range(0, 1) != 0;
    int64_t low = is_signed ? -((int64_t)1 << (precision - 1)) : 0;
    for (uint32_t c = 0; c < count; c++) {
        cpu[c] = xmalloc(n * sizeof(int32_t));
        gpu_out[c] = xmalloc(n * sizeof(int32_t));
        cpu_fr[c] = xmalloc(n ? n : 1);
        gpu_fr[c] = xmalloc(n ? n : 1);
        memset(cpu_fr[c], 0, n ? n : 1);
        memset(gpu_fr[c], 0, n ? n : 1);
        packed[c] = xmalloc((n ? n : 1) * bytes);
        for (size_t i = 0; i < n; i++) {
            cpu[c][i] = (int32_t)test_random_range(low, low + ((int64_t)1 << precision) - 1);
            if (bytes == 1)
                ((uint8_t *)packed[c])[i] = (uint8_t)cpu[c][i];
            else if (bytes == 2)
                ((uint16_t *)packed[c])[i] = (uint16_t)cpu[c][i];
            else
                ((int32_t *)packed[c])[i] = cpu[c][i];
        }
        jobs[c] = (gpu_forward_plane){.rect = r, .levels = levels, .precision = precision,
                                      .is_signed = is_signed,
                                      .input = packed[c], .input_bytes = bytes,
                                      .output = gpu_out[c], .fractions = gpu_fr[c], .steps = steps};
    }
    cpu_forward(cpu, cpu_fr, r, levels, precision, is_signed, reversible, mct, count, steps);
    /* Half the cases code-block by code-block, as the encoder takes them. */
    codeblock_layout_band layout[3 * 7 + 1];
    bool blocks = !strips && test_random_range(0, 1) != 0;
    if (blocks) {
        random_layout(layout, r, levels);
        for (uint32_t c = 0; c < count; c++) {
            reorder_to_layout(cpu[c], cpu_fr[c], r, levels, layout);
            jobs[c].layout = layout;
        }
    }
    CHECK(gpu_stage_poison(gpu, NULL) == GJ2K_OK);
    for (uint32_t c = 0; c < count; c++) {
        memset(gpu_out[c], POISON_BYTE, n * sizeof(int32_t));
        memset(gpu_fr[c], POISON_BYTE, n ? n : 1);
    }
    gj2k_error error = {0};
    gj2k_status status = gpu_forward(gpu, jobs, count, reversible, mct, NULL, NULL, &error);
    if (status != GJ2K_OK)
        printf("%s: %s\n", label, error.message);
    CHECK(status == GJ2K_OK);
    for (uint32_t c = 0; c < count; c++) {
        bool same = memcmp(cpu[c], gpu_out[c], n * sizeof(int32_t)) == 0 &&
                    (reversible || memcmp(cpu_fr[c], gpu_fr[c], n) == 0);
        if (!same)
            printf("%s: %ux%u at (%u,%u), %u levels, %u bits, component %u differs%s\n", label,
                   r.x1 - r.x0, r.y1 - r.y0, r.x0, r.y0, levels, precision, c,
                   blocks ? " (code-block layout)" : "");
        CHECK(same);
        free(cpu[c]);
        free(gpu_out[c]);
        free(cpu_fr[c]);
        free(gpu_fr[c]);
        free(packed[c]);
    }
}

static void test_forward_matches_cpu(void)
{
    gpu_stage *gpu = open_gpu();
    for (int i = 0; i < gpu_test_case_count(60); i++) {
        gpu_stage_set_rows(gpu, rows_choice(i)); /* block boundaries everywhere, and the default */
        forward_case(gpu, true, i % 2 == 0, CASE_ANY, "5/3");
        forward_case(gpu, false, i % 2 == 0, CASE_ANY, "9/7");
    }
    gpu_stage_destroy(gpu);
}

/* The decoder's dequantization (E.1.1.2) of coefficients in signed half
 * steps, band by band of the Mallat layout: ((float)|h| * 0.5f) * Delta. */
static void dequantize_halves(float *out, const int32_t *halves, dwt_rect r, unsigned levels,
                              const float *half_steps)
{
    size_t stride = r.x1 - r.x0;
    for (unsigned s = 0; s < 3 * levels + 1; s++) {
        unsigned level = dwt_subband_level(s, levels);
        dwt_band band = dwt_subband_band(s);
        uint32_t x0, y0, w, h;
        dwt_band_placement(r, level, band, &x0, &y0, &w, &h);
        float delta = half_steps[s] * 2.0f;
        for (uint32_t y = y0; y < y0 + h; y++)
            for (uint32_t x = x0; x < x0 + w; x++) {
                int32_t q = halves[y * stride + x];
                float v = (float)(q < 0 ? -(int64_t)q : q) * 0.5f * delta;
                out[y * stride + x] = q < 0 ? -v : v;
            }
    }
}

/* out_bytes: the samples back at 1, 2 or 4 bytes (the precision chosen to
 * match), or 0 for a random width. */
static void inverse_case(gpu_stage *gpu, bool reversible, bool mct, case_shape shape,
                         unsigned out_bytes, const char *label)
{
    dwt_rect r = case_rect(gpu, shape);
    unsigned levels = (unsigned)test_random_range(0, 7);
    uint32_t precision = out_bytes == 1   ? (uint32_t)test_random_range(1, 8)
                         : out_bytes == 2 ? (uint32_t)test_random_range(9, 16)
                                          : (uint32_t)test_random_range(1, 16);
    uint32_t count = mct ? 3 : 1;
    size_t n = area(r), stride = r.x1 - r.x0;
    int32_t *cpu[3], *gpu_out[3];
    float *floats[3], *gpu_floats[3];
    void *narrow[3] = {NULL, NULL, NULL};
    gpu_inverse_plane jobs[3];
    /* Samples back as int32, or at storage width as the decoder takes them. */
    unsigned bytes = out_bytes ? out_bytes
                     : test_random_range(0, 1) ? gpu_input_bytes(precision) : 4;
    int64_t range = (int64_t)1 << precision;
    bool dequantize = test_random_range(0, 1), is_signed = test_random_range(0, 1) != 0;
    float half_steps[3 * 32 + 1];
    for (unsigned s = 0; s < 3 * levels + 1; s++)
        half_steps[s] = (float)test_random_range(1, 4000) / 2048.0f * 0.5f;
    for (uint32_t c = 0; c < count; c++) {
        cpu[c] = xmalloc(n * sizeof(int32_t));
        gpu_out[c] = xmalloc(n * sizeof(int32_t));
        floats[c] = xmalloc(n * sizeof(float));
        gpu_floats[c] = xmalloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            cpu[c][i] = gpu_out[c][i] = (int32_t)test_random_range(-range, range);
            floats[c][i] = gpu_floats[c][i] = (float)test_random_range(-range * 8, range * 8) / 8.0f;
        }
        jobs[c] = (gpu_inverse_plane){.rect = r, .levels = levels, .precision = precision,
                                      .is_signed = is_signed, .samples = gpu_out[c],
                                      .floats = gpu_floats[c]};
        if (dequantize) { /* the GPU dequantizes: half steps in, as the decoder */
            for (size_t i = 0; i < n; i++)
                gpu_out[c][i] = (int32_t)test_random_range(-range * 4, range * 4);
            if (reversible)
                for (size_t i = 0; i < n; i++) /* |h| / 2 rounded down, signed */
                    cpu[c][i] = gpu_out[c][i] < 0 ? -(-gpu_out[c][i] / 2) : gpu_out[c][i] / 2;
            else
                dequantize_halves(floats[c], gpu_out[c], r, levels, half_steps);
            jobs[c].floats = NULL;
            jobs[c].halves = true;
            jobs[c].half_steps = reversible ? NULL : half_steps;
        }
        if (bytes < 4) {
            narrow[c] = xmalloc((n ? n : 1) * bytes);
            jobs[c].output = narrow[c];
            jobs[c].output_bytes = bytes;
        }
    }
    for (uint32_t c = 0; c < count; c++) {
        if (reversible)
            dwt_inverse_53(cpu[c], stride, r, levels);
        else
            dwt_inverse_97_interop(floats[c], stride, r, levels);
    }
    if (mct && reversible)
        rct_inverse(cpu[0], cpu[1], cpu[2], n);
    if (mct && !reversible)
        ict_inverse(floats[0], floats[1], floats[2], n);
    for (uint32_t c = 0; c < count; c++) {
        if (reversible)
            level_shift_inverse(cpu[c], n, precision, is_signed);
        else
            level_shift_inverse_float(floats[c], cpu[c], n, precision, is_signed);
    }
    CHECK(gpu_stage_poison(gpu, NULL) == GJ2K_OK);
    for (uint32_t c = 0; c < count; c++) {
        /* the inputs must survive the poison: the stage copies them in */
        if (narrow[c] != NULL)
            memset(narrow[c], POISON_BYTE, n * bytes);
        else if (!reversible && !dequantize) /* samples out of floats in: output only */
            memset(gpu_out[c], POISON_BYTE, n * sizeof(int32_t));
    }
    gj2k_error error = {0};
    gj2k_status status = gpu_inverse(gpu, jobs, count, reversible, mct, NULL, NULL, &error);
    if (status != GJ2K_OK)
        printf("%s: %s\n", label, error.message);
    CHECK(status == GJ2K_OK);
    for (uint32_t c = 0; c < count; c++) {
        for (size_t i = 0; narrow[c] != NULL && i < n; i++) /* widened by their sign */
            gpu_out[c][i] = bytes == 1 ? (is_signed ? ((int8_t *)narrow[c])[i] : ((uint8_t *)narrow[c])[i])
                                       : (is_signed ? ((int16_t *)narrow[c])[i] : ((uint16_t *)narrow[c])[i]);
        bool same = memcmp(cpu[c], gpu_out[c], n * sizeof(int32_t)) == 0;
        if (!same)
            printf("%s: %ux%u at (%u,%u), %u levels, component %u differs%s\n", label,
                   r.x1 - r.x0, r.y1 - r.y0, r.x0, r.y0, levels, c,
                   dequantize ? " (dequantized on the GPU)" : "");
        CHECK(same);
        free(cpu[c]);
        free(gpu_out[c]);
        free(floats[c]);
        free(gpu_floats[c]);
        free(narrow[c]);
    }
}

static void test_inverse_matches_cpu(void)
{
    gpu_stage *gpu = open_gpu();
    for (int i = 0; i < gpu_test_case_count(60); i++) {
        gpu_stage_set_rows(gpu, rows_choice(i));
        inverse_case(gpu, true, i % 2 == 0, CASE_ANY, 0, "5/3");
        inverse_case(gpu, false, i % 2 == 0, CASE_ANY, 0, "9/7");
    }
    gpu_stage_destroy(gpu);
}

/* Planes of a few MB, their samples back at 1, 2 and 4 bytes in turn, as a
 * photo's decode takes them. */
static void test_inverse_large_planes(void)
{
    static const unsigned widths[] = {1, 2, 4};
    gpu_stage *gpu = open_gpu();
    for (int i = 0; i < gpu_test_case_count(6); i++) {
        inverse_case(gpu, true, i % 2 == 0, CASE_LARGE, widths[i % 3], "5/3, large");
        inverse_case(gpu, false, i % 2 == 1, CASE_LARGE, widths[(i + 1) % 3], "9/7, large");
    }
    gpu_stage_destroy(gpu);
}

/* A photograph-like image: gradients and noise. */
static gj2k_image *make_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint32_t count,
                              uint32_t precision)
{
    gj2k_component_info info[3];
    for (uint32_t c = 0; c < count; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, x0, y0, x0 + w, y0 + h, count, info, NULL) != GJ2K_OK)
        return NULL;
    int64_t top = ((int64_t)1 << precision) - 1;
    for (uint32_t c = 0; c < count; c++)
        for (size_t i = 0; i < (size_t)w * h; i++) {
            double v = 0.5 + 0.4 * sin((double)(i % w) * 0.05 + c) * cos((double)(i / w) * 0.03);
            int64_t s = (int64_t)(v * (double)top) + test_random_range(-top / 20, top / 20);
            image->components[c].samples[i] = (int32_t)(s < 0 ? 0 : s > top ? top : s);
        }
    return image;
}

static void test_encode_same_bytes(void)
{
    gpu_stage_destroy(open_gpu());
    /* Every combination of wavelet, precision, tiling and component count
     * (one bit of i each), with a random number of levels, code-block size
     * and style, progression and (9/7) layers; Tier-1 on the GPU too. */
    for (int i = 0; i < 16; i++) {
        bool irreversible = i & 1, deep = i & 2, tiled = i & 4, one_component = i & 8;
        /* Odd sizes, large enough that a 15:1 file can hold the headers. */
        gj2k_image *image = make_image((uint32_t)test_random_range(0, 7), (uint32_t)test_random_range(0, 7),
                                       (uint32_t)test_random_range(40, 700), (uint32_t)test_random_range(40, 500),
                                       one_component ? 1 : 3, deep ? 12 : 8);
        REQUIRE(image != NULL);
        static const double ratios[3] = {40.0, 25.0, 15.0};
        uint32_t block_log2 = (uint32_t)test_random_range(2, 6);
        gj2k_encode_options o = {.irreversible = irreversible,
                                 .num_resolutions = (unsigned)test_random_range(1, 8),
                                 .tile_width = tiled ? 128 : 0, .tile_height = tiled ? 96 : 0,
                                 .code_block_width = 1u << block_log2,
                                 .code_block_height = 1u << (12 - block_log2 > 6 ? 6 : 12 - block_log2),
                                 .code_block_style = (unsigned)(test_random() % 64),
                                 .progression = (gj2k_progression)(test_random() % 5)};
        if (o.irreversible) {
            o.target = GJ2K_TARGET_RATIO;
            o.num_layers = (unsigned)test_random_range(1, 3);
            o.targets = ratios + 3 - o.num_layers;
        }
        uint8_t *bytes[2];
        size_t sizes[2];
        gj2k_encode_report report[2] = {GJ2K_ENCODE_REPORT_INIT, GJ2K_ENCODE_REPORT_INIT};
        for (int d = 0; d < 2; d++) {
            o.device = d == 0 ? GJ2K_DEVICE_CPU : GJ2K_DEVICE_GPU;
            gj2k_error error = {0};
            gj2k_status status = gj2k_encode_memory(image, &o, &bytes[d], &sizes[d], &report[d], &error);
            if (status != GJ2K_OK)
                printf("encode %d: %s\n", i, error.message);
            REQUIRE(status == GJ2K_OK);
        }
        CHECK(report[1].gpu_tiles == report[1].num_tiles);
        CHECK(report[1].gpu_blocks == report[1].num_codeblocks);
        bool same = sizes[0] == sizes[1] && memcmp(bytes[0], bytes[1], sizes[0]) == 0;
        if (!same)
            printf("case %d (%ux%u, %s, %u resolutions, blocks %ux%u style 0x%02x, %u layers):"
                   " codestreams differ\n", i, image->x1 - image->x0, image->y1 - image->y0,
                   o.irreversible ? "9/7" : "5/3", o.num_resolutions, o.code_block_width,
                   o.code_block_height, o.code_block_style, o.num_layers);
        CHECK(same);
        free(bytes[0]);
        free(bytes[1]);
        gj2k_image_destroy(image);
    }
}

static bool same_image(const gj2k_image *a, const gj2k_image *b)
{
    if (a->num_components != b->num_components)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *x = &a->components[c], *y = &b->components[c];
        if (x->width != y->width || x->height != y->height || (x->samples == NULL) != (y->samples == NULL))
            return false;
        if (x->samples && memcmp(x->samples, y->samples, (size_t)x->width * x->height * 4) != 0)
            return false;
    }
    return true;
}

/* Every conformance codestream decodes to the same image on either device. */
static void test_decode_conformance_same(void)
{
    gpu_stage_destroy(open_gpu());
    /* GJ2K_GPU_CODESTREAMS: a copy of them, where ../shared does not reach. */
    const char *dir = getenv("GJ2K_GPU_CODESTREAMS");
    if (dir == NULL)
        dir = test_shared_path("conformance/input");
    DIR *d = opendir(dir);
    if (d == NULL)
        test_skip("no conformance codestreams");
    struct dirent *e;
    int files = 0, gpu_files = 0;
    uint64_t gpu_blocks = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || (strcmp(e->d_name + len - 4, ".j2c") && strcmp(e->d_name + len - 4, ".j2k") &&
                        strcmp(e->d_name + len - 4, ".jp2")))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gj2k_image *images[2] = {NULL, NULL};
        gj2k_status status[2];
        gj2k_decode_report report[2] = {GJ2K_DECODE_REPORT_INIT, GJ2K_DECODE_REPORT_INIT};
        for (int k = 0; k < 2; k++) {
            gj2k_decode_options o = {.device = k == 0 ? GJ2K_DEVICE_CPU : GJ2K_DEVICE_GPU,
                                     .report = &report[k]};
            status[k] = gj2k_decode_file(path, &o, &images[k], NULL);
        }
        bool same = status[0] == status[1] && (status[0] != GJ2K_OK || same_image(images[0], images[1]));
        if (!same)
            printf("%s: CPU and GPU decodes differ\n", e->d_name);
        CHECK(same);
        /* and the GPU did decode it: every tile's transforms */
        bool on_gpu = status[1] != GJ2K_OK || (report[1].num_tiles == report[0].num_tiles &&
                                               report[1].gpu_tiles == report[1].num_tiles &&
                                               report[0].gpu_tiles == 0);
        if (!on_gpu)
            printf("%s: %u of %u tiles on the GPU\n", e->d_name, report[1].gpu_tiles,
                   report[1].num_tiles);
        CHECK(on_gpu);
        gpu_files += status[1] == GJ2K_OK;
        gpu_blocks += report[1].gpu_blocks;
        CHECK(report[0].gpu_blocks == 0);
        files++;
        gj2k_image_destroy(images[0]);
        gj2k_image_destroy(images[1]);
    }
    closedir(d);
    printf("%d files compared, %d decoded on the GPU, %llu code-blocks by GPU Tier-1\n", files,
           gpu_files, (unsigned long long)gpu_blocks);
    CHECK(files > 0 && gpu_files > 0 && gpu_blocks > 0);
}

/* Damaged codestreams decode on the GPU as on the CPU: the same status and
 * message, and where they decode (with allow_partial, or damage Tier-1
 * only notices), the same image. Codestreams made here, lossless and lossy
 * in every code-block style, then cut short or with bytes flipped after
 * the main header. */
static void test_corrupt_same_error(void)
{
    gpu_stage_destroy(open_gpu());
    int decoded = 0, refused = 0, streams = gpu_test_case_count(60) < 8 ? gpu_test_case_count(60) : 8;
    for (int i = 0; i < streams; i++) {
        gj2k_image *image = make_image(0, 0, (uint32_t)test_random_range(60, 300),
                                       (uint32_t)test_random_range(60, 300), 3, 8);
        REQUIRE(image != NULL);
        static const double ratio[] = {12.0};
        gj2k_encode_options o = {.irreversible = i & 1, .code_block_style = (unsigned)(i * 9 % 64),
                                 .device = GJ2K_DEVICE_CPU, .tile_width = i & 2 ? 64 : 0,
                                 .tile_height = i & 2 ? 64 : 0};
        if (o.irreversible) {
            o.target = GJ2K_TARGET_RATIO;
            o.num_layers = 1;
            o.targets = ratio;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, NULL) == GJ2K_OK);
        gj2k_image_destroy(image);
        for (int damage = 0; damage < 6; damage++) {
            uint8_t *copy = xmalloc(size);
            memcpy(copy, data, size);
            size_t n = size;
            if (damage % 2 == 0) /* cut short */
                n = (size_t)test_random_range((int64_t)size / 3, (int64_t)size - 1);
            else /* bytes flipped past the first third */
                for (int k = 0; k < 1 + damage; k++)
                    copy[test_random_range((int64_t)size / 3, (int64_t)size - 1)] ^=
                        (uint8_t)test_random_range(1, 255);
            gj2k_image *images[2] = {NULL, NULL};
            gj2k_status status[2];
            gj2k_error error[2];
            for (int k = 0; k < 2; k++) {
                gj2k_decode_options d = {.device = k == 0 ? GJ2K_DEVICE_CPU : GJ2K_DEVICE_GPU,
                                         .allow_partial = damage >= 3};
                memset(&error[k], 0, sizeof error[k]);
                status[k] = gj2k_decode_memory(copy, n, &d, &images[k], &error[k]);
            }
            bool same = status[0] == status[1] &&
                        (status[0] != GJ2K_OK ? strcmp(error[0].message, error[1].message) == 0
                                              : same_image(images[0], images[1]));
            if (!same)
                printf("case %d damage %d: CPU %s \"%s\", GPU %s \"%s\"\n", i, damage,
                       gj2k_status_name(status[0]), error[0].message, gj2k_status_name(status[1]),
                       error[1].message);
            CHECK(same);
            decoded += status[0] == GJ2K_OK;
            refused += status[0] != GJ2K_OK;
            gj2k_image_destroy(images[0]);
            gj2k_image_destroy(images[1]);
            free(copy);
        }
        free(data);
    }
    printf("%d damaged codestreams decoded alike, %d refused alike\n", decoded, refused);
}

/* Planes larger than the stage may hold go through in strips, with the
 * same results (the buffers limited to a part of each plane). */
static void test_strips_match_cpu(void)
{
    gpu_stage *gpu = open_gpu();
    for (int i = 0; i < gpu_test_case_count(60) / 2 + 1; i++) {
        gpu_stage_set_rows(gpu, rows_choice(i));
        forward_case(gpu, true, i % 2 == 0, CASE_STRIPS, "5/3 in strips");
        forward_case(gpu, false, i % 2 == 0, CASE_STRIPS, "9/7 in strips");
        inverse_case(gpu, true, i % 2 == 0, CASE_STRIPS, 0, "5/3 in strips");
        inverse_case(gpu, false, i % 2 == 0, CASE_STRIPS, 0, "9/7 in strips");
    }
    gpu_stage_destroy(gpu);
}

static const test_case cases[] = {
    {"forward_matches_cpu", test_forward_matches_cpu},
    {"inverse_matches_cpu", test_inverse_matches_cpu},
    {"inverse_large_planes", test_inverse_large_planes},
    {"strips_match_cpu", test_strips_match_cpu},
    {"encode_same_bytes", test_encode_same_bytes},
    {"decode_conformance_same", test_decode_conformance_same},
    {"corrupt_same_error", test_corrupt_same_error},
};

TEST_MAIN(cases)
