/* device_warm_up.c - see device_warm_up.h. */
#include "device_warm_up.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "codestream.h"
#include "image_formats.h"

static void *warm_up(void *argument)
{
    device_warm_up *w = argument;
    w->status = gj2k_device_warm_up(&w->milliseconds, NULL);
    return NULL;
}

void device_warm_up_start(device_warm_up *w, gj2k_device device, uint64_t samples,
                          uint64_t auto_min_samples)
{
    memset(w, 0, sizeof *w);
    bool wanted = device == GJ2K_DEVICE_GPU ||
                  (device == GJ2K_DEVICE_AUTO && samples >= auto_min_samples);
    if (wanted)
        w->started = pthread_create(&w->thread, NULL, warm_up, w) == 0;
}

bool device_warm_up_finish(device_warm_up *w, double *milliseconds)
{
    if (!w->started)
        return false;
    pthread_join(w->thread, NULL);
    w->started = false;
    if (milliseconds != NULL)
        *milliseconds = w->milliseconds;
    return w->status == GJ2K_OK;
}

/* The first bytes of a file, at most n; how many were read. */
static size_t read_head(const char *path, uint8_t *head, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(head, 1, n, f);
    fclose(f);
    return got;
}

uint64_t device_warm_up_image_samples(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size <= 0)
        return 0;
    uint8_t head[512];
    uint64_t samples = 0;
    pnm_header_samples(head, read_head(path, head, sizeof head), &samples, NULL);
    return samples ? samples : (uint64_t)st.st_size / 2;
}

/* The samples of every component of the codestream whose first n bytes
 * are at p, from its SIZ marker segment (A.5.1, eq. B-2). */
static uint64_t codestream_samples(const uint8_t *p, size_t n)
{
    if (n < 6 || p[0] != 0xFF || p[1] != 0x4F || p[2] != 0xFF || p[3] != 0x51)
        return 0;
    size_t length = (size_t)p[4] << 8 | p[5]; /* Lsiz */
    if (length < 2 || length > n - 4)
        return 0;
    byte_reader body = {.data = p + 6, .size = length - 2};
    j2k_siz siz;
    if (j2k_siz_read(&body, &siz, NULL) != GJ2K_OK)
        return 0;
    uint64_t samples = 0;
    for (uint32_t c = 0; c < siz.num_components; c++) {
        uint32_t dx = siz.components[c].dx, dy = siz.components[c].dy;
        samples += (uint64_t)(image_ceil_div(siz.image_x1, dx) - image_ceil_div(siz.image_x0, dx)) *
                   (image_ceil_div(siz.image_y1, dy) - image_ceil_div(siz.image_y0, dy));
    }
    j2k_siz_free(&siz);
    return samples;
}

static uint64_t big_endian(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < bytes; k++)
        v = v << 8 | p[k];
    return v;
}

/* The codestream of a JP2 file: the contents of its jp2c box (I.5.4),
 * looked for among the top-level boxes in the first n bytes. */
static uint64_t jp2_samples(const uint8_t *p, size_t n)
{
    size_t at = 0;
    while (at + 8 <= n) {
        uint64_t length = big_endian(p + at, 4);
        size_t header = 8;
        if (length == 1) { /* XLBox */
            if (at + 16 > n)
                return 0;
            length = big_endian(p + at + 8, 8);
            header = 16;
        }
        if (memcmp(p + at + 4, "jp2c", 4) == 0)
            return codestream_samples(p + at + header, n - at - header);
        if (length < header || length > n - at) /* to the end, or past what was read */
            return 0;
        at += (size_t)length;
    }
    return 0;
}

uint64_t device_warm_up_data_samples(const uint8_t *data, size_t size)
{
    uint64_t samples = codestream_samples(data, size);
    return samples ? samples : jp2_samples(data, size);
}

uint64_t device_warm_up_codestream_samples(const char *path)
{
    uint8_t head[4096];
    return device_warm_up_data_samples(head, read_head(path, head, sizeof head));
}
