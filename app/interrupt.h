/* interrupt.h - no half-written output left behind when a signal (SIGINT,
 * SIGTERM, SIGHUP) ends the program: the temporary files of the writes in
 * progress are removed, then the signal takes its default course. */
#ifndef GJ2K_APP_INTERRUPT_H
#define GJ2K_APP_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers; call once, before any write. */
void interrupt_install(void);

/* A gj2k_temporary_fn (gj2k_write_options.temporary): tracks the temporary
 * files that exist; `user` is unused. */
void interrupt_temporary(void *user, const char *path, bool exists);

#endif
