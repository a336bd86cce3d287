/* commands.h - the gj2k subcommands. Each takes the arguments after its name
 * and returns the process exit status (0 success, 1 failure, 2 usage). */
#ifndef GJ2K_APP_COMMANDS_H
#define GJ2K_APP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "gj2k.h"
#include "options.h"

int command_encode(int argc, char **argv);
int command_decode(int argc, char **argv);
int command_info(int argc, char **argv);
int command_bench(int argc, char **argv);
int command_convert(int argc, char **argv);
int command_transcode(int argc, char **argv);

/* Batch runs, `gj2k encode|decode` over many files (app/batch/). */

/* options_parse over a command's options followed by the batch options
 * (-ImgDir, -OutFor, --verify, ...), in one malloc'ed table kept at *table
 * (free it after the parsed options). 0, or after one line on stderr the
 * exit status: 1 out of memory, 2 a usage error. */
int batch_options_parse(const char *command, int argc, char **argv, const option_spec *specs,
                         size_t count, parsed_options *parsed, option_spec **table);
/* Whether the command line asks for a batch: several -i, a directory
 * (-ImgDir, -y, -batch_src, or an -i that is one), --files-from, an output
 * directory option, or an -o that is an existing directory. */
bool batch_requested(const parsed_options *parsed);
/* Whether a single-file run was given an option of batches only (said in
 * one line on stderr); --quiet suits one file too, -OutFor one to -o -. */
bool batch_options_refused(const parsed_options *parsed, const char *command);
/* `gj2k encode` over many files, the encode options applying to each;
 * returns the exit status. */
int encode_batch(parsed_options *parsed);
/* `gj2k transcode` over many files (outputs .jph unless -OutFor says). */
int transcode_batch(parsed_options *parsed);
/* `gj2k decode` over many files: decode_batch_begin reads the batch
 * options and puts stand-ins for -i and -o into `parsed` (NULL, said on
 * stderr: a usage error), so that the decode options are read and checked
 * as for one file; decode_batch_run then decodes every file with them and
 * frees the batch. */
typedef struct batch_request batch_request;
batch_request *decode_batch_begin(parsed_options *parsed);
int decode_batch_run(batch_request *batch, const gj2k_decode_options *decode,
                     const gj2k_write_options *write);
void decode_batch_cancel(batch_request *batch);

#endif
