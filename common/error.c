/* error.c - see error.h; and the two names the library gives of itself,
 * gj2k_status_name and gj2k_version_string (gj2k.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

gj2k_status gj2k_fail(gj2k_error *error, gj2k_status status, const char *format, ...)
{
    if (error != NULL) {
        va_list args;
        va_start(args, format);
        error->status = status;
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
    }
    return status;
}

void gj2k_warn(gj2k_warning_fn warning, void *user, const char *format, ...)
{
    if (warning == NULL)
        return;
    char message[2 * sizeof ((gj2k_error *)0)->message]; /* room for an error's message quoted */
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    warning(user, message);
}

const char *gj2k_status_name(gj2k_status status)
{
    switch (status) {
    case GJ2K_OK: return "ok";
    case GJ2K_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case GJ2K_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GJ2K_ERROR_IO: return "I/O error";
    case GJ2K_ERROR_UNSUPPORTED: return "unsupported";
    case GJ2K_ERROR_MALFORMED: return "malformed input";
    case GJ2K_ERROR_TRUNCATED: return "truncated input";
    case GJ2K_ERROR_LIMIT: return "resource limit exceeded";
    case GJ2K_ERROR_NOT_IMPLEMENTED: return "not implemented yet";
    case GJ2K_ERROR_DEVICE: return "GPU error";
    case GJ2K_ERROR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

const char *gj2k_version_string(void) { return GJ2K_VERSION_STRING; }

gj2k_status gj2k_fail_naming(gj2k_error *error, gj2k_status status, const char *path)
{
    if (error == NULL || strstr(error->message, path) != NULL)
        return error == NULL ? status : (error->status = status);
    char reason[sizeof error->message];
    memcpy(reason, error->message, sizeof reason);
    size_t room = sizeof error->message - 1, need = strlen(reason) + 2, length = strlen(path);
    if (need + length <= room || need + 3 >= room)
        return gj2k_fail(error, status, "%s: %s", path, reason);
    return gj2k_fail(error, status, "...%s: %s", path + length - (room - need - 3), reason);
}
