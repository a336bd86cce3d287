/* encode_cases.c - the option matrix of the encoder cross-check and the
 * synthetic images it encodes. Each group below varies one thing of T.800's
 * coding parameters (Annex A.5, A.6) around a small default; `reverse` marks
 * the cases that opj_compress can also write from the same options, `quick`
 * the subset that the sanitizer builds run. */
#include "encode_cases.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ images */

/* SplitMix64: a small, fast, well-mixed generator; the same seed draws the
 * same image everywhere. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The picture at (u, v) in [0, 1)^2 for component c, in [0, 1]: a gradient,
 * slow waves, a bright disc and a dark rectangle with sharp edges, and a
 * zone plate (rings of rising frequency) in the bottom-right quarter, so
 * that every subband holds something and quality follows the rate. */
static double picture(double u, double v, uint32_t c)
{
    double f = 0.15 + 0.45 * u + 0.25 * v;
    f += 0.12 * sin(6.0 * u + 2.0 * c) * cos(5.0 * v + c);
    double du = u - 0.62, dv = v - 0.38;
    if (du * du + dv * dv < 0.04)
        f += 0.25 - 0.05 * c;
    if (u > 0.1 && u < 0.32 && v > 0.58 && v < 0.9)
        f = 0.85 - 0.6 * f;
    if (u > 0.5 && v > 0.5) {
        double r2 = (u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5);
        f = 0.5 + 0.3 * cos(260.0 * r2 + 0.7 * c) + 0.1 * (u - 0.5);
    }
    return f;
}

gj2k_status synthetic_image_create(const image_spec *spec, gj2k_image **out, gj2k_error *error)
{
    gj2k_component_info info[CASE_MAX_COMPONENTS];
    for (uint32_t c = 0; c < spec->num_components; c++)
        info[c] = (gj2k_component_info){.dx = spec->dx[c] ? spec->dx[c] : 1,
                                        .dy = spec->dy[c] ? spec->dy[c] : 1,
                                        .precision = spec->precision,
                                        .is_signed = spec->is_signed};
    gj2k_status status =
        gj2k_image_create(out, spec->x0, spec->y0, spec->x0 + spec->width,
                          spec->y0 + spec->height, spec->num_components, info, error);
    if (status != GJ2K_OK)
        return status;
    uint64_t state = spec->seed * 0x2545F4914F6CDD1Dull + spec->num_components;
    double peak = ldexp(1.0, (int)spec->precision) - 1;
    int32_t offset = spec->is_signed ? (int32_t)1 << (spec->precision - 1) : 0;
    for (uint32_t c = 0; c < spec->num_components; c++) {
        gj2k_component *comp = &(*out)->components[c];
        for (uint32_t y = 0; y < comp->height; y++) {
            for (uint32_t x = 0; x < comp->width; x++) {
                /* The sample's place on the reference grid, relative to the image. */
                double u = ((double)(comp->x0 + x) * comp->dx - spec->x0) / spec->width;
                double v = ((double)(comp->y0 + y) * comp->dy - spec->y0) / spec->height;
                double noise = (double)(next_random(&state) >> 11) / 9007199254740992.0 - 0.5;
                double f = picture(u, v, c) + 0.02 * noise;
                if (spec->pattern == PATTERN_FLAT)
                    f = 0.7;
                else if (spec->pattern == PATTERN_CHECKER)
                    f = (x + y + c) % 2;
                else if (spec->pattern == PATTERN_NOISE)
                    f = noise + 0.5;
                f = f < 0 ? 0 : f > 1 ? 1 : f;
                comp->samples[(size_t)y * comp->width + x] = (int32_t)lround(f * peak) - offset;
            }
        }
    }
    return GJ2K_OK;
}

/* ----------------------------------------------------------- the list */

typedef struct case_list {
    encode_case *items;
    size_t count, capacity;
    bool out_of_memory;
} case_list;

static image_spec image_of(uint32_t width, uint32_t height, uint32_t components,
                           uint32_t precision)
{
    return (image_spec){.width = width, .height = height, .num_components = components,
                        .precision = precision, .seed = width * 31u + height};
}

/* Appends a case of `image` with default options, named by `format`; the
 * pointer stays valid until the next call. NULL when memory ran out. */
__attribute__((format(printf, 3, 4))) static encode_case *
add_case(case_list *list, const image_spec *image, const char *format, ...)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 256;
        encode_case *grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL) {
            list->out_of_memory = true;
            return NULL;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    encode_case *c = &list->items[list->count++];
    *c = (encode_case){.part = PART_MATRIX, .image = *image};
    va_list args;
    va_start(args, format);
    vsnprintf(c->name, sizeof c->name, format, args);
    va_end(args);
    return c;
}

/* `count` targets of `kind`, one per layer. */
static void set_targets(encode_case *c, gj2k_rate_target kind, unsigned count, ...)
{
    va_list args;
    va_start(args, count);
    c->options.target = kind;
    c->options.num_layers = count;
    for (unsigned i = 0; i < count && i < CASE_MAX_TARGETS; i++)
        c->targets[i] = va_arg(args, double);
    va_end(args);
}

/* Precinct sizes (square), highest resolution first. */
static void set_precincts(encode_case *c, unsigned count, const uint32_t *sizes)
{
    c->options.num_precinct_sizes = count;
    for (unsigned i = 0; i < count; i++)
        c->options.precinct_width[i] = c->options.precinct_height[i] = sizes[i];
}

const char *progression_name(gj2k_progression progression)
{
    static const char *const names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    return (unsigned)progression < 5 ? names[progression] : "?";
}

/* ------------------------------------------------------------ groups */

/* Decomposition levels 0..10 (num_resolutions 1..11), both wavelets. */
static void add_level_cases(case_list *list)
{
    image_spec grey = image_of(211, 157, 1, 8);
    for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
        for (unsigned n = 1; n <= 11; n++) {
            encode_case *c = add_case(list, &grey, "levels-%s-n%u",
                                      irreversible ? "9x7" : "5x3", n);
            if (c == NULL)
                return;
            c->options.irreversible = irreversible;
            c->options.num_resolutions = n;
            /* opj_compress wants 2^(n-1) <= the tile's size: 2^7 <= 157 */
            c->reverse = n == 1 || n == 6 || n == 8;
            c->quick = (n == 1 && !irreversible) || n == 11;
        }
    }
}

/* The most levels Part 1 allows: 32 (num_resolutions 33), beyond the image. */
static void add_deepest_level_cases(case_list *list)
{
    image_spec grey = image_of(67, 45, 1, 8);
    for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
        encode_case *c = add_case(list, &grey, "levels-%s-n33", irreversible ? "9x7" : "5x3");
        if (c == NULL)
            return;
        c->options.irreversible = irreversible;
        c->options.num_resolutions = 33;
    }
}

/* Code-block sizes (A.6.1: 2^2..2^10 each side, at most 4096 coefficients). */
static void add_code_block_cases(case_list *list)
{
    static const uint32_t sizes[][2] = {{64, 64}, {32, 16}, {4, 4},    {1024, 4}, {4, 1024},
                                        {16, 256}, {8, 8},  {128, 32}, {256, 16}};
    image_spec rgb = image_of(97, 75, 3, 8);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
            encode_case *c = add_case(list, &rgb, "code-block-%ux%u-%s", (unsigned)sizes[i][0],
                                      (unsigned)sizes[i][1], irreversible ? "9x7-r12" : "5x3");
            if (c == NULL)
                return;
            c->options.code_block_width = sizes[i][0];
            c->options.code_block_height = sizes[i][1];
            if (irreversible) {
                c->options.irreversible = true;
                set_targets(c, GJ2K_TARGET_RATIO, 1, 12.0);
            }
            c->reverse = !irreversible && (i == 1 || i == 2 || i == 3);
            c->quick = i == 2 || (i == 3 && irreversible);
        }
    }
}

/* Precincts (A.6.1, B.6), with code-blocks larger than the precincts allow. */
static void add_precinct_cases(case_list *list)
{
    static const uint32_t one[] = {32}, three[] = {128, 64, 32}, small[] = {16},
                          mixed[] = {64, 16, 8};
    image_spec rgb = image_of(150, 101, 3, 8);
    encode_case *c = add_case(list, &rgb, "precincts-32-rpcl-5x3");
    if (c == NULL)
        return;
    set_precincts(c, 1, one);
    c->options.progression = GJ2K_RPCL;
    c->reverse = c->quick = true;
    if ((c = add_case(list, &rgb, "precincts-128-64-32-pcrl-cb32-5x3")) == NULL)
        return;
    set_precincts(c, 3, three);
    c->options.progression = GJ2K_PCRL;
    c->options.code_block_width = c->options.code_block_height = 32;
    c->reverse = true;
    if ((c = add_case(list, &rgb, "precincts-16-cprl-cb8-9x7-3layers")) == NULL)
        return;
    set_precincts(c, 1, small);
    c->options.progression = GJ2K_CPRL;
    c->options.code_block_width = c->options.code_block_height = 8;
    c->options.irreversible = true;
    set_targets(c, GJ2K_TARGET_RATIO, 3, 40.0, 20.0, 8.0);
    /* Not reversed: opj_compress halves 16 down to PPx = 0 at resolution 1,
     * which B.6 does not allow (PPx - 1 there) and gj2k's decoder refuses. */
    if ((c = add_case(list, &rgb, "precincts-64-16-8-lrcp-n4-5x3-2layers")) == NULL)
        return;
    set_precincts(c, 3, mixed);
    c->options.num_resolutions = 4;
    set_targets(c, GJ2K_TARGET_RATIO, 2, 10.0, 1.0);
    if ((c = add_case(list, &rgb, "precincts-16-rlcp-tiles-odd-origin-9x7")) == NULL)
        return;
    c->image.x0 = 7;
    c->image.y0 = 3;
    set_precincts(c, 1, small);
    c->options.progression = GJ2K_RLCP;
    c->options.tile_width = 64;
    c->options.tile_height = 40;
    c->options.tile_x0 = 5;
    c->options.tile_y0 = 1;
    c->options.irreversible = true;
    c->quick = true;
}

/* Tiles (B.3) and the image and tile-grid origins (B.2). */
static void add_tile_cases(case_list *list)
{
    image_spec rgb = image_of(213, 150, 3, 8);
    struct {
        const char *name;
        uint32_t x0, y0, tw, th, tx0, ty0;
        unsigned resolutions;
        bool irreversible, quick;
    } const tilings[] = {
        {"tiles-64x48-origin-13-7-grid-5-3", 13, 7, 64, 48, 5, 3, 0, false, true},
        {"tiles-64x48-origin-13-7-grid-5-3-9x7", 13, 7, 64, 48, 5, 3, 0, true, false},
        {"tiles-37x29-origin-3-11-grid-2-9-n4", 3, 11, 37, 29, 2, 9, 4, false, false},
        {"tiles-16x16-n6", 0, 0, 16, 16, 0, 0, 6, false, false},
        {"tiles-8x8-n2-9x7", 1, 1, 8, 8, 0, 0, 2, true, false},
        {"tiles-200x1-origin-0-1", 0, 1, 200, 1, 0, 1, 3, false, false},
        {"tiles-grid-beyond-origin-1000-1000", 1000, 1000, 128, 128, 950, 999, 0, false, true},
    };
    for (size_t i = 0; i < sizeof tilings / sizeof tilings[0]; i++) {
        encode_case *c = add_case(list, &rgb, "%s", tilings[i].name);
        if (c == NULL)
            return;
        c->image.x0 = tilings[i].x0;
        c->image.y0 = tilings[i].y0;
        c->options.tile_width = tilings[i].tw;
        c->options.tile_height = tilings[i].th;
        c->options.tile_x0 = tilings[i].tx0;
        c->options.tile_y0 = tilings[i].ty0;
        c->options.num_resolutions = tilings[i].resolutions;
        c->options.irreversible = tilings[i].irreversible;
        c->reverse = i < 3;
        c->quick = tilings[i].quick;
    }
}

/* Every progression order (B.12), lossless in layers with tiles and
 * precincts, and lossy in layers; then progression order changes (A.6.6). */
static void add_progression_cases(case_list *list)
{
    static const uint32_t precincts[] = {64, 32};
    image_spec rgb = image_of(160, 120, 3, 8);
    for (unsigned p = 0; p < 5; p++) {
        encode_case *c = add_case(list, &rgb, "progression-%s-tiles-precincts-5x3-3layers",
                                  progression_name((gj2k_progression)p));
        if (c == NULL)
            return;
        c->options.progression = (gj2k_progression)p;
        c->options.tile_width = 96;
        c->options.tile_height = 64;
        set_precincts(c, 2, precincts);
        set_targets(c, GJ2K_TARGET_RATIO, 3, 30.0, 10.0, 1.0);
        c->reverse = true;
        c->quick = p == GJ2K_PCRL;
        c = add_case(list, &rgb, "progression-%s-9x7-3layers",
                     progression_name((gj2k_progression)p));
        if (c == NULL)
            return;
        c->options.progression = (gj2k_progression)p;
        c->options.irreversible = true;
        set_targets(c, GJ2K_TARGET_RATIO, 3, 50.0, 20.0, 8.0);
        c->reverse = true;
        c->quick = p == GJ2K_CPRL;
    }
    /* Resolutions 0..2 of every layer in RPCL, then the rest in LRCP. */
    encode_case *c = add_case(list, &rgb, "poc-main-rpcl-then-lrcp-3layers");
    if (c == NULL)
        return;
    set_targets(c, GJ2K_TARGET_RATIO, 3, 30.0, 10.0, 1.0);
    c->options.num_progression_changes = 2;
    c->changes[0] = (gj2k_progression_change){-1, 0, 0, 3, 3, 3, GJ2K_RPCL};
    c->changes[1] = (gj2k_progression_change){-1, 0, 0, 3, 6, 3, GJ2K_LRCP};
    /* Not reversed: opj_compress 2.5.0 writes these changes (-POC T1=...)
     * into a file that no decoder (opj, grk, gj2k) restores losslessly. */
    c->quick = true;
    /* Tile 1 only: components 0..1 first in CPRL, then everything in RLCP. */
    if ((c = add_case(list, &rgb, "poc-tile1-cprl-then-rlcp-9x7-2layers")) == NULL)
        return;
    c->options.irreversible = true;
    c->options.tile_width = 80;
    c->options.tile_height = 120;
    set_targets(c, GJ2K_TARGET_RATIO, 2, 30.0, 10.0);
    c->options.num_progression_changes = 2;
    c->changes[0] = (gj2k_progression_change){1, 0, 0, 2, 6, 2, GJ2K_CPRL};
    c->changes[1] = (gj2k_progression_change){1, 0, 0, 2, 6, 3, GJ2K_RLCP};
}

/* The position-driven progressions (B.12.1.3-5), whose precinct order
 * depends on subsampling and on the tile and image origins. */
static void add_position_progression_cases(case_list *list)
{
    static const uint32_t precincts[] = {32, 16};
    static const gj2k_progression orders[] = {GJ2K_RPCL, GJ2K_PCRL, GJ2K_CPRL};
    for (size_t p = 0; p < 3; p++) {
        for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
            /* 143 wide: the last tile column keeps a sample of every component. */
            image_spec image = image_of(143, 99, 3, 8);
            image.x0 = 5;
            image.y0 = 3;
            image.dx[1] = image.dx[2] = image.dy[1] = image.dy[2] = 2;
            encode_case *c = add_case(list, &image, "position-%s-420-origin-tiles-precincts-%s",
                                      progression_name(orders[p]),
                                      irreversible ? "9x7-2layers" : "5x3-lossless-2layers");
            if (c == NULL)
                return;
            c->options.progression = orders[p];
            c->options.irreversible = irreversible;
            c->options.tile_width = 48;
            c->options.tile_height = 40;
            c->options.tile_x0 = 1;
            c->options.tile_y0 = 2;
            set_precincts(c, 2, precincts);
            /* Layer 1 holds an empty packet per precinct: 20 is feasible. */
            if (irreversible)
                set_targets(c, GJ2K_TARGET_RATIO, 2, 20.0, 8.0);
            else
                set_targets(c, GJ2K_TARGET_RATIO, 2, 20.0, 1.0);
            c->quick = p == 1;
        }
        image_spec odd = image_of(103, 77, 2, 8);
        odd.x0 = 7;
        odd.y0 = 2;
        odd.dx[1] = 5;
        odd.dy[1] = 3;
        encode_case *c = add_case(list, &odd, "position-%s-2comp-5x3-subsampling-tiles-precincts",
                                  progression_name(orders[p]));
        if (c == NULL)
            return;
        c->options.progression = orders[p];
        c->options.tile_width = c->options.tile_height = 40;
        c->options.num_resolutions = 4;
        set_precincts(c, 2, precincts);
    }
}

/* Quality layers of every kind of target (gj2k_rate_target). */
static void add_layer_cases(case_list *list)
{
    image_spec rgb = image_of(181, 133, 3, 8);
    encode_case *c = add_case(list, &rgb, "layers-ratio-30-10-1-5x3-lossless");
    if (c == NULL)
        return;
    set_targets(c, GJ2K_TARGET_RATIO, 3, 30.0, 10.0, 1.0);
    c->reverse = c->quick = true;
    if ((c = add_case(list, &rgb, "layers-ratio-80-40-20-10-5-9x7")) == NULL)
        return;
    c->options.irreversible = true;
    set_targets(c, GJ2K_TARGET_RATIO, 5, 80.0, 40.0, 20.0, 10.0, 5.0);
    c->reverse = true;
    if ((c = add_case(list, &rgb, "layers-ratio-20-5x3-lossy")) == NULL)
        return;
    set_targets(c, GJ2K_TARGET_RATIO, 1, 20.0);
    c->reverse = c->quick = true;
    if ((c = add_case(list, &rgb, "layers-psnr-30-36-42-9x7")) == NULL)
        return;
    c->options.irreversible = true;
    set_targets(c, GJ2K_TARGET_PSNR, 3, 30.0, 36.0, 42.0);
    if ((c = add_case(list, &rgb, "layers-psnr-35-0-5x3-lossless")) == NULL)
        return;
    set_targets(c, GJ2K_TARGET_PSNR, 2, 35.0, 0.0);
    if ((c = add_case(list, &rgb, "layers-bpp-0.5-1-2-9x7")) == NULL)
        return;
    c->options.irreversible = true;
    set_targets(c, GJ2K_TARGET_BPP, 3, 0.5, 1.0, 2.0);
    if ((c = add_case(list, &rgb, "layers-bytes-1000-3000-6000-5x3")) == NULL)
        return;
    set_targets(c, GJ2K_TARGET_BYTES, 3, 1000.0, 3000.0, 6000.0);
    c->quick = true;
    if ((c = add_case(list, &rgb, "layers-12-ratio-200-to-3-bypass-cb16-9x7")) == NULL)
        return;
    c->options.irreversible = true;
    c->options.code_block_style = 1;
    c->options.code_block_width = c->options.code_block_height = 16;
    set_targets(c, GJ2K_TARGET_RATIO, 12, 200.0, 150.0, 110.0, 80.0, 60.0, 45.0, 32.0, 24.0, 16.0,
                10.0, 6.0, 3.0);
    c->reverse = true;
    if ((c = add_case(list, &rgb, "layers-ratio-9x7-irreversible-lossless-last")) == NULL)
        return;
    c->options.irreversible = true;
    set_targets(c, GJ2K_TARGET_RATIO, 2, 25.0, 0.0);
}

/* Code-block styles (Table A.19): every combination losslessly, a sample in
 * lossy layers (where termination and bypass meet truncation). */
static void add_style_cases(case_list *list)
{
    image_spec rgb = image_of(67, 45, 3, 8);
    for (unsigned style = 1; style <= 63; style++) {
        encode_case *c = add_case(list, &rgb, "style-M%u-5x3", style);
        if (c == NULL)
            return;
        c->options.code_block_style = style;
        c->options.code_block_width = c->options.code_block_height = 16;
        c->reverse = style == 1 || style == 38 || style == 63;
        c->quick = style == 1 || style == 4 || style == 38 || style == 63;
    }
    static const unsigned lossy[] = {1, 2, 4, 8, 16, 32, 5, 17, 38, 63};
    image_spec larger = image_of(130, 97, 3, 8);
    for (size_t i = 0; i < sizeof lossy / sizeof lossy[0]; i++) {
        encode_case *c = add_case(list, &larger, "style-M%u-9x7-3layers", lossy[i]);
        if (c == NULL)
            return;
        c->options.code_block_style = lossy[i];
        c->options.code_block_width = c->options.code_block_height = 32;
        c->options.irreversible = true;
        set_targets(c, GJ2K_TARGET_RATIO, 3, 40.0, 15.0, 6.0);
        c->reverse = lossy[i] == 63 || lossy[i] == 5;
        c->quick = lossy[i] == 63;
    }
}

/* SOP, EPH (A.8), PLT (A.7.3), TLM (A.7.1), alone and together. */
static void add_marker_cases(case_list *list)
{
    image_spec rgb = image_of(140, 90, 3, 8);
    for (unsigned mask = 1; mask <= 15; mask++) {
        if (mask != 1 && mask != 2 && mask != 3 && mask != 4 && mask != 8 && mask != 15)
            continue;
        for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
            encode_case *c = add_case(list, &rgb, "markers%s%s%s%s-%s", mask & 1 ? "-SOP" : "",
                                      mask & 2 ? "-EPH" : "", mask & 4 ? "-PLT" : "",
                                      mask & 8 ? "-TLM" : "", irreversible ? "9x7-2layers" : "5x3");
            if (c == NULL)
                return;
            c->options.use_sop = mask & 1;
            c->options.use_eph = mask & 2;
            c->options.use_plt = mask & 4;
            c->options.use_tlm = mask & 8;
            c->options.tile_width = c->options.tile_height = 64;
            if (irreversible) {
                c->options.irreversible = true;
                /* Layer 1 must hold every packet's SOP and EPH: 12 is feasible. */
                set_targets(c, GJ2K_TARGET_RATIO, 2, 12.0, 5.0);
            }
            c->reverse = mask == 15 || mask == 3;
            c->quick = mask == 15;
        }
    }
}

/* Tile-parts (A.4.2, opj's -TP R|L|C), two progressions, tiled, 9/7, TLM, PLT. */
static void add_tile_part_cases(case_list *list)
{
    image_spec rgb = image_of(150, 100, 3, 8);
    static const gj2k_progression progressions[] = {GJ2K_LRCP, GJ2K_CPRL};
    for (int split = GJ2K_TILE_PARTS_RESOLUTION; split <= GJ2K_TILE_PARTS_COMPONENT; split++)
        for (size_t p = 0; p < 2; p++) {
            encode_case *c = add_case(list, &rgb, "tile-parts-%c-%s", "ORLC"[split],
                                      progression_name(progressions[p]));
            if (c == NULL)
                return;
            c->options.tile_parts = (gj2k_tile_parts)split;
            c->options.progression = progressions[p];
            c->options.tile_width = c->options.tile_height = 64;
            c->options.use_tlm = c->options.use_plt = c->options.irreversible = true;
            /* room for 36 tile-parts' headers a tile (-TP L with CPRL) and TLM's */
            set_targets(c, GJ2K_TARGET_RATIO, 2, 5.0, 2.0);
            c->reverse = p == 1;
            c->quick = split == GJ2K_TILE_PARTS_COMPONENT && p == 1;
        }
}

/* 1..4 components, with and without the component transform (Annex G). */
static void add_component_cases(case_list *list)
{
    static const gj2k_mct_mode modes[] = {GJ2K_MCT_AUTO, GJ2K_MCT_OFF, GJ2K_MCT_ON};
    static const char *const mode_names[] = {"auto", "off", "on"};
    for (uint32_t n = 1; n <= 4; n++) {
        for (unsigned m = 0; m < 3; m++) {
            if (n < 3 && m == 2)
                continue; /* -mct on needs three components */
            for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
                image_spec image = image_of(77 + n, 51, n, 8);
                encode_case *c = add_case(list, &image, "components-%u-mct-%s-%s", (unsigned)n,
                                          mode_names[m], irreversible ? "9x7" : "5x3");
                if (c == NULL)
                    return;
                c->options.mct = modes[m];
                c->options.irreversible = irreversible;
                c->reverse = m != 0 || n == 2 || n == 4;
                c->quick = (n == 4 && m == 0) || (n == 3 && m == 1 && irreversible);
            }
        }
    }
}

/* Precision 1..24 (the encoder's range), unsigned and signed, three
 * components (the component transform) up to 16 bits, and the guard bits.
 * opj_compress reads raw samples of 1, 8, 12 and 16 bits here (2, 5, 10 and
 * 14 it refuses: "Unable to load raw"). */
static void add_precision_cases(case_list *list)
{
    static const uint32_t precisions[] = {1, 2, 5, 8, 10, 12, 14, 16, 20, 24};
    for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++) {
        for (unsigned is_signed = 0; is_signed <= 1; is_signed++) {
            for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
                uint32_t p = precisions[i];
                image_spec image = image_of(90, 70, p > 16 ? 1 : 3, p);
                image.is_signed = is_signed;
                encode_case *c = add_case(list, &image, "precision-%u-%s-%s", (unsigned)p,
                                          is_signed ? "signed" : "unsigned",
                                          irreversible ? "9x7" : "5x3");
                if (c == NULL)
                    return;
                c->options.irreversible = irreversible;
                c->reverse = p == 1 || p == 8 || p == 12 || p == 16;
                c->quick = p == 16 || (p == 1 && !is_signed);
            }
        }
    }
    image_spec deep = image_of(64, 64, 1, 16);
    for (unsigned guard = 1; guard <= 7; guard += 3) {
        encode_case *c = add_case(list, &deep, "guard-bits-%u-16bit-n8", guard);
        if (c == NULL)
            return;
        c->options.guard_bits = guard;
        c->options.num_resolutions = 8;
    }
}

/* Content at the edges of what coding sees: flat (no bit-planes anywhere),
 * a checkerboard of the extremes (the largest high-pass coefficients, which
 * need the most guard bits: E.1) and full-range noise (every pass costs). */
static void add_extreme_content_cases(case_list *list)
{
    static const char *const pattern_names[] = {"picture", "flat", "checker", "noise"};
    static const uint32_t precisions[] = {8, 16};
    for (unsigned pattern = PATTERN_FLAT; pattern <= PATTERN_NOISE; pattern++) {
        for (size_t i = 0; i < 2; i++) {
            for (unsigned variant = 0; variant < 3; variant++) {
                image_spec image = image_of(61, 47, 3, precisions[i]);
                image.pattern = (image_pattern)pattern;
                image.is_signed = variant == 1;
                static const char *const variant_names[] = {"5x3", "5x3-signed-guard1-n9",
                                                            "9x7-r10-2layers"};
                encode_case *c = add_case(list, &image, "content-%s-%u-%s",
                                          pattern_names[pattern], (unsigned)precisions[i],
                                          variant_names[variant]);
                if (c == NULL)
                    return;
                if (variant == 1) {
                    c->options.guard_bits = 1; /* raised where a band needs more */
                    c->options.num_resolutions = 9;
                }
                if (variant == 2) {
                    c->options.irreversible = true;
                    set_targets(c, GJ2K_TARGET_RATIO, 2, 10.0, 4.0);
                }
                c->reverse = variant == 0;
                c->quick = pattern == PATTERN_CHECKER && i == 1;
            }
        }
    }
}

/* Subsampled components (SIZ XRsiz, YRsiz), with odd origins and tiles. */
static void add_subsampling_cases(case_list *list)
{
    struct {
        const char *name;
        uint32_t components, x0, y0, tile, tile_x0;
        uint8_t dx[4], dy[4];
        bool irreversible, quick;
    } const layouts[] = {
        {"subsampled-420", 3, 0, 0, 0, 0, {1, 2, 2}, {1, 2, 2}, false, true},
        {"subsampled-422-9x7", 3, 0, 0, 0, 0, {1, 2, 2}, {1, 1, 1}, true, false},
        {"subsampled-420-origin-3-5-tiles-32", 3, 3, 5, 32, 0, {1, 2, 2}, {1, 2, 2}, false, true},
        {"subsampled-grey-2x2-origin-1-1", 1, 1, 1, 0, 0, {2}, {2}, false, false},
        {"subsampled-4comp-3x1-1x3-9x7", 4, 2, 0, 0, 0, {1, 3, 1, 2}, {1, 1, 3, 2}, true, false},
        {"subsampled-2comp-odd-tiles-9x7", 2, 5, 7, 24, 0, {2, 1}, {1, 2}, true, false},
        /* The last tile column is one sample wide on the reference grid, none
         * on components 1 and 2 (B-12): tile-components without samples. */
        {"subsampled-420-empty-tile-components", 3, 25, 0, 48, 1, {1, 2, 2}, {1, 2, 2}, false,
         true},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        image_spec image = image_of(121, 83, layouts[i].components, 8);
        image.x0 = layouts[i].x0;
        image.y0 = layouts[i].y0;
        memcpy(image.dx, layouts[i].dx, sizeof image.dx);
        memcpy(image.dy, layouts[i].dy, sizeof image.dy);
        encode_case *c = add_case(list, &image, "%s", layouts[i].name);
        if (c == NULL)
            return;
        c->options.irreversible = layouts[i].irreversible;
        c->options.tile_width = c->options.tile_height = layouts[i].tile;
        c->options.tile_x0 = layouts[i].tile_x0;
        c->quick = layouts[i].quick;
    }
}

/* Odd sizes down to 1x1, at odd origins, with more levels than samples. */
static void add_small_image_cases(case_list *list)
{
    static const uint32_t sizes[][4] = {/* width, height, x0, y0 */
                                        {1, 1, 0, 0},  {1, 1, 5, 3},  {2, 1, 0, 0},
                                        {1, 2, 1, 0},  {3, 3, 0, 0},  {1, 17, 0, 0},
                                        {17, 1, 3, 0}, {5, 7, 1, 1},  {2, 2, 1, 1},
                                        {33, 31, 7, 9}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (unsigned variant = 0; variant < 3; variant++) {
            image_spec image = image_of(sizes[i][0], sizes[i][1], variant == 2 ? 3 : 1, 8);
            image.x0 = sizes[i][2];
            image.y0 = sizes[i][3];
            static const unsigned resolutions[] = {1, 11, 6};
            encode_case *c = add_case(list, &image, "small-%ux%u-at-%u-%u-n%u-%s",
                                      (unsigned)image.width, (unsigned)image.height,
                                      (unsigned)image.x0, (unsigned)image.y0,
                                      resolutions[variant], variant == 2 ? "9x7-rgb" : "5x3");
            if (c == NULL)
                return;
            c->options.num_resolutions = resolutions[variant];
            c->options.irreversible = variant == 2;
            c->reverse = variant == 0;
            c->quick = i < 2 || i == 7;
        }
    }
}

/* JP2 files (Annex I) of each kind of image. */
static void add_jp2_cases(case_list *list)
{
    struct {
        const char *name;
        uint32_t components, precision;
        bool is_signed, irreversible, quick;
    } const kinds[] = {
        {"jp2-grey-8", 1, 8, false, false, true},
        {"jp2-grey-alpha-8", 2, 8, false, false, false},
        {"jp2-rgb-8-9x7", 3, 8, false, true, true},
        {"jp2-rgba-8", 4, 8, false, false, false},
        {"jp2-rgb-12", 3, 12, false, false, false},
        {"jp2-grey-16-signed", 1, 16, true, false, false},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        image_spec image = image_of(99, 66, kinds[i].components, kinds[i].precision);
        image.is_signed = kinds[i].is_signed;
        encode_case *c = add_case(list, &image, "%s", kinds[i].name);
        if (c == NULL)
            return;
        c->options.format = GJ2K_FORMAT_JP2;
        c->options.irreversible = kinds[i].irreversible;
        c->reverse = i < 3;
        c->quick = kinds[i].quick;
    }
    image_spec sub = image_of(99, 66, 3, 8);
    sub.dx[1] = sub.dx[2] = sub.dy[1] = sub.dy[2] = 2;
    encode_case *c = add_case(list, &sub, "jp2-420-9x7-r10-markers");
    if (c == NULL)
        return;
    c->options.format = GJ2K_FORMAT_JP2;
    c->options.irreversible = true;
    c->options.use_sop = c->options.use_eph = c->options.use_plt = c->options.use_tlm = true;
    set_targets(c, GJ2K_TARGET_RATIO, 1, 10.0);
}

/* Rate control: images large enough that 1% is many code-block passes. */
static void add_rate_cases(case_list *list)
{
    image_spec images[3] = {image_of(512, 384, 3, 8), image_of(480, 360, 1, 12),
                            image_of(400, 300, 4, 16)};
    images[2].is_signed = true;
    static const char *const image_names[] = {"rgb8", "grey12", "rgba16s"};
    for (unsigned i = 0; i < 3; i++) {
        for (unsigned irreversible = 0; irreversible <= 1; irreversible++) {
            const char *w = irreversible ? "9x7" : "5x3";
            static const double ratios[] = {8, 20, 50, 150};
            for (size_t r = 0; r < 4; r++) {
                encode_case *c = add_case(list, &images[i], "rate-%s-%s-ratio-%g", image_names[i],
                                          w, ratios[r]);
                if (c == NULL)
                    return;
                c->part = PART_RATE;
                c->options.irreversible = irreversible;
                set_targets(c, GJ2K_TARGET_RATIO, 1, ratios[r]);
                c->quick = r == 1 && i == 0;
            }
            encode_case *c = add_case(list, &images[i], "rate-%s-%s-bpp-0.8", image_names[i], w);
            if (c == NULL)
                return;
            c->part = PART_RATE;
            c->options.irreversible = irreversible;
            set_targets(c, GJ2K_TARGET_BPP, 1, 0.8);
            c = add_case(list, &images[i], "rate-%s-%s-bytes-12345-jp2", image_names[i], w);
            if (c == NULL)
                return;
            c->part = PART_RATE;
            c->options.irreversible = irreversible;
            c->options.format = GJ2K_FORMAT_JP2;
            set_targets(c, GJ2K_TARGET_BYTES, 1, 12345.0);
            if ((c = add_case(list, &images[i], "rate-%s-%s-layers-100-40-16-tiles-precincts",
                              image_names[i], w)) == NULL)
                return;
            static const uint32_t precincts[] = {64};
            c->part = PART_RATE;
            c->options.irreversible = irreversible;
            c->options.tile_width = c->options.tile_height = 256;
            set_precincts(c, 1, precincts);
            set_targets(c, GJ2K_TARGET_RATIO, 3, 100.0, 40.0, 16.0);
            c->quick = i == 1 && irreversible;
        }
    }
}

encode_case *encode_cases_build(size_t *count)
{
    case_list list = {0};
    void (*const groups[])(case_list *) = {
        add_level_cases,         add_deepest_level_cases,
        add_code_block_cases,    add_precinct_cases,
        add_tile_cases,          add_progression_cases,
        add_position_progression_cases,
        add_layer_cases,         add_style_cases,
        add_marker_cases,        add_tile_part_cases,     add_component_cases,
        add_precision_cases,     add_extreme_content_cases,
        add_subsampling_cases,   add_small_image_cases,
        add_jp2_cases,           add_rate_cases,
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0] && !list.out_of_memory; g++)
        groups[g](&list);
    if (list.out_of_memory) {
        free(list.items);
        *count = 0;
        return NULL;
    }
    *count = list.count;
    return list.items;
}

gj2k_encode_options encode_case_options(const encode_case *c)
{
    gj2k_encode_options options = c->options;
    options.targets = options.target == GJ2K_TARGET_NONE ? NULL : c->targets;
    options.progression_changes = options.num_progression_changes ? c->changes : NULL;
    options.threads = 1; /* ctest -j runs the parts side by side */
    return options;
}

bool encode_case_is_lossless(const encode_case *c)
{
    if (c->options.irreversible)
        return false;
    if (c->options.target == GJ2K_TARGET_NONE)
        return true;
    unsigned layers = c->options.num_layers ? c->options.num_layers : 1;
    double last = c->targets[layers - 1];
    return last == 0 || (c->options.target == GJ2K_TARGET_RATIO && last <= 1);
}
