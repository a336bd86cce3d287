/* fuzz_describe.c - libFuzzer target for gj2k_describe_file (what `gj2k
 * info` prints: JP2 boxes, markers, parameters, HT code-blocks counted from
 * the packet headers, profiles checked), in text and in JSON. The input is
 * a file in memory (memfd), named by /proc/self/fd. Whatever the input: a
 * failure with a one-line message naming the file and no text, or a
 * NUL-terminated text of the size given, ending in a newline; warnings are
 * one line each. */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gj2k.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_warning(void *user, const char *message)
{
    (void)user;
    if (message == NULL || message[0] == '\0' || strchr(message, '\n') != NULL)
        abort();
}

static void describe(const char *path, gj2k_describe_style style)
{
    gj2k_describe_options options = GJ2K_DESCRIBE_OPTIONS_INIT;
    options.style = style;
    options.warning = check_warning;
    char *text = (char *)1; /* overwritten either way */
    size_t length = 1;
    gj2k_error error = {0};
    gj2k_status status = gj2k_describe_file(path, &options, &text, &length, &error);
    if (status != GJ2K_OK) {
        if (text != NULL || error.status != status || strstr(error.message, path) == NULL ||
            strchr(error.message, '\n') != NULL)
            abort();
        return;
    }
    if (text == NULL || strlen(text) != length || length == 0 || text[length - 1] != '\n')
        abort();
    /* JSON: one object on one line */
    if (style == GJ2K_DESCRIBE_JSON &&
        (text[0] != '{' || length < 3 || text[length - 2] != '}' ||
         memchr(text, '\n', length - 1) != NULL))
        abort();
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_describe", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        describe(path, GJ2K_DESCRIBE_TEXT);
        describe(path, GJ2K_DESCRIBE_JSON);
    }
    close(fd);
    return 0;
}
