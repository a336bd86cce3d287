/* test_encode_plan.c - the encode plan's HTJ2K choices (T.814): the HT bit
 * of the code-block style from high_throughput or -M 64, Rsiz bit 14, the
 * refused combinations, and the main header it writes (CAP after SIZ). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "encode_plan.h"
#include "gj2k.h"
#include "test_harness.h"

static gj2k_image *grey_image(uint32_t width, uint32_t height, uint32_t components)
{
    gj2k_component_info info[3];
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, width, height, components, info, NULL) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < components; c++)
        for (size_t i = 0; i < (size_t)width * height; i++)
            image->components[c].samples[i] = (int32_t)((i * 7 + c) % 256);
    return image;
}

/* The plan's style and Rsiz for some options; false when the plan fails. */
static bool plan_style(const gj2k_image *image, const gj2k_encode_options *o, unsigned *style,
                       unsigned *rsiz)
{
    encode_plan plan;
    gj2k_error error = {0};
    if (encode_plan_create(image, o, GJ2K_FORMAT_J2K, &plan, &error) != GJ2K_OK)
        return false;
    *style = plan.cod.coding.code_block_style;
    *rsiz = plan.siz.capabilities;
    bool alike = true;
    for (uint32_t c = 0; c < plan.siz.num_components; c++)
        alike = alike && plan.components[c].coding.code_block_style == *style;
    encode_plan_free(&plan);
    return alike;
}

/* --ht, -M 64 and -M 72 give HT blocks and Rsiz 0x4000; Part 1 styles none. */
static void ht_style_and_rsiz(void)
{
    gj2k_image *image = grey_image(40, 24, 3);
    REQUIRE(image != NULL);
    const struct {
        gj2k_encode_options options;
        unsigned style, rsiz;
    } cases[] = {
        {{.high_throughput = true}, J2K_CBLK_HT, J2K_RSIZ_PART15},
        {{.code_block_style = 64}, J2K_CBLK_HT, J2K_RSIZ_PART15},
        {{.code_block_style = 72}, J2K_CBLK_HT | J2K_CBLK_VERTICAL_CAUSAL, J2K_RSIZ_PART15},
        {{.high_throughput = true, .code_block_style = 8},
         J2K_CBLK_HT | J2K_CBLK_VERTICAL_CAUSAL, J2K_RSIZ_PART15},
        {{.high_throughput = true, .code_block_style = 64}, J2K_CBLK_HT, J2K_RSIZ_PART15},
        {{.high_throughput = true, .irreversible = true}, J2K_CBLK_HT, J2K_RSIZ_PART15},
        {{.high_throughput = true, .num_layers = 1, .target = GJ2K_TARGET_RATIO,
          .targets = (const double[]){10.0}}, J2K_CBLK_HT, J2K_RSIZ_PART15},
        {{.code_block_style = 0}, 0, 0},
        {{.code_block_style = 63}, 63, 0},
        {{.code_block_style = 8}, 8, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned style = 0xFFFF, rsiz = 0xFFFF;
        REQUIRE(plan_style(image, &cases[i].options, &style, &rsiz));
        CHECK_EQ(style, cases[i].style);
        CHECK_EQ(rsiz, cases[i].rsiz);
    }
    gj2k_image_destroy(image);
}

/* Part 1 bits beside HT, bit 128, and HT with several layers are refused. */
static void ht_refused_combinations(void)
{
    gj2k_image *image = grey_image(40, 24, 1);
    REQUIRE(image != NULL);
    const double two[] = {20.0, 10.0};
    const struct {
        gj2k_encode_options options;
        gj2k_status status;
        const char *says;
    } cases[] = {
        {{.code_block_style = 65}, GJ2K_ERROR_INVALID_ARGUMENT, "HT (64)"},
        {{.code_block_style = 64 | 16}, GJ2K_ERROR_INVALID_ARGUMENT, "vertically causal"},
        {{.code_block_style = 64 | 32 | 8}, GJ2K_ERROR_INVALID_ARGUMENT, "64 or 72"},
        {{.code_block_style = 128}, GJ2K_ERROR_INVALID_ARGUMENT, "0..63"},
        {{.code_block_style = 192}, GJ2K_ERROR_INVALID_ARGUMENT, "HT (64)"},
        {{.high_throughput = true, .code_block_style = 1}, GJ2K_ERROR_INVALID_ARGUMENT, "HT"},
        {{.high_throughput = true, .code_block_style = 128}, GJ2K_ERROR_INVALID_ARGUMENT, "HT"},
        {{.high_throughput = true, .num_layers = 2, .target = GJ2K_TARGET_RATIO, .targets = two},
         GJ2K_ERROR_UNSUPPORTED, "one quality layer"},
        {{.code_block_style = 64, .num_layers = 2, .target = GJ2K_TARGET_RATIO, .targets = two},
         GJ2K_ERROR_UNSUPPORTED, "one quality layer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        encode_plan plan;
        gj2k_error error = {0};
        gj2k_status status = encode_plan_create(image, &cases[i].options, GJ2K_FORMAT_J2K, &plan,
                                                &error);
        printf("case %zu: %s\n", i, error.message);
        CHECK_EQ(status, cases[i].status);
        CHECK(strstr(error.message, cases[i].says) != NULL);
    }
    /* the same through the public API, which writes nothing */
    uint8_t *data = (uint8_t *)1;
    size_t size = 1;
    gj2k_error error = {0};
    gj2k_encode_options o = {.high_throughput = true, .code_block_style = 4};
    CHECK(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(data == NULL && size == 0);
    o = (gj2k_encode_options){.high_throughput = true, .num_layers = 2,
                              .target = GJ2K_TARGET_PSNR, .targets = (const double[]){30, 40}};
    CHECK(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    CHECK(data == NULL && size == 0);
    gj2k_image_destroy(image);
}

/* The plan's main header, as the encoder writes it: SIZ with Rsiz 0x4000,
 * then CAP with Ccap15 from the quantization (MAGB from the largest Mb,
 * HTIRV on the 9/7 path), then COD with style 0x40. */
static void ht_main_header(void)
{
    gj2k_image *image = grey_image(40, 24, 3);
    REQUIRE(image != NULL);
    for (int irreversible = 0; irreversible <= 1; irreversible++) {
        gj2k_encode_options o = {.high_throughput = true, .irreversible = irreversible};
        encode_plan plan;
        gj2k_error error = {0};
        REQUIRE(encode_plan_create(image, &o, GJ2K_FORMAT_J2K, &plan, &error) == GJ2K_OK);
        /* as settle_bit_planes may raise them before the headers are made */
        plan.components[1].quantization.guard_bits = 4;
        REQUIRE(encode_plan_finish_headers(&plan, NULL, &error) == GJ2K_OK);
        unsigned largest = 0;
        for (uint32_t c = 0; c < plan.siz.num_components; c++) {
            const j2k_quantization *q = &plan.components[c].quantization;
            for (unsigned s = 0; s < q->num_steps; s++) {
                unsigned mb = q->guard_bits + q->steps[s].exponent - 1u; /* T.800 E-2 */
                largest = mb > largest ? mb : largest;
            }
        }
        REQUIRE(largest > 8 && largest <= 27); /* MAGB = B - 8 (T.814 Table A.3) */
        byte_buffer out = {0};
        REQUIRE(j2k_write_main_header(&out, &plan.siz, &plan.main_header, &error) == GJ2K_OK);
        const uint8_t *p = out.data;
        size_t cap_at = 4 + ((size_t)p[4] << 8 | p[5]);
        REQUIRE(out.size > cap_at + 12);
        CHECK(p[2] == 0xFF && p[3] == 0x51 && p[6] == 0x40 && p[7] == 0x00);
        unsigned ccap15 = (unsigned)(p[cap_at + 8] << 8 | p[cap_at + 9]);
        CHECK(p[cap_at] == 0xFF && p[cap_at + 1] == 0x50 && p[cap_at + 3] == 8);
        CHECK(p[cap_at + 4] == 0x00 && p[cap_at + 5] == 0x02 && p[cap_at + 6] == 0 &&
              p[cap_at + 7] == 0);
        CHECK_EQ(ccap15, (irreversible ? 0x20u : 0u) | (largest - 8));
        CHECK(p[cap_at + 10] == 0xFF && p[cap_at + 11] == 0x52); /* COD */
        CHECK_EQ(plan.main_header.cod->coding.code_block_style, J2K_CBLK_HT);
        byte_buffer_free(&out);
        encode_plan_free(&plan);
    }
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"ht_style_and_rsiz", ht_style_and_rsiz},
    {"ht_refused_combinations", ht_refused_combinations},
    {"ht_main_header", ht_main_header},
};

TEST_MAIN(cases)
