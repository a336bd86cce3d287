/* consumer.c - a program built against an installed gj2k: creates an image,
 * writes it as PGM in memory and reads it back, encodes it, reads the
 * codestream's header and decodes it, and probes for a GPU (which, in a
 * CUDA build, needs the CUDA runtime linked in). Its options and reports
 * carry their size (the GJ2K_*_INIT macros of gj2k.h). */
#include <stdio.h>
#include <stdlib.h>

#include <gj2k.h>

int main(void)
{
    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image, *back, *decoded = NULL;
    gj2k_header *header = NULL;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, 4, 3, 1, &info, &error) != GJ2K_OK)
        return 1;
    image->components[0].samples[5] = 200;
    uint8_t *data, *codestream;
    size_t size, codestream_size;
    gj2k_write_options write = GJ2K_WRITE_OPTIONS_INIT;
    gj2k_read_options read = GJ2K_READ_OPTIONS_INIT;
    gj2k_encode_options encode = GJ2K_ENCODE_OPTIONS_INIT;
    gj2k_encode_report encoded = GJ2K_ENCODE_REPORT_INIT;
    gj2k_decode_report report = GJ2K_DECODE_REPORT_INIT;
    gj2k_decode_options decode = GJ2K_DECODE_OPTIONS_INIT;
    decode.device = GJ2K_DEVICE_CPU;
    decode.report = &report;
    if (gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, &write, &data, &size, &error) != GJ2K_OK ||
        gj2k_image_read_memory(data, size, GJ2K_FORMAT_UNKNOWN, &read, &back, &error) != GJ2K_OK ||
        gj2k_encode_memory(image, &encode, &codestream, &codestream_size, &encoded, &error) !=
            GJ2K_OK ||
        gj2k_header_read_memory(codestream, codestream_size, &header, &error) != GJ2K_OK ||
        gj2k_decode_memory(codestream, codestream_size, &decode, &decoded, &error) != GJ2K_OK) {
        fprintf(stderr, "consumer: %s\n", error.message);
        return 1;
    }
    gj2k_device_info device = GJ2K_DEVICE_INFO_INIT;
    device.device_count = -1; /* the probe writes it, whatever it finds */
    gj2k_device_probe(&device);
    int ok = back->components[0].samples[5] == 200 && decoded->components[0].samples[5] == 200 &&
             header->width == 4 && header->height == 3 &&
             header->struct_size == sizeof(gj2k_header) && encoded.bytes == codestream_size &&
             report.width == 4 && device.struct_size == sizeof device &&
             device.device_count >= 0;
    printf("gj2k %s (%d GPUs): %s\n", gj2k_version_string(), device.device_count,
           ok ? "ok" : "wrong");
    free(data);
    free(codestream);
    gj2k_header_free(header);
    gj2k_image_destroy(image);
    gj2k_image_destroy(back);
    gj2k_image_destroy(decoded);
    return ok ? 0 : 1;
}
