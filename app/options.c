/* options.c - see options.h. */
#include "options.h"

#include "gj2k.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_error(const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    for (char *c = message; *c; c++) /* one line, whatever the message held */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    fprintf(stderr, "gj2k: %s\n", message);
}

void report_warning(void *user, const char *message)
{
    fprintf(stderr, "gj2k: warning: %s: %s\n", (const char *)user, message);
}

void held_warnings_init(held_warnings *held, const char *file)
{
    held->file = file;
    held->used = 0;
    held->dropped = 0;
    held->text[0] = '\0';
    pthread_mutex_init(&held->lock, NULL);
}

void hold_warning(void *user, const char *message)
{
    held_warnings *held = user;
    pthread_mutex_lock(&held->lock);
    size_t room = sizeof held->text - held->used;
    int n = snprintf(held->text + held->used, room, "gj2k: warning: %s: %s\n", held->file,
                     message);
    if (n < 0 || (size_t)n >= room) {
        held->text[held->used] = '\0';
        held->dropped++;
    } else {
        held->used += (size_t)n;
    }
    pthread_mutex_unlock(&held->lock);
}

void print_held_warnings(const held_warnings *held)
{
    fputs(held->text, stderr);
    if (held->dropped != 0)
        fprintf(stderr, "gj2k: warning: %s: %u more warnings\n", held->file, held->dropped);
}

static long find_spec(const option_spec *specs, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(specs[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Other spellings of gj2k's options, mostly the peers' (opj_compress and
 * opj_decompress 2.5, grk_compress and grk_decompress 10), taken wherever
 * the command has the option they stand for. */
static const struct {
    const char *spelling, *option;
} peer_spellings[] = {
    {"-h", "--help"},           {"-H", "-threads"},          {"-num_threads", "-threads"},
    {"-force-rgb", "--force-rgb"}, {"-upsample", "--upsample"}, {"-quiet", "--quiet"},
    {"-in_file", "-i"},         {"-out_file", "-o"},
    {"-y", "-ImgDir"},          {"-in_dir", "-ImgDir"},      {"-batch_src", "-ImgDir"},
    {"--format", "-OutFor"},    {"-O", "-OutFor"},           {"-out_fmt", "-OutFor"},
    {"-a", "--out-dir"},        {"-out_dir", "--out-dir"},
    {"-G", "--devices"},        {"-device_id", "--devices"},
};

/* The peers' options gj2k does not take, and what to do instead. */
static const struct {
    const char *option, *instead;
} peer_refusals[] = {
    {"-ROI", "regions of interest are not encoded by gj2k (it decodes them)"},
    {"-GuardBits", "gj2k chooses the guard bits itself (2, more where a band needs them)"},
    {"-s", "subsampling is not applied on encode: give an image whose components are "
           "subsampled already (raw input: -F W,H,N,BITS,u@DXxDY:...)"},
    {"-m", "a custom component transform (Part 2) is not supported; -mct 0|1 turns RCT/ICT "
           "off or on"},
    {"-jpip", "JPIP index boxes are not written"},
};

/* The option `arg` stands for in `specs`: itself, or the one a peer's
 * spelling names; -1 when neither is there. */
static long resolve_spec(const option_spec *specs, size_t count, const char *arg)
{
    long index = find_spec(specs, count, arg);
    for (size_t i = 0; index < 0 && i < sizeof peer_spellings / sizeof peer_spellings[0]; i++)
        if (strcmp(arg, peer_spellings[i].spelling) == 0)
            index = find_spec(specs, count, peer_spellings[i].option);
    return index;
}

/* What to do instead of a peer's option gj2k does not take, or NULL. */
static const char *peer_refusal(const char *arg)
{
    for (size_t i = 0; i < sizeof peer_refusals / sizeof peer_refusals[0]; i++)
        if (strcmp(arg, peer_refusals[i].option) == 0)
            return peer_refusals[i].instead;
    return NULL;
}

bool options_parse(const char *command, int argc, char **argv, const option_spec *specs,
                   size_t spec_count, size_t max_positional, parsed_options *out)
{
    memset(out, 0, sizeof *out);
    out->specs = specs;
    out->spec_count = spec_count;
    out->argc = argc;
    out->argv = argv;
    out->values = calloc(spec_count ? spec_count : 1, sizeof *out->values);
    if (out->values == NULL) {
        report_error("out of memory");
        return false;
    }
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            long index = resolve_spec(specs, spec_count, arg);
            if (index < 0) {
                const char *instead = peer_refusal(arg);
                if (instead != NULL)
                    report_error("%s: %s is not taken: %s", command, arg, instead);
                else
                    report_error("%s: unknown option %s (see gj2k %s --help)", command, arg,
                                 command);
                options_free(out);
                return false;
            }
            if (specs[index].value_name != NULL) {
                if (i + 1 >= argc) {
                    report_error("%s: option %s needs a value (%s)", command, arg,
                                 specs[index].value_name);
                    options_free(out);
                    return false;
                }
                out->values[index] = argv[++i];
            } else {
                out->values[index] = "";
            }
        } else {
            if (out->positional_count >= max_positional ||
                out->positional_count >= OPTIONS_MAX_POSITIONAL) {
                report_error("%s: unexpected argument '%s' (see gj2k %s --help)", command, arg,
                             command);
                options_free(out);
                return false;
            }
            out->positional[out->positional_count++] = arg;
        }
    }
    return true;
}

void options_free(parsed_options *options)
{
    free(options->values);
    options->values = NULL;
}

const char *options_get(const parsed_options *options, const char *name)
{
    long index = find_spec(options->specs, options->spec_count, name);
    return index < 0 ? NULL : options->values[index];
}

bool options_has(const parsed_options *options, const char *name)
{
    return options_get(options, name) != NULL;
}

size_t options_get_every(const parsed_options *options, const char *name, const char **values,
                         size_t max)
{
    size_t count = 0;
    for (int i = 0; i < options->argc; i++) {
        const char *arg = options->argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
            continue;
        long index = resolve_spec(options->specs, options->spec_count, arg);
        if (index < 0 || options->specs[index].value_name == NULL)
            continue;
        if (i + 1 < options->argc && strcmp(options->specs[index].name, name) == 0) {
            if (count < max)
                values[count] = options->argv[i + 1];
            count++;
        }
        i++; /* its value is not an option */
    }
    return count;
}

void options_set(parsed_options *options, const char *name, const char *value)
{
    long index = find_spec(options->specs, options->spec_count, name);
    if (index >= 0)
        options->values[index] = value;
}

#define HELP_WIDTH 80

/* Prints `text` from column `column` (where the cursor is) wrapped at
 * HELP_WIDTH, continuation lines indented `indent`; its own line breaks
 * are kept. Ends with a newline. */
static void print_wrapped(const char *text, size_t column, size_t indent)
{
    size_t at = column;
    while (*text) {
        if (*text == '\n') {
            printf("\n%*s", (int)indent, "");
            at = indent;
            text++;
            continue;
        }
        size_t space = strspn(text, " "), word = strcspn(text + space, " \n");
        if (at > indent && at + space + word > HELP_WIDTH) {
            printf("\n%*s", (int)indent, "");
            at = indent;
            text += space; /* no spaces at the start of a line */
            space = 0;
        }
        printf("%.*s", (int)(space + word), text);
        at += space + word;
        text += space + word;
    }
    printf("\n");
}

void options_print_help(const char *usage, const char *description, const option_spec *specs,
                        size_t spec_count)
{
    /* each usage line (they may be given indented) wrapped on its own */
    for (const char *line = usage; *line;) {
        line += strspn(line, " ");
        size_t n = strcspn(line, "\n");
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)n, line);
        printf("%s", line == usage ? "usage: " : "       ");
        print_wrapped(text, 7, 11);
        line += n + (line[n] == '\n');
    }
    printf("\n");
    print_wrapped(description, 0, 0);
    printf("\noptions:\n");
    for (size_t i = 0; i < spec_count; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", specs[i].name, specs[i].value_name ? " " : "",
                 specs[i].value_name ? specs[i].value_name : "");
        if (strlen(left) > 24) { /* the help on the line below */
            printf("  %s\n%*s", left, 27, "");
        } else {
            printf("  %-24s ", left);
        }
        print_wrapped(specs[i].help, 27, 27);
    }
}

void options_print_examples(const char *const *examples)
{
    printf("\nexamples:\n");
    for (size_t i = 0; examples[i] != NULL; i++) {
        printf("  ");
        print_wrapped(examples[i], 2, 6);
    }
}

bool options_parse_threads(const char *text, unsigned long *threads)
{
    if (strcmp(text, "ALL_CPUS") == 0) { /* opj's spelling of every core */
        *threads = 0;
        return true;
    }
    return options_parse_uint(text, 1, 1024, threads);
}

bool options_parse_device(const char *text, int *device)
{
    static const char *const names[] = {"auto", "cpu", "gpu"}; /* gj2k_device order */
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *device = i;
            return true;
        }
    return false;
}

bool options_parse_devices(const char *text, unsigned gpus[OPTIONS_MAX_GPUS], size_t *count)
{
    *count = 0;
    if (strcmp(text, "all") == 0 || strcmp(text, "-1") == 0)
        return true;
    char item[16];
    for (const char *p = text;; p++) {
        size_t n = strcspn(p, ",");
        unsigned long value;
        if (n == 0 || n >= sizeof item || *count == OPTIONS_MAX_GPUS)
            return false;
        memcpy(item, p, n);
        item[n] = '\0';
        if (!options_parse_uint(item, 0, 1023, &value))
            return false;
        for (size_t i = 0; i < *count; i++)
            if (gpus[i] == value)
                return false; /* each once */
        gpus[(*count)++] = (unsigned)value;
        p += n;
        if (*p == '\0')
            return true;
    }
}

/* How many GPUs the NVIDIA driver has (its entries in /proc), without
 * starting CUDA; 0 when it cannot tell. */
static size_t driver_gpu_count(void)
{
    DIR *gpus = opendir("/proc/driver/nvidia/gpus");
    size_t count = 0;
    for (struct dirent *entry; gpus != NULL && (entry = readdir(gpus)) != NULL;)
        count += entry->d_name[0] != '.';
    if (gpus != NULL)
        closedir(gpus);
    return count;
}

/* Whether the `n` bytes at `entry` are a CUDA_VISIBLE_DEVICES entry CUDA
 * takes: a GPU's number (below the driver's count, when that is known) or
 * a GPU-/MIG- UUID. */
static bool visible_entry_valid(const char *entry, size_t n, size_t driver_gpus)
{
    if (n > 4 && (memcmp(entry, "GPU-", 4) == 0 || memcmp(entry, "MIG-", 4) == 0))
        return true;
    size_t digits = 0;
    while (digits < n && entry[digits] >= '0' && entry[digits] <= '9')
        digits++;
    if (n == 0 || digits != n || n > 9)
        return false;
    return driver_gpus == 0 || strtoul(entry, NULL, 10) < driver_gpus;
}

/* The GPUs this process narrowed CUDA to (options_narrow_gpus), by the
 * numbers given, for options_read_devices' messages. Process-wide, as
 * CUDA_VISIBLE_DEVICES is. */
static struct {
    unsigned names[OPTIONS_MAX_GPUS];
    size_t count;
} narrowed;

/* The GPUs CUDA would show: with CUDA_VISIBLE_DEVICES, its entries before
 * the first it does not take; without it, the driver's GPUs (count 0 when
 * that cannot be told). */
typedef struct visible_gpus {
    bool listed;
    size_t count;
    const char *entries[OPTIONS_MAX_GPUS * 16];
    size_t lengths[OPTIONS_MAX_GPUS * 16];
} visible_gpus;

static void visible_gpus_read(visible_gpus *v)
{
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    size_t driver_gpus = driver_gpu_count();
    v->listed = list != NULL;
    v->count = list != NULL ? 0 : driver_gpus;
    for (const char *p = list; p != NULL && v->count < OPTIONS_MAX_GPUS * 16;) {
        size_t n = strcspn(p, ",");
        if (!visible_entry_valid(p, n, driver_gpus))
            break;
        v->entries[v->count] = p;
        v->lengths[v->count++] = n;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
}

/* Whether every GPU named is among those CUDA would show. */
static bool all_there(const visible_gpus *v, const unsigned *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] >= v->count)
            return false;
    return true;
}

/* Shows CUDA the first `keep` of the `count` GPUs named, once every one of
 * them is among those it would show; false, changing nothing, otherwise. */
static bool narrow(const unsigned *names, size_t count, size_t keep)
{
    visible_gpus *v = malloc(sizeof *v);
    if (v == NULL)
        return false;
    visible_gpus_read(v);
    bool ok = all_there(v, names, count); /* else the usual check says which is not */
    char value[OPTIONS_MAX_GPUS * 48];
    size_t at = 0;
    for (size_t i = 0; ok && i < keep; i++) {
        char number[16];
        const char *entry = number;
        size_t n;
        if (!v->listed) {
            n = (size_t)snprintf(number, sizeof number, "%u", names[i]);
        } else {
            entry = v->entries[names[i]];
            n = v->lengths[names[i]];
        }
        ok = at + n + 2 <= sizeof value;
        if (ok && i > 0)
            value[at++] = ',';
        if (ok)
            memcpy(value + at, entry, n);
        at += ok ? n : 0;
    }
    free(v);
    value[at] = '\0';
    if (!ok || setenv("CUDA_VISIBLE_DEVICES", value, 1) != 0)
        return false;
    memcpy(narrowed.names, names, keep * sizeof *names);
    narrowed.count = keep;
    return true;
}

size_t options_visible_gpu_count(void)
{
    visible_gpus *v = malloc(sizeof *v);
    if (v == NULL)
        return 0;
    visible_gpus_read(v);
    size_t count = v->count;
    free(v);
    return count;
}

bool options_narrow_gpus_to(const unsigned *visible, size_t count)
{
    return count > 0 && count <= OPTIONS_MAX_GPUS && narrow(visible, count, count);
}

bool options_narrow_gpus(const char *text, unsigned names[OPTIONS_MAX_GPUS], size_t *count)
{
    return options_parse_devices(text, names, count) && *count > 0 &&
           narrow(names, *count, *count);
}

void options_narrow_to_one_gpu(parsed_options *parsed)
{
    const char *device = options_get(parsed, "--device"), *devices = options_get(parsed, "--devices");
    int which = GJ2K_DEVICE_AUTO;
    if (device != NULL && options_parse_device(device, &which) && which == GJ2K_DEVICE_CPU)
        return;
    unsigned names[OPTIONS_MAX_GPUS] = {0}; /* none named ("all" too): GPU 0 */
    size_t count = 0;
    if (devices != NULL && !options_parse_devices(devices, names, &count))
        return; /* malformed: options_read_devices says so */
    /* every GPU named must be there, though one file codes on the first */
    if (narrow(names, count > 0 ? count : 1, 1) && devices != NULL)
        options_set(parsed, "--devices", "0");
}

int options_read_devices(const char *command, const char *text, int device,
                         unsigned gpus[OPTIONS_MAX_GPUS], size_t *count)
{
    *count = 0;
    if (text != NULL && !options_parse_devices(text, gpus, count)) {
        report_error("%s: --devices %s: expected GPU numbers such as 0 or 0,1 (each once), or "
                     "all", command, text);
        return EXIT_USAGE;
    }
    if (device == GJ2K_DEVICE_CPU) {
        *count = 0;
        return 0;
    }
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    unsigned visible = info.device_count > 0 ? (unsigned)info.device_count : 0;
    if (narrowed.count > visible && visible > 0) { /* named by the driver, refused by CUDA */
        report_error("%s: --devices: CUDA cannot use GPU %u (it takes %u of the %zu named)",
                     command, narrowed.names[visible], visible, narrowed.count);
        return EXIT_USAGE;
    }
    if (visible == 0 && device == GJ2K_DEVICE_AUTO) {
        *count = 0; /* the CPU does it */
        return 0;
    }
    if (visible == 0) {
        report_error("%s: no usable GPU (%s)", command, info.detail);
        return 1;
    }
    if (*count == 0) {
        for (unsigned i = 0; i < visible && i < OPTIONS_MAX_GPUS; i++)
            gpus[i] = i;
        *count = visible < OPTIONS_MAX_GPUS ? visible : OPTIONS_MAX_GPUS;
        return 0;
    }
    for (size_t i = 0; i < *count; i++)
        if (gpus[i] >= visible) {
            report_error("%s: --devices: there is no GPU %u (%u usable: 0 to %u)", command,
                         gpus[i], visible, visible - 1);
            return EXIT_USAGE;
        }
    return 0;
}

bool options_parse_uint(const char *text, unsigned long min, unsigned long max,
                        unsigned long *value)
{
    if (text == NULL || *text < '0' || *text > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *value = v;
    return true;
}

bool options_parse_size(const char *text, uint64_t *bytes)
{
    if (text == NULL || *text < '0' || *text > '9')
        return false;
    size_t digits = strspn(text, "0123456789.");
    const char *point = strchr(text, '.');
    if (point != NULL && (size_t)(point - text) < digits &&
        memchr(point + 1, '.', digits - (size_t)(point - text) - 1) != NULL)
        return false; /* one decimal point at most */
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if ((size_t)(end - text) != digits)
        return false; /* no hexadecimal, no exponent */
    if (errno != 0 || value < 1)
        return false;
    static const char units[] = "KMGTP";
    double scale = 1;
    if (*end != '\0') {
        const char *unit = strchr(units, toupper((unsigned char)*end));
        if (unit == NULL)
            return false;
        for (const char *u = units; u <= unit; u++)
            scale *= 1024;
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
    }
    if (*end != '\0' || value * scale >= 1.8e19)
        return false;
    *bytes = (uint64_t)(value * scale);
    return true;
}

/* Reads "a,b" style unsigned fields separated by `separator`. */
static bool next_number(const char **cursor, char separator, unsigned long max, unsigned long *value)
{
    char *end;
    if (**cursor < '0' || **cursor > '9')
        return false;
    unsigned long v = strtoul(*cursor, &end, 10);
    if (v > max || (*end != separator && *end != '\0'))
        return false;
    *value = v;
    *cursor = end;
    return true;
}

bool parse_raw_geometry(const char *text, gj2k_raw_geometry *geometry)
{
    memset(geometry, 0, sizeof *geometry);
    const char *p = text;
    unsigned long width, height, components, bits;
    if (!next_number(&p, ',', 0xffffffffUL, &width) || *p++ != ',' ||
        !next_number(&p, ',', 0xffffffffUL, &height) || *p++ != ',' ||
        !next_number(&p, ',', 16384, &components) || *p++ != ',' ||
        !next_number(&p, ',', 16, &bits) || *p++ != ',' || (*p != 's' && *p != 'u') ||
        width == 0 || height == 0 || components == 0 || bits == 0) {
        report_error("-F %s: expected WIDTH,HEIGHT,NCOMP,BITS,{s,u}[@DXxDY:...] with "
                     "1..16 bits", text);
        return false;
    }
    *geometry = (gj2k_raw_geometry){.width = (uint32_t)width, .height = (uint32_t)height,
                                    .num_components = (uint32_t)components,
                                    .precision = (uint32_t)bits, .is_signed = *p == 's'};
    p++;
    if (*p == '\0')
        return true;
    if (*p++ != '@') {
        report_error("-F %s: expected '@' before the subsampling factors", text);
        return false;
    }
    for (unsigned c = 0; c < components; c++) {
        unsigned long dx, dy;
        if (!next_number(&p, 'x', 255, &dx) || *p++ != 'x' || !next_number(&p, ':', 255, &dy) ||
            dx == 0 || dy == 0 || (c + 1 < components && *p++ != ':')) {
            report_error("-F %s: expected %lu subsampling factors DXxDY separated by ':'", text,
                         components);
            return false;
        }
        if (c < 4) {
            geometry->dx[c] = (uint32_t)dx;
            geometry->dy[c] = (uint32_t)dy;
        }
    }
    if (*p != '\0') {
        report_error("-F %s: unexpected text after the subsampling factors", text);
        return false;
    }
    return true;
}
