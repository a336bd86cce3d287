/* batch_options.c - see batch_options.h. */
#include "batch_options.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const option_spec batch_option_specs[] = {
    {"-ImgDir", "DIR", "batch: every image of DIR (also -y, -in_dir, -batch_src)"},
    {"--recursive", NULL, "batch: DIR's subdirectories too, the tree kept below the output directory"},
    {"--files-from", "LIST", "batch: the inputs one a line in LIST ('-': standard input)"},
    {"-OutFor", "EXT",
     "the outputs' format by extension, e.g. jp2, png (a batch, or -o -; also --format, -O, "
     "-out_fmt)"},
    {"--out-dir", "DIR", "batch: the output directory (also -a, -out_dir, or -o DIR)"},
    {"--jobs", "N",
     "batch: files coded at once (default: one a core, or 8 a GPU, when decoding up to 16 "
     "as half the cores a GPU allow; each on cores / (N + CPU workers) threads)"},
    {"--cpu-workers", "N",
     "batch: N more workers beside the GPUs' that code the smallest files on the CPU "
     "(default: the cores past 16 a GPU, halved, at most 8)"},
    {"--writers", "N",
     "decode batch: N threads write the outputs while the workers decode their next files "
     "(default 0: each worker writes its own)"},
    {"--processes", "N",
     "batch: N processes share the files, the GPUs and the cores (default: decoding, one a "
     "GPU when there are several; else 1)"},
    {"--order", "HOW",
     "batch: the order the files are taken in: spread (the first files at once spread over "
     "the sizes, then largest first; the default), size (largest first), name (by path)"},
    {"--skip-existing", NULL, "batch: keep outputs that exist (resumes a run that was stopped)"},
    {"--verify", NULL,
     "batch: read every output back and check it against its source before it counts"},
    {"--report", "FILE", "batch: one JSON object a file into FILE (JSON Lines)"},
    {"--shard", "K/N", "batch: only shard K of N of the inputs (the same split on every node)"},
    {"--quiet", NULL, "no progress line and no summary (a batch; also -quiet)"},
};
const size_t batch_option_count = sizeof batch_option_specs / sizeof batch_option_specs[0];

int batch_options_parse(const char *command, int argc, char **argv, const option_spec *specs,
                        size_t count, parsed_options *parsed, option_spec **table)
{
    option_spec *all = malloc((count + batch_option_count) * sizeof *all);
    *table = all;
    if (all == NULL) {
        report_error("%s: out of memory", command);
        return 1;
    }
    memcpy(all, specs, count * sizeof *all);
    memcpy(all + count, batch_option_specs, batch_option_count * sizeof *all);
    if (options_parse(command, argc, argv, all, count + batch_option_count, 0, parsed))
        return 0;
    free(all);
    *table = NULL;
    return EXIT_USAGE;
}

static bool is_directory(const char *path)
{
    struct stat info;
    return path != NULL && stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}


bool batch_requested(const parsed_options *parsed)
{
    const char *one;
    size_t inputs = options_get_every(parsed, "-i", &one, 1);
    return inputs > 1 || options_has(parsed, "-ImgDir") || options_has(parsed, "--files-from") ||
           options_has(parsed, "--out-dir") ||
           (inputs == 1 && is_directory(one)) || is_directory(options_get(parsed, "-o"));
}

bool batch_options_refused(const parsed_options *parsed, const char *command)
{
    const char *o = options_get(parsed, "-o");
    bool standard_output = o != NULL && strcmp(o, "-") == 0;
    for (size_t i = 0; i < batch_option_count; i++) {
        const char *name = batch_option_specs[i].name;
        /* quiet suits one file, a format -o - (standard output) */
        bool single_too = strcmp(name, "--quiet") == 0 ||
                          (strcmp(name, "-OutFor") == 0 && standard_output);
        if (!single_too && options_has(parsed, name)) {
            report_error("%s: %s is for several inputs (-i A -i B, -ImgDir DIR, --files-from "
                         "LIST) or an output directory", command, name);
            return true;
        }
    }
    return false;
}

bool batch_request_read(const parsed_options *parsed, const char *command,
                        const char *const *accept, const char *default_extension,
                        batch_request *request)
{
    memset(request, 0, sizeof *request);
    batch_sources *s = &request->sources;
    batch_settings *t = &request->settings;
    t->command = command;
    size_t count = options_get_every(parsed, "-i", NULL, 0);
    request->files = malloc((count ? count : 1) * sizeof *request->files);
    if (request->files == NULL) {
        report_error("%s: out of memory", command);
        return false;
    }
    options_get_every(parsed, "-i", request->files, count);
    s->directory = options_get(parsed, "-ImgDir");
    /* an -i that names a directory is one too */
    size_t files = 0;
    for (size_t i = 0; i < count; i++) {
        if (is_directory(request->files[i]) && s->directory == NULL)
            s->directory = request->files[i];
        else if (is_directory(request->files[i])) {
            report_error("%s: one input directory a run (%s and %s)", command, s->directory,
                         request->files[i]);
            return false;
        } else
            request->files[files++] = request->files[i];
    }
    s->files = request->files;
    s->num_files = files;
    s->recursive = options_has(parsed, "--recursive");
    s->files_from = options_get(parsed, "--files-from");
    s->accept = accept;
    s->out_dir = options_get(parsed, "--out-dir");
    const char *o = options_get(parsed, "-o");
    if (o != NULL && s->out_dir != NULL) {
        report_error("%s: -o and an output directory (--out-dir, -a) both given", command);
        return false;
    }
    if (o != NULL)
        s->out_dir = o;
    /* made as the outputs are written (batch_make_parent_directories), so a
       usage error leaves nothing behind; an existing file cannot be one */
    struct stat info;
    if (s->out_dir != NULL && stat(s->out_dir, &info) == 0 && !S_ISDIR(info.st_mode)) {
        report_error("%s: %s: with several inputs the output is a directory, and this is a file",
                     command, s->out_dir);
        return false;
    }
    const char *format = options_get(parsed, "-OutFor");
    if (format == NULL)
        format = default_extension;
    if (format[0] == '.')
        format++;
    size_t n = strlen(format);
    if (n == 0 || n >= sizeof request->extension) {
        report_error("%s: -OutFor %s: expected an extension such as jp2 or png", command, format);
        return false;
    }
    for (size_t i = 0; i <= n; i++)
        request->extension[i] = (char)tolower((unsigned char)format[i]);
    s->out_extension = request->extension;
    const char *shard = options_get(parsed, "--shard");
    if (shard != NULL && !batch_parse_shard(shard, &s->shard_index, &s->shard_count)) {
        report_error("%s: --shard %s: expected K/N with 1 <= K <= N", command, shard);
        return false;
    }
    const char *jobs = options_get(parsed, "--jobs");
    unsigned long value;
    if (jobs != NULL && !options_parse_uint(jobs, 1, 4096, &value)) {
        report_error("%s: --jobs %s: expected 1..4096", command, jobs);
        return false;
    }
    t->jobs = jobs ? (unsigned)value : 0;
    const char *cpu_workers = options_get(parsed, "--cpu-workers");
    if (cpu_workers != NULL && !options_parse_uint(cpu_workers, 0, 4096, &value)) {
        report_error("%s: --cpu-workers %s: expected 0..4096", command, cpu_workers);
        return false;
    }
    t->cpu_workers = cpu_workers ? (int)value : -1;
    const char *writers = options_get(parsed, "--writers");
    if (writers != NULL && !options_parse_uint(writers, 0, 4096, &value)) {
        report_error("%s: --writers %s: expected 0..4096", command, writers);
        return false;
    }
    request->writers = writers ? (unsigned)value : 0; /* the decoder's (batch_commands.c) */
    const char *processes = options_get(parsed, "--processes");
    if (processes != NULL && !options_parse_uint(processes, 1, OPTIONS_MAX_GPUS, &value)) {
        report_error("%s: --processes %s: expected 1..%d", command, processes, OPTIONS_MAX_GPUS);
        return false;
    }
    request->processes = processes ? (unsigned)value : 0;
    const char *order = options_get(parsed, "--order");
    if (order != NULL && !batch_order_parse(order, &t->order)) {
        report_error("%s: --order %s: expected size, spread or name", command, order);
        return false;
    }
    t->skip_existing = options_has(parsed, "--skip-existing");
    t->quiet = options_has(parsed, "--quiet");
    t->report = options_get(parsed, "--report");
    request->verify = options_has(parsed, "--verify");
    request->devices = options_get(parsed, "--devices");
    /* --devices naming some GPUs: only those made visible to CUDA, before it
     * starts, so that every GPU it shows is one named (no list needed now);
     * the numbers given stay the summary's and the report's */
    size_t named = 0;
    if (request->devices != NULL && options_narrow_gpus(request->devices, request->gpu_names, &named)) {
        request->devices = NULL;
        t->gpu_names = request->gpu_names;
    }
    return true;
}

void batch_request_free(batch_request *request)
{
    free(request->files);
    request->files = NULL;
}
