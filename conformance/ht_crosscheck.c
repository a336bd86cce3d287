/* ht_crosscheck.c - gj2k's HTJ2K decoder (ITU-T T.814) against OpenJPH:
 * random images of odd sizes and origins-free layouts, one or three
 * components of 8 to 16 bits, encoded by ojph_compress over a matrix of
 * options (reversible and irreversible, 0 to 5 levels, code-block sizes,
 * tiles, progression orders, the colour transform, precincts), then decoded
 * by ojph_expand and by gj2k (on the CPU): the reversible ones must agree
 * sample for sample, the irreversible ones within +-1 (floating point) up
 * to 12 bits. Deeper irreversible ones may differ by a little more: gj2k's
 * 9/7 synthesis scales by OpenJPEG's and Grok's 1/K (dwt.h
 * DWT97_INV_K_INTEROP, 3.3e-5 of it smaller than OpenJPH's), which moves a
 * 16-bit sample by up to 3; the bound is 1 + ceil(3.3e-5 * 2^bits).
 *
 * The other way (--only encode): gj2k encodes HT over the same matrix (and
 * rate targets on irreversible ones, some with --ht-refine's SigProp and
 * MagRef passes), and ojph_expand, opj_decompress and grk_decompress decode
 * it: reversible files give the source samples in every one, irreversible
 * ones gj2k's own decoding within the bound above (OpenJPH) or +-1
 * (OpenJPEG, Grok). Grok 10.0.5 refuses blocks with refinement passes
 * ("Error in HT block coder"), so those files go to the other two only.
 *
 *   ht_crosscheck [--only decode|encode] [--quick] [-v]
 *
 * One line per case on failure (all with -v), then "HT cross-check: N
 * passed, M failed". Exit 1 on any failure; 77 (skip) when a peer's tool
 * is missing, except that its absence fails when CI is set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crosscheck_support.h"
#include "gj2k.h"

typedef struct ht_case {
    uint32_t width, height, components, precision;
    bool reversible, colour_transform, tiled;
    unsigned levels, block_log2_w, block_log2_h, order;
    double step;
    bool precincts;
} ht_case;

static uint64_t next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

static ht_case make_case(unsigned i, uint64_t *state)
{
    ht_case c;
    c.width = 1 + (uint32_t)(next(state) % (i % 5 == 0 ? 600 : 180));
    c.height = 1 + (uint32_t)(next(state) % (i % 5 == 0 ? 400 : 180));
    c.components = i % 3 == 0 ? 1 : 3;
    static const uint32_t depths[] = {8, 8, 10, 12, 16};
    c.precision = depths[next(state) % 5];
    c.reversible = i % 2 == 0;
    c.colour_transform = c.components == 3 && next(state) % 2;
    unsigned smallest = c.width < c.height ? c.width : c.height, most = 0;
    while (most < 5 && (2u << most) <= smallest)
        most++;
    c.levels = (unsigned)(next(state) % (most + 1));
    static const unsigned sizes[][2] = {{6, 6}, {5, 5}, {4, 4}, {5, 6}, {6, 4}, {3, 3}};
    unsigned s = (unsigned)(next(state) % 6);
    c.block_log2_w = sizes[s][0];
    c.block_log2_h = sizes[s][1];
    c.order = (unsigned)(next(state) % 5);
    c.tiled = next(state) % 4 == 0 && c.width > 16 && c.height > 16;
    c.precincts = next(state) % 4 == 0;
    c.step = 0.0005 * (double)(1 + next(state) % 40);
    return c;
}

/* A random image: gradients, noise and flat areas, so that every quad kind shows up. */
static gj2k_image *make_image(const ht_case *c, uint64_t *state)
{
    gj2k_component_info info[3];
    for (uint32_t k = 0; k < c->components; k++)
        info[k] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = c->precision};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, 0, 0, c->width, c->height, c->components, info, &error) != GJ2K_OK)
        return NULL;
    int64_t top = ((int64_t)1 << c->precision) - 1;
    for (uint32_t k = 0; k < c->components; k++)
        for (uint32_t y = 0; y < c->height; y++)
            for (uint32_t x = 0; x < c->width; x++) {
                int64_t v;
                uint64_t r = next(state);
                if ((x / 16 + y / 16 + k) % 5 == 0)
                    v = top / 3; /* flat */
                else if (r % 7 == 0)
                    v = (int64_t)(r % (uint64_t)(top + 1)); /* noise */
                else
                    v = ((int64_t)(x + 2 * y + 40 * k) * (top + 1) / 512 + (int64_t)(r % 9)) % (top + 1);
                image->components[k].samples[(size_t)y * c->width + x] = (int32_t)v;
            }
    return image;
}

static const char *const ORDERS[] = {"RPCL", "LRCP", "RLCP", "PCRL", "CPRL"};

static void describe(const ht_case *c, char *out, size_t size)
{
    text(out, size, "%ux%u x%u %u-bit %s%s levels %u blocks %ux%u %s%s%s", c->width, c->height,
         c->components, c->precision, c->reversible ? "reversible" : "irreversible",
         c->colour_transform ? " +CT" : "", c->levels, 1u << c->block_log2_w,
         1u << c->block_log2_h, ORDERS[c->order], c->tiled ? " tiled" : "",
         c->precincts ? " precincts" : "");
}

/* Encodes, decodes both ways, compares; true when they agree. */
static bool run_case(const ht_case *c, uint64_t *state, const char *compress, const char *expand,
                     const char *dir, char *why, size_t why_size)
{
    char source[4200], coded[4200], theirs[4200], log[4200];
    const char *extension = c->components == 3 ? "ppm" : "pgm";
    text(source, sizeof source, "%s/source.%s", dir, extension);
    text(coded, sizeof coded, "%s/coded.j2c", dir);
    text(theirs, sizeof theirs, "%s/theirs.%s", dir, extension);
    text(log, sizeof log, "%s/ojph.log", dir);
    gj2k_image *image = make_image(c, state), *expected = NULL, *mine = NULL;
    gj2k_error error = {0};
    bool ok = false;
    if (image == NULL || gj2k_image_write_file(image, source, NULL, &error) != GJ2K_OK) {
        text(why, why_size, "cannot write the source image: %s", error.message);
        goto done;
    }
    char levels[8], block[32], step[32], tile[64];
    text(levels, sizeof levels, "%u", c->levels);
    text(block, sizeof block, "{%u,%u}", 1u << c->block_log2_h, 1u << c->block_log2_w);
    text(step, sizeof step, "%g", c->step);
    text(tile, sizeof tile, "{%u,%u}", c->width / 2 + 3, c->height / 2 + 5);
    const char *args[32];
    unsigned n = 0;
    args[n++] = compress;
    args[n++] = "-i", args[n++] = source, args[n++] = "-o", args[n++] = coded;
    args[n++] = "-num_decomps", args[n++] = levels;
    args[n++] = "-block_size", args[n++] = block;
    args[n++] = "-prog_order", args[n++] = ORDERS[c->order];
    args[n++] = "-reversible", args[n++] = c->reversible ? "true" : "false";
    if (!c->reversible)
        args[n++] = "-qstep", args[n++] = step;
    if (c->components == 3)
        args[n++] = "-colour_trans", args[n++] = c->colour_transform ? "true" : "false";
    if (c->tiled)
        args[n++] = "-tile_size", args[n++] = tile;
    if (c->precincts)
        args[n++] = "-precincts", args[n++] = "{64,64},{128,128}";
    args[n] = NULL;
    int status = tool_run((char *const *)args, log);
    if (status != 0) {
        char tail[512];
        tool_log_tail(log, tail, sizeof tail);
        text(why, why_size, "ojph_compress failed (%d): %s", status, tail);
        goto done;
    }
    const char *expand_args[] = {expand, "-i", coded, "-o", theirs, NULL};
    status = tool_run((char *const *)expand_args, log);
    if (status != 0 || gj2k_image_read_file(theirs, NULL, &expected, &error) != GJ2K_OK) {
        text(why, why_size, "ojph_expand failed (%d) %s", status, error.message);
        goto done;
    }
    gj2k_decode_options options = {.threads = 1, .device = GJ2K_DEVICE_CPU};
    if (gj2k_decode_file(coded, &options, &mine, &error) != GJ2K_OK) {
        text(why, why_size, "gj2k: %s", error.message);
        goto done;
    }
    if (mine->num_components != expected->num_components) {
        text(why, why_size, "gj2k gives %u components, ojph_expand %u", mine->num_components,
             expected->num_components);
        goto done;
    }
    ok = true;
    for (uint32_t k = 0; k < mine->num_components && ok; k++) {
        int64_t largest = 0;
        int64_t allowed = c->reversible ? 0 : 1 + (int64_t)(3.3e-5 * (double)(1u << c->precision) + 0.999);
        ok = component_compare(&mine->components[k], &expected->components[k], 0, 0, allowed, k,
                               &largest, why, why_size);
    }
done:
    gj2k_image_destroy(image);
    gj2k_image_destroy(expected);
    gj2k_image_destroy(mine);
    remove(source), remove(coded), remove(theirs), remove(log);
    return ok;
}

/* ------------------------------------------------ gj2k encodes, peers decode */

typedef struct peer_tools {
    char expand[4096], opj[4096], grk[4096];
} peer_tools;

/* Decodes `coded` with grk_decompress (to PNM) or ojph_expand into *out. */
static bool peer_decode(const char *tool, const char *coded, const char *output, const char *log,
                        gj2k_image **out, char *why, size_t why_size)
{
    const char *args[] = {tool, "-i", coded, "-o", output, NULL};
    int status = tool_run((char *const *)args, log);
    gj2k_error error = {0};
    if (status != 0 || gj2k_image_read_file(output, NULL, out, &error) != GJ2K_OK) {
        char tail[512] = "";
        tool_log_tail(log, tail, sizeof tail);
        text(why, why_size, "%s failed (%d) %s %s", tool, status, error.message, tail);
        remove(output);
        return false;
    }
    remove(output);
    return true;
}

static bool images_agree(const gj2k_image *a, const gj2k_image *b, int64_t allowed,
                         const char *who, char *why, size_t why_size)
{
    if (a->num_components != b->num_components) {
        text(why, why_size, "%s: %u components, not %u", who, b->num_components,
             a->num_components);
        return false;
    }
    for (uint32_t k = 0; k < a->num_components; k++) {
        int64_t largest = 0;
        char detail[800] = "";
        if (!component_compare(&a->components[k], &b->components[k], 0, 0, allowed, k, &largest,
                               detail, sizeof detail)) {
            text(why, why_size, "%s: %s", who, detail);
            return false;
        }
    }
    return true;
}

/* gj2k encodes the case as HT; the peers decode it. */
static bool run_encode_case(const ht_case *c, unsigned index, uint64_t *state,
                            const peer_tools *tools, const char *dir, char *why, size_t why_size)
{
    char coded[4200], output[4200], log[4200];
    const char *extension = c->components == 3 ? "ppm" : "pgm";
    text(coded, sizeof coded, "%s/gj2k.j2c", dir);
    text(output, sizeof output, "%s/peer.%s", dir, extension);
    text(log, sizeof log, "%s/peer.log", dir);
    gj2k_image *image = make_image(c, state), *mine = NULL, *theirs = NULL;
    gj2k_error error = {0};
    bool ok = false;
    static const gj2k_progression orders[] = {GJ2K_RPCL, GJ2K_LRCP, GJ2K_RLCP, GJ2K_PCRL,
                                              GJ2K_CPRL};
    double ratio = 6.0 + (double)(index % 4) * 7.0;
    gj2k_encode_options options = {
        .format = GJ2K_FORMAT_J2K, .high_throughput = true, .irreversible = !c->reversible,
        .num_resolutions = c->levels + 1, .code_block_width = 1u << c->block_log2_w,
        .code_block_height = 1u << c->block_log2_h, .progression = orders[c->order],
        .mct = c->components == 3 ? (c->colour_transform ? GJ2K_MCT_ON : GJ2K_MCT_OFF)
                                  : GJ2K_MCT_AUTO,
        .threads = 1, .device = GJ2K_DEVICE_CPU};
    if (c->tiled)
        options.tile_width = c->width / 2 + 3, options.tile_height = c->height / 2 + 5;
    if (c->precincts) {
        options.num_precinct_sizes = 2;
        options.precinct_width[0] = options.precinct_height[0] = 128;
        options.precinct_width[1] = options.precinct_height[1] = 64;
    }
    if (!c->reversible && index % 3 != 0) /* rate control picks each block's plane */
        options.target = GJ2K_TARGET_RATIO, options.num_layers = 1, options.targets = &ratio;
    options.ht_refinement = !c->reversible && index % 3 == 2;
    if (image == NULL || gj2k_encode_file(image, coded, &options, NULL, &error) != GJ2K_OK) {
        text(why, why_size, "gj2k encode: %s", error.message);
        goto done;
    }
    gj2k_decode_options decode = {.threads = 1, .device = GJ2K_DEVICE_CPU};
    if (gj2k_decode_file(coded, &decode, &mine, &error) != GJ2K_OK) {
        text(why, why_size, "gj2k decode: %s", error.message);
        goto done;
    }
    const gj2k_image *expected = c->reversible ? image : mine;
    int64_t ojph_allowed =
        c->reversible ? 0 : 1 + (int64_t)(3.3e-5 * (double)(1u << c->precision) + 0.999);
    if (c->reversible && !images_agree(image, mine, 0, "gj2k", why, why_size))
        goto done;
    if (!peer_decode(tools->expand, coded, output, log, &theirs, why, why_size) ||
        !images_agree(expected, theirs, ojph_allowed, "ojph_expand", why, why_size))
        goto done;
    gj2k_image_destroy(theirs);
    theirs = NULL;
    if (!options.ht_refinement &&
        (!peer_decode(tools->grk, coded, output, log, &theirs, why, why_size) ||
         !images_agree(expected, theirs, c->reversible ? 0 : 1, "grk_decompress", why, why_size)))
        goto done;
    gj2k_image *opj[3] = {NULL, NULL, NULL};
    uint32_t count = 0;
    opj_decode_request request = {.opj = tools->opj, .dir = dir, .input = coded,
                                  .num_components = c->components};
    int64_t largest = 0;
    ok = opj_decompress_to_images(&request, opj, &count, why, why_size) &&
         decoders_compare(expected, opj, count, NULL, NULL, NULL, c->reversible ? 0 : 1,
                          &largest, why, why_size);
    for (uint32_t k = 0; k < count; k++)
        gj2k_image_destroy(opj[k]);
    if (!ok) {
        char detail[1024];
        text(detail, sizeof detail, "opj_decompress: %s", why);
        text(why, why_size, "%s", detail);
    }
done:
    gj2k_image_destroy(image);
    gj2k_image_destroy(mine);
    gj2k_image_destroy(theirs);
    remove(coded), remove(output), remove(log);
    return ok;
}

int main(int argc, char **argv)
{
    crosscheck_arguments arguments;
    if (!crosscheck_arguments_parse(argc, argv, &arguments) || arguments.operand ||
        arguments.opj || arguments.gj2k || arguments.equal_size ||
        (arguments.only && strcmp(arguments.only, "decode") != 0 &&
         strcmp(arguments.only, "encode") != 0)) {
        printf("usage: ht_crosscheck [--only decode|encode] [--quick] [-v]\n");
        return 2;
    }
    bool encoding = arguments.only && strcmp(arguments.only, "encode") == 0;
    char compress[4096], dir[4096];
    peer_tools tools;
    int missing = tool_require("ojph_expand", tools.expand, sizeof tools.expand);
    if (!missing && !encoding)
        missing = tool_require("ojph_compress", compress, sizeof compress);
    if (!missing && encoding)
        missing = tool_require("opj_decompress", tools.opj, sizeof tools.opj);
    if (!missing && encoding)
        missing = tool_require("grk_decompress", tools.grk, sizeof tools.grk);
    if (missing)
        return missing;
    if (!temp_dir_create("gj2k-ht", dir, sizeof dir)) {
        printf("FAIL: cannot create a temporary directory\n");
        return 1;
    }
    unsigned cases = arguments.quick ? 12 : encoding ? 60 : 80, passed = 0, failed = 0;
    uint64_t state = encoding ? 0xE2C0DEull : 0x5EED0F0ADull;
    for (unsigned i = 0; i < cases; i++) {
        ht_case c = make_case(i, &state);
        char what[256], why[1024] = "";
        describe(&c, what, sizeof what);
        bool ok = encoding ? run_encode_case(&c, i, &state, &tools, dir, why, sizeof why)
                           : run_case(&c, &state, compress, tools.expand, dir, why, sizeof why);
        if (ok)
            passed++;
        else
            failed++;
        if (!ok || arguments.verbose)
            printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : ": ", ok ? "" : why);
    }
    temp_dir_remove(dir);
    printf("HT cross-check (%s): %u passed, %u failed\n", encoding ? "gj2k encodes" : "gj2k decodes",
           passed, failed);
    return failed ? 1 : 0;
}
