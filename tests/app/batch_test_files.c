/* batch_test_files.c - see batch_test_files.h. */
#include "batch_test_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_test_support.h"
#include "test_harness.h"

void path_in(char *path, const char *name)
{
    snprintf(path, PATH_SIZE, "%s/%s", test_temp_dir(), name);
}

void make_directory(const char *name)
{
    char path[PATH_SIZE];
    path_in(path, name);
    REQUIRE(mkdir(path, 0777) == 0);
}

void write_text(const char *name, const char *text)
{
    char path[PATH_SIZE];
    path_in(path, name);
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs(text, f);
    REQUIRE(fclose(f) == 0);
}

/* A test image `name` below the temporary directory; returned. */
gj2k_image *image_at(const char *name, uint32_t width, uint32_t height,
                            uint32_t components)
{
    char path[PATH_SIZE];
    path_in(path, name);
    gj2k_image *image = write_test_image(path, width, height, components, 8);
    if (image == NULL) { /* nothing below can go on without it */
        fprintf(stderr, "FAIL: cannot write the test image %s\n", path);
        exit(1);
    }
    return image;
}

/* Whether the encoded file `name` decodes to `expected`. */
bool encoded_as(const char *name, const gj2k_image *expected)
{
    char encoded[PATH_SIZE], decoded[PATH_SIZE];
    path_in(encoded, name);
    path_in(decoded, "check.ppm");
    bool ok = decodes_to(encoded, decoded, expected);
    remove(decoded);
    return ok;
}

bool exists(const char *name)
{
    char path[PATH_SIZE];
    path_in(path, name);
    return file_exists(path);
}

/* The bytes of a file below the temporary directory (size in *size). */
uint8_t *contents(const char *name, size_t *size)
{
    char path[PATH_SIZE];
    path_in(path, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    *size = data && fread(data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return data;
}

/* A file of the test's directory as a NUL-terminated string (free it), or NULL. */
char *text_of(const char *name)
{
    size_t size = 0;
    uint8_t *data = contents(name, &size);
    char *text = data != NULL ? realloc(data, size + 1) : NULL;
    if (text == NULL) {
        free(data);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

bool same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    uint8_t *x = contents(a, &na), *y = contents(b, &nb);
    bool same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* How many times `needle` occurs in `text`. */
int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = text; (at = strstr(at, needle)) != NULL; at++)
        n++;
    return n;
}

/* Whether the test's directory `name` holds a temporary of gj2k's writes. */
bool temporaries_in(const char *name)
{
    char path[PATH_SIZE];
    path_in(path, name);
    DIR *directory = opendir(path);
    bool found = false;
    for (struct dirent *e; directory != NULL && (e = readdir(directory)) != NULL;)
        found |= strstr(e->d_name, ".tmp-gj2k") != NULL;
    if (directory != NULL)
        closedir(directory);
    return found;
}

