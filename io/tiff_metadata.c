/* tiff_metadata.c - see tiff_metadata.h. */
#include "tiff_metadata.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/* The bytes of one counted IPTC element: libtiff 4.5 counts bytes
 * (UNDEFINED), older ones 4-byte LONGs. */
static size_t iptc_unit(TIFF *tiff)
{
    const TIFFField *field = TIFFFieldWithTag(tiff, TIFFTAG_RICHTIFFIPTC);
    int unit = field != NULL ? TIFFFieldSetGetSize(field) : 1;
    return unit == 4 ? 4 : 1;
}

gj2k_status tiff_metadata_read(TIFF *tiff, gj2k_image *image, gj2k_warning_fn warning,
                               void *warning_user, gj2k_error *error)
{
    uint64_t exif_directory = 0;
    if (TIFFGetField(tiff, TIFFTAG_EXIFIFD, &exif_directory))
        gj2k_warn(warning, warning_user,
                  "TIFF: the EXIF directory is not carried (its XMP and IPTC are)");
    uint32_t size = 0;
    void *data = NULL;
    gj2k_status status = GJ2K_OK;
    if (TIFFGetField(tiff, TIFFTAG_XMLPACKET, &size, &data) && data != NULL && size > 0)
        status = gj2k_image_set_metadata(image, GJ2K_METADATA_XMP, data, size, error);
    size_t unit = iptc_unit(tiff);
    if (status == GJ2K_OK && TIFFGetField(tiff, TIFFTAG_RICHTIFFIPTC, &size, &data) &&
        data != NULL && size > 0 && size <= UINT32_MAX / unit)
        status = gj2k_image_set_metadata(image, GJ2K_METADATA_IPTC, data, (size_t)size * unit,
                                         error);
    return status;
}

void tiff_metadata_write(TIFF *tiff, const gj2k_image *image, gj2k_warning_fn warning,
                         void *warning_user)
{
    if (image->exif != NULL)
        gj2k_warn(warning, warning_user, "TIFF: EXIF metadata is left out (JP2 and PNG keep it)");
    if (image->xmp != NULL && image->xmp_size > 0 && image->xmp_size <= UINT32_MAX)
        TIFFSetField(tiff, TIFFTAG_XMLPACKET, (uint32_t)image->xmp_size, image->xmp);
    if (image->iptc == NULL || image->iptc_size == 0 || image->iptc_size > UINT32_MAX - 3)
        return;
    size_t unit = iptc_unit(tiff); /* LONGs: zeros pad the last */
    uint32_t elements = (uint32_t)((image->iptc_size + unit - 1) / unit);
    uint8_t *padded = calloc(elements, unit);
    if (padded != NULL) { /* libtiff copies it */
        memcpy(padded, image->iptc, image->iptc_size);
        TIFFSetField(tiff, TIFFTAG_RICHTIFFIPTC, elements, padded);
        free(padded);
    }
}
