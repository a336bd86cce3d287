/* batch_options.h - the command-line options of batch runs, shared by
 * `gj2k encode` and `gj2k decode`: the peers' spellings (opj's -ImgDir,
 * -OutFor; Grok's -y/-batch_src, -a/-out_dir) and gj2k's own. */
#ifndef GJ2K_APP_BATCH_OPTIONS_H
#define GJ2K_APP_BATCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "batch_inputs.h"
#include "batch_run.h"
#include "commands.h" /* batch_options_with, batch_requested, batch_option_given */
#include "options.h"

extern const option_spec batch_option_specs[];
extern const size_t batch_option_count;

/* What a batch's command line gives. The input list strings point into
 * the arguments; `files` is malloc'ed (batch_request_free). */
struct batch_request {
    batch_sources sources;
    batch_settings settings;
    const char **files;
    char extension[16];  /* the outputs' */
    char example[32];    /* an output name of that extension: the stand-in for -o */
    bool verify;         /* --verify */
    unsigned writers;    /* --writers (decoding), or 0 */
    unsigned processes;  /* --processes, or 0: the command's default (batch_commands.c) */
    const char *devices; /* --devices, or NULL (also once CUDA is narrowed to them) */
    unsigned gpus[OPTIONS_MAX_GPUS]; /* what it resolves to (batch_commands.c) */
    unsigned gpu_names[OPTIONS_MAX_GPUS]; /* the numbers --devices gave (options_narrow_gpus) */
};

/* Reads the batch options; `accept` lists the input extensions of a
 * directory, `default_extension` the outputs' without -OutFor. False
 * (after one line on stderr) on a usage error. */
bool batch_request_read(const parsed_options *parsed, const char *command,
                        const char *const *accept, const char *default_extension,
                        batch_request *request);
void batch_request_free(batch_request *request);

#endif
