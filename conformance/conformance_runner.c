/* conformance_runner.c - runs the ITU-T T.803 conformance table
 * (../shared/conformance/cases.csv) through gj2k's decoder and prints one
 * line per compared image and a summary per table.
 *
 *   conformance_runner CONFORMANCE_DIR [-v] [-k SUBSTRING]
 *
 * Rules (cases.csv's README): class 0 rows compare component 0 after scaling
 * the decoded samples down to the reference's depth by a right shift; class 1
 * rows compare one component at full precision; G.1 rows (JP2) compare the
 * image rendered to 8-bit RGB (-p 8 --force-rgb); `extra` rows compare the
 * image with subsampled components upsampled. A row passes when the sizes
 * match and the largest absolute difference and the mean squared error stay
 * within the row's bounds. Exit status 1 when a class 1, G.1 or extra row
 * fails (class 0 is informational). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"

typedef struct conformance_case {
    char table[16], class_name[8], codestream[64], reference[64], component[8], note[160];
    unsigned reduce;
    double peak, mse; /* mse < 0: not bounded */
} conformance_case;

typedef struct table_tally {
    const char *table;
    unsigned passed, failed;
} table_tally;

/* Copies a field, cut to fit. */
static void copy_field(char *to, size_t size, const char *from)
{
    size_t n = strlen(from);
    if (n >= size)
        n = size - 1;
    memcpy(to, from, n);
    to[n] = '\0';
}

/* Splits one CSV line of cases.csv (no quoted fields) into the case. */
static bool parse_case(char *line, conformance_case *c)
{
    char *fields[9] = {0};
    int n = 0;
    for (char *p = line; n < 9; n++) {
        fields[n] = p;
        char *comma = strchr(p, ',');
        if (comma == NULL) {
            n++;
            break;
        }
        *comma = '\0';
        p = comma + 1;
    }
    if (n < 8)
        return false;
    fields[8] = fields[8] ? fields[8] : "";
    fields[8][strcspn(fields[8], "\r\n")] = '\0';
    copy_field(c->table, sizeof c->table, fields[0]);
    copy_field(c->class_name, sizeof c->class_name, fields[1]);
    copy_field(c->codestream, sizeof c->codestream, fields[2]);
    copy_field(c->reference, sizeof c->reference, fields[3]);
    copy_field(c->component, sizeof c->component, fields[4]);
    c->reduce = (unsigned)strtoul(fields[5], NULL, 10);
    c->peak = strtod(fields[6], NULL);
    c->mse = fields[7][0] ? strtod(fields[7], NULL) : -1;
    copy_field(c->note, sizeof c->note, fields[8]);
    return true;
}

/* Compares component `dc` of `decoded` (after shifting right by `shift`)
 * with component `rc` of `reference`; returns false on a size mismatch. */
static bool compare_component(const gj2k_image *decoded, uint32_t dc, unsigned shift,
                              const gj2k_image *reference, uint32_t rc, double *peak,
                              double *squared, double *count)
{
    const gj2k_component *d = &decoded->components[dc], *r = &reference->components[rc];
    if (d->width != r->width || d->height != r->height || d->samples == NULL)
        return false;
    size_t n = (size_t)d->width * d->height;
    for (size_t i = 0; i < n; i++) {
        int64_t v = d->samples[i];
        if (shift)
            v = v >= 0 ? v >> shift : -((-v) >> shift);
        double diff = fabs((double)(v - r->samples[i]));
        *peak = diff > *peak ? diff : *peak;
        *squared += diff * diff;
    }
    *count += (double)n;
    return true;
}

static void print_warning(void *user, const char *message)
{
    if (*(const bool *)user)
        fprintf(stderr, "    warning: %s\n", message);
}

/* Decodes without upsampling; keeps the result in *decoded and returns true
 * when every component then has the reference's size. */
static bool same_size_without_upsampling(const char *path, const gj2k_decode_options *options,
                                         const gj2k_image *reference, gj2k_image **decoded,
                                         gj2k_error *error)
{
    gj2k_decode_options plain = *options;
    plain.upsample = false;
    *decoded = NULL;
    gj2k_image *image = NULL;
    if (gj2k_decode_file(path, &plain, &image, error) != GJ2K_OK)
        return false;
    bool same = image->num_components >= reference->num_components;
    for (uint32_t c = 0; same && c < reference->num_components; c++)
        same = image->components[c].width == reference->components[c].width &&
               image->components[c].height == reference->components[c].height;
    if (same)
        *decoded = image;
    else
        gj2k_image_destroy(image);
    return same;
}

/* Runs one row; prints its line; returns true when it passes. */
static bool run_case(const char *dir, const conformance_case *c, bool verbose)
{
    char path[1024], ref_path[1024];
    snprintf(path, sizeof path, "%s/input/%s", dir, c->codestream);
    snprintf(ref_path, sizeof ref_path, "%s/baseline/%s", dir, c->reference);
    bool jp2_rendering = strcmp(c->class_name, "jp2") == 0;
    bool extra_all = strcmp(c->table, "extra") == 0;
    gj2k_decode_options options = {.reduce = c->reduce, .warning = print_warning,
                                   .warning_user = &verbose};
    if (jp2_rendering) {
        options.force_rgb = true;
        options.precision = 8;
        options.upsample = true;
    }
    if (extra_all) {
        /* Rendered as opj_decompress -upsample renders them (sYCC and ICC to
         * RGB for JP2 files). Where every component is subsampled alike the
         * references keep the component size: compared that way when the
         * plain decode already has the reference's size (below). */
        options.upsample = true;
        options.force_rgb = strstr(c->codestream, ".jp2") != NULL;
    }
    gj2k_image *decoded = NULL, *reference = NULL;
    gj2k_error error = {0};
    char detail[300] = "";
    bool pass = false;
    if (gj2k_image_read_file(ref_path, NULL, &reference, &error) != GJ2K_OK) {
        snprintf(detail, sizeof detail, "reference unreadable: %s", error.message);
    } else if (extra_all && !same_size_without_upsampling(path, &options, reference, &decoded,
                                                          &error) &&
               gj2k_decode_file(path, &options, &decoded, &error) != GJ2K_OK) {
        snprintf(detail, sizeof detail, "decode failed: %s", error.message);
    } else if (!extra_all && gj2k_decode_file(path, &options, &decoded, &error) != GJ2K_OK) {
        snprintf(detail, sizeof detail, "decode failed: %s", error.message);
    } else {
        double peak = 0, squared = 0, count = 0;
        bool sizes = true;
        if (strcmp(c->component, "all") == 0) {
            sizes = decoded->num_components >= reference->num_components;
            for (uint32_t k = 0; sizes && k < reference->num_components; k++)
                sizes = compare_component(decoded, k, 0, reference, k, &peak, &squared, &count);
        } else {
            uint32_t k = (uint32_t)strtoul(c->component, NULL, 10);
            unsigned shift = 0;
            if (k < decoded->num_components && strcmp(c->class_name, "0") == 0 &&
                decoded->components[k].precision > reference->components[0].precision)
                shift = decoded->components[k].precision - reference->components[0].precision;
            sizes = k < decoded->num_components &&
                    compare_component(decoded, k, shift, reference, 0, &peak, &squared, &count);
        }
        if (!sizes) {
            snprintf(detail, sizeof detail, "size or component count differs from the reference");
        } else {
            double mse = count > 0 ? squared / count : 0;
            pass = peak <= c->peak && (c->mse < 0 || mse <= c->mse);
            char mse_bound[32] = "any";
            if (c->mse >= 0)
                snprintf(mse_bound, sizeof mse_bound, "%g", c->mse);
            snprintf(detail, sizeof detail, "peak %g (<= %g), mse %.4g (<= %s)", peak, c->peak,
                     mse, mse_bound);
        }
    }
    printf("%s %-6s %-5s %-22s r%u %-22s %s\n", pass ? "PASS" : "FAIL", c->table, c->class_name,
           c->codestream, c->reduce, c->reference, detail);
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(reference);
    return pass;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *filter = NULL;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc)
            filter = argv[++i];
        else
            dir = argv[i];
    }
    if (dir == NULL) {
        fprintf(stderr, "usage: conformance_runner CONFORMANCE_DIR [-v] [-k SUBSTRING]\n");
        return 2;
    }
    char csv_path[1024];
    snprintf(csv_path, sizeof csv_path, "%s/cases.csv", dir);
    FILE *csv = fopen(csv_path, "r");
    if (csv == NULL) {
        fprintf(stderr, "conformance data not found: %s is missing (put ../shared beside the "
                        "checkout or set GJ2K_SHARED_DIR)\n", csv_path);
        return 77;
    }
    table_tally tallies[] = {{"class 0 (C.1, C.4)", 0, 0}, {"class 1 (C.6, C.7)", 0, 0},
                             {"G.1 (JP2)", 0, 0}, {"extra", 0, 0}};
    char line[512];
    bool header = true;
    while (fgets(line, sizeof line, csv) != NULL) {
        if (header) {
            header = false;
            continue;
        }
        conformance_case c;
        if (!parse_case(line, &c))
            continue;
        if (filter != NULL && strstr(c.codestream, filter) == NULL)
            continue;
        int group = strcmp(c.table, "extra") == 0 ? 3
                    : strcmp(c.table, "G.1") == 0 ? 2
                    : strcmp(c.class_name, "1") == 0 ? 1 : 0;
        if (run_case(dir, &c, verbose))
            tallies[group].passed++;
        else
            tallies[group].failed++;
    }
    fclose(csv);
    bool required_ok = true;
    printf("\n");
    for (int g = 0; g < 4; g++) {
        unsigned total = tallies[g].passed + tallies[g].failed;
        printf("%-20s %u/%u passed%s\n", tallies[g].table, tallies[g].passed, total,
               g == 0 ? " (informational)" : "");
        if (g > 0 && tallies[g].failed)
            required_ok = false;
    }
    return required_ok ? 0 : 1;
}
