/* placeholder: being written */
#include "error.h"
#include "image_formats.h"
gj2k_status raw_read(const uint8_t *data, size_t size, bool big_endian, const gj2k_read_options *options, gj2k_image **out, gj2k_error *error)
{ (void)data; (void)size; (void)big_endian; (void)options; *out = NULL; return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "not written yet"); }
gj2k_status raw_write(const gj2k_image *image, bool big_endian, const gj2k_write_options *options, byte_buffer *out, gj2k_error *error)
{ (void)image; (void)big_endian; (void)options; (void)out; return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "not written yet"); }
