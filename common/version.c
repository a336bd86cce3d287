/* version.c - the library's version. */
#include "gj2k.h"

const char *gj2k_version_string(void) { return GJ2K_VERSION_STRING; }
