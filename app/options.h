/* options.h - command-line parsing for the gj2k subcommands: a table of the
 * options a command accepts, opj_compress-style short flags (-i FILE) and
 * long ones (--help), values given as the next argument. */
#ifndef GJ2K_APP_OPTIONS_H
#define GJ2K_APP_OPTIONS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct option_spec {
    const char *name;       /* as typed, e.g. "-i" or "--force-rgb" */
    const char *value_name; /* NULL for a flag, else how --help names its value */
    const char *help;
} option_spec;

#define OPTIONS_MAX_POSITIONAL 4

typedef struct parsed_options {
    const option_spec *specs;
    size_t spec_count;
    const char **values;     /* per spec: its value, "" for a given flag, NULL if absent */
    const char *positional[OPTIONS_MAX_POSITIONAL];
    size_t positional_count;
    int argc;                /* the arguments parsed, for options_get_every */
    char **argv;
} parsed_options;

/* Parses argv[0..argc) against `specs`. The peers' spellings (-h, -H,
 * -force-rgb, ...; options.c) stand for the options they name where the
 * table has those; a peer's option gj2k does not take is refused saying
 * what to do instead. On a usage error, prints one line ("gj2k COMMAND:
 * unknown option -x") to stderr and returns false. */
bool options_parse(const char *command, int argc, char **argv, const option_spec *specs,
                   size_t spec_count, size_t max_positional, parsed_options *out);
void options_free(parsed_options *options);

/* The option's value, or NULL when it was not given. */
const char *options_get(const parsed_options *options, const char *name);
bool options_has(const parsed_options *options, const char *name);

/* Every value a repeatable option was given (-i A -i B), in order: up to
 * `max` of them into `values`; returns how many there were. */
size_t options_get_every(const parsed_options *options, const char *name, const char **values,
                         size_t max);

/* Replaces an option's value (NULL: as if not given); the name must be in
 * the table. */
void options_set(parsed_options *options, const char *name, const char *value);

/* Prints "usage", the description and each option with its help, wrapped
 * to 80 columns. */
void options_print_help(const char *usage, const char *description, const option_spec *specs,
                        size_t spec_count);
/* Prints "examples:" and the command lines (NULL-terminated), after the help. */
void options_print_examples(const char *const *examples);

/* Parses a whole decimal number in [min, max]; false when it is not one. */
bool options_parse_uint(const char *text, unsigned long min, unsigned long max,
                        unsigned long *value);

/* A size in bytes: a number with an optional K, M, G, T or P (powers of
 * 1024; "3G", "1.5GiB", "512M", "4096"); false for anything else. */
bool options_parse_size(const char *text, uint64_t *bytes);

/* Parses opj_compress's raw geometry "-F width,height,ncomp,bitdepth,{s,u}@dx1xdy1:...:dxnxdyn"
 * into `geometry`; prints a one-line error and returns false when malformed. */
struct gj2k_raw_geometry;
bool parse_raw_geometry(const char *text, struct gj2k_raw_geometry *geometry);

/* A thread count, 1..1024, or ALL_CPUS (opj's spelling) for 0: every
 * core; false for anything else. */
bool options_parse_threads(const char *text, unsigned long *threads);

/* "auto", "gpu" or "cpu" (--device); false for anything else. */
bool options_parse_device(const char *text, int *device);

/* The most GPUs --devices names. */
#define OPTIONS_MAX_GPUS 64

/* --devices (Grok's -G, -device_id): GPUs by CUDA's numbers of the visible
 * ones, "0" or "0,2", each once; "all" or "-1" (Grok's) for every visible
 * one (*count 0). False for anything else. */
bool options_parse_devices(const char *text, unsigned gpus[OPTIONS_MAX_GPUS], size_t *count);

/* Makes only the GPUs --devices `text` names visible to CUDA, before
 * anything starts it: CUDA_VISIBLE_DEVICES becomes those entries of the
 * list already there (of it, the entries before the first CUDA does not
 * take: -1, an empty one, a number past the driver's GPUs), or those
 * numbers when there is none, in the order named, so CUDA numbers them
 * 0, 1, ... The driver then starts and ends only those (on 4 H200 the
 * driver's start took 0.55-0.79 s for four and the process's end 0.36-0.40,
 * against 0.19-0.29 and 0.10-0.12 for one: docs/gpu-notes.md). `names`
 * gets the numbers as given, *count how many, and options_read_devices
 * names a GPU by them when CUDA takes fewer than were named. False, leaving
 * the environment alone, when text names none ("all"), is malformed, names
 * a GPU past the list CUDA would show or past the driver's GPUs
 * (/proc/driver/nvidia; without it too), or the list would pass 3 KiB:
 * the usual check then reports what is wrong. */
bool options_narrow_gpus(const char *text, unsigned names[OPTIONS_MAX_GPUS], size_t *count);

/* The GPUs CUDA would show, told without starting it: CUDA_VISIBLE_DEVICES'
 * entries it takes, else the driver's GPUs (/proc/driver/nvidia); 0 when
 * that cannot be told. */
size_t options_visible_gpu_count(void);

/* CUDA narrowed, before it starts, to the `count` GPUs at `visible` among
 * those it would show (options_visible_gpu_count's), which it then numbers
 * 0, 1, ... in that order; false, changing nothing, when one is not there. */
bool options_narrow_gpus_to(const unsigned *visible, size_t count);

/* For one file, which codes on one GPU: CUDA narrowed (options_narrow_gpus)
 * to the first GPU --devices names, or GPU 0 when it names none, unless
 * --device is cpu; once narrowed, --devices in `parsed` reads "0", CUDA's
 * number for it now. Every GPU named must be there (else nothing changes,
 * and options_read_devices names the one missing). On 4 H200, one small
 * photo through `gj2k encode --device gpu` took 1388 ms with four GPUs
 * visible, 431 ms narrowed to one. */
void options_narrow_to_one_gpu(parsed_options *parsed);

/* The GPUs of --devices (`text`, NULL when not given) for --device
 * `device` (a gj2k_device): parsed and checked against the visible ones,
 * every visible one when it names none. *count is 0 when no GPU is to be
 * used: --device cpu, or auto on a machine without one. Returns 0, or an
 * exit status after one line on stderr: EXIT_USAGE when text is malformed
 * or names a GPU not there, 1 for --device gpu without a usable GPU (in
 * the library's words: "no usable GPU (WHY)"). */
int options_read_devices(const char *command, const char *text, int device,
                         unsigned gpus[OPTIONS_MAX_GPUS], size_t *count);

/* Prints "gj2k: <message>" as one line to stderr (exit codes: 1 failure, 2 usage). */
void report_error(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A gj2k_warning_fn printing "gj2k: warning: <user>: <message>"; `user` is
 * the file name (a const char *) the warning is about. */
void report_warning(void *user, const char *message);

/* Warnings about one file held until it is known whether the command
 * succeeded (a failure prints its one-line error alone); they may come
 * from several threads, one at a time. Set `file`, then
 * held_warnings_init; hold_warning is a gj2k_warning_fn taking the
 * held_warnings as its user. */
typedef struct held_warnings {
    const char *file;
    pthread_mutex_t lock;
    char text[8192];
    size_t used;
    unsigned dropped; /* warnings that did not fit */
} held_warnings;

void held_warnings_init(held_warnings *held, const char *file);
void hold_warning(void *user, const char *message);
/* Prints what was held, and how many more did not fit. */
void print_held_warnings(const held_warnings *held);


enum { EXIT_USAGE = 2 };

#endif
