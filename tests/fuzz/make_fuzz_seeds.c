/* make_fuzz_seeds.c - writes the fuzzers' starting corpus into DIR:
 * small valid files of every readable format (DIR/<format>/), small
 * codestreams and JP2 files of varied coding options (DIR/decode/, DIR/jp2/),
 * argument lists of `gj2k encode` (DIR/encode_options/) and hand-built HT
 * code-blocks (DIR/ht_block/).
 *   make_fuzz_seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gj2k.h"

static int write_seed(const char *dir, const char *name, gj2k_file_format format,
                      const gj2k_image *image, const uint8_t *prefix, size_t prefix_size)
{
    uint8_t *data;
    size_t size;
    gj2k_error error;
    if (gj2k_image_write_memory(image, format, NULL, &data, &size, &error) != GJ2K_OK)
        return 0; /* this variant is not writable in this format: no seed */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        free(data);
        return 1;
    }
    fwrite(prefix, 1, prefix_size, f);
    fwrite(data, 1, size, f);
    fclose(f);
    free(data);
    return 0;
}

static int write_bytes(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 1;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : 1;
}

/* Small codestreams (DIR/decode) and JP2 files (DIR/decode and DIR/jp2) of
 * a 24x17 image, one per option set: the decoder's paths from the start. */
static int write_jpeg2000_seeds(const char *root)
{
    char decode_dir[1024], jp2_dir[1024];
    snprintf(decode_dir, sizeof decode_dir, "%s/decode", root);
    snprintf(jp2_dir, sizeof jp2_dir, "%s/jp2", root);
    mkdir(decode_dir, 0777);
    mkdir(jp2_dir, 0777);
    static const double ratio[2] = {4, 2}, psnr[1] = {30};
    static const gj2k_progression_change poc[2] = {
        {.tile = -1, .layer_end = 1, .resolution_end = 2, .component_end = 3,
         .progression = GJ2K_RPCL},
        {.tile = -1, .resolution_start = 2, .layer_end = 2, .resolution_end = 6,
         .component_end = 3, .progression = GJ2K_CPRL}};
    const struct {
        const char *name;
        uint32_t components, precision;
        gj2k_encode_options options;
    } cases[] = {
        {"lossless", 3, 8, {0}},
        {"grey12", 1, 12, {.num_resolutions = 3}},
        {"lossy_layers", 3, 8, {.irreversible = true, .target = GJ2K_TARGET_RATIO,
                                .num_layers = 2, .targets = ratio}},
        {"psnr", 1, 8, {.irreversible = true, .target = GJ2K_TARGET_PSNR, .num_layers = 1,
                        .targets = psnr}},
        {"tiles_rpcl", 3, 8, {.tile_width = 8, .tile_height = 8, .progression = GJ2K_RPCL,
                              .num_resolutions = 3}},
        {"precincts_sop_eph", 3, 8, {.num_precinct_sizes = 1, .precinct_width = {8},
                                     .precinct_height = {8}, .use_sop = true, .use_eph = true}},
        {"styles", 1, 8, {.code_block_style = 63, .code_block_width = 8,
                          .code_block_height = 8}},
        {"plt_tlm", 3, 8, {.use_plt = true, .use_tlm = true, .tile_width = 16,
                           .tile_height = 16}},
        {"poc", 3, 8, {.target = GJ2K_TARGET_RATIO, .num_layers = 2, .targets = ratio,
                       .progression_changes = poc, .num_progression_changes = 2}},
        {"signed16", 1, 16, {.irreversible = true}},
    };
    int failures = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gj2k_component_info info[3];
        for (uint32_t c = 0; c < 3; c++)
            info[c] = (gj2k_component_info){.dx = 1, .dy = 1,
                                            .precision = cases[k].precision,
                                            .is_signed = cases[k].precision == 16};
        gj2k_image *image;
        gj2k_error error;
        if (gj2k_image_create(&image, 0, 0, 24, 17, cases[k].components, info, &error) != GJ2K_OK)
            return 1;
        for (uint32_t c = 0; c < cases[k].components; c++)
            for (size_t i = 0; i < 24 * 17; i++) /* a ramp and some noise */
                image->components[c].samples[i] =
                    (int32_t)(((i % 24) * 9 + (i / 24) * 5 + (i * 2654435761u >> 28) + c * 30) %
                              (1u << (cases[k].precision < 12 ? cases[k].precision : 12)));
        for (int jp2 = 0; jp2 < 2; jp2++) {
            gj2k_encode_options options = cases[k].options;
            options.format = jp2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K;
            options.threads = 1;
            options.device = GJ2K_DEVICE_CPU;
            uint8_t *data;
            size_t size;
            if (gj2k_encode_memory(image, &options, &data, &size, NULL, &error) != GJ2K_OK) {
                fprintf(stderr, "make_fuzz_seeds: %s: %s\n", cases[k].name, error.message);
                failures++;
                continue;
            }
            char name[64];
            snprintf(name, sizeof name, "seed_%s.%s", cases[k].name, jp2 ? "jp2" : "j2k");
            failures += write_bytes(decode_dir, name, data, size);
            if (jp2)
                failures += write_bytes(jp2_dir, name, data, size);
            free(data);
        }
        gj2k_image_destroy(image);
    }
    return failures;
}

/* Argument lists of `gj2k encode`, one argument a line. */
static int write_argument_seeds(const char *root)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/encode_options", root);
    mkdir(dir, 0777);
    static const char *const lists[] = {
        "-i\nin.ppm\n-o\nout.j2k",
        "-i\nin.ppm\n-o\nout.jp2\n-I\n-r\n40,20,10\n-p\nRPCL",
        "-i\nin.tif\n-o\nout.j2k\n-q\n36,42,0\n-t\n64,64\n-c\n[32,32],[16,16]\n-SOP\n-EPH",
        "-i\nin.raw\n-o\nout.j2c\n-F\n16,8,3,12,u@1x1:2x2:2x2\n-n\n3\n-b\n16,16",
        "-i\nin.pgm\n-o\nout.j2k\n-POC\nT1=0,0,1,5,3,CPRL/T1=0,0,2,5,3,RLCP\n-M\n63",
        "-i\nin.pgm\n-o\nout.j2k\n--bpp\n0.5,1\n-mct\n0\n-d\n3,5\n-T\n1,2\n-PLT\n-TLM",
        "-i\nin.pgm\n-o\nout.j2k\n--bytes\n300,0\n-C\nhello\n-threads\n2",
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "seed_%zu", i);
        failures += write_bytes(dir, name, lists[i], strlen(lists[i]));
    }
    return failures;
}

/* Inputs of fuzz_ht_block (DIR/ht_block): the 12-byte request it reads
 * (see fuzz_ht_block.c), then a hand-built HT cleanup segment (T.814 7.3)
 * and the refinement segment's bytes (7.4, 7.5). */
static int write_ht_block_seeds(const char *root)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ht_block", root);
    mkdir(dir, 0777);
    /* Lcup 2 and Scup 2 (7.3.1: the last byte, then the low nibble of the
     * one before): no MagSgn bytes, and MEL reads 0xF2 with its low nibble
     * taken as ones, all 1 bits: runs of empty quads, a zero block */
    static const uint8_t empty[] = {0xF2, 0x00};
    /* Lcup 3, Scup 2: MagSgn 0x01; MEL's first bit (the MSB of 0x02 | 0x0F)
     * 0, the first quad significant; VLC from the high nibble of 0x02: 000,
     * in context 0 rho 2 without u_off (7.3.5), so U = kappa = 1 (7.3.7) and
     * the sample below the top-left one is -2^p, the MagSgn bit its sign
     * (7.3.8). In a larger block MEL and VLC go on in the same vein. */
    static const uint8_t one_quad[] = {0x01, 0x02, 0x00};
    /* SigProp forward from the start, MagRef backward from the end */
    static const uint8_t refinement[] = {0xA5, 0x3C, 0x5A};
    enum { EXACT = 0, AS_GIVEN = 2 << 3, REFUSE = 0xE0 };
    static const struct {
        const char *name;
        const uint8_t *cleanup;
        uint8_t cleanup_size, refinement_size, planes, passes, control, breaks;
        uint16_t width, height, given_l1; /* given_l1: AS_GIVEN's refinement length */
    } seeds[] = {
        {"empty_1x1", empty, 2, 0, 1, 1, EXACT, 0, 1, 1, 0},
        {"empty_37x23", empty, 2, 0, 5, 1, EXACT, 0, 37, 23, 0},
        {"empty_64x64_3_passes", empty, 2, 3, 9, 3, EXACT, 0, 64, 64, 0},
        {"empty_1024x4", empty, 2, 0, 31, 1, EXACT, 0, 1024, 4, 0},
        {"empty_4x1024_causal", empty, 2, 2, 3, 3, EXACT | 4, 0, 4, 1024, 0},
        {"one_quad_2x2", one_quad, 3, 0, 1, 1, EXACT, 0, 2, 2, 0},
        {"one_quad_2x2_2_passes", one_quad, 3, 3, 8, 2, EXACT, 0, 2, 2, 0},
        {"one_quad_5x7_3_passes", one_quad, 3, 3, 12, 3, EXACT, 0, 5, 7, 0},
        {"one_quad_16x16_causal", one_quad, 3, 3, 4, 3, EXACT | 4, 0, 16, 16, 0},
        {"one_quad_top_plane", one_quad, 3, 0, 31, 1, EXACT, 0, 8, 8, 0},
        {"one_quad_truncated", one_quad, 3, 3, 6, 3, AS_GIVEN, 0, 9, 9, 40},
        /* refused: a width above 1024; a refinement segment of 3 passes */
        {"refused_size", one_quad, 3, 0, 5, 1, REFUSE, 0x01, 1050, 4, 0},
        {"refused_passes", one_quad, 3, 3, 5, 1, REFUSE, 0x6C, 8, 8, 0},
    };
    int failures = 0;
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        uint8_t input[12 + 3 + sizeof refinement];
        const size_t data_size = (size_t)seeds[k].cleanup_size + seeds[k].refinement_size;
        const uint16_t l1 = seeds[k].control == AS_GIVEN ? seeds[k].given_l1 : 0;
        const uint8_t header[12] = {
            (uint8_t)((seeds[k].passes - 1) | seeds[k].control), seeds[k].planes,
            (uint8_t)(seeds[k].width - 1), (uint8_t)((seeds[k].width - 1) >> 8),
            (uint8_t)(seeds[k].height - 1), (uint8_t)((seeds[k].height - 1) >> 8),
            (uint8_t)k, seeds[k].cleanup_size, 0, (uint8_t)l1, (uint8_t)(l1 >> 8),
            seeds[k].breaks};
        memcpy(input, header, sizeof header);
        memcpy(input + 12, seeds[k].cleanup, seeds[k].cleanup_size);
        memcpy(input + 12 + seeds[k].cleanup_size, refinement, seeds[k].refinement_size);
        char name[64];
        snprintf(name, sizeof name, "seed_%s", seeds[k].name);
        failures += write_bytes(dir, name, input, 12 + data_size);
    }
    /* Lcup 4096 and Scup 4080, past the 4079 that 7.3.1 allows: malformed */
    static uint8_t long_suffix[12 + 4096] = {0, 5, 63, 0, 63, 0, 0};
    long_suffix[12 + 4095] = 0xFF;
    failures += write_bytes(dir, "seed_scup_too_long", long_suffix, sizeof long_suffix);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
        return 2;
    }
    static const struct { const char *name; gj2k_file_format format; } formats[] = {
        {"pnm", GJ2K_FORMAT_PNM}, {"pgx", GJ2K_FORMAT_PGX}, {"bmp", GJ2K_FORMAT_BMP},
        {"tga", GJ2K_FORMAT_TGA},
        {"png", GJ2K_FORMAT_PNG}, {"tiff", GJ2K_FORMAT_TIFF}, {"raw", GJ2K_FORMAT_RAW},
        {"rawl", GJ2K_FORMAT_RAWL},
    };
    int failures = 0;
    mkdir(argv[1], 0777);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        if (!gj2k_format_can_write(formats[f].format))
            continue;
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", argv[1], formats[f].name);
        mkdir(dir, 0777);
        for (uint32_t components = 1; components <= 4; components++)
            for (uint32_t precision = 1; precision <= 16; precision += 5) {
                gj2k_component_info info[4];
                for (uint32_t c = 0; c < 4; c++)
                    info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
                gj2k_image *image;
                gj2k_error error;
                if (gj2k_image_create(&image, 0, 0, 7, 5, components, info, &error) != GJ2K_OK)
                    return 1;
                for (uint32_t c = 0; c < components; c++)
                    for (size_t i = 0; i < 35; i++)
                        image->components[c].samples[i] =
                            (int32_t)((i * 2654435761u + c) % (1u << precision));
                if (components == 4 || components == 2)
                    image->components[components - 1].role = GJ2K_ROLE_OPACITY;
                /* The raw fuzzers read their geometry from 8 leading bytes. */
                uint8_t prefix[8] = {6, 4, (uint8_t)(components - 1), (uint8_t)(precision - 1), 0, 0, 0, 0};
                bool raw = formats[f].format == GJ2K_FORMAT_RAW || formats[f].format == GJ2K_FORMAT_RAWL;
                char name[64];
                snprintf(name, sizeof name, "seed_%uc_%ub", components, precision);
                failures += write_seed(dir, name, formats[f].format, image, prefix, raw ? 8 : 0);
                gj2k_image_destroy(image);
            }
    }
    failures += write_jpeg2000_seeds(argv[1]);
    failures += write_argument_seeds(argv[1]);
    failures += write_ht_block_seeds(argv[1]);
    return failures ? 1 : 0;
}
