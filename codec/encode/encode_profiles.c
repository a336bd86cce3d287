/* encode_profiles.c - see encode_profiles.h. */
#include "encode_profiles.h"

#include "cinema_profile.h"
#include "error.h"
#include "imf_profile.h"

/* The codestream in `out`, checked against a profile, boxed as a JP2 file
 * of `image` in its place: not coded again, which a byte target would
 * count with the boxes and so code otherwise. */
static gj2k_status box_checked(const gj2k_image *image, byte_buffer *out,
                               gj2k_encode_report *report, gj2k_error *error)
{
    byte_buffer boxed = {0};
    gj2k_status status = encoder_write_jp2(image, out->data, out->size, &boxed, error);
    if (status == GJ2K_OK && boxed.failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the output");
    if (status != GJ2K_OK) {
        byte_buffer_free(&boxed);
        return status;
    }
    byte_buffer_free(out);
    *out = boxed;
    if (report != NULL)
        report->bytes = out->size;
    return GJ2K_OK;
}

gj2k_status encode_cinema(const gj2k_image *image, const gj2k_encode_options *options,
                          gj2k_file_format format, byte_buffer *out, gj2k_encode_report *report,
                          gj2k_error *error)
{
    cinema_options cinema;
    gj2k_status status = cinema_options_make(image, options, &cinema, error);
    for (int attempt = 0; attempt < 4 && status == GJ2K_OK; attempt++) {
        out->size = 0;
        status = encoder_code_image(image, &cinema.options, GJ2K_FORMAT_J2K, out, report, error);
        size_t over = 0;
        if (status == GJ2K_OK)
            status = cinema_check_codestream(out->data, out->size, cinema.limits, &over, error);
        if (status != GJ2K_ERROR_LIMIT || over == 0 || cinema.target <= (double)over + 1024)
            break;
        cinema.target -= (double)over + 1024; /* again, within the component's share */
        status = GJ2K_OK;
    }
    if (status == GJ2K_OK && format == GJ2K_FORMAT_JP2) /* the checked codestream, boxed */
        status = box_checked(image, out, report, error);
    return status;
}

gj2k_status encode_imf(const gj2k_image *image, const gj2k_encode_options *options,
                       gj2k_file_format format, byte_buffer *out, gj2k_encode_report *report,
                       gj2k_error *error)
{
    imf_options imf;
    gj2k_status status = imf_options_make(image, options, &imf, error);
    if (status == GJ2K_OK)
        status = encoder_code_image(image, &imf.options, GJ2K_FORMAT_J2K, out, report, error);
    if (status == GJ2K_OK && imf_lower_to_bound(&imf, out->size)) {
        out->size = 0;
        status = encoder_code_image(image, &imf.options, GJ2K_FORMAT_J2K, out, report, error);
    }
    if (status == GJ2K_OK)
        status = imf_levels_settle(&imf, out->size, error);
    if (status == GJ2K_OK)
        status = imf_finish_codestream(&imf, out->data, out->size, error);
    if (status == GJ2K_OK && format == GJ2K_FORMAT_JP2) /* the checked codestream, boxed */
        status = box_checked(image, out, report, error);
    return status;
}
