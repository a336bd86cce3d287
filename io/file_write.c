/* file_write.c - files that appear whole or not at all: written under a
 * temporary name beside the final one, then renamed into place.
 *
 * The temporary is PATH.tmp-gj2k, held under an exclusive flock while it is
 * written. A run killed before its rename (SIGKILL, a crash) leaves one that
 * no process holds: the next write of the same PATH removes it. One that a
 * live process is writing is left alone, and this write takes
 * PATH.tmp-gj2k-XXXXXXXX instead. Each temporary is told to
 * options->temporary just before it is made and once it is gone, so that a
 * program can remove it when a signal ends it. */
#include "error.h"
#include "image_formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TEMPORARY_SUFFIX ".tmp-gj2k"

static void tell(const gj2k_write_options *options, const char *name, bool exists)
{
    if (options != NULL && options->temporary != NULL)
        options->temporary(options->temporary_user, name, exists);
}

/* Removes `name` when no process holds its lock and it is still the file
 * that was opened (another writer may have replaced it meanwhile). */
static void remove_if_stale(const char *name)
{
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat opened, now;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &opened) == 0 && stat(name, &now) == 0 &&
        opened.st_dev == now.st_dev && opened.st_ino == now.st_ino)
        unlink(name);
    close(fd);
}

/* open(name, O_CREAT | O_EXCL), told to options->temporary first: a signal
 * handler that removes the temporaries it was told of then never misses the
 * file, whenever the signal comes. */
static int create_exclusive(const char *name, const gj2k_write_options *options)
{
    tell(options, name, true);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        int saved = errno;
        tell(options, name, false);
        errno = saved;
    }
    return fd;
}

/* A new, locked file beside `path`, with the permissions the umask gives any
 * new file (mkstemp would force 0600); its name in `name`. */
static int create_temporary(const char *path, char *name, size_t name_size,
                            const gj2k_write_options *options)
{
    snprintf(name, name_size, "%s" TEMPORARY_SUFFIX, path);
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = create_exclusive(name, options);
        if (fd >= 0) {
            if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                return fd;
            close(fd); /* taken by a remover between open and lock: a name of our own */
            tell(options, name, false);
            break;
        }
        if (errno != EEXIST)
            return -1;
        if (attempt == 0)
            remove_if_stale(name);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t salt = ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)(uintptr_t)name ^ (uint64_t)getpid();
    for (int attempt = 0; attempt < 100; attempt++) {
        salt = salt * 6364136223846793005ull + 1442695040888963407ull;
        snprintf(name, name_size, "%s" TEMPORARY_SUFFIX "-%08llx", path,
                 (unsigned long long)(salt >> 32));
        int fd = create_exclusive(name, options);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

gj2k_status file_write_temporary(const char *path, const uint8_t *data, size_t size,
                                 const gj2k_write_options *options, char **temporary,
                                 gj2k_error *error)
{
    *temporary = NULL;
    size_t name_size = strlen(path) + sizeof TEMPORARY_SUFFIX + 16;
    char *name = malloc(name_size);
    if (name == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    int fd = create_temporary(path, name, name_size, options);
    if (fd < 0) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO, "cannot create %s: %s", path,
                                  strerror(errno));
        free(name);
        return s;
    }
    FILE *file = fdopen(fd, "wb");
    bool ok = file != NULL && fwrite(data, 1, size, file) == size;
    if (file != NULL)
        ok = (fclose(file) == 0) && ok;
    else
        close(fd);
    if (!ok) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO, "cannot write %s: %s", path,
                                  strerror(errno));
        file_discard_temporary(name, options);
        free(name);
        return s;
    }
    *temporary = name;
    return GJ2K_OK;
}

gj2k_status file_commit_temporary(const char *temporary, const char *path,
                                  const gj2k_write_options *options, gj2k_error *error)
{
    if (rename(temporary, path) != 0) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO, "cannot rename to %s: %s", path,
                                  strerror(errno));
        file_discard_temporary(temporary, options);
        return s;
    }
    tell(options, temporary, false);
    return GJ2K_OK;
}

void file_discard_temporary(const char *temporary, const gj2k_write_options *options)
{
    remove(temporary);
    tell(options, temporary, false);
}

gj2k_status file_write_whole(const char *path, const uint8_t *data, size_t size,
                             const gj2k_write_options *options, gj2k_error *error)
{
    char *temporary;
    gj2k_status status = file_write_temporary(path, data, size, options, &temporary, error);
    if (status != GJ2K_OK)
        return status;
    status = file_commit_temporary(temporary, path, options, error);
    free(temporary);
    return status;
}
