/* device_warm_up.h - opening the GPU on a thread of its own while the input
 * is read (gj2k_device_warm_up), so that encoding or decoding on the GPU
 * does not wait for it: with --device gpu always, with auto when the input
 * is large enough that the library will take the GPU. */
#ifndef GJ2K_APP_DEVICE_WARM_UP_H
#define GJ2K_APP_DEVICE_WARM_UP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct device_warm_up {
    pthread_t thread;
    bool started;
    gj2k_status status;
    double milliseconds;
} device_warm_up;

/* Starts opening the GPU when `device` will want it for an input of
 * `samples` samples (auto: at least `auto_min_samples`, the library's
 * GPU_STAGE_AUTO_MIN_ENCODE_SAMPLES or _DECODE_SAMPLES). */
void device_warm_up_start(device_warm_up *w, gj2k_device device, uint64_t samples,
                          uint64_t auto_min_samples);
/* Waits for it; true when it ran and the GPU opened, with its time. */
bool device_warm_up_finish(device_warm_up *w, double *milliseconds);

/* An image file's samples: from the header of a Netpbm image
 * (pnm_header_samples), else a floor from the file's size (uncompressed
 * files of up to 16 bits hold at most 2 bytes a sample, compressed ones,
 * PNG or TIFF, fewer). 0 when it cannot be read. */
uint64_t device_warm_up_image_samples(const char *path);
/* A JPEG 2000 file's samples from its SIZ marker segment (j2k_siz_read),
 * that of the codestream or of a JP2 file's jp2c box, read from its first
 * bytes; 0 when they do not tell. */
uint64_t device_warm_up_codestream_samples(const char *path);
/* The same from a file's bytes held in memory (its first bytes or all). */
uint64_t device_warm_up_data_samples(const uint8_t *data, size_t size);

#endif
