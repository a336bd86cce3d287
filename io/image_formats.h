/* image_formats.h - the interface every file format implements.
 *
 * A reader parses a whole file held in memory (so fuzzers and tests need no
 * files) and returns a new image; a writer appends a whole file to a
 * byte_buffer. `options` is never NULL here: image_file.c supplies defaults.
 * Readers must reject truncated or malformed data with a clear message and
 * must not allocate more than the file's size can justify
 * (image_check_sample_budget). */
#ifndef GJ2K_IMAGE_FORMATS_H
#define GJ2K_IMAGE_FORMATS_H

#include "byte_buffer.h"
#include "gj2k.h"

typedef gj2k_status (*image_read_fn)(const uint8_t *data, size_t size,
                                     const gj2k_read_options *options, gj2k_image **out,
                                     gj2k_error *error);
typedef gj2k_status (*image_write_fn)(const gj2k_image *image, const gj2k_write_options *options,
                                      byte_buffer *out, gj2k_error *error);

gj2k_status pnm_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error);
/* Width * height * channels from the header of a Netpbm image (P1..P7)
 * whose first `size` bytes are at data; 0 when they hold no valid header. */
gj2k_status pnm_header_samples(const uint8_t *data, size_t size, uint64_t *samples,
                               gj2k_error *error);
/* pnm_write in two halves, for a file written a strip at a time: the
 * header for `height` rows of the image's components (checked), then the
 * samples of the rows the image holds (*clamped set when some fell outside
 * their precision's range). */
gj2k_status pnm_write_header(const gj2k_image *image, uint32_t height,
                             const gj2k_write_options *options, byte_buffer *out,
                             gj2k_error *error);
gj2k_status pnm_write_rows(const gj2k_image *image, byte_buffer *out, bool *clamped,
                           gj2k_error *error);
gj2k_status pnm_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error);

gj2k_status pgx_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error);
/* Writes component `component` of the image as one PGX file. */
gj2k_status pgx_write_component(const gj2k_image *image, uint32_t component,
                                const gj2k_write_options *options, byte_buffer *out,
                                gj2k_error *error);

gj2k_status tga_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error);
gj2k_status tga_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error);
gj2k_status bmp_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error);
gj2k_status bmp_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error);

/* Raw samples in component-planar order, geometry from options->raw. */
gj2k_status raw_read(const uint8_t *data, size_t size, bool big_endian,
                     const gj2k_read_options *options, gj2k_image **out, gj2k_error *error);
gj2k_status raw_write(const gj2k_image *image, bool big_endian, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error);

gj2k_status png_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error);
gj2k_status png_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error);

gj2k_status tiff_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                      gj2k_image **out, gj2k_error *error);
gj2k_status tiff_write(const gj2k_image *image, const gj2k_write_options *options,
                       byte_buffer *out, gj2k_error *error);

/* Writes `size` bytes to `path` under a temporary name beside it, then
 * renames it: the file appears whole or not at all (file_write.c). Each
 * temporary is told to options->temporary (options may be NULL). */
gj2k_status file_write_whole(const char *path, const uint8_t *data, size_t size,
                             const gj2k_write_options *options, gj2k_error *error);
/* The halves of file_write_whole, for several files renamed together: the
 * bytes in a temporary beside `path`, then the rename, or the removal (also
 * when the rename fails). With keep_locked the temporary's descriptor, and
 * its lock, stay open until then; without, they close once it is written
 * (for many files at once). */
typedef struct file_temporary {
    char *name; /* malloc'ed; NULL once committed or discarded */
    int fd;     /* -1 when closed */
} file_temporary;
gj2k_status file_write_temporary(const char *path, const uint8_t *data, size_t size,
                                 const gj2k_write_options *options, bool keep_locked,
                                 file_temporary *out, gj2k_error *error);
/* Appends to a temporary kept open (keep_locked). */
gj2k_status file_append_temporary(file_temporary *temporary, const char *path,
                                  const uint8_t *data, size_t size, gj2k_error *error);
gj2k_status file_commit_temporary(file_temporary *temporary, const char *path,
                                  const gj2k_write_options *options, gj2k_error *error);
void file_discard_temporary(file_temporary *temporary, const gj2k_write_options *options);
/* An image file written a strip of rows at a time, as a decoder makes
 * them, under a temporary name renamed once complete (image_stream.c). */
typedef struct image_stream image_stream;
/* Whether a file of `format` can be written so: PNM, one file. */
bool image_stream_supports(gj2k_file_format format, const gj2k_write_options *options);
gj2k_status image_stream_open(const char *path, gj2k_file_format format,
                              const gj2k_write_options *options, image_stream **out,
                              gj2k_error *error);
/* Appends the rows `strip` holds, each component as wide as the file; the
 * first strip's components set the file's (its header says `height` rows),
 * and the strips must add up to that. */
gj2k_status image_stream_write(image_stream *stream, const gj2k_image *strip, uint32_t height,
                               gj2k_error *error);
/* Renames the file into place when `commit` (and every row was written),
 * else removes it; frees the stream either way. */
gj2k_status image_stream_close(image_stream *stream, bool commit, gj2k_error *error);

/* Reads a whole file into a new malloc'ed buffer. */
gj2k_status file_read_all(const char *path, uint8_t **data, size_t *size, gj2k_error *error);

/* Largest ratio of decoded bytes to file bytes that a compressed format can
 * reach (deflate's limit is about 1032:1; 1-bit samples pack 8 per byte). */
#define IMAGE_MAX_SAMPLES_PER_FILE_BYTE (1100u * 8u)

/* Fails with GJ2K_ERROR_LIMIT when `samples` exceeds options->max_samples or
 * what `file_size` bytes can justify at `max_samples_per_byte`. */
gj2k_status image_check_sample_budget(const gj2k_read_options *options, uint64_t samples,
                                      size_t file_size, uint64_t max_samples_per_byte,
                                      gj2k_error *error);

/* Number of samples an image of this canvas and components would hold
 * (saturating at UINT64_MAX - 1), or UINT64_MAX when the parameters are out
 * of range. */
uint64_t image_sample_count(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                            uint32_t num_components, const gj2k_component_info *info);

/* Bytes gj2k_image_create holds a sample of `precision` bits in (int32_t,
 * or int64_t above GJ2K_MAX_NARROW_PRECISION). */
static inline unsigned image_sample_bytes(uint32_t precision)
{
    return precision > GJ2K_MAX_NARROW_PRECISION ? 8u : 4u;
}

/* ceil(a / b) without overflow (b >= 1). */
static inline uint32_t image_ceil_div(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a + b - 1) / b);
}

/* A component's place on the canvas [x0, x1) x [y0, y1) at subsampling dx,
 * dy (eq. B-2): its origin and size; samples untouched. */
static inline void image_component_place(gj2k_component *k, uint32_t x0, uint32_t y0, uint32_t x1,
                                         uint32_t y1, uint32_t dx, uint32_t dy)
{
    k->dx = dx;
    k->dy = dy;
    k->x0 = image_ceil_div(x0, dx);
    k->y0 = image_ceil_div(y0, dy);
    k->width = image_ceil_div(x1, dx) - k->x0;
    k->height = image_ceil_div(y1, dy) - k->y0;
}

/* Bytes the image's samples take. */
static inline uint64_t image_storage_bytes(const gj2k_image *image)
{
    uint64_t bytes = 0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *k = &image->components[c];
        bytes += (uint64_t)k->width * k->height * image_sample_bytes(k->precision);
    }
    return bytes;
}

/* Smallest and largest sample value of a component's precision and sign. */
int64_t image_sample_min(const gj2k_component *component);
int64_t image_sample_max(const gj2k_component *component);

#endif
