/* image_file.c - choosing a format, and reading or writing whole files.
 * Files are written under a temporary name and renamed when complete, so a
 * failed write never leaves a half-written output behind. */
#include "error.h"
#include "image_formats.h"
#include "struct_size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *path_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (dot == NULL || (slash != NULL && dot < slash))
        return "";
    return dot + 1;
}

gj2k_file_format gj2k_format_from_path(const char *path)
{
    static const struct { const char *extension; gj2k_file_format format; } table[] = {
        {"pgm", GJ2K_FORMAT_PNM}, {"ppm", GJ2K_FORMAT_PNM}, {"pnm", GJ2K_FORMAT_PNM},
        {"pbm", GJ2K_FORMAT_PNM}, {"pam", GJ2K_FORMAT_PNM}, {"pgx", GJ2K_FORMAT_PGX},
        {"png", GJ2K_FORMAT_PNG}, {"tif", GJ2K_FORMAT_TIFF}, {"tiff", GJ2K_FORMAT_TIFF},
        {"bmp", GJ2K_FORMAT_BMP}, {"raw", GJ2K_FORMAT_RAW}, {"rawl", GJ2K_FORMAT_RAWL},
        {"j2k", GJ2K_FORMAT_J2K}, {"j2c", GJ2K_FORMAT_J2K}, {"jpc", GJ2K_FORMAT_J2K},
        {"jp2", GJ2K_FORMAT_JP2}, {"jpx", GJ2K_FORMAT_JP2}, {"jpf", GJ2K_FORMAT_JP2},
        /* HTJ2K (T.814): JPH files are JP2's boxes, .jhc a codestream */
        {"jph", GJ2K_FORMAT_JP2}, {"jhc", GJ2K_FORMAT_J2K}, {"tga", GJ2K_FORMAT_TGA},
    };
    const char *extension = path_extension(path);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(extension, table[i].extension) == 0)
            return table[i].format;
    return GJ2K_FORMAT_UNKNOWN;
}

gj2k_file_format gj2k_format_from_signature(const uint8_t *data, size_t size)
{
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t jp2[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a};
    static const uint8_t j2k[4] = {0xff, 0x4f, 0xff, 0x51}; /* SOC then SIZ (Annex A.4.1) */
    if (size >= 8 && memcmp(data, png, 8) == 0) return GJ2K_FORMAT_PNG;
    if (size >= 12 && memcmp(data, jp2, 12) == 0) return GJ2K_FORMAT_JP2;
    if (size >= 4 && memcmp(data, j2k, 4) == 0) return GJ2K_FORMAT_J2K;
    if (size >= 4 && ((data[0] == 'I' && data[1] == 'I' && data[2] == 42 && data[3] == 0) ||
                      (data[0] == 'M' && data[1] == 'M' && data[2] == 0 && data[3] == 42)))
        return GJ2K_FORMAT_TIFF;
    if (size >= 2 && data[0] == 'B' && data[1] == 'M') return GJ2K_FORMAT_BMP;
    if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7') return GJ2K_FORMAT_PNM;
    if (size >= 2 && data[0] == 'P' && data[1] == 'G') return GJ2K_FORMAT_PGX;
    return GJ2K_FORMAT_UNKNOWN;
}

const char *gj2k_format_name(gj2k_file_format format)
{
    switch (format) {
    case GJ2K_FORMAT_PNM: return "PNM";
    case GJ2K_FORMAT_PGX: return "PGX";
    case GJ2K_FORMAT_PNG: return "PNG";
    case GJ2K_FORMAT_TIFF: return "TIFF";
    case GJ2K_FORMAT_BMP: return "BMP";
    case GJ2K_FORMAT_RAW: return "RAW";
    case GJ2K_FORMAT_RAWL: return "RAWL";
    case GJ2K_FORMAT_J2K: return "J2K";
    case GJ2K_FORMAT_JP2: return "JP2";
    case GJ2K_FORMAT_TGA: return "TGA";
    case GJ2K_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

bool gj2k_format_can_read(gj2k_file_format format)
{
    switch (format) {
    case GJ2K_FORMAT_PNM:
    case GJ2K_FORMAT_PGX:
    case GJ2K_FORMAT_BMP:
    case GJ2K_FORMAT_TGA:
    case GJ2K_FORMAT_RAW:
    case GJ2K_FORMAT_RAWL: return true;
#ifdef GJ2K_HAVE_PNG
    case GJ2K_FORMAT_PNG: return true;
#endif
#ifdef GJ2K_HAVE_TIFF
    case GJ2K_FORMAT_TIFF: return true;
#endif
    default: return false;
    }
}

gj2k_file_format gj2k_format_of_file(const char *path)
{
    if (path == NULL)
        return GJ2K_FORMAT_UNKNOWN;
    uint8_t head[16];
    size_t got = 0;
    FILE *file = fopen(path, "rb");
    if (file != NULL) {
        got = fread(head, 1, sizeof head, file);
        fclose(file);
    }
    gj2k_file_format format = gj2k_format_from_signature(head, got);
    return format != GJ2K_FORMAT_UNKNOWN ? format : gj2k_format_from_path(path);
}

bool gj2k_format_can_write(gj2k_file_format format) { return gj2k_format_can_read(format); }

static gj2k_status explain_unavailable(gj2k_file_format format, gj2k_error *error)
{
    switch (format) {
    case GJ2K_FORMAT_PNG:
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "PNG is unavailable: this gj2k was built without libpng");
    case GJ2K_FORMAT_TIFF:
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF is unavailable: this gj2k was built without libtiff");
    case GJ2K_FORMAT_J2K:
    case GJ2K_FORMAT_JP2:
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "a JPEG 2000 %s file is decoded, not read as an image: gj2k decode "
                         "(gj2k_decode_file) reads it", gj2k_format_name(format));
    default:
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "unknown image format");
    }
}

/* A caller's read options (NULL: the defaults) and their raw geometry,
 * taken in whole (struct_size.h); `taken->raw` points at `raw`. */
static gj2k_status take_read_options(const gj2k_read_options *options, gj2k_read_options *taken,
                                     gj2k_raw_geometry *raw, gj2k_error *error)
{
    gj2k_status status = STRUCT_SIZE_TAKE(taken, options, gj2k_read_options, error);
    if (status == GJ2K_OK && taken->raw != NULL) {
        status = STRUCT_SIZE_TAKE(raw, taken->raw, gj2k_raw_geometry, error);
        taken->raw = raw;
    }
    return status;
}

gj2k_status gj2k_image_read_memory(const uint8_t *data, size_t size, gj2k_file_format format,
                                   const gj2k_read_options *caller_options, gj2k_image **out,
                                   gj2k_error *error)
{
    *out = NULL;
    gj2k_read_options taken;
    gj2k_raw_geometry raw;
    gj2k_status status = take_read_options(caller_options, &taken, &raw, error);
    if (status != GJ2K_OK)
        return status;
    const gj2k_read_options *options = &taken;
    if (format == GJ2K_FORMAT_UNKNOWN)
        format = gj2k_format_from_signature(data, size);
    if (!gj2k_format_can_read(format))
        return explain_unavailable(format, error);
    switch (format) {
    case GJ2K_FORMAT_PNM: return pnm_read(data, size, options, out, error);
    case GJ2K_FORMAT_PGX: return pgx_read(data, size, options, out, error);
    case GJ2K_FORMAT_BMP: return bmp_read(data, size, options, out, error);
    case GJ2K_FORMAT_TGA: return tga_read(data, size, options, out, error);
    case GJ2K_FORMAT_RAW: return raw_read(data, size, true, options, out, error);
    case GJ2K_FORMAT_RAWL: return raw_read(data, size, false, options, out, error);
#ifdef GJ2K_HAVE_PNG
    case GJ2K_FORMAT_PNG: return png_read(data, size, options, out, error);
#endif
#ifdef GJ2K_HAVE_TIFF
    case GJ2K_FORMAT_TIFF: return tiff_read(data, size, options, out, error);
#endif
    default: return explain_unavailable(format, error);
    }
}

gj2k_status file_read_all(const char *path, uint8_t **data, size_t *size,
                                   gj2k_error *error)
{
    *data = NULL;
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return gj2k_fail(error, GJ2K_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
    byte_buffer buffer = {0};
    for (;;) {
        if (!byte_buffer_reserve(&buffer, 1 << 16)) {
            fclose(file);
            byte_buffer_free(&buffer);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory reading %s", path);
        }
        size_t got = fread(buffer.data + buffer.size, 1, buffer.capacity - buffer.size, file);
        buffer.size += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(file) != 0;
    fclose(file);
    if (failed) {
        byte_buffer_free(&buffer);
        return gj2k_fail(error, GJ2K_ERROR_IO, "cannot read %s", path);
    }
    *data = byte_buffer_release(&buffer, size);
    return GJ2K_OK;
}

gj2k_status gj2k_image_read_file(const char *path, const gj2k_read_options *options,
                                 gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    gj2k_read_options taken;
    gj2k_raw_geometry raw;
    gj2k_status status = take_read_options(options, &taken, &raw, error);
    if (status != GJ2K_OK)
        return status;
    uint8_t *data;
    size_t size;
    status = file_read_all(path, &data, &size, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_file_format format = gj2k_format_from_path(path);
    if (format == GJ2K_FORMAT_UNKNOWN)
        format = gj2k_format_from_signature(data, size);
    if (format == GJ2K_FORMAT_UNKNOWN) {
        free(data);
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "%s: unknown image format", path);
    }
    status = gj2k_image_read_memory(data, size, format, &taken, out, error);
    free(data);
    return status != GJ2K_OK ? gj2k_fail_naming(error, status, path) : status;
}

gj2k_status gj2k_image_write_memory(const gj2k_image *image, gj2k_file_format format,
                                    const gj2k_write_options *caller_options, uint8_t **data,
                                    size_t *size, gj2k_error *error)
{
    *data = NULL;
    *size = 0;
    gj2k_write_options taken;
    gj2k_status taking = STRUCT_SIZE_TAKE(&taken, caller_options, gj2k_write_options, error);
    if (taking != GJ2K_OK)
        return taking;
    const gj2k_write_options *options = &taken;
    if (!gj2k_format_can_write(format))
        return explain_unavailable(format, error);
    if (format == GJ2K_FORMAT_PGX && image->num_components != 1)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "PGX holds one component; this image has %u", image->num_components);
    byte_buffer buffer = {0};
    gj2k_status status;
    switch (format) {
    case GJ2K_FORMAT_PNM: status = pnm_write(image, options, &buffer, error); break;
    case GJ2K_FORMAT_PGX: status = pgx_write_component(image, 0, options, &buffer, error); break;
    case GJ2K_FORMAT_BMP: status = bmp_write(image, options, &buffer, error); break;
    case GJ2K_FORMAT_TGA: status = tga_write(image, options, &buffer, error); break;
    case GJ2K_FORMAT_RAW: status = raw_write(image, true, options, &buffer, error); break;
    case GJ2K_FORMAT_RAWL: status = raw_write(image, false, options, &buffer, error); break;
#ifdef GJ2K_HAVE_PNG
    case GJ2K_FORMAT_PNG: status = png_write(image, options, &buffer, error); break;
#endif
#ifdef GJ2K_HAVE_TIFF
    case GJ2K_FORMAT_TIFF: status = tiff_write(image, options, &buffer, error); break;
#endif
    default: status = explain_unavailable(format, error); break;
    }
    if (status == GJ2K_OK && buffer.failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory writing %s",
                           gj2k_format_name(format));
    if (status != GJ2K_OK) {
        byte_buffer_free(&buffer);
        return status;
    }
    *data = byte_buffer_release(&buffer, size);
    return GJ2K_OK;
}

/* Files of one write whose temporaries stay open, and locked, until the
 * renames; a PGX image of more components closes each once written. */
#define FILES_KEPT_LOCKED 64

/* "dir/out.pgx" and component 2 -> "dir/out_2.pgx" (as OpenJPEG names them;
 * split PNM files end in `extension`, "pgm"). */
static char *component_path(const char *path, uint32_t component, const char *extension)
{
    const char *old = path_extension(path);
    size_t stem = (size_t)(old - path) - (*old ? 1 : 0);
    size_t length = stem + 32;
    char *name = malloc(length);
    if (name != NULL)
        snprintf(name, length, "%.*s_%u.%s", (int)stem, path, component, extension);
    return name;
}

/* Component `c` of `image` alone, as a plain grey PGM would hold it. */
static gj2k_status write_component_pnm(const gj2k_image *image, uint32_t c,
                                       const gj2k_write_options *options, byte_buffer *out,
                                       gj2k_error *error)
{
    gj2k_component one = image->components[c];
    one.role = GJ2K_ROLE_COLOR;
    gj2k_image view = *image;
    view.num_components = 1;
    view.components = &one;
    view.color_space = GJ2K_COLOR_GRAY;
    view.icc_profile = NULL;
    view.icc_profile_size = 0;
    return pnm_write(&view, options, out, error);
}

gj2k_status gj2k_image_write_file(const gj2k_image *image, const char *path,
                                  const gj2k_write_options *caller_options, gj2k_error *error)
{
    gj2k_write_options taken;
    gj2k_status taking = STRUCT_SIZE_TAKE(&taken, caller_options, gj2k_write_options, error);
    if (taking != GJ2K_OK)
        return taking;
    const gj2k_write_options *options = &taken;
    gj2k_file_format format = gj2k_format_from_path(path);
    if (format == GJ2K_FORMAT_UNKNOWN)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "%s: unknown output format (use .png .tif .pgm .ppm .pam .pgx .bmp "
                         ".tga .raw .rawl)", path);
    if (!gj2k_format_can_write(format))
        return explain_unavailable(format, error);

    /* Every output file is made whole under a temporary name before any is renamed. */
    bool split = format == GJ2K_FORMAT_PGX ||
                 (format == GJ2K_FORMAT_PNM && options->split_components);
    uint32_t files = split ? image->num_components : 1;
    file_temporary *temporaries = calloc(files, sizeof *temporaries);
    char **finals = calloc(files, sizeof *finals);
    gj2k_status status = (temporaries && finals) ? GJ2K_OK
        : gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < files && status == GJ2K_OK; i++) {
        byte_buffer buffer = {0};
        if (split) {
            bool pgx = format == GJ2K_FORMAT_PGX;
            finals[i] = component_path(path, i, pgx ? "pgx" : "pgm");
            status = finals[i] == NULL ? gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory")
                     : pgx           ? pgx_write_component(image, i, options, &buffer, error)
                                     : write_component_pnm(image, i, options, &buffer, error);
            if (status == GJ2K_OK && buffer.failed)
                status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        } else {
            finals[i] = strdup(path);
            uint8_t *data;
            size_t size;
            status = finals[i] ? gj2k_image_write_memory(image, format, options, &data, &size, error)
                               : gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
            if (status == GJ2K_OK) {
                buffer.data = data;
                buffer.size = buffer.capacity = size;
            }
        }
        if (status == GJ2K_OK)
            status = file_write_temporary(finals[i], buffer.data, buffer.size, options,
                                          files <= FILES_KEPT_LOCKED, &temporaries[i], error);
        byte_buffer_free(&buffer);
    }
    for (uint32_t i = 0; i < files && status == GJ2K_OK; i++)
        status = file_commit_temporary(&temporaries[i], finals[i], options, error);
    for (uint32_t i = 0; i < files; i++) {
        if (temporaries)
            file_discard_temporary(&temporaries[i], options); /* those not committed */
        if (finals)
            free(finals[i]);
    }
    free(temporaries);
    free(finals);
    return status;
}
