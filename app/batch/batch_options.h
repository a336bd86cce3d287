/* batch_options.h - the command-line options of batch runs, shared by
 * `gj2k encode` and `gj2k decode`: the peers' spellings (opj's -ImgDir,
 * -OutFor; Grok's -y/-batch_src, -a/-out_dir) and gj2k's own. */
#ifndef GJ2K_APP_BATCH_OPTIONS_H
#define GJ2K_APP_BATCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "batch_inputs.h"
#include "batch_run.h"
#include "options.h"

extern const option_spec batch_option_specs[];
extern const size_t batch_option_count;

/* A command's options followed by the batch options, in one malloc'ed
 * table for options_parse; NULL when out of memory. */
option_spec *batch_options_with(const option_spec *specs, size_t count, size_t *total);

/* Whether the command line asks for a batch: several -i, a directory
 * (-ImgDir, -y, -batch_src, or an -i that is one), --files-from, or an -o
 * that is an existing directory. */
bool batch_requested(const parsed_options *parsed);

/* The first batch option given, or NULL: a single-file run refuses them. */
const char *batch_option_given(const parsed_options *parsed);

/* What a batch's command line gives. The input list strings point into
 * the arguments; `files` is malloc'ed (batch_request_free). */
typedef struct batch_request {
    batch_sources sources;
    batch_settings settings;
    const char **files;
    char extension[16];  /* the outputs' */
    bool verify;         /* --verify */
} batch_request;

/* Reads the batch options; `accept` lists the input extensions of a
 * directory, `default_extension` the outputs' without -OutFor. False
 * (after one line on stderr) on a usage error. */
bool batch_request_read(const parsed_options *parsed, const char *command,
                        const char *const *accept, const char *default_extension,
                        batch_request *request);
void batch_request_free(batch_request *request);

#endif
