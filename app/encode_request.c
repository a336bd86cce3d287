/* encode_request.c - `gj2k encode`'s options (opj_compress's) read into an
 * encode_request: every value checked before anything is read or written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode_request.h"
#include "options.h"

const option_spec encode_options[] = {
    {"-i", "FILE", "input image (.png .tif .pgm .ppm .pnm .pam .pbm .pgx .bmp .raw .rawl, "
                   "or JPEG 2000 to re-encode)"},
    {"-o", "FILE", "output: .j2k .j2c .jpc (codestream) or .jp2 (JP2 file); .jhc (codestream) "
                   "or .jph (JPH file) turn --ht on"},
    {"-F", "GEOMETRY", "raw input geometry, as opj_compress: W,H,NCOMP,BITS,{s,u}[@DXxDY:...]"},
    {"-r", "R1,R2,...", "compression ratio of each layer, decreasing; 1 or 0 last: lossless"},
    {"-q", "P1,P2,...", "PSNR in dB of each layer, increasing; 0 last: lossless"},
    {"--bpp", "B1,B2,...", "bits per pixel of each layer, increasing; 0 last: lossless"},
    {"--bytes", "N1,N2,...", "output bytes up to each layer, increasing; 0 last: lossless"},
    {"-n", "N", "resolutions, 1..33 (default 6: 5 decomposition levels)"},
    {"-b", "W,H", "code-block size: powers of two 4..1024, W*H <= 4096 (default 64,64)"},
    {"-c", "[W,H],[W,H],...", "precinct sizes (powers of two), highest resolution first; "
                              "lower ones halve the last (default: none)"},
    {"-t", "W,H", "tile size (default: the whole image in one tile)"},
    {"-T", "X,Y", "origin of the tile grid, at most the image origin (default 0,0)"},
    {"-d", "X,Y", "origin of the image on the reference grid (default 0,0)"},
    {"-p", "ORDER", "progression order: LRCP RLCP RPCL PCRL CPRL (default LRCP)"},
    {"-POC", "T1=R0,C0,L1,R1,C1,ORDER/...", "progression order changes, as opj_compress; "
                                            "T<n> is tile n-1, none: every tile"},
    {"-M", "STYLE", "code-block style, 0..63: 1 bypass, 2 reset, 4 restart, 8 vertically "
                    "causal, 16 predictable termination, 32 segmentation symbols; "
                    "64 (or 72, with 8): HT code-blocks, as --ht"},
    {"--ht", NULL, "HTJ2K (T.814): every code-block HT; one quality layer"},
    {"--ht-refine", NULL, "HT with -r/-q/--bytes: blocks may also carry SigProp and MagRef "
                          "passes (more PSNR; Grok 10 cannot decode them)"},
    {"-SOP", NULL, "a start-of-packet marker before each packet"},
    {"-EPH", NULL, "an end-of-packet-header marker after each packet header"},
    {"-PLT", NULL, "packet lengths in each tile-part header"},
    {"-TLM", NULL, "tile-part lengths in the main header"},
    {"-TP", "R|L|C",
     "tile-parts: a new one at each resolution, layer or component of the progression"},
    {"-cinema2K", "24|48",
     "digital cinema 2K profile (12-bit X'Y'Z', at most 2048x1080) at that frame rate"},
    {"-cinema4K", NULL, "digital cinema 4K profile (12-bit X'Y'Z', at most 4096x2160), 24 fps"},
    {"-IMF", "PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS]",
     "IMF profile (SMPTE ST 2067-21): 2K, 4K, 8K (9/7, one tile) or 2K_R, 4K_R, 8K_R "
     "(5/3); main level 0..11, sub level 0..9; with a frame rate the levels left out are "
     "the lowest the image and its size allow"},
    {"-I", NULL, "irreversible: 9/7 wavelet and ICT (lossy)"},
    {"-mct", "0|1", "component transform off or on (default: on for three alike components)"},
    {"-C", "TEXT", "comment (COM marker); \"\" for none (default: \"Created by gj2k ...\")"},
    {"-threads", "N", "threads (default: every core)"},
    {"--device", "auto|gpu|cpu",
     "where encoding runs (auto, the default: a GPU for images of 2^24 samples or more)"},
    {"--devices", "LIST",
     "which GPUs: 0, 0,1 or all (also -G, -device_id; default: the first for one file, every "
     "one for a batch, its files shared out among them)"},
    {"-v", NULL, "report size, ratio, layers, time and PSNR (decodes the output to measure it)"},
    {"--help", NULL, "this text"},
};
const size_t encode_option_count = sizeof encode_options / sizeof encode_options[0];

/* The rate options, of which at most one may be given. */
static const struct {
    const char *option;
    gj2k_rate_target target;
    const char *values; /* what its values are, for error messages */
} rate_options[] = {
    {"-r", GJ2K_TARGET_RATIO, "compression ratios"},
    {"-q", GJ2K_TARGET_PSNR, "PSNR values in dB"},
    {"--bpp", GJ2K_TARGET_BPP, "bits per pixel"},
    {"--bytes", GJ2K_TARGET_BYTES, "byte counts"},
};
#define RATE_OPTION_COUNT (sizeof rate_options / sizeof rate_options[0])

static const char *const progression_names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};

/* Reads an unsigned decimal number at *cursor up to `max`, moving past it. */
static bool read_number(const char **cursor, unsigned long long max, uint32_t *value)
{
    const char *p = *cursor;
    if (*p < '0' || *p > '9')
        return false;
    unsigned long long v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > max)
            return false;
    }
    *value = (uint32_t)v;
    *cursor = p;
    return true;
}

/* Reads "A,B": two unsigned numbers of at most `max`. */
static bool parse_pair(const char *text, unsigned long long max, uint32_t *a, uint32_t *b)
{
    const char *p = text;
    return read_number(&p, max, a) && *p++ == ',' && read_number(&p, max, b) && *p == '\0';
}

static bool is_power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Reads "v1,v2,..." of non-negative decimal numbers (no signs, no hex, no
 * inf or nan) into `values`; returns how many, 0 when malformed. */
static size_t parse_value_list(const char *text, double *values, size_t max)
{
    size_t count = 0;
    const char *p = text;
    for (;;) {
        size_t length = strcspn(p, ",");
        if (length == 0 || length >= 64 || count == max)
            return 0;
        char token[64];
        memcpy(token, p, length);
        token[length] = '\0';
        bool starts_as_number = (token[0] >= '0' && token[0] <= '9') || token[0] == '.';
        if (!starts_as_number || strspn(token, "0123456789.eE+-") != length)
            return 0;
        char *end;
        double v = strtod(token, &end);
        if (*end != '\0' || !isfinite(v) || v < 0)
            return 0;
        values[count++] = v;
        if (p[length] == '\0')
            return count;
        p += length + 1;
    }
}

/* Checks that the layer targets increase in quality: ratios decrease, the
 * others increase; only the last may mean "lossless" (0, or a ratio <= 1). */
static bool check_targets(gj2k_rate_target target, const double *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        bool last = i + 1 == count;
        if (target == GJ2K_TARGET_RATIO) {
            if (!last && values[i] <= 1)
                return false; /* lossless before the last layer */
            if (i > 0 && values[i] >= values[i - 1])
                return false;
        } else {
            if (values[i] == 0 && !last)
                return false;
            if (i > 0 && values[i] != 0 && values[i] <= values[i - 1])
                return false;
            if (target == GJ2K_TARGET_BYTES && values[i] != floor(values[i]))
                return false;
        }
    }
    return true;
}

static bool parse_progression(const char *text, gj2k_progression *progression)
{
    for (size_t i = 0; i < sizeof progression_names / sizeof progression_names[0]; i++)
        if (strcmp(text, progression_names[i]) == 0) {
            *progression = (gj2k_progression)i;
            return true;
        }
    return false;
}

/* Reads opj_compress's precincts "[W,H],[W,H],..."; returns how many, 0 when
 * malformed or not powers of two (1..32768, PPx and PPy of 0..15). */
static unsigned parse_precincts(const char *text, uint32_t *widths, uint32_t *heights)
{
    unsigned count = 0;
    const char *p = text;
    while (count < GJ2K_MAX_RESOLUTIONS) {
        uint32_t w, h;
        if (*p++ != '[' || !read_number(&p, 32768, &w) || *p++ != ',' ||
            !read_number(&p, 32768, &h) || *p++ != ']' || !is_power_of_two(w) ||
            !is_power_of_two(h))
            return 0;
        widths[count] = w;
        heights[count] = h;
        count++;
        if (*p == '\0')
            return count;
        if (*p++ != ',')
            return 0;
    }
    return 0;
}

/* Reads opj_compress's "-POC T1=0,0,1,5,3,CPRL/T1=5,0,1,6,3,CPRL": per change
 * the tile (numbered from 1, as opj_compress numbers them: T1 is tile 0),
 * first resolution, first component, layer end, resolution end, component
 * end (ends exclusive) and order. Without "T<n>=" a change goes in the main
 * header and holds for every tile. Returns how many, 0 when malformed. */
static size_t parse_progression_changes(const char *text, gj2k_progression_change *changes,
                                        size_t max)
{
    size_t count = 0;
    const char *p = text;
    while (count < max) {
        gj2k_progression_change *change = &changes[count];
        change->tile = -1;
        if (*p == 'T' || *p == 't') {
            uint32_t tile;
            p++;
            if (!read_number(&p, 65535, &tile) || tile == 0 || *p++ != '=')
                return 0;
            change->tile = (int32_t)tile - 1;
        }
        char order[5] = {0};
        if (!read_number(&p, GJ2K_MAX_RESOLUTIONS - 1, &change->resolution_start) ||
            *p++ != ',' || !read_number(&p, GJ2K_MAX_COMPONENTS - 1, &change->component_start) ||
            *p++ != ',' || !read_number(&p, 65535, &change->layer_end) || *p++ != ',' ||
            !read_number(&p, GJ2K_MAX_RESOLUTIONS, &change->resolution_end) || *p++ != ',' ||
            !read_number(&p, GJ2K_MAX_COMPONENTS, &change->component_end) || *p++ != ',')
            return 0;
        size_t length = strcspn(p, "/");
        if (length != 4)
            return 0;
        memcpy(order, p, 4);
        p += 4;
        if (!parse_progression(order, &change->progression) || change->layer_end == 0 ||
            change->resolution_start >= change->resolution_end ||
            change->component_start >= change->component_end)
            return 0;
        count++;
        if (*p == '\0')
            return count;
        p++; /* the '/' */
    }
    return 0;
}

/* The format an output path names: .j2k .j2c .jpc .jhc or .jp2 .jph, else
 * UNKNOWN; *htj2k tells whether the name is HTJ2K's (.jhc .jph, T.814 Annex D). */
static gj2k_file_format output_format(const char *path, bool *htj2k)
{
    *htj2k = false;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot == NULL || (slash != NULL && dot < slash))
        return GJ2K_FORMAT_UNKNOWN;
    char extension[5] = {0};
    size_t length = strlen(dot + 1);
    if (length != 3)
        return GJ2K_FORMAT_UNKNOWN;
    for (size_t i = 0; i < length; i++)
        extension[i] = (char)(dot[1 + i] >= 'A' && dot[1 + i] <= 'Z' ? dot[1 + i] + 32 : dot[1 + i]);
    *htj2k = strcmp(extension, "jhc") == 0 || strcmp(extension, "jph") == 0;
    if (strcmp(extension, "j2k") == 0 || strcmp(extension, "j2c") == 0 ||
        strcmp(extension, "jpc") == 0 || strcmp(extension, "jhc") == 0)
        return GJ2K_FORMAT_J2K;
    return strcmp(extension, "jp2") == 0 || strcmp(extension, "jph") == 0 ? GJ2K_FORMAT_JP2
                                                                           : GJ2K_FORMAT_UNKNOWN;
}

/* Reports "encode: OPTION VALUE: expected ..." and gives false. */
static bool bad_value(const char *option, const char *value, const char *expected)
{
    report_error("encode: %s %s: expected %s", option, value, expected);
    return false;
}

/* Reads opj_compress's "-IMF PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS]"
 * into the options: the profile, its levels (GJ2K_IMF_LEVEL, or left to the
 * encoder) and the frame rate. */
static bool parse_imf(const char *text, gj2k_encode_options *o)
{
    static const struct {
        const char *name;
        gj2k_profile profile;
    } names[] = {{"2K", GJ2K_PROFILE_IMF_2K},     {"4K", GJ2K_PROFILE_IMF_4K},
                 {"8K", GJ2K_PROFILE_IMF_8K},     {"2K_R", GJ2K_PROFILE_IMF_2K_R},
                 {"4K_R", GJ2K_PROFILE_IMF_4K_R}, {"8K_R", GJ2K_PROFILE_IMF_8K_R}};
    size_t length = strcspn(text, ",");
    o->profile = GJ2K_PROFILE_NONE;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == length && strncmp(text, names[i].name, length) == 0)
            o->profile = names[i].profile;
    if (o->profile == GJ2K_PROFILE_NONE)
        return false;
    for (const char *p = text + length; *p == ',';) {
        p++;
        uint32_t value;
        const char *key = p;
        p += strcspn(p, "=,");
        size_t key_length = (size_t)(p - key);
        if (*p++ != '=' || !read_number(&p, 1000, &value) || (*p != ',' && *p != '\0'))
            return false;
        if (key_length == 9 && strncmp(key, "mainlevel", 9) == 0 && value <= 11)
            o->imf_main_level = GJ2K_IMF_LEVEL(value);
        else if (key_length == 8 && strncmp(key, "sublevel", 8) == 0 && value <= 9)
            o->imf_sub_level = GJ2K_IMF_LEVEL(value);
        else if (key_length == 9 && strncmp(key, "framerate", 9) == 0 && value > 0)
            o->frame_rate = value;
        else
            return false;
    }
    return true;
}

bool encode_request_read(const parsed_options *parsed, encode_request *request)
{
    gj2k_encode_options *o = &request->options;
    request->input = options_get(parsed, "-i");
    request->output = options_get(parsed, "-o");
    request->raw_geometry = options_get(parsed, "-F");
    request->verbose = options_has(parsed, "-v");
    if (request->input == NULL || request->output == NULL) {
        report_error("encode: needs -i INPUT and -o OUTPUT (see gj2k encode --help)");
        return false;
    }
    /* -o - is standard output, its format from --format (-OutFor, -O) */
    const char *format_name = request->output;
    char standard_name[32];
    if (strcmp(request->output, "-") == 0) {
        const char *extension = options_get(parsed, "-OutFor"); /* or --format, -O */
        if (extension == NULL) {
            report_error("encode: -o - (standard output) needs --format j2k, j2c, jpc, jhc, "
                         "jp2 or jph");
            return false;
        }
        snprintf(standard_name, sizeof standard_name, "-.%s",
                 extension[0] == '.' ? extension + 1 : extension);
        format_name = standard_name;
    }
    o->format = output_format(format_name, &o->high_throughput);
    if (o->format == GJ2K_FORMAT_UNKNOWN)
        return bad_value("-o", format_name,
                         "a .j2k, .j2c, .jpc, .jhc, .jp2 or .jph file name (or -o - --format "
                         "jp2 ...)");
    o->high_throughput = o->high_throughput || options_has(parsed, "--ht");
    o->ht_refinement = options_has(parsed, "--ht-refine");

    const char *rate_option = NULL;
    for (size_t i = 0; i < RATE_OPTION_COUNT; i++) {
        const char *text = options_get(parsed, rate_options[i].option);
        if (text == NULL)
            continue;
        if (rate_option != NULL) {
            report_error("encode: %s and %s cannot be used together (one kind of layer target)",
                         rate_option, rate_options[i].option);
            return false;
        }
        rate_option = rate_options[i].option;
        size_t count = parse_value_list(text, request->targets, GJ2K_MAX_LAYERS);
        if (count == 0) {
            report_error("encode: %s %s: expected 1..%d %s separated by commas", rate_option,
                         text, GJ2K_MAX_LAYERS, rate_options[i].values);
            return false;
        }
        if (!check_targets(rate_options[i].target, request->targets, count)) {
            report_error("encode: %s %s: the %s must %s layer by layer%s", rate_option, text,
                         rate_options[i].values,
                         rate_options[i].target == GJ2K_TARGET_RATIO ? "decrease" : "increase",
                         rate_options[i].target == GJ2K_TARGET_RATIO
                             ? " (1 or 0 only last, for lossless)"
                             : rate_options[i].target == GJ2K_TARGET_BYTES
                                   ? " (whole numbers; 0 only last, for lossless)"
                                   : " (0 only last, for lossless)");
            return false;
        }
        o->target = rate_options[i].target;
        o->num_layers = (unsigned)count;
        o->targets = request->targets;
    }

    const char *text;
    unsigned long value;
    uint32_t a, b;
    if ((text = options_get(parsed, "-n")) != NULL) {
        if (!options_parse_uint(text, 1, GJ2K_MAX_RESOLUTIONS, &value))
            return bad_value("-n", text, "1..33 resolutions");
        o->num_resolutions = (unsigned)value;
    }
    if ((text = options_get(parsed, "-b")) != NULL) {
        if (!parse_pair(text, 1024, &a, &b) || !is_power_of_two(a) || !is_power_of_two(b) ||
            a < 4 || b < 4 || a * b > 4096)
            return bad_value("-b", text, "W,H: powers of two 4..1024 with W*H <= 4096");
        o->code_block_width = a;
        o->code_block_height = b;
    }
    if ((text = options_get(parsed, "-c")) != NULL) {
        o->num_precinct_sizes = parse_precincts(text, o->precinct_width, o->precinct_height);
        if (o->num_precinct_sizes == 0)
            return bad_value("-c", text, "[W,H],[W,H],... of powers of two 1..32768, at most 33");
    }
    if ((text = options_get(parsed, "-t")) != NULL) {
        if (!parse_pair(text, UINT32_MAX, &a, &b) || a == 0 || b == 0)
            return bad_value("-t", text, "W,H: a tile size of at least 1,1");
        o->tile_width = a;
        o->tile_height = b;
    }
    if ((text = options_get(parsed, "-T")) != NULL) {
        if (!parse_pair(text, UINT32_MAX, &o->tile_x0, &o->tile_y0))
            return bad_value("-T", text, "X,Y: the tile grid's origin");
    }
    if ((text = options_get(parsed, "-d")) != NULL) {
        if (!parse_pair(text, UINT32_MAX, &request->origin_x, &request->origin_y))
            return bad_value("-d", text, "X,Y: the image's origin on the reference grid");
        request->shift_origin = true;
    }
    if ((text = options_get(parsed, "-p")) != NULL && !parse_progression(text, &o->progression))
        return bad_value("-p", text, "LRCP, RLCP, RPCL, PCRL or CPRL");
    if ((text = options_get(parsed, "-POC")) != NULL) {
        o->num_progression_changes =
            parse_progression_changes(text, request->changes, MAX_PROGRESSION_CHANGES);
        if (strncmp(text, "T0=", 3) == 0 || strstr(text, "/T0=") != NULL)
            return bad_value("-POC", text, "tiles numbered from 1, as opj_compress numbers "
                                           "them: T1 is the first tile");
        if (o->num_progression_changes == 0)
            return bad_value("-POC", text,
                             "T<tile>=R0,C0,L1,R1,C1,ORDER/... with R0 < R1, C0 < C1, L1 >= 1 "
                             "and tiles numbered from 1 (at most 64 changes)");
        o->progression_changes = request->changes;
    }
    if ((text = options_get(parsed, "-M")) != NULL) {
        /* Part 1's bits (Table A.19), or 64 for HT with 8 alone beside it */
        if (!options_parse_uint(text, 0, 127, &value) ||
            (value > 63 && (value & ~(unsigned long)(64 | 8)) != 0))
            return bad_value("-M", text, "a code-block style of 0..63, or 64 or 72 for HT");
        o->code_block_style = (unsigned)value;
    }
    if (o->high_throughput || (o->code_block_style & 64)) {
        if (o->code_block_style & ~(64u | 8u)) {
            report_error("encode: -M %u with HT code-blocks (--ht, .jhc, .jph): of the Part 1 "
                         "styles HT takes only 8 (vertically causal)", o->code_block_style);
            return false;
        }
        if (o->num_layers > 1) {
            report_error("encode: HT encoding takes one quality layer (%s with one value)",
                         rate_option);
            return false;
        }
    }
    if ((text = options_get(parsed, "-mct")) != NULL) {
        if (!options_parse_uint(text, 0, 1, &value))
            return bad_value("-mct", text, "0 (no component transform) or 1");
        o->mct = value ? GJ2K_MCT_ON : GJ2K_MCT_OFF;
    }
    if ((text = options_get(parsed, "-threads")) != NULL) {
        if (!options_parse_threads(text, &value))
            return bad_value("-threads", text, "1..1024 or ALL_CPUS");
        o->threads = (unsigned)value;
    }
    if ((text = options_get(parsed, "--device")) != NULL) {
        int device;
        if (!options_parse_device(text, &device))
            return bad_value("--device", text, "auto, gpu or cpu");
        o->device = (gj2k_device)device;
    }
    if ((text = options_get(parsed, "--devices")) != NULL) { /* a batch shares them out */
        unsigned gpus[OPTIONS_MAX_GPUS];
        size_t count;
        if (options_read_devices("encode", text, o->device, gpus, &count) != 0)
            return false;
        o->gpu = count > 0 ? gpus[0] : 0;
    }
    o->irreversible = options_has(parsed, "-I");
    o->use_sop = options_has(parsed, "-SOP");
    o->use_eph = options_has(parsed, "-EPH");
    o->use_plt = options_has(parsed, "-PLT");
    o->use_tlm = options_has(parsed, "-TLM");
    if ((text = options_get(parsed, "-cinema2K")) != NULL) {
        if (!options_parse_uint(text, 24, 48, &value) || (value != 24 && value != 48))
            return bad_value("-cinema2K", text, "24 or 48 (frames a second)");
        o->profile = GJ2K_PROFILE_CINEMA_2K;
        o->frame_rate = (unsigned)value;
    }
    if (options_has(parsed, "-cinema4K")) {
        if (o->profile != GJ2K_PROFILE_NONE)
            return bad_value("-cinema4K", "", "one profile (not with -cinema2K)");
        o->profile = GJ2K_PROFILE_CINEMA_4K;
        o->frame_rate = 24;
    }
    if ((text = options_get(parsed, "-IMF")) != NULL) {
        if (o->profile != GJ2K_PROFILE_NONE)
            return bad_value("-IMF", text, "one profile (not with -cinema2K or -cinema4K)");
        if (!parse_imf(text, o))
            return bad_value("-IMF", text,
                             "2K, 4K, 8K, 2K_R, 4K_R or 8K_R, then ,mainlevel=0..11 "
                             ",sublevel=0..9 ,framerate=1..1000 as wanted");
    }
    if ((text = options_get(parsed, "-TP")) != NULL) {
        if (strcmp(text, "R") != 0 && strcmp(text, "L") != 0 && strcmp(text, "C") != 0)
            return bad_value("-TP", text, "R, L or C");
        o->tile_parts = text[0] == 'R'   ? GJ2K_TILE_PARTS_RESOLUTION
                        : text[0] == 'L' ? GJ2K_TILE_PARTS_LAYER
                                         : GJ2K_TILE_PARTS_COMPONENT;
    }
    o->comment = options_get(parsed, "-C");
    o->warning = report_warning;
    o->warning_user = (void *)request->output;

    gj2k_file_format in_format = gj2k_format_from_path(request->input);
    if ((in_format == GJ2K_FORMAT_RAW || in_format == GJ2K_FORMAT_RAWL) &&
        request->raw_geometry == NULL) {
        report_error("encode: raw input %s needs its geometry: -F W,H,NCOMP,BITS,{s,u}",
                     request->input);
        return false;
    }
    return true;
}

gj2k_decode_options encode_check_options(const gj2k_encode_options *encoded)
{
    gj2k_decode_options decode = GJ2K_DECODE_OPTIONS_INIT;
    decode.threads = encoded->threads;
    decode.device = encoded->device;
    decode.gpu = encoded->gpu;
    decode.gpu_context = encoded->gpu_context;
    return decode;
}
