/* device_warm_up.c - see device_warm_up.h. */
#include "device_warm_up.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>


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

/* Width * height * channels of a binary PGM or PPM (P5, P6) header. */
static uint64_t pnm_samples(const uint8_t *p, size_t n)
{
    if (n < 3 || p[0] != 'P' || (p[1] != '5' && p[1] != '6'))
        return 0;
    uint64_t value[2] = {0, 0};
    size_t at = 2;
    for (int k = 0; k < 2; k++) {
        while (at < n && (p[at] == ' ' || p[at] == '\t' || p[at] == '\r' || p[at] == '\n' ||
                          p[at] == '#')) {
            if (p[at] == '#') /* a comment, to the end of its line */
                while (at < n && p[at] != '\n')
                    at++;
            else
                at++;
        }
        if (at >= n || p[at] < '0' || p[at] > '9')
            return 0;
        while (at < n && p[at] >= '0' && p[at] <= '9' && value[k] < (1u << 30))
            value[k] = value[k] * 10 + (uint64_t)(p[at++] - '0');
    }
    return value[0] * value[1] * (p[1] == '6' ? 3 : 1);
}

uint64_t device_warm_up_image_samples(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size <= 0)
        return 0;
    uint8_t head[512];
    FILE *f = fopen(path, "rb");
    size_t n = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL)
        fclose(f);
    uint64_t samples = pnm_samples(head, n);
    return samples ? samples : (uint64_t)st.st_size / 2;
}

static uint32_t big32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* (Xsiz - XOsiz) (Ysiz - YOsiz) Csiz of a SIZ marker segment at p (A.5.1). */
static uint64_t siz_samples(const uint8_t *p, size_t n)
{
    if (n < 42 || p[0] != 0xFF || p[1] != 0x51)
        return 0;
    uint32_t x = big32(p + 6), y = big32(p + 10), x0 = big32(p + 14), y0 = big32(p + 18);
    uint32_t c = (uint32_t)p[38] << 8 | p[39];
    return x > x0 && y > y0 ? (uint64_t)(x - x0) * (y - y0) * c : 0;
}

/* HEIGHT WIDTH NC of the ihdr box inside the jp2h box of a JP2 file
 * (ISO/IEC 15444-1 I.5.3.1), looked for in the first n bytes. */
static uint64_t jp2_samples(const uint8_t *p, size_t n)
{
    size_t at = 0, end = n;
    while (at + 8 <= end) {
        uint32_t length = big32(p + at);
        const uint8_t *type = p + at + 4;
        if (memcmp(type, "jp2h", 4) == 0) { /* a superbox: look inside */
            end = length >= 8 && at + length <= n ? at + length : n;
            at += 8;
            continue;
        }
        if (memcmp(type, "ihdr", 4) == 0 && at + 18 <= n)
            return (uint64_t)big32(p + at + 8) * big32(p + at + 12) *
                   ((uint32_t)p[at + 16] << 8 | p[at + 17]);
        if (length < 8) /* to the end of the file, or a 64-bit length: not ours */
            return 0;
        at += length;
    }
    return 0;
}

uint64_t device_warm_up_codestream_samples(const char *path)
{
    uint8_t head[4096];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n >= 4 && head[0] == 0xFF && head[1] == 0x4F)
        return siz_samples(head + 2, n - 2);
    return jp2_samples(head, n);
}
