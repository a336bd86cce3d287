/* commands.h - the gj2k subcommands. Each takes the arguments after its name
 * and returns the process exit status (0 success, 1 failure, 2 usage). */
#ifndef GJ2K_APP_COMMANDS_H
#define GJ2K_APP_COMMANDS_H

#include <stdbool.h>

int command_encode(int argc, char **argv);
int command_decode(int argc, char **argv);
int command_info(int argc, char **argv);
int command_bench(int argc, char **argv);
int command_convert(int argc, char **argv);
int command_transcode(int argc, char **argv);

/* `gj2k info` for a .j2k/.j2c/.jp2 file: boxes, markers, parameters, tiles. */
int describe_jpeg2000(const char *path, bool json);

#endif
