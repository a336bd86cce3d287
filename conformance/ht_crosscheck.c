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
 *   ht_crosscheck [--quick] [-v]
 *
 * One line per case on failure (all with -v), then "HT cross-check: N
 * passed, M failed". Exit 1 on any failure; 77 (skip) when ojph_compress or
 * ojph_expand is missing, except that their absence fails when CI is set. */
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

int main(int argc, char **argv)
{
    crosscheck_arguments arguments;
    if (!crosscheck_arguments_parse(argc, argv, &arguments) || arguments.operand ||
        arguments.only || arguments.opj || arguments.gj2k || arguments.equal_size) {
        printf("usage: ht_crosscheck [--quick] [-v]\n");
        return 2;
    }
    char compress[4096], expand[4096], dir[4096];
    int missing = tool_require("ojph_compress", compress, sizeof compress);
    if (!missing)
        missing = tool_require("ojph_expand", expand, sizeof expand);
    if (missing)
        return missing;
    if (!temp_dir_create("gj2k-ht", dir, sizeof dir)) {
        printf("FAIL: cannot create a temporary directory\n");
        return 1;
    }
    unsigned cases = arguments.quick ? 12 : 80, passed = 0, failed = 0;
    uint64_t state = 0x5EED0F0ADull;
    for (unsigned i = 0; i < cases; i++) {
        ht_case c = make_case(i, &state);
        char what[256], why[1024] = "";
        describe(&c, what, sizeof what);
        bool ok = run_case(&c, &state, compress, expand, dir, why, sizeof why);
        if (ok)
            passed++;
        else
            failed++;
        if (!ok || arguments.verbose)
            printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : ": ", ok ? "" : why);
    }
    temp_dir_remove(dir);
    printf("HT cross-check: %u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
