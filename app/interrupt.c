/* interrupt.c - see interrupt.h. The program's only global state: the
 * temporaries a signal handler must find without taking a lock. */
#include "interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#define INTERRUPT_SLOTS 64
#define INTERRUPT_PATH_MAX 4096

/* A slot's path is complete before `used` is set (release; the handler's
 * load acquires) and stays until it is cleared; the handler reads only
 * slots in use. */
static char slot_path[INTERRUPT_SLOTS][INTERRUPT_PATH_MAX];
static atomic_int slot_used[INTERRUPT_SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void remove_temporaries(int signal_number)
{
    for (int i = 0; i < INTERRUPT_SLOTS; i++)
        if (atomic_load_explicit(&slot_used[i], memory_order_acquire))
            unlink(slot_path[i]); /* async-signal-safe */
    struct sigaction default_action = {.sa_handler = SIG_DFL};
    sigemptyset(&default_action.sa_mask);
    sigaction(signal_number, &default_action, NULL);
    raise(signal_number);
}

/* The handler on `signal_number`, unless it was ignored and `keep_ignored`. */
static void install_on(int signal_number, bool keep_ignored)
{
    struct sigaction action = {.sa_handler = remove_temporaries}, previous;
    sigemptyset(&action.sa_mask);
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaddset(&action.sa_mask, signals[i]); /* one handler at a time */
    if (keep_ignored && sigaction(signal_number, NULL, &previous) == 0 &&
        previous.sa_handler == SIG_IGN)
        return;
    sigaction(signal_number, &action, NULL);
}

void interrupt_install(void)
{
    /* A signal ignored when the program started (nohup) stays ignored. */
    install_on(SIGINT, true);
    install_on(SIGTERM, true);
    install_on(SIGHUP, true);
    /* SIGCHLD inherited ignored would reap the processes a batch forks
     * unseen (batch_run.c, batch_devices.c): their ends are waited for. */
    signal(SIGCHLD, SIG_DFL);
}

void interrupt_install_terminate(void)
{
    install_on(SIGTERM, false);
    sigset_t terminate;
    sigemptyset(&terminate);
    sigaddset(&terminate, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &terminate, NULL);
}

void interrupt_temporary(void *user, const char *path, bool exists)
{
    (void)user;
    size_t length = strlen(path);
    if (length >= INTERRUPT_PATH_MAX)
        return; /* not tracked: the next write of the same output removes it */
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < INTERRUPT_SLOTS; i++) {
        bool used = atomic_load_explicit(&slot_used[i], memory_order_relaxed);
        if (exists && !used) {
            memcpy(slot_path[i], path, length + 1);
            atomic_store_explicit(&slot_used[i], 1, memory_order_release);
            break;
        }
        if (!exists && used && strcmp(slot_path[i], path) == 0) {
            atomic_store_explicit(&slot_used[i], 0, memory_order_release);
            break;
        }
    }
    pthread_mutex_unlock(&slot_lock);
}

void progress_line_start(progress_line *line, const char *what, bool quiet)
{
    *line = (progress_line){.what = what, .start = now_seconds(),
                            .enabled = !quiet && isatty(STDERR_FILENO)};
}

bool progress_line_update(void *user, uint64_t done, uint64_t total)
{
    progress_line *line = user;
    double elapsed = now_seconds() - line->start;
    if (!line->enabled || elapsed < PROGRESS_LINE_AFTER || done >= total)
        return true;
    fprintf(stderr, "\r%s: %3.0f%%, %.1f s ", line->what,
            total ? 100.0 * (double)done / (double)total : 0.0, elapsed);
    fflush(stderr);
    line->shown = true;
    return true;
}

void progress_line_end(progress_line *line)
{
    if (line->shown)
        fputs("\r\033[K", stderr); /* the line cleared for what follows */
    line->shown = false;
}
