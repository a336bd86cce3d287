/* command_codec.c - `gj2k encode` and `gj2k decode`. The JPEG 2000 coder is
 * not built yet: both say so and fail, so nothing claims to work that does not. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

int command_encode(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: gj2k encode -i INPUT -o OUTPUT.{j2k,j2c,jp2} [opj_compress options]\n\n"
               "Compresses an image file to JPEG 2000. Not implemented yet: the encoder\n"
               "is being built; this command fails until it exists.\n");
        return 0;
    }
    report_error("encode: not implemented yet (the JPEG 2000 encoder is still being built)");
    return 1;
}

int command_decode(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: gj2k decode -i INPUT.{j2k,j2c,jp2} -o OUTPUT [opj_decompress options]\n\n"
               "Decompresses a JPEG 2000 file. Not implemented yet: the decoder is being\n"
               "built; this command fails until it exists.\n");
        return 0;
    }
    report_error("decode: not implemented yet (the JPEG 2000 decoder is still being built)");
    return 1;
}
