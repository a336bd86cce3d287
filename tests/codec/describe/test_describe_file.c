/* test_describe_file.c - gj2k_describe_file: a codestream and a JP2 file
 * coded here, described as text and as JSON (checked for its size,
 * components and container, and parsed as JSON); a PNM and a raw image;
 * a missing file and a truncated codestream, named in the error or said
 * in warnings as `gj2k info` says them; options of a shorter struct_size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gj2k.h"
#include "test_harness.h"

/* ------------------------------------------------- a small JSON checker */

/* Whether `*p` begins a JSON value (RFC 8259), skipping past it. Enough
 * to tell that a description is one well-formed object. */
static bool json_value(const char **p);

static void json_space(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
        (*p)++;
}

static bool json_string(const char **p)
{
    if (**p != '"')
        return false;
    for ((*p)++; **p != '"'; (*p)++) {
        unsigned char c = (unsigned char)**p;
        if (c < 0x20)
            return false; /* also the end of the text */
        if (c == '\\') {
            (*p)++;
            if (**p == 'u') {
                for (int i = 0; i < 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", *++*p) || **p == '\0')
                        return false;
            } else if (!strchr("\"\\/bfnrt", **p) || **p == '\0') {
                return false;
            }
        }
    }
    (*p)++;
    return true;
}

static bool json_number(const char **p)
{
    char *end;
    strtod(*p, &end);
    if (end == *p || !(**p == '-' || (**p >= '0' && **p <= '9')))
        return false;
    *p = end;
    return true;
}

static bool json_members(const char **p, char open, char close)
{
    if (**p != open)
        return false;
    (*p)++;
    json_space(p);
    if (**p == close) {
        (*p)++;
        return true;
    }
    for (;;) {
        if (open == '{') {
            if (!json_string(p))
                return false;
            json_space(p);
            if (*(*p)++ != ':')
                return false;
            json_space(p);
        }
        if (!json_value(p))
            return false;
        json_space(p);
        if (**p == close) {
            (*p)++;
            return true;
        }
        if (*(*p)++ != ',')
            return false;
        json_space(p);
    }
}

static bool json_value(const char **p)
{
    switch (**p) {
    case '{': return json_members(p, '{', '}');
    case '[': return json_members(p, '[', ']');
    case '"': return json_string(p);
    case 't': return strncmp(*p, "true", 4) == 0 && (*p += 4, true);
    case 'f': return strncmp(*p, "false", 5) == 0 && (*p += 5, true);
    case 'n': return strncmp(*p, "null", 4) == 0 && (*p += 4, true);
    default: return json_number(p);
    }
}

/* One JSON object, on one line ending in the newline. */
static bool one_json_object(const char *text)
{
    const char *p = text;
    if (*p != '{' || !json_value(&p))
        return false;
    return strcmp(p, "\n") == 0;
}

/* --------------------------------------------------------------- helpers */

/* Every warning of a call, one line each. */
typedef struct remarks {
    int count;
    char text[4096];
} remarks;

static void note_remark(void *user, const char *message)
{
    remarks *r = user;
    r->count++;
    size_t used = strlen(r->text);
    snprintf(r->text + used, sizeof r->text - used, "%s\n", message);
}

/* `path` described in `style` (warnings into `r` when not NULL): the text,
 * checked to be as long as *size says and to end in a newline, or NULL
 * with the error in *error. */
static char *describe(const char *path, gj2k_describe_style style, remarks *r, gj2k_error *error)
{
    gj2k_describe_options options = GJ2K_DESCRIBE_OPTIONS_INIT;
    options.style = style;
    if (r != NULL) {
        options.warning = note_remark;
        options.warning_user = r;
    }
    char *text = (char *)"unset";
    size_t size = 7;
    *error = (gj2k_error){0};
    if (gj2k_describe_file(path, &options, &text, &size, error) != GJ2K_OK) {
        test_check(text == NULL && size == 0, __FILE__, __LINE__, "nothing on failure");
        return NULL;
    }
    test_check(text != NULL && size == strlen(text) && size > 0 && text[size - 1] == '\n',
               __FILE__, __LINE__, "a NUL-terminated text ending in a newline");
    return text;
}

static bool has(const char *text, const char *part)
{
    if (text != NULL && strstr(text, part) != NULL)
        return true;
    fprintf(stderr, "missing \"%s\" in:\n%s\n", part, text ? text : "(null)");
    return false;
}

/* ------------------------------------------------------------------ cases */

/* A codestream (gj2k_encode_file) and a JP2 file (gj2k_encode_memory) of
 * a 67x45 RGB image, in two tiles: text and JSON say its size, its
 * components and its container. */
static void test_jpeg2000_text_and_json(void)
{
    gj2k_image *image = test_noise_image(67, 45, 3);
    REQUIRE(image != NULL);
    char j2k[1024], jp2[1024];
    snprintf(j2k, sizeof j2k, "%s/small.j2k", test_temp_dir());
    snprintf(jp2, sizeof jp2, "%s/small.jp2", test_temp_dir());
    gj2k_encode_options o = {.tile_width = 64, .tile_height = 64, .num_resolutions = 3};
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_file(image, j2k, &o, NULL, &error) == GJ2K_OK);
    o.format = GJ2K_FORMAT_JP2;
    uint8_t *data = NULL;
    size_t size = 0;
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    REQUIRE(test_write_file(jp2, data, size));
    free(data);
    gj2k_image_destroy(image);

    remarks r = {0};
    char *text = describe(j2k, GJ2K_DESCRIBE_TEXT, &r, &error);
    REQUIRE(text != NULL);
    CHECK(strncmp(text, j2k, strlen(j2k)) == 0 && has(text, ": JPEG 2000 codestream, "));
    CHECK(has(text, "SIZ: image 67x45 at (0, 0)"));
    CHECK(has(text, "tiles 64x64 from (0, 0): 2 x 1 = 2"));
    CHECK(has(text, "  component 2: 8-bit unsigned, subsampling 1x1\n"));
    CHECK(has(text, "2 levels, 5/3 reversible"));
    CHECK(strstr(text, "JP2 file") == NULL);
    free(text);
    char *json = describe(j2k, GJ2K_DESCRIBE_JSON, &r, &error);
    REQUIRE(json != NULL);
    CHECK(one_json_object(json));
    CHECK(has(json, "\"format\": \"J2K\""));
    CHECK(has(json, "\"x1\": 67, \"y1\": 45, \"tile_width\": 64"));
    CHECK(has(json, "\"tiles_across\": 2, \"tiles_down\": 1"));
    CHECK(has(json, "\"main_header\": {\"cod\": {\"progression\": \"LRCP\""));
    CHECK(strstr(json, "\"jp2\": ") == NULL);
    free(json);
    CHECK_EQ(r.count, 0);

    text = describe(jp2, GJ2K_DESCRIBE_TEXT, &r, &error);
    REQUIRE(text != NULL);
    char first[1200];
    snprintf(first, sizeof first, "%s: JP2 file, %zu bytes\n", jp2, size);
    CHECK(strncmp(text, first, strlen(first)) == 0);
    CHECK(has(text, "JP2 file: brand 'jp2 '"));
    CHECK(has(text, "  ihdr: 67x45, 3 components, one depth\n"));
    CHECK(has(text, "SIZ: image 67x45"));
    free(text);
    json = describe(jp2, GJ2K_DESCRIBE_JSON, &r, &error);
    REQUIRE(json != NULL);
    CHECK(one_json_object(json));
    CHECK(has(json, "\"format\": \"JP2\""));
    char bytes[64];
    snprintf(bytes, sizeof bytes, "\"bytes\": %zu, ", size);
    CHECK(has(json, bytes));
    CHECK(has(json, "\"jp2\": {\"brand\": \"jp2 \""));
    CHECK(has(json, "\"width\": 67, \"height\": 45, \"components\": 3"));
    CHECK(has(json, "{\"precision\": 8, \"signed\": false, \"dx\": 1, \"dy\": 1}"));
    free(json);
    CHECK_EQ(r.count, 0);

    /* no options: text; no size wanted */
    char *plain = NULL;
    REQUIRE(gj2k_describe_file(j2k, NULL, &plain, NULL, &error) == GJ2K_OK);
    CHECK(has(plain, "SIZ: image 67x45"));
    free(plain);
    /* a style of neither kind is refused */
    gj2k_describe_options odd = {.style = (gj2k_describe_style)7};
    CHECK(gj2k_describe_file(j2k, &odd, &plain, NULL, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(plain == NULL && has(error.message, "style"));
}

/* Other images: a PNM file read for its size and components, a raw file
 * with the geometry given (and refused without it). */
static void test_other_image_files(void)
{
    gj2k_image *image = test_noise_image(30, 20, 3);
    REQUIRE(image != NULL);
    char ppm[1024], raw[1024];
    snprintf(ppm, sizeof ppm, "%s/picture.ppm", test_temp_dir());
    snprintf(raw, sizeof raw, "%s/samples.raw", test_temp_dir());
    gj2k_error error = {0};
    REQUIRE(gj2k_image_write_file(image, ppm, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
    char *text = describe(ppm, GJ2K_DESCRIBE_TEXT, NULL, &error);
    REQUIRE(text != NULL);
    char first[1200];
    snprintf(first, sizeof first, "%s: PNM image\n  size        30 x 20 (canvas origin 0,0)\n",
             ppm);
    CHECK(strncmp(text, first, strlen(first)) == 0);
    CHECK(has(text, "  components  3\n"));
    CHECK(has(text, "    1: 30x20, 8-bit unsigned, subsampling 1x1, colour\n"));
    free(text);
    char *json = describe(ppm, GJ2K_DESCRIBE_JSON, NULL, &error);
    REQUIRE(json != NULL);
    CHECK(one_json_object(json));
    CHECK(has(json, "\"format\": \"PNM\", \"width\": 30, \"height\": 20"));
    CHECK(has(json, "\"components\": [{\"width\": 30, \"height\": 20, \"precision\": 8"));
    free(json);

    uint8_t samples[8 * 4];
    for (size_t i = 0; i < sizeof samples; i++)
        samples[i] = (uint8_t)(i * 7);
    REQUIRE(test_write_file(raw, samples, sizeof samples));
    CHECK(describe(raw, GJ2K_DESCRIBE_TEXT, NULL, &error) == NULL);
    CHECK(error.status != GJ2K_OK && has(error.message, "samples.raw"));
    gj2k_raw_geometry geometry = {.width = 8, .height = 4, .num_components = 1,
                                  .precision = 8};
    gj2k_describe_options options = {.style = GJ2K_DESCRIBE_JSON, .raw = &geometry};
    char *described = NULL;
    REQUIRE(gj2k_describe_file(raw, &options, &described, NULL, &error) == GJ2K_OK);
    CHECK(one_json_object(described));
    CHECK(has(described, "\"format\": \"RAW\", \"width\": 8, \"height\": 4"));
    free(described);
}

/* A file that is not there: the error names it, whatever its kind. */
static void test_missing_file_named(void)
{
    static const char *const names[] = {"absent.jp2", "absent.j2k", "absent.png", "absent"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", test_temp_dir(), names[i]);
        gj2k_error error = {0};
        CHECK(describe(path, i % 2 ? GJ2K_DESCRIBE_JSON : GJ2K_DESCRIBE_TEXT, NULL, &error) ==
              NULL);
        CHECK(error.status == GJ2K_ERROR_IO || error.status == GJ2K_ERROR_UNSUPPORTED);
        CHECK(has(error.message, path));
    }
    gj2k_error error = {0};
    char *text = NULL;
    CHECK(gj2k_describe_file(NULL, NULL, &text, NULL, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
}

/* JSON is UTF-8: a file name in UTF-8 passes through, a byte of one that
 * is not comes as the character of its number. A cut codestream under a
 * long path: the reason for the refusal is never cut off, the path is. */
static void test_names_in_json_and_errors(void)
{
    gj2k_image *image = test_noise_image(16, 8, 1);
    REQUIRE(image != NULL);
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
    char good[1024], bad[1024];
    snprintf(good, sizeof good, "%s/r\xc3\xa9\xe2\x82\xac.j2k", test_temp_dir());
    snprintf(bad, sizeof bad, "%s/r\xe9.j2k", test_temp_dir());
    REQUIRE(test_write_file(good, data, size));
    REQUIRE(test_write_file(bad, data, size));
    char *text = describe(good, GJ2K_DESCRIBE_JSON, NULL, &error);
    REQUIRE(text != NULL);
    CHECK(one_json_object(text) && has(text, "/r\xc3\xa9\xe2\x82\xac.j2k\""));
    free(text);
    text = describe(bad, GJ2K_DESCRIBE_JSON, NULL, &error);
    REQUIRE(text != NULL);
    CHECK(one_json_object(text) && has(text, "/r\\u00e9.j2k\"") && strchr(text, '\xe9') == NULL);
    free(text);
    char path[1024]; /* two directories of 150 letters (a name holds 255) */
    size_t at = (size_t)snprintf(path, sizeof path, "%s", test_temp_dir());
    for (int level = 0; level < 2; level++) {
        path[at++] = '/';
        memset(path + at, 'd', 150);
        at += 150;
        path[at] = '\0';
        REQUIRE(mkdir(path, 0755) == 0);
    }
    snprintf(path + at, sizeof path - at, "/cut.j2k");
    REQUIRE(test_write_file(path, data, 10));
    free(data);
    CHECK(describe(path, GJ2K_DESCRIBE_TEXT, NULL, &error) == NULL);
    CHECK(has(error.message, "/cut.j2k: main header:") || (fprintf(stderr, "%s\n", error.message), 0));
}

/* A codestream cut short: its headers described, with the warnings that
 * `gj2k info` gives; cut inside its main header, refused naming the file;
 * a JP2 file cut inside its boxes, refused too. */
static void test_truncated_codestream(void)
{
    gj2k_image *image = test_noise_image(64, 48, 3);
    REQUIRE(image != NULL);
    uint8_t *data = NULL, *jp2 = NULL;
    size_t size = 0, jp2_size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, NULL, &error) == GJ2K_OK);
    gj2k_encode_options o = {.format = GJ2K_FORMAT_JP2};
    REQUIRE(gj2k_encode_memory(image, &o, &jp2, &jp2_size, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
    char cut[1024], headless[1024], boxes[1024];
    snprintf(cut, sizeof cut, "%s/cut.j2k", test_temp_dir());
    snprintf(headless, sizeof headless, "%s/headless.j2k", test_temp_dir());
    snprintf(boxes, sizeof boxes, "%s/boxes.jp2", test_temp_dir());
    REQUIRE(test_write_file(cut, data, size * 2 / 3));
    REQUIRE(test_write_file(headless, data, 20));
    REQUIRE(test_write_file(boxes, jp2, 40));
    free(data);
    free(jp2);

    for (int json = 0; json < 2; json++) {
        remarks r = {0};
        char *text = describe(cut, json ? GJ2K_DESCRIBE_JSON : GJ2K_DESCRIBE_TEXT, &r, &error);
        REQUIRE(text != NULL);
        CHECK(r.count >= 1 && has(r.text, "truncated") && has(r.text, "no EOC"));
        if (json)
            CHECK(one_json_object(text) && has(text, "\"eoc\": false"));
        else
            CHECK(has(text, "no EOC") && has(text, "truncated"));
        free(text);
    }
    CHECK(describe(headless, GJ2K_DESCRIBE_TEXT, NULL, &error) == NULL);
    CHECK(error.status == GJ2K_ERROR_TRUNCATED || error.status == GJ2K_ERROR_MALFORMED);
    char named[1100];
    snprintf(named, sizeof named, "%s: ", headless);
    CHECK(strncmp(error.message, named, strlen(named)) == 0);
    CHECK(describe(boxes, GJ2K_DESCRIBE_JSON, NULL, &error) == NULL);
    snprintf(named, sizeof named, "%s: JP2: ", boxes);
    CHECK(strncmp(error.message, named, strlen(named)) == 0);
}

/* Options of an older, shorter layout (cut before `warning`, garbage past
 * it) describe as the whole struct does; struct_size 0
 * is this layout; 1 is refused, naming the struct. */
static void test_older_options_struct(void)
{
    gj2k_image *image = test_noise_image(40, 24, 1);
    REQUIRE(image != NULL);
    /* a codestream without its EOC, which warns: a callback read past the
     * cut would be called */
    char path[1024];
    snprintf(path, sizeof path, "%s/grey_no_eoc.j2k", test_temp_dir());
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
    REQUIRE(test_write_file(path, data, size - 2));
    free(data);

    test_warnings heard = {0};
    gj2k_describe_options whole = {.struct_size = sizeof whole, .style = GJ2K_DESCRIBE_JSON,
                                   .warning = record_warning, .warning_user = &heard};
    size_t shorter = offsetof(gj2k_describe_options, warning);
    unsigned char *older = xmalloc(sizeof whole);
    memset(older, 0xA5, sizeof whole);
    memcpy(older, &whole, shorter);
    memcpy(older, &shorter, sizeof shorter);
    char *want = NULL, *got = NULL, *zero = NULL;
    REQUIRE(gj2k_describe_file(path, &whole, &want, NULL, &error) == GJ2K_OK);
    CHECK(heard.count > 0);
    REQUIRE(gj2k_describe_file(path, (const gj2k_describe_options *)older, &got, NULL, &error) ==
            GJ2K_OK);
    CHECK(strcmp(want, got) == 0);
    gj2k_describe_options first_release = {.style = GJ2K_DESCRIBE_JSON};
    REQUIRE(gj2k_describe_file(path, &first_release, &zero, NULL, &error) == GJ2K_OK);
    CHECK(strcmp(want, zero) == 0 && one_json_object(zero));
    free(want);
    free(got);
    free(zero);
    free(older);

    gj2k_describe_options bad = {.struct_size = 1};
    char *text = NULL;
    CHECK(gj2k_describe_file(path, &bad, &text, NULL, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(text == NULL && has(error.message, "gj2k_describe_options") &&
          has(error.message, "struct_size"));
}

static const test_case cases[] = {
    {"names_in_json_and_errors", test_names_in_json_and_errors},
    {"jpeg2000_text_and_json", test_jpeg2000_text_and_json},
    {"other_image_files", test_other_image_files},
    {"missing_file_named", test_missing_file_named},
    {"truncated_codestream", test_truncated_codestream},
    {"older_options_struct", test_older_options_struct},
};
TEST_MAIN(cases)
