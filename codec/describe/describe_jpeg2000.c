/* describe_jpeg2000.c - `gj2k info` for JPEG 2000 files: the file read
 * whole, a JP2 file's boxes (Annex I, describe_jp2.c), the codestream's
 * markers, coding parameters and tiles (Annex A: j2k_codestream_describe's
 * text, describe_codestream_json.c's JSON), an HT codestream's code-blocks
 * counted (describe_codeblocks.c) and a profile checked
 * (describe_profiles.c), as text or as one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "describe_codeblocks.h"
#include "image_formats.h"

/* The census of an HT codestream's code-blocks into *census, or false
 * (with a warning when it was wanted and failed): the headers are
 * described whatever the packets hold. */
static bool count_codeblocks(const j2k_codestream *cs, const uint8_t *codestream,
                             const gj2k_describe_options *options, codeblock_census *census)
{
    if (!codeblock_census_wanted(cs))
        return false;
    gj2k_error census_error = {0};
    if (codeblock_census_of(cs, codestream, census, &census_error) == GJ2K_OK)
        return true;
    gj2k_warn(options->warning, options->warning_user, "code-blocks not counted: %s",
              census_error.message);
    return false;
}

static void describe_json(const char *path, size_t size, const jp2_file *jp2,
                          const j2k_codestream *cs, const codeblock_census *census,
                          byte_buffer *out)
{
    byte_buffer_printf(out, "{\"file\": ");
    describe_json_string(out, path, strlen(path), false);
    byte_buffer_printf(out, ", \"format\": \"%s\", \"bytes\": %zu, ", jp2 ? "JP2" : "J2K", size);
    if (jp2 != NULL)
        describe_jp2_json(jp2, out);
    describe_codestream_json(cs, out);
    if (census != NULL)
        codeblock_census_describe(census, true, out);
    describe_profile_check(cs, true, out);
    byte_buffer_printf(out, "}\n");
}

static gj2k_status describe_text(const char *path, size_t size, const jp2_file *jp2,
                                 const j2k_codestream *cs, const codeblock_census *census,
                                 byte_buffer *out, gj2k_error *error)
{
    byte_buffer_printf(out, "%s: %s, %zu bytes\n", path, jp2 ? "JP2 file" : "JPEG 2000 codestream",
                    size);
    if (jp2 != NULL)
        describe_jp2_text(jp2, out);
    gj2k_status status = j2k_codestream_describe(cs, out, error);
    if (status != GJ2K_OK)
        return status;
    if (census != NULL)
        codeblock_census_describe(census, false, out);
    describe_profile_check(cs, false, out);
    return GJ2K_OK;
}

gj2k_status describe_jpeg2000(const char *path, const gj2k_describe_options *options,
                              byte_buffer *out, gj2k_error *error)
{
    uint8_t *data;
    size_t size;
    gj2k_status status = file_read_all(path, &data, &size, error);
    if (status != GJ2K_OK)
        return status; /* its message names the file */
    jp2_file jp2;
    memset(&jp2, 0, sizeof jp2);
    bool is_jp2 = gj2k_format_from_signature(data, size) == GJ2K_FORMAT_JP2;
    const uint8_t *codestream = data;
    size_t codestream_size = size;
    j2k_codestream *cs = NULL;
    gj2k_error failure = {0};
    if (is_jp2) {
        status = jp2_file_read(data, size, &jp2, options->warning, options->warning_user,
                               &failure);
        codestream = data + jp2.codestream_offset;
        codestream_size = (size_t)jp2.codestream_length;
    }
    if (status == GJ2K_OK)
        status = j2k_codestream_parse(codestream, codestream_size, options->warning,
                                      options->warning_user, &cs, &failure);
    if (status == GJ2K_OK) {
        codeblock_census census;
        bool counted = count_codeblocks(cs, codestream, options, &census);
        if (options->style == GJ2K_DESCRIBE_JSON)
            describe_json(path, size, is_jp2 ? &jp2 : NULL, cs, counted ? &census : NULL, out);
        else
            status = describe_text(path, size, is_jp2 ? &jp2 : NULL, cs,
                                   counted ? &census : NULL, out, &failure);
    }
    if (status != GJ2K_OK && error != NULL) {
        *error = failure;
        gj2k_fail_naming(error, status, path);
    }
    j2k_codestream_destroy(cs);
    jp2_file_free(&jp2);
    free(data);
    return status;
}
