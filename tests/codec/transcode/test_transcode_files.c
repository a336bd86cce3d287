/* test_transcode_files.c - what travels around the code-blocks: a JP2
 * file's boxes (an ICC profile, the resolution, XML and UUID boxes) kept
 * in the JPH file and back, with the brands T.814 Annex D asks for; a
 * codestream given boxes, a JP2 file's boxes dropped (with a warning) for a
 * codestream; the file API's atomic output; OpenJPH's decoder taking the
 * HT files (ojph_expand, when installed: in CI it must be); and every file
 * of the T.803 conformance suite and the shared HTJ2K samples (../shared)
 * re-coded: exact to Part 1, exact to HT but for the partial planes counted. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crosscheck_support.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "test_harness.h"
#include "transcode_test_support.h"

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* `f` with a box of `type` holding `content` inserted before box `before`
 * of its top level (count: append). */
static bool insert_box(coded_file *f, size_t before, uint32_t type, const char *content)
{
    jp2_box_span *boxes;
    size_t count;
    gj2k_error error = {0};
    if (jp2_file_list_boxes(f->data, f->size, &boxes, &count, &error) != GJ2K_OK)
        return false;
    size_t at = before < count ? boxes[before].start : f->size, n = strlen(content);
    free(boxes);
    uint8_t *grown = xmalloc(f->size + 8 + n);
    memcpy(grown, f->data, at);
    put_u32(grown + at, (uint32_t)(8 + n));
    put_u32(grown + at + 4, type);
    memcpy(grown + at + 8, content, n);
    memcpy(grown + at + 8 + n, f->data + at, f->size - at);
    free(f->data);
    f->data = grown;
    f->size += 8 + n;
    return true;
}

static bool lists_brand(const jp2_file *jp2, uint32_t brand)
{
    for (uint32_t i = 0; i < jp2->num_compatibility; i++)
        if (jp2->compatibility[i] == brand)
            return true;
    return false;
}

/* Every box of `a` but ftyp and jp2c is in `b`, in the same place, byte
 * for byte. */
static bool same_other_boxes(const coded_file *a, const coded_file *b)
{
    jp2_box_span *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    gj2k_error error = {0};
    bool ok = jp2_file_list_boxes(a->data, a->size, &x, &nx, &error) == GJ2K_OK &&
              jp2_file_list_boxes(b->data, b->size, &y, &ny, &error) == GJ2K_OK && nx == ny;
    for (size_t i = 0; ok && i < nx; i++) {
        ok = x[i].type == y[i].type;
        if (ok && x[i].type != JP2_BOX_FILE_TYPE && x[i].type != JP2_BOX_CODESTREAM)
            ok = x[i].end - x[i].start == y[i].end - y[i].start &&
                 memcmp(a->data + x[i].start, b->data + y[i].start, x[i].end - x[i].start) == 0;
        if (!ok)
            fprintf(stderr, "box %zu differs\n", i);
    }
    free(x);
    free(y);
    return ok;
}

/* The contents of the first box of `type`, compared with `text`. */
static bool box_holds(const coded_file *f, uint32_t type, const char *text)
{
    jp2_box_span *boxes;
    size_t count;
    gj2k_error error = {0};
    if (jp2_file_list_boxes(f->data, f->size, &boxes, &count, &error) != GJ2K_OK)
        return false;
    bool ok = false;
    for (size_t i = 0; i < count && !ok; i++)
        ok = boxes[i].type == type && boxes[i].end - boxes[i].content == strlen(text) &&
             memcmp(f->data + boxes[i].content, text, strlen(text)) == 0;
    free(boxes);
    return ok;
}

static const char XML[] = "<?xml version=\"1.0\"?><note>kept across</note>";
static const char UUID[] = "0123456789abcdef and some bytes";

static void jp2_boxes_carried(void)
{
    gj2k_image *image = make_image(0, 0, 120, 90, 3, 8, 5, 21);
    REQUIRE(image != NULL);
    uint8_t icc[200];
    for (size_t i = 0; i < sizeof icc; i++)
        icc[i] = (uint8_t)(i * 37 + 5);
    put_u32(icc, sizeof icc);
    memcpy(icc + 12, "mntr", 4);
    memcpy(icc + 16, "RGB ", 4);
    gj2k_error error = {0};
    REQUIRE(gj2k_image_set_icc_profile(image, icc, sizeof icc, &error) == GJ2K_OK);
    image->resolution_x = image->resolution_y = 2834.6;
    gj2k_encode_options options = {.format = GJ2K_FORMAT_JP2, .threads = 2};
    coded_file jp2 = {0}, jph = {0}, back = {0};
    REQUIRE(encode_image(image, &options, &jp2));
    /* an XML box after jp2h, a UUID box last */
    REQUIRE(insert_box(&jp2, 3, JP2_FOURCC('x', 'm', 'l', ' '), XML));
    REQUIRE(insert_box(&jp2, SIZE_MAX, JP2_FOURCC('u', 'u', 'i', 'd'), UUID));
    gj2k_transcode_report report = {0};
    REQUIRE(transcode_to(&jp2, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 0, &report, &jph));
    CHECK_EQ(report.format, GJ2K_FORMAT_JP2);
    jp2_file in = {0}, out = {0};
    REQUIRE(jp2_file_read(jp2.data, jp2.size, &in, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(jp2_file_read(jph.data, jph.size, &out, NULL, NULL, &error) == GJ2K_OK);
    /* JPH: brand 'jph ', listed, 'jp2 ' not (T.814 Annex D) */
    CHECK_EQ(out.brand, JP2_BRAND_JPH);
    CHECK(lists_brand(&out, JP2_BRAND_JPH) && !lists_brand(&out, JP2_BRAND_JP2));
    /* the ICC profile, the resolution */
    REQUIRE(out.num_colors == 1 && in.num_colors == 1);
    CHECK_EQ(out.colors[0].method, JP2_COLOR_METHOD_RESTRICTED_ICC);
    CHECK(out.colors[0].icc_profile_size == sizeof icc &&
          memcmp(out.colors[0].icc_profile, icc, sizeof icc) == 0);
    CHECK(out.has_display_resolution &&
          memcmp(&out.display_resolution, &in.display_resolution, sizeof in.display_resolution) ==
              0);
    /* XML and UUID, every other box as it was */
    CHECK(box_holds(&jph, JP2_FOURCC('x', 'm', 'l', ' '), XML));
    CHECK(box_holds(&jph, JP2_FOURCC('u', 'u', 'i', 'd'), UUID));
    CHECK(same_other_boxes(&jp2, &jph));
    gj2k_image *decoded = decode_raw(&jph);
    CHECK(images_equal(image, decoded));
    gj2k_image_destroy(decoded);
    jp2_file_free(&out);
    /* and back to JP2 */
    REQUIRE(transcode_to(&jph, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 0, NULL, &back));
    REQUIRE(jp2_file_read(back.data, back.size, &out, NULL, NULL, &error) == GJ2K_OK);
    CHECK_EQ(out.brand, JP2_BRAND_JP2);
    CHECK(lists_brand(&out, JP2_BRAND_JP2) && !lists_brand(&out, JP2_BRAND_JPH));
    CHECK(same_other_boxes(&jp2, &back));
    jp2_box_span *a = NULL, *b = NULL; /* ftyp as the original's */
    size_t na, nb;
    REQUIRE(jp2_file_list_boxes(jp2.data, jp2.size, &a, &na, &error) == GJ2K_OK);
    REQUIRE(jp2_file_list_boxes(back.data, back.size, &b, &nb, &error) == GJ2K_OK);
    CHECK(a[1].end - a[1].start == b[1].end - b[1].start &&
          memcmp(jp2.data + a[1].start, back.data + b[1].start, a[1].end - a[1].start) == 0);
    free(a), free(b);
    decoded = decode_raw(&back);
    CHECK(images_equal(image, decoded));
    gj2k_image_destroy(decoded);
    jp2_file_free(&in);
    jp2_file_free(&out);
    gj2k_image_destroy(image);
    coded_file_free(&jp2), coded_file_free(&jph), coded_file_free(&back);
}

/* A codestream into a JPH file gets boxes; a JP2 file into a codestream
 * loses them, with a warning. */
static void containers_change(void)
{
    gj2k_image *image = make_image(0, 0, 100, 80, 1, 12, 6, 4);
    gj2k_encode_options options = {.threads = 2};
    coded_file j2k = {0}, jph = {0}, jhc = {0};
    REQUIRE(image != NULL && encode_image(image, &options, &j2k));
    REQUIRE(transcode_to(&j2k, GJ2K_CODER_HT, GJ2K_FORMAT_JP2, 0, NULL, &jph));
    jp2_file jp2 = {0};
    gj2k_error error = {0};
    REQUIRE(jp2_file_read(jph.data, jph.size, &jp2, NULL, NULL, &error) == GJ2K_OK);
    CHECK_EQ(jp2.brand, JP2_BRAND_JPH);
    CHECK_EQ(jp2.header.width, 100);
    CHECK_EQ(jp2.header.height, 80);
    CHECK_EQ(jp2.header.num_components, 1);
    CHECK_EQ(jp2.header.colorspace_unknown, 1);
    jp2_file_free(&jp2);
    gj2k_image *decoded = decode_raw(&jph);
    CHECK(images_equal(image, decoded));
    gj2k_image_destroy(decoded);
    test_warnings warnings = {0};
    gj2k_transcode_options o = {.coder = GJ2K_CODER_HT, .format = GJ2K_FORMAT_J2K,
                                .warning = record_warning, .warning_user = &warnings};
    REQUIRE(gj2k_transcode_memory(jph.data, jph.size, &o, &jhc.data, &jhc.size, &error) ==
            GJ2K_OK);
    CHECK_EQ(warnings.count, 1);
    CHECK(strstr(warnings.last, "not carried") != NULL);
    CHECK(jhc.size > 4 && jhc.data[0] == 0xFF && jhc.data[1] == 0x4F);
    decoded = decode_raw(&jhc);
    CHECK(images_equal(image, decoded));
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(image);
    coded_file_free(&j2k), coded_file_free(&jph), coded_file_free(&jhc);
}

/* gj2k_transcode_file: the coder from the name, the file whole or absent. */
static void file_api(void)
{
    gj2k_image *image = make_image(0, 0, 64, 48, 3, 8, 5, 2);
    char source[512], jph[512], jp2[512], bad[512], missing[512];
    snprintf(source, sizeof source, "%s/source.jp2", test_temp_dir());
    snprintf(jph, sizeof jph, "%s/out.jph", test_temp_dir());
    snprintf(jp2, sizeof jp2, "%s/back.jp2", test_temp_dir());
    snprintf(bad, sizeof bad, "%s/no/such/dir/out.jph", test_temp_dir());
    snprintf(missing, sizeof missing, "%s/missing.jp2", test_temp_dir());
    gj2k_error error = {0};
    gj2k_encode_options options = {.threads = 1};
    REQUIRE(image != NULL && gj2k_encode_file(image, source, &options, NULL, &error) == GJ2K_OK);
    gj2k_transcode_report report = {0};
    gj2k_transcode_options o = {.report = &report};
    REQUIRE(gj2k_transcode_file(source, jph, &o, &error) == GJ2K_OK);
    CHECK_EQ(report.coder, GJ2K_CODER_HT);
    CHECK_EQ(report.format, GJ2K_FORMAT_JP2);
    REQUIRE(gj2k_transcode_file(jph, jp2, &o, &error) == GJ2K_OK);
    CHECK_EQ(report.coder, GJ2K_CODER_PART1);
    gj2k_image *decoded = NULL;
    gj2k_decode_options d = {.raw_components = true};
    REQUIRE(gj2k_decode_file(jp2, &d, &decoded, &error) == GJ2K_OK);
    CHECK(images_equal(image, decoded));
    gj2k_image_destroy(decoded);
    /* failures name their file and leave an existing output as it was */
    struct stat st, before;
    REQUIRE(stat(jph, &before) == 0);
    CHECK_EQ(gj2k_transcode_file(missing, jph, &o, &error), GJ2K_ERROR_IO);
    CHECK(strstr(error.message, missing) != NULL);
    CHECK(stat(jph, &st) == 0 && st.st_size == before.st_size &&
          st.st_mtim.tv_sec == before.st_mtim.tv_sec &&
          st.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    CHECK_EQ(gj2k_transcode_file(source, bad, &o, &error), GJ2K_ERROR_IO);
    CHECK(strstr(error.message, "out.jph") != NULL);
    char text[512];
    snprintf(text, sizeof text, "%s/out.png", test_temp_dir());
    CHECK_EQ(gj2k_transcode_file(source, text, &o, &error), GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(stat(text, &st) != 0);
    gj2k_image_destroy(image);
}

/* ojph_expand decodes the HT files to the source. */
static void openjph_decodes_ht(void)
{
    char expand[4096];
    if (!tool_find("ojph_expand", expand, sizeof expand)) {
        const char *ci = getenv("CI");
        if (ci != NULL && ci[0] != '\0') {
            fprintf(stderr, "ojph_expand is not on PATH, and CI must have it\n");
            CHECK(false);
            return;
        }
        test_skip("ojph_expand (OpenJPH) is not installed");
    }
    struct {
        uint32_t width, height, components, precision;
        gj2k_encode_options options;
    } cases[] = {
        {211, 157, 3, 8, {.num_resolutions = 6, .tile_width = 128, .tile_height = 100,
                          .progression = GJ2K_RPCL, .num_precinct_sizes = 2,
                          .precinct_width = {128, 64}, .precinct_height = {128, 64}}},
        {160, 120, 1, 16, {.num_resolutions = 4, .code_block_width = 32,
                           .code_block_height = 32}},
        {96, 64, 1, 12, {.num_resolutions = 1, .code_block_style = 8}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gj2k_image *image = make_image(0, 0, cases[i].width, cases[i].height,
                                       cases[i].components, cases[i].precision,
                                       cases[i].precision > 8 ? 8 : 5, (uint32_t)i);
        coded_file part1 = {0}, ht = {0};
        cases[i].options.threads = 2;
        REQUIRE(image != NULL && encode_image(image, &cases[i].options, &part1));
        REQUIRE(transcode_to(&part1, GJ2K_CODER_HT, GJ2K_FORMAT_J2K, 0, NULL, &ht));
        char coded[512], decoded[512], log[512];
        snprintf(coded, sizeof coded, "%s/ht.j2c", test_temp_dir());
        snprintf(decoded, sizeof decoded, "%s/ojph.%s", test_temp_dir(),
                 cases[i].components == 3 ? "ppm" : "pgm");
        snprintf(log, sizeof log, "%s/ojph.log", test_temp_dir());
        FILE *f = fopen(coded, "wb");
        REQUIRE(f != NULL);
        CHECK(fwrite(ht.data, 1, ht.size, f) == ht.size);
        fclose(f);
        char *const argv[] = {expand, "-i", coded, "-o", decoded, NULL};
        int status = tool_run(argv, log);
        CHECK_EQ(status, 0);
        gj2k_image *theirs = NULL;
        gj2k_error error = {0};
        CHECK(status == 0 && gj2k_image_read_file(decoded, NULL, &theirs, &error) == GJ2K_OK);
        CHECK(images_equal(image, theirs));
        fprintf(stderr, "case %zu: ojph_expand %s\n", i,
                images_equal(image, theirs) ? "decodes the source" : "DIFFERS");
        gj2k_image_destroy(theirs);
        gj2k_image_destroy(image);
        remove(coded), remove(decoded), remove(log);
        coded_file_free(&part1), coded_file_free(&ht);
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The JPEG 2000 files of a shared folder, sorted (NULL-terminated; free). */
static char **shared_files(const char *folder, size_t *count)
{
    const char *dir = test_shared_path(folder); /* skips when missing */
    DIR *d = opendir(dir);
    char **names = xmalloc(512 * sizeof *names);
    *count = 0;
    for (struct dirent *e; d != NULL && *count < 511 && (e = readdir(d)) != NULL;) {
        const char *dot = strrchr(e->d_name, '.');
        if (dot == NULL || (strcmp(dot, ".j2k") && strcmp(dot, ".j2c") && strcmp(dot, ".jp2") &&
                            strcmp(dot, ".jph") && strcmp(dot, ".jhc")))
            continue;
        names[*count] = xmalloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(names[*count], "%s/%s", dir, e->d_name);
        (*count)++;
    }
    if (d != NULL)
        closedir(d);
    qsort(names, *count, sizeof *names, compare_names);
    names[*count] = NULL;
    return names;
}

/* One shared file both ways; false when something is wrong (said). */
static bool recode_shared_file(const char *path)
{
    coded_file in = {0}, part1 = {0}, ht = {0};
    in.data = test_read_file(path, &in.size);
    if (in.data == NULL)
        return false;
    const char *name = strrchr(path, '/') + 1;
    gj2k_transcode_report r1 = {0}, r2 = {0};
    gj2k_transcode_options o = {.coder = GJ2K_CODER_PART1, .threads = 2, .report = &r1};
    gj2k_error error = {0};
    gj2k_status status = gj2k_transcode_memory(in.data, in.size, &o, &part1.data, &part1.size,
                                               &error);
    bool ok = true;
    if (status == GJ2K_ERROR_UNSUPPORTED && strstr(error.message, "region of interest")) {
        fprintf(stderr, "%-28s refused: %s\n", name, error.message); /* p0_03, p0_06 ... */
        coded_file_free(&in);
        return true;
    }
    ok = status == GJ2K_OK;
    o.coder = GJ2K_CODER_HT, o.report = &r2;
    ok = ok && gj2k_transcode_memory(in.data, in.size, &o, &ht.data, &ht.size, &error) == GJ2K_OK;
    if (!ok)
        fprintf(stderr, "%s: %s\n", name, error.message);
    block_census exact = {0}, whole = {0};
    gj2k_image *a = ok ? decode_raw(&in) : NULL, *b = ok ? decode_raw(&part1) : NULL;
    ok = ok && compare_blocks(&in, &part1, BLOCKS_EXACT, &exact) && images_equal(a, b);
    ok = ok && compare_blocks(&in, &ht, BLOCKS_WHOLE_PLANES, &whole) &&
         whole.changed == r2.partial_plane_blocks;
    gj2k_image_destroy(b);
    b = ok ? decode_raw(&ht) : NULL;
    ok = ok && (r2.partial_plane_blocks > 0 || images_equal(a, b));
    fprintf(stderr, "%-28s %s: %zu blocks with data, %llu truncated, %llu lost a partial plane "
            "in HT\n", name, ok ? "ok" : "FAILED", exact.with_data,
            (unsigned long long)r1.truncated_blocks, (unsigned long long)r2.partial_plane_blocks);
    gj2k_image_destroy(a);
    gj2k_image_destroy(b);
    coded_file_free(&in), coded_file_free(&part1), coded_file_free(&ht);
    return ok;
}

/* gj2k's lossy HT file of a photograph (rate control may send some blocks
 * with HT SigProp and MagRef passes) to Part 1: exact. */
static void lossy_ht_photo_to_part1(void)
{
    gj2k_image *photo = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_read_file(test_shared_path("images/Bretagne1.ppm"), NULL, &photo,
                                 &error) == GJ2K_OK);
    double ratio = 20.0;
    gj2k_encode_options options = {.irreversible = true, .high_throughput = true,
                                   .ht_refinement = true, .target = GJ2K_TARGET_RATIO,
                                   .num_layers = 1, .targets = &ratio};
    coded_file ht = {0}, part1 = {0};
    gj2k_transcode_report report = {0};
    REQUIRE(encode_image(photo, &options, &ht));
    REQUIRE(transcode_to(&ht, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 0, &report, &part1));
    block_census census = {0};
    CHECK(compare_blocks(&ht, &part1, BLOCKS_EXACT, &census));
    CHECK_EQ(report.partial_plane_blocks, 0);
    fprintf(stderr, "Bretagne1 -I -r 20 --ht --ht-refine: %zu blocks with data, %zu with HT "
            "refinement passes, exact in Part 1\n", census.with_data, census.partial);
    CHECK(census.partial > 0);
    gj2k_image *a = decode_raw(&ht), *b = decode_raw(&part1);
    CHECK(images_equal(a, b));
    gj2k_image_destroy(a), gj2k_image_destroy(b), gj2k_image_destroy(photo);
    coded_file_free(&ht), coded_file_free(&part1);
}

static void shared_files_recode(void)
{
    lossy_ht_photo_to_part1();
    const char *folders[] = {"conformance/input", "images/htj2k"};
    for (size_t f = 0; f < 2; f++) {
        size_t count = 0;
        char **files = shared_files(folders[f], &count);
        CHECK(count > 0);
        for (size_t i = 0; i < count; i++) {
            CHECK(recode_shared_file(files[i]));
            free(files[i]);
        }
        free(files);
    }
}

static const test_case cases[] = {
    {"jp2_boxes_carried", jp2_boxes_carried},
    {"containers_change", containers_change},
    {"file_api", file_api},
    {"openjph_decodes_ht", openjph_decodes_ht},
    {"shared_files_recode", shared_files_recode},
};
TEST_MAIN(cases)
