/* tiff_metadata.h - the metadata TIFF carries in tags, as it lies: XMP
 * (XMLPacket, tag 700) and IPTC (RichTIFFIPTC, 33723). EXIF (its own
 * directory, tag 34665) is not carried either way, and a warning says so. */
#ifndef GJ2K_TIFF_METADATA_H
#define GJ2K_TIFF_METADATA_H

#include <tiffio.h>

#include "gj2k.h"

/* The directory's XMP and IPTC into the image. */
gj2k_status tiff_metadata_read(TIFF *tiff, gj2k_image *image, gj2k_warning_fn warning,
                               void *warning_user, gj2k_error *error);
/* The image's XMP and IPTC into the directory being written. */
void tiff_metadata_write(TIFF *tiff, const gj2k_image *image, gj2k_warning_fn warning,
                         void *warning_user);

#endif
