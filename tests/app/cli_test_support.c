/* cli_test_support.c - see cli_test_support.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli_test_support.h"
#include "test_harness.h"

static void read_text(const char *path, char *text, size_t size)
{
    text[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return;
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* Runs `gj2k ARGS` through the shell, capturing both streams. */
void run_gj2k(run_result *r, const char *args)
{
    char out_path[512], err_path[512], command[4096];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", test_temp_dir());
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", test_temp_dir());
    snprintf(command, sizeof command, "'%s' %s >'%s' 2>'%s' </dev/null", GJ2K_PROGRAM, args,
             out_path, err_path);
    int status = system(command);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    read_text(out_path, r->out, sizeof r->out);
    read_text(err_path, r->err, sizeof r->err);
    remove(out_path);
    remove(err_path);
}

int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in the temporary directory (stdout/stderr files are removed). */
int temp_entries(void)
{
    DIR *dir = opendir(test_temp_dir());
    int count = 0;
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;)
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dir)
        closedir(dir);
    return count;
}

gj2k_image *read_image(const char *path)
{
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(path, NULL, &image, &error) != GJ2K_OK)
        fprintf(stderr, "cannot read %s: %s\n", path, error.message);
    return image;
}

bool program_available(const char *name)
{
    char command[256];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", name);
    return system(command) == 0;
}

/* Writes a deterministic test image (smooth gradients plus noise, so that
 * lossy coding has something to lose) of `components` components of
 * `precision` bits to `path` with the library; returns it, or NULL. */
gj2k_image *write_test_image(const char *path, uint32_t width, uint32_t height,
                                    uint32_t components, uint32_t precision)
{
    gj2k_component_info info[4];
    if (components == 0 || components > 4)
        return NULL;
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, 0, 0, width, height, components, info, &error) != GJ2K_OK)
        return NULL;
    uint32_t noise = 2024, max = (1u << precision) - 1;
    for (uint32_t c = 0; c < components; c++)
        for (uint32_t y = 0; y < height; y++)
            for (uint32_t x = 0; x < width; x++) {
                noise = noise * 1664525u + 1013904223u;
                uint32_t smooth = (x * 7 + y * 5 + c * 40) * max / (7 * width + 5 * height + 120);
                uint32_t v = smooth + (noise >> 27) * max / 255;
                image->components[c].samples[(size_t)y * width + x] = (int32_t)(v > max ? max : v);
            }
    if (gj2k_image_write_file(image, path, NULL, &error) != GJ2K_OK) {
        fprintf(stderr, "cannot write %s: %s\n", path, error.message);
        gj2k_image_destroy(image);
        return NULL;
    }
    return image;
}

/* `gj2k decode` of `encoded` to `decoded_path`, then the samples compared. */
bool decodes_to(const char *encoded, const char *decoded_path, const gj2k_image *expected)
{
    char args[4096];
    run_result r;
    snprintf(args, sizeof args, "decode -i '%s' -o '%s'", encoded, decoded_path);
    run_gj2k(&r, args);
    if (r.exit_code != 0) {
        fprintf(stderr, "decode of %s failed: %s", encoded, r.err);
        return false;
    }
    gj2k_image *decoded = read_image(decoded_path);
    bool same = test_same_samples(expected, decoded);
    gj2k_image_destroy(decoded);
    return same;
}
