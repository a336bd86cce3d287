/* main.c - the gj2k program: dispatches to a subcommand. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gj2k.h"
#include "interrupt.h"
#include "options.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"encode", command_encode, "compress an image file to JPEG 2000 (.j2k/.j2c/.jp2)"},
    {"decode", command_decode, "decompress a JPEG 2000 file to an image file"},
    {"info", command_info, "describe an image or JPEG 2000 file"},
    {"bench", command_bench, "time the coding stages and print throughput"},
    {"convert", command_convert, "convert between image file formats"},
    {"transcode", command_transcode,
     "re-code the code-blocks, Part 1 <-> HTJ2K (.jph), losslessly"},
};

static void print_version(void)
{
    gj2k_device_info device = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&device);
    printf("gj2k %s\n", gj2k_version_string());
    if (!device.cuda_built) {
        printf("CUDA: not built (%s)\n", device.detail);
        return;
    }
    printf("CUDA runtime %d.%d", device.runtime_version / 1000, device.runtime_version % 1000 / 10);
    if (device.driver_version)
        printf(", driver %d.%d", device.driver_version / 1000, device.driver_version % 1000 / 10);
    printf("\n");
    if (device.device_count == 0) {
        printf("GPU: none (%s)\n", device.detail);
        return;
    }
    printf("GPU: %s (compute %d.%d, %d multiprocessors, %.1f GiB)", device.device_name,
           device.compute_major, device.compute_minor, device.multiprocessors,
           (double)device.global_memory / (1024.0 * 1024.0 * 1024.0));
    if (device.device_count > 1)
        printf(", the first of %d GPUs", device.device_count);
    printf("\n");
}

static void print_usage(void)
{
    printf("usage: gj2k COMMAND [options]   (gj2k help COMMAND for its options)\n\n"
           "JPEG 2000 (ITU-T T.800) codec with a CUDA wavelet stage.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-9s %s\n", commands[i].name, commands[i].summary);
    printf("\n  --version  the version, the CUDA runtime and the GPU found\n"
           "  --help     this text\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage();
        return EXIT_USAGE;
    }
    interrupt_install();
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(name, "help") == 0 && argc >= 3) { /* gj2k help COMMAND */
        char help[] = "--help";
        char *arguments[] = {help, NULL};
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].run(1, arguments);
        report_error("help: unknown command '%s' (see gj2k --help)", argv[2]);
        return EXIT_USAGE;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage();
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    report_error("unknown command '%s' (see gj2k --help)", name);
    return EXIT_USAGE;
}
