/* consumer.c - a program built against an installed gj2k: creates an image,
 * writes it as PGM in memory, reads it back and checks one sample. */
#include <stdio.h>
#include <stdlib.h>

#include <gj2k.h>

int main(void)
{
    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image, *back;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, 4, 3, 1, &info, &error) != GJ2K_OK)
        return 1;
    image->components[0].samples[5] = 200;
    uint8_t *data;
    size_t size;
    if (gj2k_image_write_memory(image, GJ2K_FORMAT_PNM, NULL, &data, &size, &error) != GJ2K_OK ||
        gj2k_image_read_memory(data, size, GJ2K_FORMAT_UNKNOWN, NULL, &back, &error) != GJ2K_OK) {
        fprintf(stderr, "consumer: %s\n", error.message);
        return 1;
    }
    int ok = back->components[0].samples[5] == 200;
    printf("gj2k %s: %s\n", gj2k_version_string(), ok ? "ok" : "wrong sample");
    free(data);
    gj2k_image_destroy(image);
    gj2k_image_destroy(back);
    return ok ? 0 : 1;
}
