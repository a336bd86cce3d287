/* opj_crosscheck.c - decodes every codestream of the shared data with gj2k
 * and with OpenJPEG's opj_decompress and compares every component sample by
 * sample: exactly when every tile-component uses the 5/3 transform, within
 * +-1 when any uses the 9/7 (floating point: rounding may differ).
 *
 *   opj_crosscheck SHARED_DIR [--quick] [--only conformance|images]
 *                  [-k SUBSTRING] [--opj PATH] [-v]
 *
 * Inputs: every .j2k/.j2c/.jp2 in SHARED_DIR/conformance/input and the
 * .j2k/.j2c at the top of SHARED_DIR/images (images/htj2k/ holds Part 15
 * HTJ2K codestreams, out of scope). A .jp2 is compared through the codestream
 * of its jp2c box, written to a temporary .j2c for both decoders, so that
 * OpenJPEG's palette, sYCC and ICC handling does not interfere.
 *
 * Variants: the full image; -r 1 and -r 2 (skipped when a tile-component has
 * fewer decomposition levels: OpenJPEG refuses those); -l 1 with several
 * layers; -d regions on the reference grid: the centre quarter, an odd-sized
 * one at the bottom-right edge, a small odd one at -r 1. --quick (sanitizer
 * builds) keeps the full image, -r 1 and the edge region.
 *
 * OpenJPEG writes PGX, one file per component (out_0.pgx, out_1.pgx, ...; a
 * single component is out_0.pgx too), so each keeps its own size, precision
 * and signedness. Transform, levels and layers come from gj2k's codestream
 * parser (codestream.h). Known OpenJPEG behaviours handled here:
 *  - opj_decompress converts 3-component 4:2:0/4:2:2 codestreams to RGB as
 *    if sYCC: those are decoded one component at a time (-c);
 *  - it fails on some regions (tiles skipped under PPM) and on tiles that
 *    vanish at a reduction: a region is then checked against opj's whole
 *    image cropped; a vanishing tile is reported as SKIP;
 *  - on data that gj2k reports as damaged (e.g. more coding passes than
 *    bit-planes) the decoders may differ: a mismatch there is KNOWN.
 *
 * One line per (file, variant), then "opj cross-check: N passed, M failed".
 * Exit 1 on any failure; 77 (skip) when the data or opj_decompress is
 * missing, except that a missing opj_decompress fails when CI is set. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codestream.h"
#include "crosscheck_support.h"
#include "gj2k.h"
#include "image_formats.h"

typedef struct settings {
    const char *shared, *only, *filter;
    char opj[4096];
    char dir[4096]; /* the temporary directory */
    bool quick, verbose;
} settings;

typedef struct tally {
    unsigned passed, failed, skipped, known;
} tally;

/* What the headers say about a codestream. */
typedef struct stream_facts {
    uint32_t x0, y0, x1, y1;
    uint32_t num_components;
    uint8_t *dx, *dy;    /* per component */
    unsigned min_levels; /* fewest decomposition levels of any tile-component */
    unsigned max_layers;
    bool uses_97;
    bool opj_sycc_guess; /* opj_decompress would render it as sYCC */
    bool vanishes[3];    /* [r]: a tile-component is empty at -r r */
} stream_facts;

typedef struct variant {
    char name[32];
    unsigned reduce, layers;
    bool region;
    uint32_t rx0, ry0, rx1, ry1;
} variant;

/* ------------------------------------------------------------ files */

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Finds the jp2c box among the top-level boxes of a JP2 file (I.4: LBox,
 * TBox; LBox 1: a 64-bit XLBox follows; LBox 0: the box runs to the end). */
static bool find_jp2c(const uint8_t *data, size_t size, size_t *offset, size_t *length)
{
    size_t at = 0;
    while (size - at >= 8) {
        uint64_t box = be32(data + at);
        uint32_t type = be32(data + at + 4);
        size_t header = 8;
        if (box == 1) {
            if (size - at < 16)
                return false;
            box = (uint64_t)be32(data + at + 8) << 32 | be32(data + at + 12);
            header = 16;
        } else if (box == 0) {
            box = size - at;
        }
        if (box < header || box > size - at)
            return false;
        if (type == 0x6A703263u) { /* 'jp2c' */
            *offset = at + header;
            *length = (size_t)box - header;
            return true;
        }
        at += (size_t)box;
    }
    return false;
}

static bool is_jp2(const uint8_t *data, size_t size)
{
    static const uint8_t signature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10};
    return size >= 12 && memcmp(data, signature, 12) == 0;
}

static bool has_extension(const char *name, const char *const *extensions, size_t count)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < count; i++)
        if (strcasecmp(dot + 1, extensions[i]) == 0)
            return true;
    return false;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of `dir` with one of the extensions, sorted; NULL and
 * *count 0 when the directory cannot be read. */
static char **list_inputs(const char *dir, const char *const *extensions, size_t num_ext,
                          size_t *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    char **names = NULL;
    size_t capacity = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !has_extension(e->d_name, extensions, num_ext))
            continue;
        if (*count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(names, capacity * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
        }
        names[*count] = strdup(e->d_name);
        if (names[*count] != NULL)
            (*count)++;
    }
    closedir(d);
    qsort(names, *count, sizeof *names, compare_names);
    return names;
}

/* ---------------------------------------------------------- OpenJPEG */

/* --------------------------------------------------------- the headers */

static void facts_free(stream_facts *f)
{
    free(f->dx);
    free(f->dy);
}

/* ceil(ceil(v / d) / 2^r): a reference-grid coordinate on a component's
 * grid at reduction r (B-12, B-14). */
static uint32_t on_component(uint32_t v, uint32_t d, unsigned r)
{
    uint64_t c = ((uint64_t)v + d - 1) / d;
    return (uint32_t)((c + ((uint64_t)1 << r) - 1) >> r);
}

static bool get_facts(const uint8_t *data, size_t size, stream_facts *f, char *why,
                      size_t why_size)
{
    j2k_codestream *cs = NULL;
    gj2k_error error = {0};
    *f = (stream_facts){.min_levels = 255};
    if (j2k_codestream_parse(data, size, NULL, NULL, &cs, &error) != GJ2K_OK) {
        text(why, why_size, "gj2k's parser: %s", error.message);
        return false;
    }
    const j2k_siz *siz = &cs->siz;
    uint32_t n = siz->num_components;
    f->x0 = siz->image_x0;
    f->y0 = siz->image_y0;
    f->x1 = siz->image_x1;
    f->y1 = siz->image_y1;
    f->num_components = n;
    f->dx = malloc(n);
    f->dy = malloc(n);
    bool ok = f->dx && f->dy;
    if (!ok)
        text(why, why_size, "out of memory");
    for (uint32_t c = 0; ok && c < n; c++) {
        f->dx[c] = siz->components[c].dx;
        f->dy[c] = siz->components[c].dy;
    }
    for (uint32_t t = 0; ok && t < siz->num_tiles; t++) {
        const j2k_tile *tile = j2k_codestream_tile(cs, t);
        for (uint32_t c = 0; ok && c < n; c++) {
            j2k_tile_component_params p;
            if (j2k_resolve_tile_component(&cs->main_header, tile ? &tile->header : NULL, c,
                                           &p, &error) != GJ2K_OK) {
                text(why, why_size, "gj2k's parser: %s", error.message);
                ok = false;
                break;
            }
            bool is_97 = p.coding.transform == J2K_TRANSFORM_97;
            f->uses_97 |= is_97;
            f->min_levels = p.coding.levels < f->min_levels ? p.coding.levels : f->min_levels;
            f->max_layers = p.layers > f->max_layers ? p.layers : f->max_layers;
            dwt_rect r = j2k_tile_component_rect(siz, t, c);
            for (unsigned k = 1; k <= 2; k++)
                f->vanishes[k] |= r.x1 > r.x0 && r.y1 > r.y0 &&
                                  (on_component(r.x1, 1, k) == on_component(r.x0, 1, k) ||
                                   on_component(r.y1, 1, k) == on_component(r.y0, 1, k));
        }
    }
    /* opj_decompress guesses sYCC for 3 components whose second is
     * subsampled across and renders 4:2:0 and 4:2:2 as RGB (not T.800). */
    const j2k_component_size *cc = siz->components;
    f->opj_sycc_guess = n == 3 && cc[0].dx == 1 && cc[0].dy == 1 && cc[1].dx == 2 &&
                        cc[2].dx == 2 && cc[1].dy == cc[2].dy && cc[1].dy <= 2;
    j2k_codestream_destroy(cs);
    return ok;
}

/* True when the region keeps at least one sample of every component. */
static bool region_fits(const stream_facts *f, const variant *v)
{
    for (uint32_t c = 0; c < f->num_components; c++)
        if (on_component(v->rx1, f->dx[c], v->reduce) <=
                on_component(v->rx0, f->dx[c], v->reduce) ||
            on_component(v->ry1, f->dy[c], v->reduce) <=
                on_component(v->ry0, f->dy[c], v->reduce))
            return false;
    return true;
}

/* ------------------------------------------------------- one variant */

typedef struct decode_notes {
    bool verbose, damaged;
    char first[200]; /* the first remark that tells of damaged data */
} decode_notes;

static void note_warning(void *user, const char *message)
{
    decode_notes *notes = user;
    if (notes->verbose)
        printf("    gj2k warning: %s\n", message);
    if (!notes->damaged && (strstr(message, "damaged") || strstr(message, "truncated") ||
                            strstr(message, "rest of the tile") ||
                            strstr(message, "packet data ends"))) {
        notes->damaged = true;
        text(notes->first, sizeof notes->first, "%s", message);
    }
}

/* How opj's components line up with gj2k's: cropped out of opj's whole
 * image when opj refused the region itself. */
typedef struct comparison {
    unsigned allowed;
    const variant *crop; /* NULL: same area */
    int64_t max_diff;     /* over the components compared sample by sample */
} comparison;

/* A region of the reference grid cut out of opj's whole image. */
typedef struct region_crop {
    const stream_facts *f;
    const variant *v;
} region_crop;

/* opj_window_fn: the region's place in opj's whole component `c`. */
static void region_window(const void *user, uint32_t c, const gj2k_component *b, uint32_t *x,
                          uint32_t *y, uint32_t *w, uint32_t *h)
{
    const region_crop *crop = user;
    const stream_facts *f = crop->f;
    const variant *v = crop->v;
    unsigned r = v->reduce;
    *x = on_component(v->rx0, f->dx[c], r) - on_component(f->x0, f->dx[c], r);
    *y = on_component(v->ry0, f->dy[c], r) - on_component(f->y0, f->dy[c], r);
    *w = on_component(v->rx1, f->dx[c], r) - on_component(v->rx0, f->dx[c], r);
    *h = on_component(v->ry1, f->dy[c], r) - on_component(v->ry0, f->dy[c], r);
    if (*x + *w > b->width || *y + *h > b->height)
        *w = *h = 0; /* reported as a size mismatch */
}

/* Runs opj for `v` (one component at a time when it would guess sYCC) and
 * reads what it wrote; false with the reason in `why`. */
static bool opj_decode(const settings *s, const char *input, const stream_facts *f,
                       const variant *v, gj2k_image **opj, uint32_t *count, char *why,
                       size_t why_size)
{
    char reduce[16], layers[16], region[64];
    const char *args[8];
    size_t n = 0;
    if (v->reduce) {
        text(reduce, sizeof reduce, "%u", v->reduce);
        args[n++] = "-r";
        args[n++] = reduce;
    }
    if (v->layers) {
        text(layers, sizeof layers, "%u", v->layers);
        args[n++] = "-l";
        args[n++] = layers;
    }
    if (v->region) {
        text(region, sizeof region, "%u,%u,%u,%u", (unsigned)v->rx0, (unsigned)v->ry0,
             (unsigned)v->rx1, (unsigned)v->ry1);
        args[n++] = "-d";
        args[n++] = region;
    }
    args[n] = NULL;
    opj_decode_request request = {.opj = s->opj, .dir = s->dir, .input = input, .args = args,
                                  .num_components = f->num_components,
                                  .per_component = f->opj_sycc_guess};
    return opj_decompress_to_images(&request, opj, count, why, why_size);
}

/* Decodes `v` with both and prints its line. */
static void run_variant(const settings *s, const char *name, const char *opj_input,
                        const uint8_t *cs, size_t cs_size, const stream_facts *f,
                        const variant *v, tally *t)
{
    const char *kind = f->uses_97 ? "9/7, +-1" : "5/3, exact";
    decode_notes notes = {.verbose = s->verbose};
    gj2k_decode_options options = {
        .reduce = v->reduce, .max_layers = v->layers, .use_region = v->region,
        .region_x0 = v->rx0, .region_y0 = v->ry0, .region_x1 = v->rx1, .region_y1 = v->ry1,
        .warning = note_warning, .warning_user = &notes};
    gj2k_image *mine = NULL;
    gj2k_error error = {0};
    gj2k_status status = gj2k_decode_memory(cs, cs_size, &options, &mine, &error);

    char result[600] = "", first_try[600] = "", note[400] = "";
    comparison k = {.allowed = f->uses_97 ? 1 : 0};
    uint32_t count = 0;
    gj2k_image **opj = calloc(f->num_components, sizeof *opj);
    bool ok = opj && opj_decode(s, opj_input, f, v, opj, &count, result, sizeof result);
    if (!ok && opj && v->region) { /* check the region against opj's whole image */
        variant whole = *v;
        whole.region = false;
        text(first_try, sizeof first_try, "%s", result);
        for (uint32_t c = 0; c < count; c++)
            gj2k_image_destroy(opj[c]);
        count = 0;
        ok = opj_decode(s, opj_input, f, &whole, opj, &count, result, sizeof result);
        k.crop = v;
        text(note, sizeof note, "; opj refused the region (%s), compared with its whole "
             "image cropped", first_try);
    }
    bool vanished = !ok && opj && !v->region && f->vanishes[v->reduce];
    if (opj == NULL)
        text(result, sizeof result, "out of memory");
    if (status != GJ2K_OK) {
        char opj_result[600];
        text(opj_result, sizeof opj_result, "%s", ok ? "opj decodes it" : result);
        text(result, sizeof result, "gj2k fails: %s (%s)", error.message, opj_result);
        ok = false;
    } else if (ok) {
        region_crop crop = {f, k.crop};
        ok = decoders_compare(mine, opj, count, NULL, k.crop ? region_window : NULL, &crop,
                              k.allowed, &k.max_diff, result, sizeof result);
    }
    if (ok) {
        printf("PASS %s %s: max diff %lld (%s)%s\n", name, v->name, (long long)k.max_diff, kind,
               note);
        t->passed++;
    } else if (vanished && status == GJ2K_OK) {
        printf("SKIP %s %s: a tile-component vanishes at -r %u; %s (gj2k decodes it)\n", name,
               v->name, v->reduce, result);
        t->skipped++;
    } else if (notes.damaged && status == GJ2K_OK) {
        printf("KNOWN %s %s: %s; max diff %lld (%s); gj2k reports damaged data (%s): "
               "decoders may differ there\n", name, v->name, result, (long long)k.max_diff,
               kind, notes.first);
        t->known++;
    } else {
        printf("FAIL %s %s: %s; max diff %lld (%s)%s\n", name, v->name, result,
               (long long)k.max_diff, kind, note);
        t->failed++;
    }
    images_destroy(opj, count);
    gj2k_image_destroy(mine);
}

/* A reduction beyond the levels: OpenJPEG refuses it; say what gj2k does. */
static void skip_reduce(const char *name, const variant *v, const stream_facts *f,
                        const uint8_t *cs, size_t cs_size, tally *t)
{
    gj2k_decode_options options = {.reduce = v->reduce};
    gj2k_image *mine = NULL;
    gj2k_status status = gj2k_decode_memory(cs, cs_size, &options, &mine, NULL);
    gj2k_image_destroy(mine);
    printf("SKIP %s %s: a tile-component has only %u decomposition level(s), which "
           "opj_decompress refuses (gj2k %s)\n", name, v->name, f->min_levels,
           status == GJ2K_OK ? "decodes it" : "refuses too");
    t->skipped++;
}

/* Grows a region towards its top-left corner (x0, y0) until every
 * component keeps a sample, or it covers the image. */
static void fit_region(const stream_facts *f, variant *v)
{
    while (!region_fits(f, v) && (v->rx0 > f->x0 || v->ry0 > f->y0)) {
        v->rx0 -= v->rx0 > f->x0;
        v->ry0 -= v->ry0 > f->y0;
    }
}

/* The variants of a file, in `out` (at most 8). */
static size_t make_variants(const stream_facts *f, bool quick, variant *out)
{
    size_t n = 0;
    uint32_t w = f->x1 - f->x0, h = f->y1 - f->y0;
    out[n++] = (variant){.name = "full"};
    out[n++] = (variant){.name = "r1", .reduce = 1};
    if (!quick)
        out[n++] = (variant){.name = "r2", .reduce = 2};
    if (!quick && f->max_layers > 1)
        out[n++] = (variant){.name = "l1", .layers = 1};
    if (!quick && w >= 4 && h >= 4)
        out[n++] = (variant){"d-centre", 0, 0, true, f->x0 + w / 4, f->y0 + h / 4,
                             f->x0 + w - w / 4, f->y0 + h - h / 4};
    /* An odd-sized region that touches the right and bottom edges. */
    uint32_t ew = (w / 3) | 1u, eh = (h / 5) | 1u;
    ew = ew > w ? w : ew;
    eh = eh > h ? h : eh;
    out[n++] = (variant){"d-edge", 0, 0, true, f->x1 - ew, f->y1 - eh, f->x1, f->y1};
    /* A small odd region at odd offsets, at half resolution. */
    if (!quick && w >= 8 && h >= 8) {
        uint32_t rx0 = f->x0 + (w / 7 | 1u), ry0 = f->y0 + (h / 5 | 1u);
        uint32_t rx1 = rx0 + 37 < f->x1 ? rx0 + 37 : f->x1;
        uint32_t ry1 = ry0 + 29 < f->y1 ? ry0 + 29 : f->y1;
        out[n++] = (variant){"r1-d-odd", 1, 0, true, rx0, ry0, rx1, ry1};
    }
    for (size_t i = 0; i < n; i++)
        if (out[i].region)
            fit_region(f, &out[i]);
    return n;
}

/* Every variant of one file. */
static void check_file(const settings *s, const char *dir, const char *name, tally *t)
{
    char path[4200], why[600] = "", extracted[4200];
    text(path, sizeof path, "%s/%s", dir, name);
    uint8_t *data = NULL;
    size_t size = 0;
    if (file_read_all(path, &data, &size, NULL) != GJ2K_OK) {
        printf("FAIL %s: cannot read %s\n", name, path);
        t->failed++;
        return;
    }
    const uint8_t *cs = data;
    size_t cs_size = size, offset = 0;
    const char *opj_input = path;
    if (is_jp2(data, size)) { /* both decoders get the jp2c box's codestream */
        text(extracted, sizeof extracted, "%s/in.j2c", s->dir);
        if (!find_jp2c(data, size, &offset, &cs_size))
            text(why, sizeof why, "no jp2c box found");
        else if (file_write_whole(extracted, data + offset, cs_size, NULL, NULL) != GJ2K_OK)
            text(why, sizeof why, "cannot write %s", extracted);
        cs = data + offset;
        opj_input = extracted;
    }
    stream_facts f = {0};
    if (why[0] == '\0' && get_facts(cs, cs_size, &f, why, sizeof why)) {
        variant variants[8];
        size_t n = make_variants(&f, s->quick, variants);
        for (size_t i = 0; i < n; i++) {
            if (variants[i].reduce > f.min_levels)
                skip_reduce(name, &variants[i], &f, cs, cs_size, t);
            else
                run_variant(s, name, opj_input, cs, cs_size, &f, &variants[i], t);
        }
    } else {
        printf("FAIL %s: %s\n", name, why);
        t->failed++;
    }
    fflush(stdout);
    facts_free(&f);
    if (opj_input != path)
        unlink(extracted);
    free(data);
}

/* Every input of one group, "conformance" or "images"; false when its
 * folder holds no codestream. */
static bool check_group(const settings *s, const char *group, tally *t)
{
    static const char *const extensions[] = {"j2k", "j2c", "jp2"};
    char dir[4200];
    bool conformance = strcmp(group, "conformance") == 0;
    text(dir, sizeof dir, "%s/%s", s->shared, conformance ? "conformance/input" : "images");
    size_t count = 0;
    /* images/: codestreams only; its htj2k/ folder (Part 15) is not listed. */
    char **names = list_inputs(dir, extensions, conformance ? 3 : 2, &count);
    if (count == 0) {
        printf("SKIP %s: no codestreams found in %s\n", group, dir);
        free(names);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (s->filter == NULL || strstr(names[i], s->filter))
            check_file(s, dir, names[i], t);
        free(names[i]);
    }
    free(names);
    return true;
}

static int usage(void)
{
    fprintf(stderr, "usage: opj_crosscheck SHARED_DIR [--quick] [--only conformance|images] "
                    "[-k SUBSTRING] [--opj PATH] [-v]\n");
    return 2;
}

int main(int argc, char **argv)
{
    settings s = {0};
    crosscheck_arguments arguments;
    if (!crosscheck_arguments_parse(argc, argv, &arguments) || arguments.equal_size ||
        arguments.gj2k)
        return usage();
    s.shared = arguments.operand;
    s.only = arguments.only;
    s.filter = arguments.filter;
    s.quick = arguments.quick;
    s.verbose = arguments.verbose;
    if (arguments.opj)
        text(s.opj, sizeof s.opj, "%s", arguments.opj);
    if (s.shared == NULL ||
        (s.only && strcmp(s.only, "conformance") != 0 && strcmp(s.only, "images") != 0))
        return usage();
    struct stat st;
    if (stat(s.shared, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("SKIP: the shared test data is missing (%s); put ../shared beside the checkout "
               "or set GJ2K_SHARED_DIR\n", s.shared);
        return 77;
    }
    int missing = s.opj[0] ? 0 : tool_require("opj_decompress", s.opj, sizeof s.opj);
    if (missing)
        return missing;
    if (!temp_dir_create("gj2k-opj", s.dir, sizeof s.dir)) {
        printf("FAIL: cannot create a temporary directory %s\n", s.dir);
        return 1;
    }
    printf("opj_decompress: %s%s\n", s.opj, s.quick ? " (quick subset)" : "");
    tally t = {0};
    bool found = false;
    if (s.only == NULL || strcmp(s.only, "conformance") == 0)
        found |= check_group(&s, "conformance", &t);
    if (s.only == NULL || strcmp(s.only, "images") == 0)
        found |= check_group(&s, "images", &t);
    temp_dir_remove(s.dir);
    if (!found)
        return 77;
    printf("%u variant(s) skipped, %u known difference(s) explained above (not failures)\n",
           t.skipped, t.known);
    printf("opj cross-check: %u passed, %u failed\n", t.passed, t.failed);
    return t.failed ? 1 : 0;
}
