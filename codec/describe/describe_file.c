/* describe_file.c - gj2k_describe_file (include/gj2k.h): a file described
 * as `gj2k info` describes it, as text or as one JSON object. The caller's
 * options are taken in as their struct_size says (struct_size.h); the file
 * is known by its first bytes, a JPEG 2000 one described from its boxes
 * and headers (describe_jpeg2000.c), any other image from what reading it
 * gives (describe_image.c). */
#include "describe.h"
#include "struct_size.h"

gj2k_status gj2k_describe_file(const char *path, const gj2k_describe_options *caller_options,
                               char **text, size_t *size, gj2k_error *error)
{
    if (text != NULL)
        *text = NULL;
    if (size != NULL)
        *size = 0;
    if (path == NULL || text == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "gj2k_describe_file: no %s", path == NULL ? "path" : "text pointer");
    gj2k_describe_options options;
    gj2k_status status =
        STRUCT_SIZE_TAKE(&options, caller_options, gj2k_describe_options, error);
    if (status != GJ2K_OK)
        return status;
    if (options.style != GJ2K_DESCRIBE_TEXT && options.style != GJ2K_DESCRIBE_JSON)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "gj2k_describe_options: style %d is neither text nor JSON",
                         (int)options.style);
    byte_buffer out = {0};
    gj2k_file_format format = gj2k_format_of_file(path);
    if (format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2)
        status = describe_jpeg2000(path, &options, &out, error);
    else
        status = describe_image(path, format, &options, &out, error);
    byte_buffer_put_u8(&out, '\0');
    if (status == GJ2K_OK && out.failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory describing it",
                           path);
    if (status != GJ2K_OK) {
        byte_buffer_free(&out);
        return status;
    }
    size_t length;
    *text = (char *)byte_buffer_release(&out, &length);
    if (size != NULL)
        *size = length - 1;
    return GJ2K_OK;
}
