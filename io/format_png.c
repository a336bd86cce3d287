/* placeholder: being written */
#include "error.h"
#include "image_formats.h"
gj2k_status png_read(const uint8_t *data, size_t size, const gj2k_read_options *options, gj2k_image **out, gj2k_error *error)
{ (void)data; (void)size; (void)options; *out = NULL; return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "not written yet"); }
gj2k_status png_write(const gj2k_image *image, const gj2k_write_options *options, byte_buffer *out, gj2k_error *error)
{ (void)image; (void)options; (void)out; return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "not written yet"); }
