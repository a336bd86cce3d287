/* png_chromaticity.c - see png_chromaticity.h. */
#include "png_chromaticity.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

#ifdef GJ2K_HAVE_LCMS2
#include <lcms2.h>
#endif

/* sRGB's primaries and white (IEC 61966-2-1), and its gAMA as PNG writes it. */
static const double srgb_white[2] = {0.3127, 0.3290}, srgb_red[2] = {0.64, 0.33},
                    srgb_green[2] = {0.30, 0.60}, srgb_blue[2] = {0.15, 0.06};
#define SRGB_FILE_GAMMA 0.45455

static bool near(const double a[2], const double b[2])
{
    return fabs(a[0] - b[0]) < 0.0015 && fabs(a[1] - b[1]) < 0.0015;
}

bool png_chromaticity_is_srgb(const png_chromaticity *c)
{
    if (c->gamma != 0 && fabs(c->gamma - SRGB_FILE_GAMMA) > 0.0005)
        return false;
    return !c->has_primaries || (near(c->white, srgb_white) && near(c->red, srgb_red) &&
                                 near(c->green, srgb_green) && near(c->blue, srgb_blue));
}

#ifdef GJ2K_HAVE_LCMS2
gj2k_status png_chromaticity_profile(const png_chromaticity *c, bool grey, uint8_t **profile,
                                     size_t *size, gj2k_error *error)
{
    *profile = NULL;
    *size = 0;
    cmsContext context = cmsCreateContext(NULL, NULL);
    if (context == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "ICC: no LittleCMS context");
    const double *w = c->has_primaries ? c->white : srgb_white;
    cmsCIExyY white = {w[0], w[1], 1.0};
    double exponent = c->gamma > 0 ? 1.0 / c->gamma : 2.2; /* decoding: the inverse */
    cmsToneCurve *curve = cmsBuildGamma(context, exponent);
    cmsHPROFILE made = NULL;
    if (curve != NULL && grey) {
        made = cmsCreateGrayProfileTHR(context, &white, curve);
    } else if (curve != NULL) {
        const double *r = c->has_primaries ? c->red : srgb_red;
        const double *g = c->has_primaries ? c->green : srgb_green;
        const double *b = c->has_primaries ? c->blue : srgb_blue;
        cmsCIExyYTRIPLE primaries = {{r[0], r[1], 1.0}, {g[0], g[1], 1.0}, {b[0], b[1], 1.0}};
        cmsToneCurve *curves[3] = {curve, curve, curve};
        made = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
    }
    cmsUInt32Number bytes = 0;
    gj2k_status status = GJ2K_OK;
    if (made == NULL || !cmsSaveProfileToMem(made, NULL, &bytes) || bytes == 0) {
        status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                           "ICC: no profile for gamma %.5f and those primaries", c->gamma);
    } else if ((*profile = malloc(bytes)) == NULL) {
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "ICC: out of memory");
    } else if (!cmsSaveProfileToMem(made, *profile, &bytes)) {
        free(*profile);
        *profile = NULL;
        status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "ICC: the profile cannot be written");
    } else {
        *size = bytes;
    }
    if (made != NULL)
        cmsCloseProfile(made);
    if (curve != NULL)
        cmsFreeToneCurve(curve);
    cmsDeleteContext(context);
    return status;
}
#else
gj2k_status png_chromaticity_profile(const png_chromaticity *c, bool grey, uint8_t **profile,
                                     size_t *size, gj2k_error *error)
{
    (void)c, (void)grey;
    *profile = NULL;
    *size = 0;
    return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "this build has no LittleCMS");
}
#endif
