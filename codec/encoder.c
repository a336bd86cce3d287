/* encoder.c - the public encoding API (gj2k_encode_memory, gj2k_encode_file). */
#include "gj2k.h"

#include "error.h"

gj2k_status gj2k_encode_memory(const gj2k_image *image, const gj2k_encode_options *options,
                               uint8_t **data, size_t *size, gj2k_encode_report *report,
                               gj2k_error *error)
{
    (void)image, (void)options, (void)data, (void)size, (void)report;
    return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "the encoder is not implemented yet");
}

gj2k_status gj2k_encode_file(const gj2k_image *image, const char *path,
                             const gj2k_encode_options *options, gj2k_encode_report *report,
                             gj2k_error *error)
{
    (void)image, (void)path, (void)options, (void)report;
    return gj2k_fail(error, GJ2K_ERROR_NOT_IMPLEMENTED, "the encoder is not implemented yet");
}
