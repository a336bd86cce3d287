/* color_icc.c - ICC-described colour (JP2 colr methods 2 and 3, Annex
 * I.5.3.3) to sRGB through LittleCMS 2. Each call makes its own lcms
 * context and uses only the *THR functions, so no state is shared. */
#include "color_render.h"
#include "error.h"

#ifdef GJ2K_HAVE_LCMS2

#include <lcms2.h>
#include <math.h>
#include <stdlib.h>

enum { PIXELS_PER_BATCH = 4096 };

/* Where the context's error handler leaves lcms's last complaint. */
typedef struct lcms_log {
    char message[160];
} lcms_log;

static void record_lcms_error(cmsContext context, cmsUInt32Number code, const char *text)
{
    (void)code;
    lcms_log *log = cmsGetContextUserData(context);
    if (log != NULL && text != NULL) {
        size_t i = 0;
        for (; text[i] != '\0' && i + 1 < sizeof log->message; i++)
            log->message[i] = (text[i] == '\n' || text[i] == '\r') ? ' ' : text[i];
        log->message[i] = '\0';
    }
}

/* Converts with an open transform, batch by batch, in floats of 0..1. */
static void run_transform(cmsHTRANSFORM transform, const gj2k_image *image,
                          const uint32_t *colors, uint32_t num_colors, gj2k_component rgb[3],
                          float *in, float *out)
{
    const gj2k_component *first = &image->components[colors[0]];
    double scale[3], offset[3];
    for (uint32_t k = 0; k < num_colors; k++) {
        const gj2k_component *comp = &image->components[colors[k]];
        scale[k] = 1.0 / (ldexp(1.0, (int)comp->precision) - 1.0);
        offset[k] = comp->is_signed ? ldexp(1.0, (int)comp->precision - 1) : 0.0;
    }
    const double high = ldexp(1.0, (int)rgb[0].precision) - 1.0;
    size_t count = (size_t)first->width * first->height;
    for (size_t start = 0; start < count; start += PIXELS_PER_BATCH) {
        size_t batch = count - start < PIXELS_PER_BATCH ? count - start : PIXELS_PER_BATCH;
        for (size_t i = 0; i < batch; i++)
            for (uint32_t k = 0; k < num_colors; k++)
                in[i * num_colors + k] = (float)(((double)color_render_sample(
                                                      &image->components[colors[k]], start + i) +
                                                  offset[k]) *
                                                 scale[k]);
        cmsDoTransform(transform, in, out, (cmsUInt32Number)batch);
        for (size_t i = 0; i < batch; i++) {
            for (int k = 0; k < 3; k++) {
                double v = floor((double)out[i * 3 + (size_t)k] * high + 0.5);
                v = v > 0 ? v : 0; /* also catches NaN */
                color_render_set_sample(&rgb[k], start + i, (int64_t)(v > high ? high : v));
            }
        }
    }
}

gj2k_status color_render_icc_to_srgb(const gj2k_image *image, const uint32_t *colors,
                                     uint32_t num_colors, gj2k_component rgb[3],
                                     gj2k_error *error)
{
    if (num_colors != 1 && num_colors != 3)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "ICC: %u colour channels (1 or 3 handled)",
                         num_colors);
    if (image->icc_profile_size > UINT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "ICC: profile of %zu bytes",
                         image->icc_profile_size);
    lcms_log log = {{0}};
    cmsContext context = cmsCreateContext(NULL, &log);
    if (context == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "ICC: no LittleCMS context");
    cmsSetLogErrorHandlerTHR(context, record_lcms_error);
    gj2k_status status = GJ2K_OK;
    cmsHPROFILE input = cmsOpenProfileFromMemTHR(context, image->icc_profile,
                                                 (cmsUInt32Number)image->icc_profile_size);
    cmsHPROFILE output = cmsCreate_sRGBProfileTHR(context);
    cmsHTRANSFORM transform = NULL;
    float *in = NULL, *out = NULL;
    cmsColorSpaceSignature expected = num_colors == 1 ? cmsSigGrayData : cmsSigRgbData;
    if (input == NULL) {
        status = gj2k_fail(error, GJ2K_ERROR_MALFORMED, "ICC: the profile cannot be read (%s)",
                           log.message[0] ? log.message : "no detail");
    } else if (cmsGetColorSpace(input) != expected) {
        status = gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                           "ICC: the profile's colour space does not have %u channels", num_colors);
    } else if (output == NULL) {
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "ICC: no sRGB profile");
    } else {
        transform = cmsCreateTransformTHR(context, input,
                                          num_colors == 1 ? TYPE_GRAY_FLT : TYPE_RGB_FLT, output,
                                          TYPE_RGB_FLT, INTENT_PERCEPTUAL, 0);
        if (transform == NULL)
            status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                               "ICC: no transform from the profile to sRGB (%s)",
                               log.message[0] ? log.message : "no detail");
    }
    if (status == GJ2K_OK) {
        in = malloc((size_t)PIXELS_PER_BATCH * num_colors * sizeof *in);
        out = malloc((size_t)PIXELS_PER_BATCH * 3 * sizeof *out);
        if (in == NULL || out == NULL)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "ICC: out of memory");
    }
    if (status == GJ2K_OK)
        status = color_render_new_rgb(&image->components[colors[0]], rgb, error);
    if (status == GJ2K_OK)
        run_transform(transform, image, colors, num_colors, rgb, in, out);
    free(in);
    free(out);
    if (transform != NULL)
        cmsDeleteTransform(transform);
    if (input != NULL)
        cmsCloseProfile(input);
    if (output != NULL)
        cmsCloseProfile(output);
    cmsDeleteContext(context);
    return status;
}

#else

gj2k_status color_render_icc_to_srgb(const gj2k_image *image, const uint32_t *colors,
                                     uint32_t num_colors, gj2k_component rgb[3],
                                     gj2k_error *error)
{
    (void)image;
    (void)colors;
    (void)num_colors;
    (void)rgb;
    return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                     "ICC conversion needs LittleCMS (built without lcms2)");
}

#endif
