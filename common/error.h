/* error.h - recording failures and warnings as values (no printing, no exits). */
#ifndef GJ2K_ERROR_H
#define GJ2K_ERROR_H

#include "gj2k.h"

#if defined(__GNUC__)
#define GJ2K_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GJ2K_PRINTF(f, a)
#endif

/* Records `status` and a formatted one-line message in `error` (which may be
 * NULL) and returns `status`, so a failure reads `return gj2k_fail(...)`. */
gj2k_status gj2k_fail(gj2k_error *error, gj2k_status status, const char *format, ...)
    GJ2K_PRINTF(3, 4);

/* Puts "PATH: " before the message `error` holds, unless it names the
 * path already, and records `status`; where both would not fit, the path
 * is shortened from its start ("...TAIL"), so that the reason is never cut
 * off. Returns `status` (`error` may be NULL). */
gj2k_status gj2k_fail_naming(gj2k_error *error, gj2k_status status, const char *path);

/* Passes a formatted warning to `warning` when it is set. */
void gj2k_warn(gj2k_warning_fn warning, void *user, const char *format, ...) GJ2K_PRINTF(3, 4);

#endif
