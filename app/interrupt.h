/* interrupt.h - the run on a terminal: no half-written output left behind
 * when a signal (SIGINT, SIGTERM, SIGHUP) ends the program (the temporary
 * files of the writes in progress are removed, then the signal takes its
 * default course), and a progress line for one long encode or decode. */
#ifndef GJ2K_APP_INTERRUPT_H
#define GJ2K_APP_INTERRUPT_H

#include <stdbool.h>
#include <stdint.h>

/* Installs the handlers (and SIGCHLD's default); call once, before any
 * write or fork. */
void interrupt_install(void);

/* The handler on SIGTERM, unblocked, even where it was ignored or blocked: a process forked to
 * share a run, which its parent's end stops with SIGTERM (batch_run.c). */
void interrupt_install_terminate(void);

/* A gj2k_temporary_fn (gj2k_write_options.temporary): tracks the temporary
 * files that exist; `user` is unused. */
void interrupt_temporary(void *user, const char *path, bool exists);

/* A progress line on stderr for one file: "encode: 42%, 3.1 s", shown on
 * a terminal once the work has taken PROGRESS_LINE_AFTER seconds (never
 * when `quiet`), cleared at the end. */
#define PROGRESS_LINE_AFTER 1.0
typedef struct progress_line {
    const char *what;
    double start;
    bool enabled, shown;
} progress_line;

void progress_line_start(progress_line *line, const char *what, bool quiet);
/* A gj2k_progress_fn over a progress_line; never cancels. */
bool progress_line_update(void *user, uint64_t done, uint64_t total);
void progress_line_end(progress_line *line);

#endif
