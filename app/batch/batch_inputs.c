/* batch_inputs.c - see batch_inputs.h. */
#include "batch_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static char *join_path(const char *directory, const char *name)
{
    size_t a = strlen(directory), b = strlen(name);
    bool slash = a > 0 && directory[a - 1] != '/';
    char *path = malloc(a + slash + b + 1);
    if (path == NULL)
        return NULL;
    memcpy(path, directory, a);
    if (slash)
        path[a] = '/';
    memcpy(path + a + slash, name, b + 1);
    return path;
}

/* `path` with its extension (after the last '.' of its last component)
 * replaced by `extension`, or given one. */
static char *with_extension(const char *path, const char *extension)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    size_t n = strlen(extension);
    char *out = malloc(stem + 1 + n + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, path, stem);
    out[stem] = '.';
    memcpy(out + stem + 1, extension, n + 1);
    return out;
}

static bool accepted(const char *name, const char *const *accept)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL || dot == name)
        return false;
    for (size_t i = 0; accept != NULL && accept[i] != NULL; i++)
        if (strcasecmp(dot + 1, accept[i]) == 0)
            return true;
    return false;
}

unsigned batch_shard_of(const char *relative, unsigned count)
{
    uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)relative; *p; p++)
        hash = (hash ^ *p) * 0x100000001b3ull;
    return count ? (unsigned)(hash % count) + 1 : 1;
}

bool batch_parse_shard(const char *text, unsigned *index, unsigned *count)
{
    char *end;
    errno = 0;
    unsigned long k = strtoul(text, &end, 10);
    if (end == text || *end != '/' || errno != 0)
        return false;
    const char *second = end + 1;
    unsigned long n = strtoul(second, &end, 10);
    if (end == second || *end != '\0' || errno != 0 || k < 1 || n < k || n > 1000000)
        return false;
    *index = (unsigned)k;
    *count = (unsigned)n;
    return true;
}

bool batch_make_parent_directories(const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return false;
    char *last = strrchr(copy, '/');
    bool ok = true;
    if (last != NULL && last != copy) {
        *last = '\0';
        for (char *p = copy + 1; ok; p++) {
            bool end = *p == '\0';
            if (*p == '/' || end) {
                *p = '\0';
                struct stat info;
                if (stat(copy, &info) != 0) {
                    if (mkdir(copy, 0777) != 0 && errno != EEXIST)
                        ok = false;
                } else if (!S_ISDIR(info.st_mode)) {
                    errno = ENOTDIR;
                    ok = false;
                }
                if (end)
                    break;
                *p = '/';
            }
        }
    }
    free(copy);
    return ok;
}

/* Appends an input with its relative path; false when out of memory. */
static bool add_item(batch_list *list, const char *input, const char *relative)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        batch_item *grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL)
            return false;
        list->items = grown;
        list->capacity = capacity;
    }
    batch_item *item = &list->items[list->count];
    item->input = strdup(input);
    item->relative = strdup(relative);
    item->output = NULL;
    if (item->input == NULL || item->relative == NULL) {
        free(item->input);
        free(item->relative);
        return false;
    }
    list->count++;
    return true;
}

/* The accepted files of `directory` (below `relative`, "" at the root),
 * and with `recursive` those of its subdirectories (symbolic links to
 * directories are not followed, so no walk loops). */
static bool walk(const batch_sources *s, const char *directory, const char *relative,
                 batch_list *list, char *why, size_t why_size)
{
    DIR *dir = opendir(directory);
    if (dir == NULL) {
        snprintf(why, why_size, "%s: cannot read the directory: %s", directory, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *entry;
    while (ok && (entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.')
            continue; /* ., .., hidden files and gj2k's own temporaries */
        char *path = join_path(directory, name);
        char *below = relative[0] ? join_path(relative, name) : strdup(name);
        struct stat link, info;
        if (path == NULL || below == NULL) {
            snprintf(why, why_size, "out of memory listing %s", directory);
            ok = false;
        } else if (lstat(path, &link) == 0 && S_ISDIR(link.st_mode)) {
            if (s->recursive)
                ok = walk(s, path, below, list, why, why_size);
        } else if (stat(path, &info) == 0 && S_ISREG(info.st_mode) && accepted(name, s->accept)) {
            if (!add_item(list, path, below)) {
                snprintf(why, why_size, "out of memory listing %s", directory);
                ok = false;
            }
        }
        free(path);
        free(below);
    }
    closedir(dir);
    return ok;
}

static const char *base_name(const char *path)
{
    const char *base = strrchr(path, '/');
    return base ? base + 1 : path;
}

/* The relative path of an input named in a list: the path itself when it
 * is relative and stays below the working directory (its tree is kept
 * below the output directory), else its last component. */
static const char *relative_of(const char *path)
{
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    if (path[0] != '/' && strstr(path, "..") == NULL)
        return path;
    return base_name(path);
}

static bool read_list(const char *from, batch_list *list, char *why, size_t why_size)
{
    FILE *file = strcmp(from, "-") == 0 ? stdin : fopen(from, "r");
    if (file == NULL) {
        snprintf(why, why_size, "--files-from %s: %s", from, strerror(errno));
        return false;
    }
    char line[8192];
    bool ok = true;
    while (ok && fgets(line, sizeof line, file) != NULL) {
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            snprintf(why, why_size, "--files-from %s: a line longer than %zu bytes", from,
                     sizeof line - 2);
            ok = false;
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        if (!add_item(list, line, relative_of(line))) {
            snprintf(why, why_size, "out of memory reading --files-from %s", from);
            ok = false;
        }
    }
    if (ok && ferror(file)) {
        snprintf(why, why_size, "--files-from %s: read error", from);
        ok = false;
    }
    if (file != stdin)
        fclose(file);
    return ok;
}

static int by_relative(const void *a, const void *b)
{
    const batch_item *x = a, *y = b;
    int order = strcmp(x->relative, y->relative);
    return order ? order : strcmp(x->input, y->input);
}

static void free_item(batch_item *item)
{
    free(item->input);
    free(item->output);
    free(item->relative);
}

static int by_output(const void *a, const void *b)
{
    const batch_item *const *x = a, *const *y = b;
    return strcmp((*x)->output, (*y)->output);
}

/* False (and why) when two inputs would write one output (a.png, a.ppm). */
static bool outputs_distinct(const batch_list *list, char *why, size_t why_size)
{
    const batch_item **order = malloc((list->count ? list->count : 1) * sizeof *order);
    if (order == NULL) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    for (size_t i = 0; i < list->count; i++)
        order[i] = &list->items[i];
    qsort(order, list->count, sizeof *order, by_output);
    bool ok = true;
    for (size_t i = 1; ok && i < list->count; i++)
        if (strcmp(order[i - 1]->output, order[i]->output) == 0) {
            snprintf(why, why_size, "%s and %s would both be written to %s", order[i - 1]->input,
                     order[i]->input, order[i]->output);
            ok = false;
        }
    free(order);
    return ok;
}

bool batch_list_build(const batch_sources *s, batch_list *list, char *why, size_t why_size)
{
    memset(list, 0, sizeof *list);
    bool ok = true;
    for (size_t i = 0; ok && i < s->num_files; i++)
        if (!add_item(list, s->files[i], base_name(s->files[i]))) {
            snprintf(why, why_size, "out of memory");
            ok = false;
        }
    if (ok && s->directory != NULL)
        ok = walk(s, s->directory, "", list, why, why_size);
    if (ok && s->files_from != NULL)
        ok = read_list(s->files_from, list, why, why_size);
    if (!ok) {
        batch_list_free(list);
        return false;
    }
    qsort(list->items, list->count, sizeof *list->items, by_relative);
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        batch_item *item = &list->items[i];
        bool repeated = kept > 0 && strcmp(list->items[kept - 1].input, item->input) == 0;
        if (repeated || (s->shard_count > 0 &&
                         batch_shard_of(item->relative, s->shard_count) != s->shard_index)) {
            free_item(item);
            continue;
        }
        list->items[kept++] = *item;
    }
    list->count = kept;
    for (size_t i = 0; ok && i < list->count; i++) {
        batch_item *item = &list->items[i];
        if (s->out_dir != NULL) {
            char *below = join_path(s->out_dir, item->relative);
            item->output = below ? with_extension(below, s->out_extension) : NULL;
            free(below);
        } else {
            item->output = with_extension(item->input, s->out_extension);
        }
        if (item->output == NULL) {
            snprintf(why, why_size, "out of memory");
            ok = false;
        }
    }
    if (ok)
        ok = outputs_distinct(list, why, why_size);
    if (ok && list->count == 0 && s->shard_count <= 1) {
        snprintf(why, why_size, "no input files found");
        ok = false;
    }
    if (!ok)
        batch_list_free(list);
    return ok;
}

void batch_list_free(batch_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free_item(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}
