/* format_pnm.c - Netpbm images: PBM (P1, P4), PGM (P2, P5), PPM (P3, P6) and
 * PAM (P7). Samples keep their stored values; the precision is the number of
 * bits that holds maxval (maxval 1000 -> 10 bits). */
#include "error.h"
#include "image_formats.h"
#include "vector_clones.h"

#include <stdlib.h>
#include <string.h>

#define PNM_MAX_CHANNELS 4
#define PNM_CHUNK 1024 /* pixels a writing step: the planes on the stack */

typedef struct pnm_header {
    int kind;                 /* the digit after 'P': 1..7 */
    uint32_t width, height;
    uint32_t channels;        /* 1..4 */
    uint32_t maxval;          /* 1..65535 */
    bool has_alpha;           /* the last channel is opacity */
} pnm_header;

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static void skip_comment(byte_reader *r)
{
    while (r->position < r->size && r->data[r->position] != '\n')
        r->position++;
    if (r->position < r->size)
        r->position++;
}

static void skip_space_and_comments(byte_reader *r)
{
    while (r->position < r->size) {
        uint8_t c = r->data[r->position];
        if (is_space(c))
            r->position++;
        else if (c == '#')
            skip_comment(r);
        else
            break;
    }
}

/* Reads a decimal header field that must be followed by whitespace or '#'. */
static gj2k_status read_header_number(byte_reader *r, const char *what, uint32_t *value,
                                      gj2k_error *error)
{
    skip_space_and_comments(r);
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PNM: header ends before the %s", what);
    if (!is_digit(r->data[r->position]))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: expected the %s, found byte 0x%02x",
                         what, r->data[r->position]);
    uint64_t v = 0;
    while (r->position < r->size && is_digit(r->data[r->position])) {
        v = v * 10 + (uint64_t)(r->data[r->position++] - '0');
        if (v > UINT32_MAX)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: the %s is too large", what);
    }
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PNM: header ends after the %s", what);
    uint8_t next = r->data[r->position];
    if (!is_space(next) && next != '#')
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: unexpected byte 0x%02x after the %s",
                         next, what);
    *value = (uint32_t)v;
    return GJ2K_OK;
}

/* Binary rasters start after exactly one whitespace byte (or a comment line). */
static gj2k_status skip_raster_separator(byte_reader *r, gj2k_error *error)
{
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PNM: file ends before the pixel data");
    if (r->data[r->position] == '#')
        skip_comment(r);
    else
        r->position++;
    return GJ2K_OK;
}

/* Reads one whitespace-delimited word (at most `capacity - 1` bytes kept). */
static void read_word(byte_reader *r, char *word, size_t capacity)
{
    size_t length = 0;
    while (r->position < r->size && !is_space(r->data[r->position])) {
        if (length + 1 < capacity)
            word[length++] = (char)r->data[r->position];
        r->position++;
    }
    word[length] = '\0';
}

/* The rest of the line, without surrounding blanks; consumes the newline. */
static void read_line_value(byte_reader *r, char *text, size_t capacity)
{
    while (r->position < r->size &&
           (r->data[r->position] == ' ' || r->data[r->position] == '\t'))
        r->position++;
    size_t length = 0;
    while (r->position < r->size && r->data[r->position] != '\n') {
        if (length + 1 < capacity)
            text[length++] = (char)r->data[r->position];
        r->position++;
    }
    if (r->position < r->size)
        r->position++;
    while (length > 0 && is_space((uint8_t)text[length - 1]))
        length--;
    text[length] = '\0';
}

/* Sets channels and alpha from a PAM TUPLTYPE and DEPTH. */
static gj2k_status apply_tupltype(pnm_header *h, const char *tupltype, uint32_t depth,
                                  const gj2k_read_options *options, gj2k_error *error)
{
    static const struct { const char *name; uint32_t depth; bool alpha; } known[] = {
        {"BLACKANDWHITE", 1, false}, {"GRAYSCALE", 1, false}, {"RGB", 3, false},
        {"BLACKANDWHITE_ALPHA", 2, true}, {"GRAYSCALE_ALPHA", 2, true}, {"RGB_ALPHA", 4, true},
    };
    if (depth < 1 || depth > PNM_MAX_CHANNELS)
        return gj2k_fail(error, depth == 0 ? GJ2K_ERROR_MALFORMED : GJ2K_ERROR_UNSUPPORTED,
                         "PAM: DEPTH %u is not supported (1..4)", depth);
    h->channels = depth;
    h->has_alpha = depth == 2 || depth == 4; /* the usual meaning of each depth */
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(tupltype, known[i].name) != 0)
            continue;
        if (known[i].depth != depth)
            gj2k_warn(options->warning, options->warning_user,
                      "PAM: TUPLTYPE %s with DEPTH %u; read by depth", tupltype, depth);
        return GJ2K_OK;
    }
    if (tupltype[0] != '\0')
        gj2k_warn(options->warning, options->warning_user,
                  "PAM: unknown TUPLTYPE '%s'; read by its DEPTH %u", tupltype, depth);
    return GJ2K_OK;
}

static gj2k_status read_pam_header(byte_reader *r, pnm_header *h,
                                   const gj2k_read_options *options, gj2k_error *error)
{
    uint32_t width = 0, height = 0, depth = 0, maxval = 0;
    bool have_width = false, have_height = false, have_depth = false, have_maxval = false;
    char tupltype[64] = "";
    for (;;) {
        skip_space_and_comments(r);
        if (r->position >= r->size)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PAM: header ends before ENDHDR");
        char word[32];
        read_word(r, word, sizeof word);
        gj2k_status status = GJ2K_OK;
        if (strcmp(word, "WIDTH") == 0) {
            status = read_header_number(r, "WIDTH", &width, error);
            have_width = true;
        } else if (strcmp(word, "HEIGHT") == 0) {
            status = read_header_number(r, "HEIGHT", &height, error);
            have_height = true;
        } else if (strcmp(word, "DEPTH") == 0) {
            status = read_header_number(r, "DEPTH", &depth, error);
            have_depth = true;
        } else if (strcmp(word, "MAXVAL") == 0) {
            status = read_header_number(r, "MAXVAL", &maxval, error);
            have_maxval = true;
        } else if (strcmp(word, "TUPLTYPE") == 0) {
            read_line_value(r, tupltype, sizeof tupltype);
        } else if (strcmp(word, "ENDHDR") == 0) {
            while (r->position < r->size && r->data[r->position] != '\n') {
                if (!is_space(r->data[r->position]))
                    return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                                     "PAM: unexpected text after ENDHDR");
                r->position++;
            }
            if (r->position >= r->size)
                return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PAM: file ends after ENDHDR");
            r->position++;
            break;
        } else {
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PAM: unknown header line '%s'", word);
        }
        if (status != GJ2K_OK)
            return status;
    }
    if (!have_width || !have_height || !have_depth || !have_maxval)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PAM: header lacks %s",
                         !have_width ? "WIDTH" : !have_height ? "HEIGHT"
                         : !have_depth ? "DEPTH" : "MAXVAL");
    h->width = width;
    h->height = height;
    h->maxval = maxval;
    return apply_tupltype(h, tupltype, depth, options, error);
}

static gj2k_status read_header(byte_reader *r, pnm_header *h, const gj2k_read_options *options,
                               gj2k_error *error)
{
    if (r->size < 2 || r->data[0] != 'P' || r->data[1] < '1' || r->data[1] > '7')
        return gj2k_fail(error, r->size < 2 ? GJ2K_ERROR_TRUNCATED : GJ2K_ERROR_MALFORMED,
                         "PNM: no P1..P7 signature");
    *h = (pnm_header){.kind = r->data[1] - '0', .channels = 1, .maxval = 1};
    r->position = 2;
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PNM: header ends after the signature");
    if (!is_space(r->data[r->position]) && r->data[r->position] != '#')
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: no whitespace after the signature");

    gj2k_status status;
    if (h->kind == 7) {
        status = read_pam_header(r, h, options, error);
    } else {
        status = read_header_number(r, "width", &h->width, error);
        if (status == GJ2K_OK)
            status = read_header_number(r, "height", &h->height, error);
        if (status == GJ2K_OK && h->kind != 1 && h->kind != 4)
            status = read_header_number(r, "maxval", &h->maxval, error);
        if (h->kind == 3 || h->kind == 6)
            h->channels = 3;
        if (status == GJ2K_OK && h->kind >= 4)
            status = skip_raster_separator(r, error);
    }
    if (status != GJ2K_OK)
        return status;
    if (h->width == 0 || h->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: empty image %ux%u", h->width,
                         h->height);
    if (h->maxval == 0 || h->maxval > 65535)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: maxval %u is invalid (1..65535)",
                         h->maxval);
    return GJ2K_OK;
}

static uint32_t bits_for(uint32_t maxval)
{
    uint32_t bits = 0;
    while (bits < 32 && (maxval >> bits) != 0)
        bits++;
    return bits;
}

/* Reads one ASCII sample; P1 samples are single digits that need no separator. */
static gj2k_status read_ascii_sample(byte_reader *r, const pnm_header *h, uint32_t *value,
                                     gj2k_error *error)
{
    skip_space_and_comments(r);
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PNM: pixel data ends early");
    uint8_t c = r->data[r->position];
    if (!is_digit(c))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: unexpected byte 0x%02x in the samples",
                         c);
    if (h->kind == 1) {
        r->position++;
        if (c > '1')
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PBM: sample '%c' is not 0 or 1", c);
        *value = c == '1' ? 0u : 1u; /* PBM's 1 is black */
        return GJ2K_OK;
    }
    uint32_t v = 0;
    while (r->position < r->size && is_digit(r->data[r->position])) {
        v = v * 10 + (uint32_t)(r->data[r->position++] - '0');
        if (v > h->maxval)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: sample above maxval %u",
                             h->maxval);
    }
    *value = v;
    return GJ2K_OK;
}

/* The binary raster's samples into the components' planes (one or two
 * bytes each, most significant first); returns the largest. Vectorised. */
GJ2K_VECTOR_CLONES
static uint32_t split_samples(const uint8_t *p, size_t pixels, uint32_t channels, bool wide,
                              gj2k_image *image)
{
    uint32_t largest = 0;
    if (!wide && channels == 3) {
        int32_t *r = image->components[0].samples, *g = image->components[1].samples,
                *b = image->components[2].samples;
        for (size_t i = 0; i < pixels; i++) {
            uint32_t u = p[3 * i], v = p[3 * i + 1], w = p[3 * i + 2];
            r[i] = (int32_t)u;
            g[i] = (int32_t)v;
            b[i] = (int32_t)w;
            uint32_t m = u > v ? u : v;
            m = m > w ? m : w;
            largest = m > largest ? m : largest;
        }
        return largest;
    }
    for (uint32_t c = 0; c < channels; c++) {
        int32_t *out = image->components[c].samples;
        if (wide)
            for (size_t i = 0; i < pixels; i++) {
                size_t at = 2 * ((size_t)channels * i + c);
                uint32_t v = (uint32_t)p[at] << 8 | p[at + 1];
                out[i] = (int32_t)v;
                largest = v > largest ? v : largest;
            }
        else
            for (size_t i = 0; i < pixels; i++) {
                uint32_t v = p[(size_t)channels * i + c];
                out[i] = (int32_t)v;
                largest = v > largest ? v : largest;
            }
    }
    return largest;
}

static gj2k_status read_samples(byte_reader *r, const pnm_header *h, gj2k_image *image,
                                gj2k_error *error)
{
    size_t pixels = (size_t)h->width * h->height;
    uint32_t channels = h->channels;
    if (h->kind <= 3) {
        for (size_t i = 0; i < pixels; i++)
            for (uint32_t c = 0; c < channels; c++) {
                uint32_t v = 0;
                gj2k_status status = read_ascii_sample(r, h, &v, error);
                if (status != GJ2K_OK)
                    return status;
                image->components[c].samples[i] = (int32_t)v;
            }
        return GJ2K_OK;
    }
    const uint8_t *p = r->data + r->position;
    if (h->kind == 4) {
        size_t row_bytes = ((size_t)h->width + 7) / 8;
        int32_t *out = image->components[0].samples;
        for (uint32_t y = 0; y < h->height; y++, p += row_bytes)
            for (uint32_t x = 0; x < h->width; x++)
                *out++ = ((p[x >> 3] >> (7 - (x & 7))) & 1) ? 0 : 1;
        return GJ2K_OK;
    }
    uint32_t largest = split_samples(p, pixels, channels, h->maxval > 255, image);
    if (largest > h->maxval)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNM: sample %u above maxval %u", largest,
                         h->maxval);
    return GJ2K_OK;
}

gj2k_status pnm_header_samples(const uint8_t *data, size_t size, uint64_t *samples,
                               gj2k_error *error)
{
    byte_reader r = {.data = data, .size = size};
    gj2k_read_options quiet = {0};
    pnm_header h;
    gj2k_status status = read_header(&r, &h, &quiet, error);
    *samples = status == GJ2K_OK ? (uint64_t)h.width * h.height * h.channels : 0;
    return status;
}

gj2k_status pnm_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    byte_reader r = {.data = data, .size = size};
    pnm_header h;
    gj2k_status status = read_header(&r, &h, options, error);
    if (status != GJ2K_OK)
        return status;

    /* Each factor is below 2^32 and channels <= 4: no product can overflow 2^64. */
    uint64_t pixels = (uint64_t)h.width * h.height;
    if (pixels > UINT64_MAX / 8)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "PNM: image of %ux%u is too large", h.width,
                         h.height);
    uint64_t samples = pixels * h.channels;
    uint64_t remaining = byte_reader_remaining(&r);
    uint64_t samples_per_byte = 1;
    if (h.kind == 4) {
        uint64_t needed = ((uint64_t)h.width + 7) / 8 * h.height;
        if (needed > remaining)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "PBM: pixel data needs %llu bytes, %llu remain",
                             (unsigned long long)needed, (unsigned long long)remaining);
        samples_per_byte = 8;
    } else if (h.kind >= 5) {
        uint64_t needed = samples * (h.maxval > 255 ? 2 : 1);
        if (needed > remaining)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "PNM: pixel data needs %llu bytes, %llu remain",
                             (unsigned long long)needed, (unsigned long long)remaining);
    } else {
        /* ASCII: a P1 sample takes at least 1 character, others 2 (digit and space). */
        uint64_t least = h.kind == 1 ? samples : samples * 2 - 1;
        if (least > remaining)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "PNM: %llu samples cannot fit in the %llu bytes that remain",
                             (unsigned long long)samples, (unsigned long long)remaining);
    }
    status = image_check_sample_budget(options, samples, size, samples_per_byte, error);
    if (status != GJ2K_OK)
        return status;

    gj2k_component_info info[PNM_MAX_CHANNELS];
    uint32_t precision = bits_for(h.maxval);
    for (uint32_t c = 0; c < h.channels; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    gj2k_image *image;
    status = gj2k_image_create(&image, 0, 0, h.width, h.height, h.channels, info, error);
    if (status != GJ2K_OK)
        return status;
    image->color_space = h.channels <= 2 ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
    if (h.has_alpha)
        image->components[h.channels - 1].role = GJ2K_ROLE_OPACITY;
    status = read_samples(&r, &h, image, error);
    if (status != GJ2K_OK) {
        gj2k_image_destroy(image);
        return status;
    }
    *out = image;
    return GJ2K_OK;
}

/* ------------------------------------------------------------ writing */

gj2k_status pnm_write_header(const gj2k_image *image, uint32_t height,
                             const gj2k_write_options *options, byte_buffer *out,
                             gj2k_error *error)
{
    uint32_t n = image->num_components;
    if (n == 0 || n > PNM_MAX_CHANNELS)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "PNM: %u components cannot be written (1..4)", n);
    const gj2k_component *first = &image->components[0];
    uint32_t precision = 0;
    bool any_signed = false, any_alpha = false, mixed_precision = false;
    for (uint32_t c = 0; c < n; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->width != first->width || comp->height != first->height)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "PNM: components of different sizes (%ux%u and %ux%u)",
                             first->width, first->height, comp->width, comp->height);
        if (comp->precision > 16)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "PNM: component %u has %u bits; at most 16 can be written", c,
                             comp->precision);
        mixed_precision |= comp->precision != first->precision;
        if (comp->precision > precision)
            precision = comp->precision;
        any_signed |= comp->is_signed;
        any_alpha |= comp->role != GJ2K_ROLE_COLOR;
    }
    if (first->width == 0 || height == 0 || first->samples == NULL)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "PNM: empty image");
    if (mixed_precision)
        gj2k_warn(options->warning, options->warning_user,
                  "PNM: components of different precisions written with one maxval (%u bits)",
                  precision);
    /* PNM has no signed samples: signed ones are offset by 2^(precision-1). */
    if (any_signed)
        gj2k_warn(options->warning, options->warning_user,
                  "PNM: signed samples written offset by 2^(precision-1) as unsigned");

    uint32_t maxval = (1u << precision) - 1;
    if (n == 1 && !any_alpha) {
        byte_buffer_printf(out, "P5\n%u %u\n%u\n", first->width, height, maxval);
    } else if (n == 3 && !any_alpha) {
        byte_buffer_printf(out, "P6\n%u %u\n%u\n", first->width, height, maxval);
    } else {
        static const char *const tupltypes[] = {"GRAYSCALE", "GRAYSCALE_ALPHA", "RGB",
                                                "RGB_ALPHA"};
        bool alpha_last = (n == 2 || n == 4);
        for (uint32_t c = 0; c < n; c++)
            if ((image->components[c].role != GJ2K_ROLE_COLOR) != (alpha_last && c == n - 1)) {
                gj2k_warn(options->warning, options->warning_user,
                          "PAM: TUPLTYPE %s cannot keep every component's role",
                          tupltypes[n - 1]);
                break;
            }
        byte_buffer_printf(out, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH %u\nMAXVAL %u\nTUPLTYPE %s\n"
                           "ENDHDR\n", first->width, height, n, maxval, tupltypes[n - 1]);
    }
    return GJ2K_OK;
}

/* Samples clamped to [low, high] less low (a span of at most 16 bits);
 * true when one was outside. Vectorised (vector_clones.h). */
GJ2K_VECTOR_CLONES
static bool clamp_to_u16(const int32_t *samples, size_t count, int32_t low, int32_t high,
                         uint16_t *out)
{
    int32_t outside = 0;
    for (size_t i = 0; i < count; i++) {
        int32_t v = samples[i], c = v < low ? low : v > high ? high : v;
        outside |= c ^ v;
        out[i] = (uint16_t)(c - low);
    }
    return outside != 0;
}

/* Pixel-interleaved rows from the clamped planes: one byte a sample, or
 * two, most significant first (Netpbm). */
GJ2K_VECTOR_CLONES
static void interleave(const uint16_t (*planes)[PNM_CHUNK], size_t count, uint32_t n,
                       size_t bytes_per_sample, uint8_t *p)
{
    if (bytes_per_sample == 1 && n == 3) {
        for (size_t i = 0; i < count; i++) {
            p[3 * i] = (uint8_t)planes[0][i];
            p[3 * i + 1] = (uint8_t)planes[1][i];
            p[3 * i + 2] = (uint8_t)planes[2][i];
        }
    } else if (bytes_per_sample == 1) {
        for (uint32_t c = 0; c < n; c++)
            for (size_t i = 0; i < count; i++)
                p[n * i + c] = (uint8_t)planes[c][i];
    } else {
        for (uint32_t c = 0; c < n; c++)
            for (size_t i = 0; i < count; i++) {
                p[2 * (n * i + c)] = (uint8_t)(planes[c][i] >> 8);
                p[2 * (n * i + c) + 1] = (uint8_t)planes[c][i];
            }
    }
}

gj2k_status pnm_write_rows(const gj2k_image *image, byte_buffer *out, bool *clamped,
                           gj2k_error *error)
{
    uint32_t n = image->num_components, precision = 0;
    if (n == 0 || n > PNM_MAX_CHANNELS)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "PNM: %u components cannot be written (1..4)", n);
    for (uint32_t c = 0; c < n; c++)
        precision = image->components[c].precision > precision ? image->components[c].precision
                                                               : precision;
    if (precision > 16) /* pnm_write_header refuses it first */
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "PNM: at most 16 bits can be written");
    const gj2k_component *first = &image->components[0];
    size_t pixels = (size_t)first->width * first->height;
    size_t bytes_per_sample = precision > 8 ? 2 : 1;
    if (pixels > SIZE_MAX / (n * bytes_per_sample) ||
        !byte_buffer_reserve(out, pixels * n * bytes_per_sample))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PNM: out of memory for the pixels");
    /* each component's range (precision <= 16 here: it fits 32 bits, its
       span 16); out of range, clamped */
    int32_t lows[PNM_MAX_CHANNELS], highs[PNM_MAX_CHANNELS];
    for (uint32_t c = 0; c < n; c++) {
        lows[c] = (int32_t)image_sample_min(&image->components[c]);
        highs[c] = (int32_t)image_sample_max(&image->components[c]);
    }
    uint16_t planes[PNM_MAX_CHANNELS][PNM_CHUNK];
    uint8_t *p = out->data + out->size;
    bool outside = false;
    for (size_t at = 0; at < pixels; at += PNM_CHUNK) {
        size_t count = pixels - at < PNM_CHUNK ? pixels - at : PNM_CHUNK;
        for (uint32_t c = 0; c < n; c++)
            outside |= clamp_to_u16(image->components[c].samples + at, count, lows[c], highs[c],
                                    planes[c]);
        interleave((const uint16_t(*)[PNM_CHUNK])planes, count, n, bytes_per_sample, p);
        p += count * n * bytes_per_sample;
    }
    *clamped = *clamped || outside;
    out->size += pixels * n * bytes_per_sample;
    return GJ2K_OK;
}

gj2k_status pnm_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error)
{
    uint32_t height = image->num_components ? image->components[0].height : 0;
    bool clamped = false;
    gj2k_status status = pnm_write_header(image, height, options, out, error);
    if (status == GJ2K_OK)
        status = pnm_write_rows(image, out, &clamped, error);
    if (status == GJ2K_OK && clamped)
        gj2k_warn(options->warning, options->warning_user,
                  "PNM: samples outside their precision's range were clamped");
    return status;
}
