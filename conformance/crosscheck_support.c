/* crosscheck_support.c - running OpenJPEG's tools, reading their PGX output
 * and comparing images, for the conformance cross-check programs. */
#include "crosscheck_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool crosscheck_arguments_parse(int argc, char **argv, crosscheck_arguments *out)
{
    *out = (crosscheck_arguments){0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--quick") == 0)
            out->quick = true;
        else if (strcmp(a, "-v") == 0)
            out->verbose = true;
        else if (strcmp(a, "--equal-size") == 0)
            out->equal_size = true;
        else if (strcmp(a, "--only") == 0 && has_value)
            out->only = argv[++i];
        else if (strcmp(a, "-k") == 0 && has_value)
            out->filter = argv[++i];
        else if (strcmp(a, "--opj") == 0 && has_value)
            out->opj = argv[++i];
        else if (strcmp(a, "--gj2k") == 0 && has_value)
            out->gj2k = argv[++i];
        else if (a[0] != '-' && out->operand == NULL)
            out->operand = a;
        else {
            fprintf(stderr, "unknown or incomplete option: %s\n", a);
            return false;
        }
    }
    return true;
}

void text(char *out, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(out, size, format, args);
    va_end(args);
}

/* ------------------------------------------------------------ tools */

bool tool_find(const char *program, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && (size_t)snprintf(out, size, "%.*s/%s", (int)n, path, program) < size &&
            access(out, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

int tool_require(const char *program, char *out, size_t size)
{
    if (tool_find(program, out, size))
        return 0;
    const char *ci = getenv("CI");
    bool in_ci = ci != NULL && ci[0] != '\0';
    printf("%s: %s (OpenJPEG; Debian package libopenjp2-tools) is not on PATH%s\n",
           in_ci ? "FAIL" : "SKIP", program,
           in_ci ? "; CI must have it (scripts/install_dependencies.sh)" : "");
    return in_ci ? 1 : 77;
}

int tool_run(char *const argv[], const char *log)
{
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return -1;
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void tool_log_tail(const char *log, char *out, size_t size)
{
    char line[512];
    text(out, size, "no message");
    FILE *f = fopen(log, "r");
    if (f == NULL)
        return;
    bool have_error = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        bool error = strstr(line, "ERROR") != NULL;
        if (line[0] && (error || !have_error))
            text(out, size, "%s", line);
        have_error |= error;
    }
    fclose(f);
}

bool opj_decompress_to_images(const opj_decode_request *request, gj2k_image **images,
                              uint32_t *count, char *why, size_t why_size)
{
    char output[4200], log[4200], component[16];
    text(output, sizeof output, "%s/out.pgx", request->dir);
    text(log, sizeof log, "%s/opj.log", request->dir);
    char *argv[40];
    size_t n = 0;
    argv[n++] = (char *)request->opj;
    argv[n++] = "-i";
    argv[n++] = (char *)request->input;
    argv[n++] = "-o";
    argv[n++] = output;
    for (size_t i = 0; request->args && request->args[i] && n < 34; i++)
        argv[n++] = (char *)request->args[i];
    size_t fixed = n;
    uint32_t runs = request->per_component ? request->num_components : 1;
    bool ok = true;
    for (uint32_t c = 0; ok && c < runs; c++) {
        n = fixed;
        if (request->per_component && request->skip && request->skip[c])
            continue;
        if (request->per_component) {
            text(component, sizeof component, "%u", (unsigned)c);
            argv[n++] = "-c";
            argv[n++] = component;
        }
        argv[n] = NULL;
        int rc = tool_run(argv, log);
        if (rc != 0) {
            char tail[400];
            tool_log_tail(log, tail, sizeof tail);
            text(why, why_size, "opj_decompress failed (exit %d): %s", rc, tail);
            ok = false;
        } else {
            ok = pgx_outputs_read(request->dir, "out", images, request->num_components, count,
                                  why, why_size);
        }
    }
    pgx_outputs_remove(request->dir, "out");
    unlink(log);
    return ok;
}

void images_destroy(gj2k_image **images, uint32_t count)
{
    for (uint32_t i = 0; images && i < count; i++)
        gj2k_image_destroy(images[i]);
    free(images);
}

/* ------------------------------------------------------ temporary files */

bool temp_dir_create(const char *prefix, char *out, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    text(out, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    return mkdtemp(out) != NULL;
}

void temp_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        char path[4200];
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            text(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

bool pgx_outputs_read(const char *dir, const char *stem, gj2k_image **images, uint32_t max,
                      uint32_t *count, char *why, size_t why_size)
{
    char path[4200];
    for (uint32_t c = 0;; c++) {
        text(path, sizeof path, "%s/%s_%u.pgx", dir, stem, (unsigned)c);
        if (access(path, F_OK) != 0 && c == 0)
            text(path, sizeof path, "%s/%s.pgx", dir, stem);
        if (access(path, F_OK) != 0)
            return true;
        if (*count == max) {
            text(why, why_size, "opj wrote more components than gj2k decoded");
            return false;
        }
        gj2k_error error = {0};
        if (gj2k_image_read_file(path, NULL, &images[*count], &error) != GJ2K_OK) {
            text(why, why_size, "reading opj's %s: %s", path, error.message);
            return false;
        }
        (*count)++;
        unlink(path);
    }
}

void pgx_outputs_remove(const char *dir, const char *stem)
{
    char path[4200];
    for (unsigned c = 0;; c++) {
        text(path, sizeof path, "%s/%s_%u.pgx", dir, stem, c);
        if (unlink(path) != 0)
            break;
    }
    text(path, sizeof path, "%s/%s.pgx", dir, stem);
    unlink(path);
}

/* ----------------------------------------------------------- comparing */

bool component_compare(const gj2k_component *a, const gj2k_component *b, uint32_t bx,
                       uint32_t by, int64_t allowed, uint32_t index, int64_t *max_diff,
                       char *why, size_t why_size)
{
    bool fits = (uint64_t)bx + a->width <= b->width && (uint64_t)by + a->height <= b->height;
    if (!fits || a->precision != b->precision || a->is_signed != b->is_signed ||
        a->samples == NULL || b->samples == NULL) {
        text(why, why_size, "component %u: %ux%u %u-bit %s against %ux%u %u-bit %s",
             (unsigned)index, (unsigned)a->width, (unsigned)a->height, (unsigned)a->precision,
             a->is_signed ? "signed" : "unsigned", (unsigned)b->width, (unsigned)b->height,
             (unsigned)b->precision, b->is_signed ? "signed" : "unsigned");
        return false;
    }
    bool same = true;
    for (uint32_t y = 0; y < a->height; y++) {
        const int32_t *row_a = a->samples + (size_t)y * a->width;
        const int32_t *row_b = b->samples + (size_t)(y + by) * b->width + bx;
        for (uint32_t x = 0; x < a->width; x++) {
            int64_t d = (int64_t)row_a[x] - row_b[x];
            d = d < 0 ? -d : d;
            *max_diff = d > *max_diff ? d : *max_diff;
            if (d > allowed && same) {
                text(why, why_size, "component %u (%ux%u) first differs at (%u,%u): %d against %d",
                     (unsigned)index, (unsigned)a->width, (unsigned)a->height, (unsigned)x,
                     (unsigned)y, (int)row_a[x], (int)row_b[x]);
                same = false;
            }
        }
    }
    return same;
}

bool decoders_compare(const gj2k_image *mine, gj2k_image *const *opj, uint32_t count,
                      const bool *skip, opj_window_fn window, const void *window_user,
                      int64_t allowed, int64_t *max_diff, char *why, size_t why_size)
{
    *max_diff = 0;
    uint32_t expected = 0;
    for (uint32_t c = 0; c < mine->num_components; c++)
        expected += skip == NULL || !skip[c];
    if (count != expected) {
        text(why, why_size, "gj2k gives %u components, opj %u", (unsigned)expected,
             (unsigned)count);
        return false;
    }
    bool same = true;
    for (uint32_t c = 0, k = 0; c < mine->num_components; c++) {
        if (skip != NULL && skip[c])
            continue;
        const gj2k_component *a = &mine->components[c], *b = &opj[k++]->components[0];
        uint32_t x = 0, y = 0, width = b->width, height = b->height;
        if (window != NULL)
            window(window_user, c, b, &x, &y, &width, &height);
        if (a->width != width || a->height != height) {
            text(why, why_size, "component %u: gj2k %ux%u, opj %ux%u", (unsigned)c,
                 (unsigned)a->width, (unsigned)a->height, (unsigned)width, (unsigned)height);
            return false;
        }
        char detail[300];
        if (!component_compare(a, b, x, y, allowed, c, max_diff, detail, sizeof detail) &&
            same) {
            text(why, why_size, "gj2k against opj: %s", detail);
            same = false;
        }
    }
    return same;
}
