/* nvjpeg2k_bench.c - gj2k against NVIDIA's nvJPEG2000 on one GPU, in the
 * same process, on the same image (an 8-bit PPM or PGM): lossless encode
 * (5/3, RCT, 6 resolutions, 64x64 code-blocks, one layer), lossy encode
 * (gj2k at -I -r 20; nvJPEG2000 aiming at the PSNR gj2k reached, which is
 * what it offers instead of a rate), and the decoding of gj2k's two
 * codestreams by both; the same for HTJ2K lossless (T.814: gj2k --ht,
 * nvJPEG2000's HT mode). Memory to memory: the image starts in host memory,
 * codestreams and decoded samples end there; the device is open before the
 * clock starts. Best of N, in gigapixels a second. Built only when
 * -DGJ2K_NVJPEG2K_DIR names the unpacked nvidia-nvjpeg2k-cu13 wheel.
 * Usage: gj2k_nvjpeg2k_bench IMAGE.ppm [REPEATS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <nvjpeg2k.h>

#include "clock.h"
#include "gj2k.h"
#include "image_compare.h"

#define NV_CHECK(call)                                                                          \
    do {                                                                                        \
        nvjpeg2kStatus_t s_ = (call);                                                           \
        if (s_ != NVJPEG2K_STATUS_SUCCESS) {                                                    \
            fprintf(stderr, "nvjpeg2k_bench: %s: status %d\n", #call, (int)s_);                \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)
#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "nvjpeg2k_bench: %s: %s\n", #call, cudaGetErrorString(e_));        \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

typedef struct nv_codec {
    nvjpeg2kHandle_t handle;
    nvjpeg2kDecodeState_t decode_state;
    nvjpeg2kStream_t stream;
    nvjpeg2kEncoder_t encoder;
    nvjpeg2kEncodeState_t encode_state;
    cudaStream_t cuda;
    uint8_t *planes[3];   /* device: one plane a component */
    size_t pitch;
} nv_codec;

static double gigapixels(const gj2k_image *image)
{
    return (double)(image->x1 - image->x0) * (image->y1 - image->y0) * 1e-9;
}

/* nvJPEG2000's encode: planes up, encode, codestream down. */
static size_t nv_encode(nv_codec *nv, const gj2k_image *image, const uint8_t *const *host_planes,
                        bool lossy, bool ht, double psnr, uint8_t *out, size_t capacity)
{
    uint32_t w = image->x1 - image->x0, h = image->y1 - image->y0, n = image->num_components;
    for (uint32_t c = 0; c < n; c++)
        CUDA_CHECK(cudaMemcpyAsync(nv->planes[c], host_planes[c], (size_t)w * h,
                                   cudaMemcpyHostToDevice, nv->cuda));
    nvjpeg2kImageComponentInfo_t info[3];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (nvjpeg2kImageComponentInfo_t){w, h, 8, 0};
    nvjpeg2kEncodeConfig_t config;
    memset(&config, 0, sizeof config);
    config.stream_type = NVJPEG2K_STREAM_J2K;
    config.color_space = n == 3 ? NVJPEG2K_COLORSPACE_SRGB : NVJPEG2K_COLORSPACE_GRAY;
    config.image_width = w;
    config.image_height = h;
    config.num_components = n;
    config.image_comp_info = info;
    config.prog_order = NVJPEG2K_LRCP;
    config.num_layers = 1;
    config.mct_mode = n == 3;
    config.num_resolutions = 6;
    config.code_block_w = 64;
    config.code_block_h = 64;
    config.irreversible = lossy;
    if (ht) { /* HTJ2K: Rsiz bit 14 and HT code-blocks */
        config.rsiz = NVJPEG2K_RSIZ_HT;
        config.encode_modes = NVJPEG2K_MODE_HT;
    }
    nvjpeg2kEncodeParams_t params;
    NV_CHECK(nvjpeg2kEncodeParamsCreate(&params));
    NV_CHECK(nvjpeg2kEncodeParamsSetEncodeConfig(params, &config));
    if (lossy)
        NV_CHECK(nvjpeg2kEncodeParamsSpecifyQuality(params, NVJPEG2K_QUALITY_TYPE_TARGET_PSNR,
                                                     psnr));
    void *pixels[3] = {nv->planes[0], nv->planes[1], nv->planes[2]};
    size_t pitches[3] = {w, w, w};
    nvjpeg2kImage_t input = {pixels, pitches, NVJPEG2K_UINT8, n};
    NV_CHECK(nvjpeg2kEncode(nv->encoder, nv->encode_state, params, &input, nv->cuda));
    size_t length = 0;
    NV_CHECK(nvjpeg2kEncodeRetrieveBitstream(nv->encoder, nv->encode_state, NULL, &length,
                                             nv->cuda));
    if (length > capacity) {
        fprintf(stderr, "nvjpeg2k_bench: codestream of %zu bytes\n", length);
        exit(1);
    }
    NV_CHECK(nvjpeg2kEncodeRetrieveBitstream(nv->encoder, nv->encode_state, out, &length,
                                             nv->cuda));
    CUDA_CHECK(cudaStreamSynchronize(nv->cuda));
    NV_CHECK(nvjpeg2kEncodeParamsDestroy(params));
    return length;
}

/* nvJPEG2000's decode: parse, decode, samples down. */
static void nv_decode(nv_codec *nv, const uint8_t *data, size_t size, uint8_t *const *host_planes,
                      uint32_t w, uint32_t h, uint32_t n)
{
    NV_CHECK(nvjpeg2kStreamParse(nv->handle, data, size, 0, 0, nv->stream));
    void *pixels[3] = {nv->planes[0], nv->planes[1], nv->planes[2]};
    size_t pitches[3] = {w, w, w};
    nvjpeg2kImage_t output = {pixels, pitches, NVJPEG2K_UINT8, n};
    NV_CHECK(nvjpeg2kDecodeImage(nv->handle, nv->decode_state, nv->stream, NULL, &output,
                                 nv->cuda));
    for (uint32_t c = 0; c < n; c++)
        CUDA_CHECK(cudaMemcpyAsync(host_planes[c], nv->planes[c], (size_t)w * h,
                                   cudaMemcpyDeviceToHost, nv->cuda));
    CUDA_CHECK(cudaStreamSynchronize(nv->cuda));
}

/* The samples nvJPEG2000 decoded, against gj2k's image: the largest
 * difference. */
static int largest_difference(const gj2k_image *image, uint8_t *const *planes)
{
    int worst = 0;
    size_t n = (size_t)(image->x1 - image->x0) * (image->y1 - image->y0);
    for (uint32_t c = 0; c < image->num_components; c++)
        for (size_t i = 0; i < n; i++) {
            int d = abs(image->components[c].samples[i] - planes[c][i]);
            worst = d > worst ? d : worst;
        }
    return worst;
}

/* "N bytes, exact" or "N bytes, PSNR P dB" for a codestream of the image;
 * returns the PSNR (infinite when exact). */
static double describe_output(const gj2k_image *image, const uint8_t *data, size_t size,
                              char *text, size_t capacity)
{
    image_difference d;
    char why[160];
    if (image_compare_encoded(image, data, size, NULL, &d, why, sizeof why) != ENCODED_COMPARED) {
        fprintf(stderr, "nvjpeg2k_bench: a codestream does not decode back: %s\n", why);
        exit(1);
    }
    if (d.identical)
        snprintf(text, capacity, "%zu bytes, exact", size);
    else
        snprintf(text, capacity, "%zu bytes, PSNR %.2f dB", size, d.psnr);
    return d.identical ? INFINITY : d.psnr;
}

static void row(const char *what, double gp, double ms, const char *detail)
{
    printf("| %-44s | %8.2f | %7.3f | %s |\n", what, ms, gp / (ms * 1e-3), detail);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gj2k_nvjpeg2k_bench IMAGE.ppm [REPEATS]\n");
        return 2;
    }
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    gj2k_error error = {0};
    gj2k_image *image = NULL;
    if (gj2k_image_read_file(argv[1], NULL, &image, &error) != GJ2K_OK) {
        fprintf(stderr, "nvjpeg2k_bench: %s\n", error.message);
        return 1;
    }
    uint32_t w = image->x1 - image->x0, h = image->y1 - image->y0, n = image->num_components;
    if ((n != 1 && n != 3) || image->components[0].precision != 8) {
        fprintf(stderr, "nvjpeg2k_bench: %s: an 8-bit grey or RGB image, please\n", argv[1]);
        return 1;
    }
    if (gj2k_device_warm_up(NULL, &error) != GJ2K_OK) {
        fprintf(stderr, "nvjpeg2k_bench: %s\n", error.message);
        return 1;
    }
    double gp = gigapixels(image);
    size_t area = (size_t)w * h, capacity = area * n * 2 + (1 << 20);
    uint8_t *host[3], *back[3];
    for (uint32_t c = 0; c < n; c++) {
        host[c] = malloc(area);
        back[c] = malloc(area);
        for (size_t i = 0; i < area; i++)
            host[c][i] = (uint8_t)image->components[c].samples[i];
    }
    nv_codec nv = {0};
    NV_CHECK(nvjpeg2kCreateSimple(&nv.handle));
    NV_CHECK(nvjpeg2kDecodeStateCreate(nv.handle, &nv.decode_state));
    NV_CHECK(nvjpeg2kStreamCreate(&nv.stream));
    NV_CHECK(nvjpeg2kEncoderCreateSimple(&nv.encoder));
    NV_CHECK(nvjpeg2kEncodeStateCreate(nv.encoder, &nv.encode_state));
    CUDA_CHECK(cudaStreamCreate(&nv.cuda));
    for (uint32_t c = 0; c < n; c++)
        CUDA_CHECK(cudaMalloc((void **)&nv.planes[c], area));
    uint8_t *nv_out = malloc(capacity);

    printf("%s: %ux%u, %u components, best of %d, memory to memory, device open\n\n", argv[1],
           w, h, n, repeats);
    printf("| %-44s | %8s | %7s | %s |\n", "case", "ms", "GP/s", "output");
    printf("|---|---|---|---|\n");
    static const double ratio_20[] = {20};
    /* modes: lossless, -I -r 20, HT lossless */
    static const char *const gj2k_encodes[] = {"gj2k encode lossless", "gj2k encode -I -r 20",
                                               "gj2k encode HT lossless"};
    static const char *const nv_encodes[] = {"nvJPEG2000 encode lossless",
                                             "nvJPEG2000 encode, 9/7 at gj2k's PSNR",
                                             "nvJPEG2000 encode HT lossless"};
    static const char *const gj2k_decodes[] = {"gj2k decode of the lossless file",
                                               "gj2k decode of the -I -r 20 file",
                                               "gj2k decode of the HT lossless file"};
    static const char *const nv_decodes[] = {"nvJPEG2000 decode of the lossless file",
                                             "nvJPEG2000 decode of the -I -r 20 file",
                                             "nvJPEG2000 decode of gj2k's HT file"};
    uint8_t *ours[3] = {NULL, NULL, NULL};
    size_t our_size[3] = {0, 0, 0};
    for (int mode = 0; mode < 3; mode++) {
        bool lossy = mode == 1, ht = mode == 2;
        gj2k_encode_options o = {.device = GJ2K_DEVICE_GPU, .num_resolutions = 6,
                                 .high_throughput = ht};
        if (lossy) {
            o.irreversible = true;
            o.target = GJ2K_TARGET_RATIO;
            o.num_layers = 1;
            o.targets = ratio_20;
        }
        double best = INFINITY;
        for (int r = 0; r <= repeats; r++) { /* the first warms up */
            free(ours[mode]);
            double t0 = now_seconds();
            if (gj2k_encode_memory(image, &o, &ours[mode], &our_size[mode], NULL, &error) !=
                GJ2K_OK) {
                fprintf(stderr, "nvjpeg2k_bench: gj2k: %s\n", error.message);
                return 1;
            }
            double t = now_seconds() - t0;
            best = r > 0 && t < best ? t : best;
        }
        char detail[96];
        double psnr = describe_output(image, ours[mode], our_size[mode], detail, sizeof detail);
        row(gj2k_encodes[mode], gp, best * 1e3, detail);
        best = INFINITY;
        size_t length = 0;
        for (int r = 0; r <= repeats; r++) {
            double t0 = now_seconds();
            length = nv_encode(&nv, image, (const uint8_t *const *)host, lossy, ht, psnr, nv_out,
                               capacity);
            double t = now_seconds() - t0;
            best = r > 0 && t < best ? t : best;
        }
        describe_output(image, nv_out, length, detail, sizeof detail);
        row(nv_encodes[mode], gp, best * 1e3, detail);
    }
    for (int mode = 0; mode < 3; mode++) {
        gj2k_decode_options o = {.device = GJ2K_DEVICE_GPU};
        gj2k_image *decoded = NULL;
        double best = INFINITY;
        for (int r = 0; r <= repeats; r++) {
            gj2k_image_destroy(decoded);
            decoded = NULL;
            double t0 = now_seconds();
            if (gj2k_decode_memory(ours[mode], our_size[mode], &o, &decoded, &error) !=
                GJ2K_OK) {
                fprintf(stderr, "nvjpeg2k_bench: gj2k decode: %s\n", error.message);
                return 1;
            }
            double t = now_seconds() - t0;
            best = r > 0 && t < best ? t : best;
        }
        row(gj2k_decodes[mode], gp, best * 1e3, "");
        best = INFINITY;
        for (int r = 0; r <= repeats; r++) {
            double t0 = now_seconds();
            nv_decode(&nv, ours[mode], our_size[mode], back, w, h, n);
            double t = now_seconds() - t0;
            best = r > 0 && t < best ? t : best;
        }
        char detail[96];
        snprintf(detail, sizeof detail, "largest difference from gj2k's: %d",
                 largest_difference(decoded, back));
        row(nv_decodes[mode], gp, best * 1e3, detail);
        gj2k_image_destroy(decoded);
    }
    for (uint32_t c = 0; c < n; c++) {
        free(host[c]);
        free(back[c]);
        cudaFree(nv.planes[c]);
    }
    free(nv_out);
    for (int mode = 0; mode < 3; mode++)
        free(ours[mode]);
    nvjpeg2kEncodeStateDestroy(nv.encode_state);
    nvjpeg2kEncoderDestroy(nv.encoder);
    nvjpeg2kStreamDestroy(nv.stream);
    nvjpeg2kDecodeStateDestroy(nv.decode_state);
    nvjpeg2kDestroy(nv.handle);
    cudaStreamDestroy(nv.cuda);
    gj2k_image_destroy(image);
    return 0;
}
