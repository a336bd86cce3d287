/* file_write.c - files that appear whole or not at all: written under a
 * temporary name beside the final one, then renamed into place.
 *
 * The temporary is PATH.tmp-gj2k, held under an exclusive flock from its
 * creation until it is renamed or removed. A run killed before its rename
 * (SIGKILL, a crash) leaves one that no process holds: the next write of the
 * same PATH removes it. One that a live process holds is left alone, and
 * this write takes PATH.tmp-gj2k-1 (or -2, ... -16) instead; every write
 * removes the stale ones of those names too. Each temporary is told to
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
#include <unistd.h>

#define TEMPORARY_SUFFIX ".tmp-gj2k"

static void tell(const gj2k_write_options *options, const char *name, bool exists)
{
    if (options != NULL && options->temporary != NULL)
        options->temporary(options->temporary_user, name, exists);
}

/* Whether `fd` is still the file `name` names (a remover may have unlinked
 * it and another writer made a new one under the name). */
static bool still_named(int fd, const char *name)
{
    struct stat opened, now;
    return fstat(fd, &opened) == 0 && stat(name, &now) == 0 && opened.st_dev == now.st_dev &&
           opened.st_ino == now.st_ino;
}

/* Removes `name` when it is a regular file that no process holds locked. */
static void remove_if_stale(const char *name)
{
    int fd = open(name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        still_named(fd, name))
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

/* Locks a file just made; false when another process got to it first (a
 * remover that took it for stale: it is not ours to use any more). A file
 * system without flock leaves it unlocked but ours. */
static bool lock_new(int fd, const char *name)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return errno != EWOULDBLOCK && errno != EINTR;
    return still_named(fd, name);
}

/* `name` made new and locked: its descriptor, or -1 with errno set (EEXIST
 * when the name is taken). */
static int try_create(const char *name, const gj2k_write_options *options)
{
    int fd = create_exclusive(name, options);
    if (fd >= 0 && !lock_new(fd, name)) {
        close(fd);
        tell(options, name, false);
        errno = EEXIST;
        return -1;
    }
    return fd;
}

/* Temporaries besides PATH.tmp-gj2k, for writers that find it held:
 * PATH.tmp-gj2k-1 .. -TEMPORARY_FALLBACKS. */
#define TEMPORARY_FALLBACKS 16

/* `name` made new and locked as try_create does; a stale file of that name
 * is removed first. */
static int create_named(const char *name, const gj2k_write_options *options)
{
    int fd = try_create(name, options);
    if (fd < 0 && errno == EEXIST) {
        remove_if_stale(name);
        fd = try_create(name, options);
    }
    return fd;
}

/* A new, locked file beside `path`, with the permissions the umask gives any
 * new file (mkstemp would force 0600); its name in `name`. Then the stale
 * temporaries of the other names (a writer killed while it held one) go. */
static int create_temporary(const char *path, char *name, size_t name_size,
                            const gj2k_write_options *options)
{
    snprintf(name, name_size, "%s" TEMPORARY_SUFFIX, path);
    int fd = create_named(name, options);
    unsigned used = 0; /* the fallback taken; 0: none */
    for (unsigned k = 1; fd < 0 && errno == EEXIST && k <= TEMPORARY_FALLBACKS; k++) {
        snprintf(name, name_size, "%s" TEMPORARY_SUFFIX "-%u", path, k);
        fd = create_named(name, options);
        used = k;
    }
    if (fd < 0)
        return -1; /* errno: EEXIST when every name is held */
    int saved = errno;
    char *other = malloc(name_size);
    for (unsigned k = 1; other != NULL && k <= TEMPORARY_FALLBACKS; k++) {
        snprintf(other, name_size, "%s" TEMPORARY_SUFFIX "-%u", path, k);
        if (k != used)
            remove_if_stale(other);
    }
    free(other);
    errno = saved;
    return fd;
}

static bool write_all(int fd, const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= (size_t)n;
    }
    return true;
}

gj2k_status file_write_temporary(const char *path, const uint8_t *data, size_t size,
                                 const gj2k_write_options *options, bool keep_locked,
                                 file_temporary *out, gj2k_error *error)
{
    *out = (file_temporary){.fd = -1};
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
    *out = (file_temporary){.name = name, .fd = fd};
    if (!write_all(fd, data, size)) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO, "cannot write %s: %s", path,
                                  strerror(errno));
        file_discard_temporary(out, options);
        return s;
    }
    if (!keep_locked) { /* many files at once: not a descriptor each */
        close(fd);
        out->fd = -1;
    }
    return GJ2K_OK;
}

gj2k_status file_append_temporary(file_temporary *temporary, const char *path,
                                  const uint8_t *data, size_t size, gj2k_error *error)
{
    if (temporary->fd < 0 || !write_all(temporary->fd, data, size))
        return gj2k_fail(error, GJ2K_ERROR_IO, "cannot write %s: %s", path,
                         temporary->fd < 0 ? "its temporary file is closed" : strerror(errno));
    return GJ2K_OK;
}

/* Closes the temporary (its lock goes with it), tells that it is gone and
 * forgets it; the file itself is left where it is. */
static void forget(file_temporary *temporary, const gj2k_write_options *options)
{
    if (temporary->fd >= 0)
        close(temporary->fd);
    tell(options, temporary->name, false);
    free(temporary->name);
    *temporary = (file_temporary){.fd = -1};
}

gj2k_status file_commit_temporary(file_temporary *temporary, const char *path,
                                  const gj2k_write_options *options, gj2k_error *error)
{
    if (temporary->fd >= 0 && !still_named(temporary->fd, temporary->name)) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO,
                                  "cannot write %s: its temporary file was replaced", path);
        forget(temporary, options); /* the name is another writer's now */
        return s;
    }
    if (rename(temporary->name, path) != 0) {
        gj2k_status s = gj2k_fail(error, GJ2K_ERROR_IO, "cannot rename to %s: %s", path,
                                  strerror(errno));
        file_discard_temporary(temporary, options);
        return s;
    }
    forget(temporary, options); /* unlocked only once renamed */
    return GJ2K_OK;
}

void file_discard_temporary(file_temporary *temporary, const gj2k_write_options *options)
{
    if (temporary->name == NULL)
        return;
    remove(temporary->name);
    forget(temporary, options);
}

gj2k_status file_write_whole(const char *path, const uint8_t *data, size_t size,
                             const gj2k_write_options *options, gj2k_error *error)
{
    file_temporary temporary;
    gj2k_status status =
        file_write_temporary(path, data, size, options, true, &temporary, error);
    if (status != GJ2K_OK)
        return status;
    return file_commit_temporary(&temporary, path, options, error);
}
