/* struct_size.h - the public structs that carry their size (gj2k.h,
 * "Structs that carry their size"), converted at each public entry point:
 * a caller's options copied into a whole struct of this release, zero (the
 * defaults) past the caller's struct_size, and a report the library fills
 * whole handed back no further than the caller's struct_size. Only the
 * entry points see a caller's struct; everything below them sees whole ones.
 * A field added in a later release must begin at or past the sizeof of
 * every earlier one, so that an old caller's tail padding is never read as
 * a field. */
#ifndef GJ2K_STRUCT_SIZE_H
#define GJ2K_STRUCT_SIZE_H

#include <stddef.h>
#include <string.h>

#include "error.h"
#include "gj2k.h"

/* The first field of each struct after struct_size: the least struct_size
 * taken reaches past it. Fixed for good (a struct's first release). */
#define STRUCT_FIRST_gj2k_raw_geometry width
#define STRUCT_FIRST_gj2k_read_options max_samples
#define STRUCT_FIRST_gj2k_write_options warning
#define STRUCT_FIRST_gj2k_decode_report num_tiles
#define STRUCT_FIRST_gj2k_decode_options reduce
#define STRUCT_FIRST_gj2k_reader read
#define STRUCT_FIRST_gj2k_encode_options format
#define STRUCT_FIRST_gj2k_encode_report bytes
#define STRUCT_FIRST_gj2k_writer write
#define STRUCT_FIRST_gj2k_transcode_report coder
#define STRUCT_FIRST_gj2k_transcode_options coder
#define STRUCT_FIRST_gj2k_device_info cuda_built
#define STRUCT_FIRST_gj2k_describe_options style

/* The last field of each struct in its first release (gj2k 0.1.0), which a
 * struct_size of 0 reaches to: fixed for good, whatever later releases
 * append, since a caller that zeroes its struct may have been built against
 * that release. */
#define STRUCT_LAST_gj2k_raw_geometry dy
#define STRUCT_LAST_gj2k_read_options warning_user
#define STRUCT_LAST_gj2k_write_options split_components
#define STRUCT_LAST_gj2k_decode_report copies_ms
#define STRUCT_LAST_gj2k_decode_options report
#define STRUCT_LAST_gj2k_reader user
#define STRUCT_LAST_gj2k_encode_options temporary_user
#define STRUCT_LAST_gj2k_encode_report copies_ms
#define STRUCT_LAST_gj2k_writer user
#define STRUCT_LAST_gj2k_transcode_report write_ms
#define STRUCT_LAST_gj2k_transcode_options report
#define STRUCT_LAST_gj2k_device_info detail
#define STRUCT_LAST_gj2k_describe_options warning_user

#define STRUCT_SIZE_REACH_(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
/* The least struct_size that `type` takes: to the end of its first field. */
#define STRUCT_SIZE_LEAST(type) STRUCT_SIZE_REACH_(type, STRUCT_FIRST_##type)
/* The bytes a struct_size of 0 stands for: to the end of the first
 * release's last field. */
#define STRUCT_SIZE_ZERO(type) STRUCT_SIZE_REACH_(type, STRUCT_LAST_##type)

/* In this release (0.1.0) each STRUCT_LAST is the struct's last field: no
 * more than padding follows it. A release that appends fields drops this
 * check and keeps the names above. */
#define STRUCT_SIZE_LAST_CHECK_(type)                                                          \
    _Static_assert(sizeof(type) - STRUCT_SIZE_ZERO(type) < _Alignof(type),                     \
                   #type ": STRUCT_LAST names its last field")
STRUCT_SIZE_LAST_CHECK_(gj2k_raw_geometry);
STRUCT_SIZE_LAST_CHECK_(gj2k_read_options);
STRUCT_SIZE_LAST_CHECK_(gj2k_write_options);
STRUCT_SIZE_LAST_CHECK_(gj2k_decode_report);
STRUCT_SIZE_LAST_CHECK_(gj2k_decode_options);
STRUCT_SIZE_LAST_CHECK_(gj2k_reader);
STRUCT_SIZE_LAST_CHECK_(gj2k_encode_options);
STRUCT_SIZE_LAST_CHECK_(gj2k_encode_report);
STRUCT_SIZE_LAST_CHECK_(gj2k_writer);
STRUCT_SIZE_LAST_CHECK_(gj2k_transcode_report);
STRUCT_SIZE_LAST_CHECK_(gj2k_transcode_options);
STRUCT_SIZE_LAST_CHECK_(gj2k_device_info);
STRUCT_SIZE_LAST_CHECK_(gj2k_describe_options);

/* The struct_size that begins a caller's struct. */
static inline size_t struct_size_read(const void *caller)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    return size;
}

/* GJ2K_OK for a caller's struct (NULL: none) whose struct_size is 0 or
 * from `least` to GJ2K_STRUCT_SIZE_MAX; else GJ2K_ERROR_INVALID_ARGUMENT
 * naming the struct (`name`). */
static inline gj2k_status struct_size_check(const void *caller, size_t least, const char *name,
                                            gj2k_error *error)
{
    if (caller == NULL)
        return GJ2K_OK;
    size_t size = struct_size_read(caller);
    if (size == 0 || (size >= least && size <= GJ2K_STRUCT_SIZE_MAX))
        return GJ2K_OK;
    return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                     "%s: struct_size %zu is neither 0 (the first release's layout) nor from %zu to "
                     "%u bytes (uninitialised?)", name, size, least, GJ2K_STRUCT_SIZE_MAX);
}

/* Bytes of a `size`-byte struct that the caller's struct holds (a
 * struct_size of 0: `zero`, the first release's). */
static inline size_t struct_size_reach(const void *caller, size_t size, size_t zero)
{
    size_t given = struct_size_read(caller);
    if (given == 0)
        given = zero;
    return given > size ? size : given;
}

/* Copies a caller's struct (NULL: none, every field its default) into
 * `local`, a whole struct of `size` bytes: zeroed, then as much of the
 * caller's as its struct_size holds, and local's struct_size set to `size`.
 * A refused struct_size leaves `local` zeroed. */
static inline gj2k_status struct_size_copy_in(void *local, size_t size, const void *caller,
                                              size_t least, size_t zero, const char *name,
                                              gj2k_error *error)
{
    memset(local, 0, size);
    gj2k_status status = struct_size_check(caller, least, name, error);
    if (status != GJ2K_OK)
        return status;
    if (caller != NULL)
        memcpy(local, caller, struct_size_reach(caller, size, zero));
    memcpy(local, &size, sizeof size);
    return GJ2K_OK;
}

/* Hands a whole struct the library filled (`local`, `size` bytes) to the
 * caller's, whose struct_size struct_size_check passed: no further than
 * that reaches, and the caller's struct_size set to the bytes written. */
static inline void struct_size_copy_out(void *caller, const void *local, size_t size, size_t zero)
{
    size_t reach = struct_size_reach(caller, size, zero);
    memcpy((char *)caller + sizeof reach, (const char *)local + sizeof reach,
           reach - sizeof reach);
    memcpy(caller, &reach, sizeof reach);
}

/* The same for a typed struct: STRUCT_SIZE_TAKE(&local, caller, type, error)
 * copies in; STRUCT_SIZE_CHECK(caller, type, error) checks a struct the
 * library will fill and STRUCT_SIZE_GIVE(caller, &local, type) fills it. */
#define STRUCT_SIZE_TAKE(local, caller, type, error)                                            \
    struct_size_copy_in((local), sizeof(type), (caller), STRUCT_SIZE_LEAST(type),               \
                        STRUCT_SIZE_ZERO(type), #type, (error))
#define STRUCT_SIZE_CHECK(caller, type, error)                                                  \
    struct_size_check((caller), STRUCT_SIZE_LEAST(type), #type, (error))
#define STRUCT_SIZE_GIVE(caller, local, type)                                                   \
    struct_size_copy_out((caller), (local), sizeof(type), STRUCT_SIZE_ZERO(type))

#endif
