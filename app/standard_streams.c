/* standard_streams.c - see standard_streams.h. */
#include "standard_streams.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_formats.h" /* file_read_all */

bool path_is_standard(const char *path)
{
    return path != NULL && strcmp(path, "-") == 0;
}

gj2k_status read_path_all(const char *path, uint8_t **data, size_t *size, gj2k_error *error)
{
    if (!path_is_standard(path))
        return file_read_all(path, data, size, error);
    size_t used = 0, capacity = 1 << 16;
    uint8_t *buffer = malloc(capacity);
    while (buffer != NULL) {
        used += fread(buffer + used, 1, capacity - used, stdin);
        if (used < capacity)
            break;
        uint8_t *grown = capacity <= SIZE_MAX / 2 ? realloc(buffer, capacity * 2) : NULL;
        if (grown == NULL) {
            free(buffer);
            buffer = NULL;
            break;
        }
        buffer = grown;
        capacity *= 2;
    }
    if (buffer == NULL) {
        snprintf(error->message, sizeof error->message, "standard input: out of memory");
        return GJ2K_ERROR_OUT_OF_MEMORY;
    }
    if (ferror(stdin)) {
        free(buffer);
        snprintf(error->message, sizeof error->message, "standard input: read error");
        return GJ2K_ERROR_IO;
    }
    *data = buffer;
    *size = used;
    return GJ2K_OK;
}

gj2k_status write_standard_output(const uint8_t *data, size_t size, gj2k_error *error)
{
    if (fwrite(data, 1, size, stdout) != size || fflush(stdout) != 0) {
        snprintf(error->message, sizeof error->message, "standard output: %s", strerror(errno));
        return GJ2K_ERROR_IO;
    }
    return GJ2K_OK;
}

gj2k_file_format standard_output_format(const char *extension)
{
    if (extension == NULL)
        return GJ2K_FORMAT_UNKNOWN;
    char name[32];
    snprintf(name, sizeof name, "-.%s", extension[0] == '.' ? extension + 1 : extension);
    return gj2k_format_from_path(name);
}
