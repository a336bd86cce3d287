/*
 * gj2k.h - the public interface of libgj2k, a JPEG 2000 (ITU-T T.800) codec
 * with a CUDA wavelet stage.
 *
 * Conventions
 *  - Every function that can fail returns a gj2k_status; GJ2K_OK is zero.
 *    Functions that take a `gj2k_error *` record a one-line, human-readable
 *    message there on failure (the pointer may be NULL).
 *  - The library never prints and never exits. It has no global mutable state:
 *    several images may be read, written or coded at once on different threads.
 *  - Objects returned through `**out` parameters are owned by the caller and
 *    released with the matching *_destroy function.
 *
 * Structs that carry their size
 *  - Each struct the caller fills for a call (gj2k_read_options,
 *    gj2k_raw_geometry, gj2k_write_options, gj2k_decode_options,
 *    gj2k_encode_options, gj2k_transcode_options, gj2k_describe_options,
 *    gj2k_reader, gj2k_writer)
 *    and each the library fills in the caller's memory (gj2k_decode_report,
 *    gj2k_encode_report, gj2k_transcode_report, gj2k_device_info) begins with
 *    `size_t struct_size`: the struct's sizeof as the caller was compiled, or
 *    0 for the layout of gj2k 0.1.0, the first release with it (a zeroed
 *    struct never reaches a later field). Later releases only append
 *    fields, so a program built against an older gj2k.h keeps working:
 *     - a struct the caller fills is read no further than its struct_size;
 *       the fields past it take their defaults, as if left zero;
 *     - a struct the library fills is written no further than its
 *       struct_size, and on return its struct_size holds the bytes written
 *       (this release's sizeof when the caller's struct is longer: the
 *       fields past that are left as they were);
 *     - a struct_size that does not reach past the struct's first field,
 *       or passes GJ2K_STRUCT_SIZE_MAX, is refused with
 *       GJ2K_ERROR_INVALID_ARGUMENT, a message naming the struct
 *       (gj2k_device_probe, which cannot fail, then leaves it untouched).
 *  - So initialise every such struct, those the library fills too: `= {0}`,
 *    or the struct's *_INIT macro, which records its size:
 *        gj2k_encode_options options = GJ2K_ENCODE_OPTIONS_INIT;
 *        gj2k_encode_report report = GJ2K_ENCODE_REPORT_INIT;
 *    An uninitialised struct_size is garbage, which the call refuses at best.
 *  - gj2k_header, which the library allocates, carries the size it was
 *    filled to: a program built against a later gj2k.h reads a field only
 *    where header->struct_size reaches past it.
 *  - Fixed for good: gj2k_error, and the structs passed as arrays, whose
 *    step is their size (gj2k_component_info, gj2k_progression_change,
 *    gj2k_header_component). A gj2k_image and its components are allocated
 *    by the library (gj2k_image_create, the decoders), not by the caller.
 */
#ifndef GJ2K_H
#define GJ2K_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GJ2K_SHARED_BUILD) && defined(__GNUC__)
#define GJ2K_API __attribute__((visibility("default")))
#else
#define GJ2K_API
#endif

#define GJ2K_VERSION_MAJOR 0
#define GJ2K_VERSION_MINOR 1
#define GJ2K_VERSION_PATCH 0
#define GJ2K_VERSION_STRING "0.1.0"

/* The largest struct_size taken (see "Structs that carry their size"):
 * anything larger is garbage, not a later release's struct. */
#define GJ2K_STRUCT_SIZE_MAX 65536u

/* An initialiser that records a struct's size, all else zero: what each
 * GJ2K_*_INIT below expands to (in C++, a value-initialised struct). */
#ifdef __cplusplus
#define GJ2K_STRUCT_INIT(type) ([] { type s_{}; s_.struct_size = sizeof s_; return s_; }())
#else
#define GJ2K_STRUCT_INIT(type) {.struct_size = sizeof(type)}
#endif

/* ---------------------------------------------------------------- errors */

typedef enum gj2k_status {
    GJ2K_OK = 0,
    GJ2K_ERROR_INVALID_ARGUMENT, /* the caller passed something unusable */
    GJ2K_ERROR_OUT_OF_MEMORY,    /* an allocation failed */
    GJ2K_ERROR_IO,               /* a file could not be opened, read, written or renamed */
    GJ2K_ERROR_UNSUPPORTED,      /* valid input that this build cannot handle */
    GJ2K_ERROR_MALFORMED,        /* the input breaks its format's rules */
    GJ2K_ERROR_TRUNCATED,        /* the input ends before its data does */
    GJ2K_ERROR_LIMIT,            /* the input exceeds a resource limit */
    GJ2K_ERROR_NOT_IMPLEMENTED,  /* a feature that gj2k does not have yet */
    GJ2K_ERROR_DEVICE,           /* the GPU or its runtime failed */
    GJ2K_ERROR_CANCELLED         /* the progress callback asked to stop */
} gj2k_status;

/* Where a failing call records what went wrong. */
typedef struct gj2k_error {
    gj2k_status status;
    char message[256];
} gj2k_error;

/* A short constant name for a status, e.g. "malformed input". */
GJ2K_API const char *gj2k_status_name(gj2k_status status);

/* Receives non-fatal remarks (an ignored chunk, a clamped value), one line
 * each. A decode may call it from several of its threads at once: a
 * callback that keeps state must lock. */
typedef void (*gj2k_warning_fn)(void *user, const char *message);

/* Told how far an encode or decode has come: `done` of `total` units (the
 * samples of the code-blocks coded), some ten times a second and once at
 * the end with done == total; from any of its threads, one at a time.
 * Returning false cancels: the call stops at its next code-block and
 * fails with GJ2K_ERROR_CANCELLED, writing nothing. */
typedef bool (*gj2k_progress_fn)(void *user, uint64_t done, uint64_t total);

/* ----------------------------------------------------------- the image */

/* What a component means (JP2 cdef, Annex I.5.3.6). */
typedef enum gj2k_component_role {
    GJ2K_ROLE_COLOR = 0,
    GJ2K_ROLE_OPACITY,
    GJ2K_ROLE_PREMULTIPLIED_OPACITY
} gj2k_component_role;

typedef enum gj2k_color_space {
    GJ2K_COLOR_UNKNOWN = 0,
    GJ2K_COLOR_GRAY,
    GJ2K_COLOR_SRGB,
    GJ2K_COLOR_SYCC,
    GJ2K_COLOR_ESYCC  /* e-sYCC (JPX enumerated colour space 24) */
} gj2k_color_space;

#define GJ2K_MAX_PRECISION 38     /* SIZ Ssiz allows 1..38 bits (Annex A.5.1) */
#define GJ2K_MAX_NARROW_PRECISION 31 /* deepest precision held in int32 samples */
#define GJ2K_MAX_COMPONENTS 16384 /* SIZ Csiz */

/*
 * One component. Its samples cover, on its own grid, the columns
 * [x0, x0 + width) and rows [y0, y0 + height), where x0 = ceil(image.x0 / dx),
 * width = ceil(image.x1 / dx) - x0, and likewise for y (Annex B.2, eq. B-1).
 * Samples are row-major with no padding: sample (x, y) is at y * width + x.
 * Components of up to 31 bits keep their samples in `samples`; deeper ones
 * (32..38 bits) in `wide_samples`, and `samples` is NULL.
 */
typedef struct gj2k_component {
    uint32_t dx, dy;          /* subsampling on the reference grid, 1..255 */
    uint32_t x0, y0;          /* origin on the component's grid */
    uint32_t width, height;   /* size in samples (either may be 0 on odd canvases) */
    uint32_t precision;       /* bits per sample, 1..38 */
    bool is_signed;
    gj2k_component_role role;
    int32_t *samples;
    int64_t *wide_samples;
} gj2k_component;

/* An image on the reference grid: the area [x0, x1) x [y0, y1) (Annex B.2). */
typedef struct gj2k_image {
    uint32_t x0, y0, x1, y1;
    uint32_t num_components;
    gj2k_component *components;
    gj2k_color_space color_space;
    uint8_t *icc_profile;     /* an ICC profile carried from or to a file, or NULL */
    size_t icc_profile_size;
    double resolution_x;      /* pixels per metre; 0 when unknown */
    double resolution_y;
    /* Metadata carried between files as it came, unparsed, or NULL
     * (gj2k_image_set_metadata): JP2 keeps each in a uuid box, PNG the XMP
     * in an iTXt chunk and EXIF in eXIf, TIFF the XMP and IPTC in their tags. */
    uint8_t *xmp;             /* an XMP packet (XML, UTF-8) */
    size_t xmp_size;
    uint8_t *exif;            /* EXIF as a TIFF structure ("II*\0" or "MM\0*" first) */
    size_t exif_size;
    uint8_t *iptc;            /* IPTC-IIM records */
    size_t iptc_size;
} gj2k_image;

typedef enum gj2k_metadata {
    GJ2K_METADATA_XMP = 0,
    GJ2K_METADATA_EXIF,
    GJ2K_METADATA_IPTC
} gj2k_metadata;

/* The per-component parameters that gj2k_image_create needs. */
typedef struct gj2k_component_info {
    uint32_t dx, dy;
    uint32_t precision;
    bool is_signed;
} gj2k_component_info;

/*
 * Allocates an image covering [x0, x1) x [y0, y1) with zeroed samples.
 * Fails with GJ2K_ERROR_LIMIT when the samples would not fit in memory
 * addressable here, GJ2K_ERROR_INVALID_ARGUMENT for an empty canvas,
 * a subsampling factor outside 1..255 or a precision outside 1..38.
 */
GJ2K_API gj2k_status gj2k_image_create(gj2k_image **out, uint32_t x0, uint32_t y0,
                                       uint32_t x1, uint32_t y1, uint32_t num_components,
                                       const gj2k_component_info *info, gj2k_error *error);

GJ2K_API void gj2k_image_destroy(gj2k_image *image);

/* Replaces the image's ICC profile with a copy of `data` (size 0 clears it). */
GJ2K_API gj2k_status gj2k_image_set_icc_profile(gj2k_image *image, const uint8_t *data,
                                                size_t size, gj2k_error *error);

/* Replaces one kind of the image's metadata with a copy of `data` (size 0
 * clears it). */
GJ2K_API gj2k_status gj2k_image_set_metadata(gj2k_image *image, gj2k_metadata kind,
                                             const uint8_t *data, size_t size, gj2k_error *error);

/* True when every component has the same size, subsampling 1x1 and <= 31 bits. */
GJ2K_API bool gj2k_image_is_uniform(const gj2k_image *image);

/* ------------------------------------------------------ image file I/O */

typedef enum gj2k_file_format {
    GJ2K_FORMAT_UNKNOWN = 0,
    GJ2K_FORMAT_PNM,  /* .pgm .ppm .pnm .pbm .pam */
    GJ2K_FORMAT_PGX,  /* .pgx: one component per file */
    GJ2K_FORMAT_PNG,
    GJ2K_FORMAT_TIFF, /* .tif .tiff */
    GJ2K_FORMAT_BMP,
    GJ2K_FORMAT_RAW,  /* .raw: big-endian samples, planar, geometry given */
    GJ2K_FORMAT_RAWL, /* .rawl: little-endian samples */
    GJ2K_FORMAT_J2K,  /* .j2k .j2c .jpc: a JPEG 2000 codestream */
    GJ2K_FORMAT_JP2,  /* .jp2 .jpx .jpf */
    GJ2K_FORMAT_TGA   /* .tga: Truevision TGA (8-bit channels) */
} gj2k_file_format;

/* The format a path's extension names (case-insensitive), or GJ2K_FORMAT_UNKNOWN. */
GJ2K_API gj2k_file_format gj2k_format_from_path(const char *path);

/* The format a file's first bytes announce, or GJ2K_FORMAT_UNKNOWN. */
GJ2K_API gj2k_file_format gj2k_format_from_signature(const uint8_t *data, size_t size);

/* The format a file's first bytes announce, else the one its name's
 * extension names (a file without a signature: raw, PGX ...), or
 * GJ2K_FORMAT_UNKNOWN. */
GJ2K_API gj2k_file_format gj2k_format_of_file(const char *path);

/* A short name such as "PNG"; "unknown" for GJ2K_FORMAT_UNKNOWN. */
GJ2K_API const char *gj2k_format_name(gj2k_file_format format);

/* True when this build can read (or write) images of that format. */
GJ2K_API bool gj2k_format_can_read(gj2k_file_format format);
GJ2K_API bool gj2k_format_can_write(gj2k_file_format format);

/* Geometry of raw input, which carries none (as opj_compress -F). */
typedef struct gj2k_raw_geometry {
    size_t struct_size;           /* the caller's sizeof, or 0 (the top of this file) */
    uint32_t width, height;       /* of the full-resolution grid */
    uint32_t num_components;
    uint32_t precision;           /* 1..16; samples take 1 byte up to 8 bits, else 2 */
    bool is_signed;
    uint32_t dx[4], dy[4];        /* per-component subsampling; 0 means 1 */
} gj2k_raw_geometry;
#define GJ2K_RAW_GEOMETRY_INIT GJ2K_STRUCT_INIT(gj2k_raw_geometry)

typedef struct gj2k_read_options {
    size_t struct_size;           /* the caller's sizeof, or 0 (the top of this file) */
    /* Refuse images of more samples than this (all components); 0: no fixed
     * limit, only the bound that the file's size can justify. */
    uint64_t max_samples;
    const gj2k_raw_geometry *raw; /* required for GJ2K_FORMAT_RAW/RAWL */
    gj2k_warning_fn warning;      /* may be NULL */
    void *warning_user;
} gj2k_read_options;
#define GJ2K_READ_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_read_options)

/* Told of each temporary file a write makes, just before it makes it
 * (`exists` true), and of its end (renamed into place, removed, or never
 * made: false), on the writing thread, so that a program can remove those
 * that exist when a signal ends it. */
typedef void (*gj2k_temporary_fn)(void *user, const char *path, bool exists);

typedef struct gj2k_write_options {
    size_t struct_size;           /* the caller's sizeof, or 0 (the top of this file) */
    gj2k_warning_fn warning;      /* may be NULL */
    void *warning_user;
    gj2k_temporary_fn temporary;  /* may be NULL */
    void *temporary_user;
    bool split_components;        /* PNM: one PGM a component, OUT_0.pgm, OUT_1.pgm, ...
                                     (opj_decompress -split-pnm), as PGX always is */
} gj2k_write_options;
#define GJ2K_WRITE_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_write_options)

/*
 * Reads an image held in memory. `format` names its format; GJ2K_FORMAT_UNKNOWN
 * asks for the format its signature announces. `options` may be NULL.
 */
GJ2K_API gj2k_status gj2k_image_read_memory(const uint8_t *data, size_t size,
                                            gj2k_file_format format,
                                            const gj2k_read_options *options,
                                            gj2k_image **out, gj2k_error *error);

/* Reads an image file; the format comes from the extension, else the signature. */
GJ2K_API gj2k_status gj2k_image_read_file(const char *path, const gj2k_read_options *options,
                                          gj2k_image **out, gj2k_error *error);

/* Encodes an image into a new malloc'ed buffer (*data, *size) in `format`. */
GJ2K_API gj2k_status gj2k_image_write_memory(const gj2k_image *image, gj2k_file_format format,
                                             const gj2k_write_options *options,
                                             uint8_t **data, size_t *size, gj2k_error *error);

/*
 * Writes an image file in the format its extension names. The file appears
 * whole or not at all: it is written under a temporary name and renamed.
 * PGX holds one component a file: an image of N components written to
 * "out.pgx" becomes out_0.pgx .. out_<N-1>.pgx, as OpenJPEG names them.
 */
GJ2K_API gj2k_status gj2k_image_write_file(const gj2k_image *image, const char *path,
                                           const gj2k_write_options *options, gj2k_error *error);

/* ------------------------------------------------------------ devices */

/* Where the sample transforms (level shift, component transform, DWT,
 * quantization) run. The result is the same bits on either. */
typedef enum gj2k_device {
    GJ2K_DEVICE_AUTO = 0, /* a usable GPU for images large enough to repay opening it
                             (encoding 2^24 samples, decoding 2^25), else the CPU */
    GJ2K_DEVICE_CPU,
    GJ2K_DEVICE_GPU       /* fail with GJ2K_ERROR_DEVICE when there is no usable GPU */
} gj2k_device;

/* A GPU held open across encodes and decodes: its transform stage and
 * Tier-1 coders, their streams and device buffers, made once and kept
 * (grown to the largest image coded), for options.gpu_context. An encode
 * or decode opening a GPU of its own pays little to open it but frees its
 * device memory at the end, which waits for the whole GPU: calls coding
 * at once on one GPU then stall each other, and a batch keeps one context
 * a worker instead. A context serves one encode or decode at a time; give
 * each thread its own. GJ2K_ERROR_DEVICE when GPU `gpu` (CUDA's number of
 * the visible ones) does not open or the build has no CUDA. */
typedef struct gj2k_gpu_context gj2k_gpu_context;
GJ2K_API gj2k_status gj2k_gpu_context_create(unsigned gpu, gj2k_gpu_context **out,
                                             gj2k_error *error);
/* The same for one of several contexts coding at once on one GPU (a
 * batch's workers, ranks 0, 1, 2, ...): rank k's kernels run at a higher
 * stream priority than rank k - 1's, round the levels the GPU has, so that
 * the contexts' files do not all end, and leave the GPU waiting on the CPU,
 * at once. Rank 0 is gj2k_gpu_context_create. */
GJ2K_API gj2k_status gj2k_gpu_context_create_ranked(unsigned gpu, unsigned rank,
                                                    gj2k_gpu_context **out, gj2k_error *error);
GJ2K_API void gj2k_gpu_context_destroy(gj2k_gpu_context *context);

/* ------------------------------------------------------------ decoding */

/* What a decode did (gj2k_decode_options.report). */
typedef struct gj2k_decode_report {
    size_t struct_size;        /* the caller's sizeof or 0; then the bytes written */
    uint32_t num_tiles;        /* tiles decoded */
    uint32_t gpu_tiles;        /* of those, tiles whose inverse transforms ran on the GPU */
    uint64_t gpu_blocks;       /* code-blocks whose Tier-1 ran on the GPU */
    bool incomplete;           /* refused (GJ2K_ERROR_TRUNCATED): the codestream lacks tile
                                  data; allow_partial decodes what it holds */
    bool over_memory;          /* refused (GJ2K_ERROR_LIMIT): a buffer would have passed
                                  max_memory */
    uint32_t width, height;    /* the area decoded, on the reference grid reduced by 2^reduce */
    uint32_t num_components;   /* in the codestream (before rendering) */
    uint32_t strips;           /* strips of rows decoded (strip_rows); 0: whole tiles */
    bool streamed;             /* gj2k_decode_to_file wrote each strip as it was decoded */
    /* Where the time went, in ms of wall time: reading the file and parsing
     * its headers (gj2k_decode_to_file), opening the GPU stage (0 without
     * one), the tiles (Tier-2, Tier-1, the inverse transforms and the
     * samples into the image; with streaming, their writing too), and
     * writing the output file (gj2k_decode_to_file, unless streamed). */
    double read_ms, open_ms, tiles_ms, write_ms;
    /* Of the tiles' time (whole tiles; 0 when decoded in strips), summed
     * over the tiles: Tier-2 (packet headers, on the CPU, with the tile's
     * buffers), Tier-1 with the dequantization, and what followed Tier-1:
     * the inverse transforms and the samples into the image (on the GPU
     * path its download; the next tile's Tier-2 and Tier-1 overlap it). */
    double tier2_ms, tier1_ms, transform_ms;
    /* Of transform_ms, the GPU stage's copies between host and device
     * (device time: the samples down, and, where the planes do not lie on
     * the device, the coefficients up). */
    double copies_ms;
} gj2k_decode_report;
#define GJ2K_DECODE_REPORT_INIT GJ2K_STRUCT_INIT(gj2k_decode_report)

/* What to decode and how to render it; zero-initialised means: the whole
 * image at full resolution, every layer and component, all cores, the
 * components as the codestream holds them. Mirrors opj_decompress. */
typedef struct gj2k_decode_options {
    size_t struct_size;        /* the caller's sizeof, or 0 (the top of this file) */
    unsigned reduce;           /* -r: highest resolution levels to discard */
    unsigned max_layers;       /* -l: quality layers to decode; 0 = all */
    bool use_region;           /* -d: decode only [x0,x1) x [y0,y1) of the reference grid */
    uint32_t region_x0, region_y0, region_x1, region_y1;
    bool use_tile;             /* -t: decode only tile `tile` */
    uint32_t tile;
    const uint32_t *components; /* -c: indices of the components to keep; NULL = all */
    uint32_t num_components;
    unsigned threads;          /* -threads: 0 = every core */
    /* Rendering after decoding. Unless raw_components is set, a JP2 file's
     * palette, component mapping, channel definitions and colour space are
     * applied, and sYCC and e-sYCC images are converted to sRGB (their
     * subsampled colour components brought to full size first). */
    bool raw_components;       /* --raw-components: the codestream's components as coded */
    bool guess_sycc;           /* three components of no stated colour space, the second
                                  subsampled, are taken as sYCC (and so converted to sRGB),
                                  as opj_decompress and grk_decompress take them; gj2k
                                  decode sets it */
    bool upsample;             /* --upsample: subsampled components to full size */
    bool force_rgb;            /* --force-rgb: grey and ICC images to sRGB too */
    unsigned precision;        /* -p: every component to this many bits; 0 = keep */
    uint64_t max_samples;      /* refuse images of more samples; 0 = no fixed limit */
    uint64_t max_memory;       /* --max-memory: bytes the decode's large buffers (the image,
                                  a tile's coefficients, rendering) may hold at once; more is
                                  refused with GJ2K_ERROR_LIMIT before it is allocated.
                                  0: half the machine's physical memory (or of a
                                  container's limit, when less) */
    bool allow_partial;        /* -allow-partial: decode an incomplete codestream (a tile-part
                                  cut short, tiles or tile-parts missing) to what it holds,
                                  with warnings; otherwise that fails with
                                  GJ2K_ERROR_TRUNCATED and nothing is decoded */
    uint32_t strip_rows;       /* --strip-rows: decode tiles this many rows (of the reduced
                                  image) at a time, in memory that grows with a tile's width,
                                  not its area (on the CPU; the same samples). 0: only tiles
                                  that would not fit max_memory whole, in strips gj2k sizes */
    gj2k_device device;        /* --device: where the inverse transforms run */
    unsigned gpu;              /* --devices: which GPU, as CUDA numbers the visible ones
                                  (CUDA_VISIBLE_DEVICES applies); 0: the first */
    struct gj2k_gpu_context *gpu_context; /* a GPU held open (gj2k_gpu_context_create) that
                                  the decode uses instead of opening one, unless device is
                                  cpu; auto then takes it for any image */
    gj2k_progress_fn progress; /* how far the decode has come, and a way to stop it; NULL: */
    void *progress_user;       /*   none */
    gj2k_warning_fn warning;   /* remarks such as "truncated codestream" */
    void *warning_user;
    gj2k_decode_report *report; /* filled in when not NULL, whatever the outcome */
} gj2k_decode_options;
#define GJ2K_DECODE_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_decode_options)

/* Decodes a JPEG 2000 codestream (.j2k/.j2c) or JP2 file held in memory. An
 * incomplete codestream fails with GJ2K_ERROR_TRUNCATED, naming what is
 * missing, unless options->allow_partial is set: then it decodes to what it
 * holds, with a warning. */
GJ2K_API gj2k_status gj2k_decode_memory(const uint8_t *data, size_t size,
                                        const gj2k_decode_options *options, gj2k_image **out,
                                        gj2k_error *error);

/* Reads and decodes a JPEG 2000 file. */
GJ2K_API gj2k_status gj2k_decode_file(const char *path, const gj2k_decode_options *options,
                                      gj2k_image **out, gj2k_error *error);

/* A source of bytes for gj2k_decode_stream: `read` fills up to `size`
 * bytes of `buffer` and returns how many (0 at the end, -1 on failure);
 * `seek`, when not NULL, is asked first to go to offset 0, so that a
 * stream handed over part-way is decoded from its start. */
typedef struct gj2k_reader {
    size_t struct_size;         /* the caller's sizeof, or 0 (the top of this file) */
    int64_t (*read)(void *user, uint8_t *buffer, size_t size);
    bool (*seek)(void *user, uint64_t offset);
    void *user;
} gj2k_reader;
#define GJ2K_READER_INIT GJ2K_STRUCT_INIT(gj2k_reader)

/* Decodes what `reader` gives (a codestream or JP2 file), read whole first
 * and held in memory: at most options->max_memory bytes of it (0: half
 * the machine's memory), more is refused with GJ2K_ERROR_LIMIT. */
GJ2K_API gj2k_status gj2k_decode_stream(const gj2k_reader *reader,
                                        const gj2k_decode_options *options, gj2k_image **out,
                                        gj2k_error *error);

/*
 * Decodes a JPEG 2000 file to an image file (gj2k_image_write_file's
 * formats and naming). Where the output can be written row by row (PNM of
 * one file, components of one size) and options->strip_rows is set, or
 * the image would not fit half of max_memory, or it holds 2^26 samples or
 * more and no GPU would take its transforms, each strip is written as it is
 * decoded and the whole image is never held (report->streamed); otherwise
 * this is gj2k_decode_file then gj2k_image_write_file. Either way the file
 * appears whole or not at all.
 */
GJ2K_API gj2k_status gj2k_decode_to_file(const char *input, const char *output,
                                         const gj2k_decode_options *options,
                                         const gj2k_write_options *write_options,
                                         gj2k_error *error);

/* ------------------------------------------------------------ encoding */

#include "gj2k_encode.h" /* its options, report and calls */

/* --------------------------------------------------------- transcoding */

/* Which block coder a transcode's code-blocks take. */
typedef enum gj2k_block_coder {
    GJ2K_CODER_AUTO = 0, /* gj2k_transcode_file: HT for an output named .jph or .jhc, else
                            Part 1; gj2k_transcode_memory: the other coder than the
                            input's (HT when its main header's code-blocks are Part 1) */
    GJ2K_CODER_PART1,    /* T.800 Annex D (EBCOT): code-block style bits 6 and 7 cleared,
                            Rsiz bit 14 cleared, no CAP */
    GJ2K_CODER_HT        /* T.814 (HTJ2K): every block HT (style bit 6, with bit 3 kept),
                            Rsiz bit 14 and a CAP with Ccap15; JP2 files become JPH */
} gj2k_block_coder;

/* What a transcode did (gj2k_transcode_options.report). */
typedef struct gj2k_transcode_report {
    size_t struct_size;         /* the caller's sizeof or 0; then the bytes written */
    gj2k_block_coder coder;     /* the coder the output's code-blocks take */
    gj2k_file_format format;    /* of the output: J2K or JP2 (JPH with HT) */
    size_t bytes;               /* of the whole output */
    size_t codestream_bytes;
    uint32_t num_tiles;         /* tiles re-coded */
    unsigned input_layers;      /* quality layers of the input (the most of a tile); the
                                   output has one, re-coded from all of them */
    uint64_t num_codeblocks;    /* code-blocks with coded data in the input */
    uint64_t ht_codeblocks;     /* of those, HT ones */
    uint64_t truncated_blocks;  /* of those, not decoded to the end of bit-plane 0 (lossy) */
    /* Blocks whose last bit-plane the input codes only in part (a Part 1
     * block truncated after a significance or refinement pass, or an HT
     * block with SigProp or MagRef passes) re-coded as HT without that
     * plane: the transcoder codes HT cleanup passes only. Their coefficients
     * change (within the plane dropped); every other block is re-coded
     * exactly: the output decodes to the very coefficients of the input. */
    uint64_t partial_plane_blocks;
    uint64_t damaged_blocks;    /* blocks the decoder would warn of (decoded as far as they go) */
    /* Milliseconds of wall time: reading and parsing the input (the file's
     * reading with gj2k_transcode_file), Tier-2 of the input, Tier-1 (both
     * ways, on all threads), Tier-2 of the output with the writing of the
     * codestream and its boxes (and of the file, with gj2k_transcode_file). */
    double read_ms, tier2_in_ms, tier1_ms, write_ms;
} gj2k_transcode_report;
#define GJ2K_TRANSCODE_REPORT_INIT GJ2K_STRUCT_INIT(gj2k_transcode_report)

/* How to transcode; zero-initialised: the coder and the container from the
 * output (file API) or the other coder in the input's container (memory
 * API), every core. */
typedef struct gj2k_transcode_options {
    size_t struct_size;         /* the caller's sizeof, or 0 (the top of this file) */
    gj2k_block_coder coder;
    gj2k_file_format format;    /* J2K or JP2 (a JPH file with HT); UNKNOWN: from the output's
                                   name (file API), else the input's */
    unsigned threads;           /* 0 = every core */
    gj2k_warning_fn warning;    /* damaged blocks, dropped partial planes, boxes a
                                   codestream output cannot carry ... */
    void *warning_user;
    gj2k_temporary_fn temporary;   /* gj2k_transcode_file's temporary file */
    void *temporary_user;
    gj2k_transcode_report *report; /* filled in when not NULL and the call succeeds */
} gj2k_transcode_options;
#define GJ2K_TRANSCODE_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_transcode_options)

/*
 * Re-codes every code-block of a JPEG 2000 codestream or JP2/JPH file with
 * another block coder, with no inverse or forward transform between: each
 * block's quantized coefficients, exactly as the decoder's Tier-1 recovers
 * them, are coded again (Part 1 <-> HT; the same coder again is allowed).
 * Everything else is carried across: SIZ, the tiles, COD/COC but for the
 * code-block style, QCD/QCC, precincts, progression and POC, SOP/EPH, COM,
 * CRG, PLT and TLM where the input has packet or tile-part lengths, and a
 * JP2 file's boxes (colour, ICC, resolution, channels, XML, UUID ...) when
 * the output is a JP2 file too; a codestream given as a JP2 file gets the
 * boxes gj2k_encode writes, with the colour space unknown. The output has
 * one quality layer, re-coded from all of the input's, and one tile-part a
 * tile; packed packet headers (PPM, PPT) are written in the packets.
 * Lossless files come out exact (the same decoded coefficients, so the
 * same image); for lossy ones see gj2k_transcode_report.partial_plane_blocks.
 * An HT block sent in more than one HT set is re-coded from its last one
 * (as it decodes). Refused: an incomplete codestream
 * (GJ2K_ERROR_TRUNCATED), a region of interest with a shift and what the
 * decoder does not decode (GJ2K_ERROR_UNSUPPORTED).
 * The output is a new malloc'ed buffer (*data, *size).
 */
GJ2K_API gj2k_status gj2k_transcode_memory(const uint8_t *input, size_t input_size,
                                           const gj2k_transcode_options *options,
                                           uint8_t **data, size_t *size, gj2k_error *error);
/* The same from a file to a file, which appears whole or not at all (a
 * temporary name, then a rename). Messages name the file they concern. */
GJ2K_API gj2k_status gj2k_transcode_file(const char *input, const char *output,
                                         const gj2k_transcode_options *options,
                                         gj2k_error *error);

/* ------------------------------------------------------------ headers */

/* What a JPEG 2000 file's headers say, read without decoding a sample
 * (gj2k_header_read_memory): the main header's SIZ and default coding, and
 * a JP2 file's colour. */
typedef struct gj2k_header_component {
    uint32_t precision;           /* bits, 1..38 */
    bool is_signed;
    uint32_t dx, dy;              /* subsampling on the reference grid */
    uint32_t width, height;       /* samples, at full resolution */
} gj2k_header_component;

typedef struct gj2k_header {
    size_t struct_size;           /* sizeof(gj2k_header) of the library that filled it */
    gj2k_file_format format;      /* GJ2K_FORMAT_J2K (a bare codestream) or GJ2K_FORMAT_JP2 */
    uint32_t x0, y0, x1, y1;      /* the image area on the reference grid */
    uint32_t width, height;       /* x1 - x0, y1 - y0 */
    uint32_t num_components;
    gj2k_header_component *components; /* num_components entries */
    gj2k_color_space color_space; /* JP2's first colr box (UNKNOWN for a codestream or an
                                     ICC profile that is not grey) */
    bool has_icc;                 /* that box is an ICC profile */
    bool has_palette;             /* JP2 pclr: components map through a palette */
    uint16_t capabilities;        /* Rsiz (T.800 Table A.10; bit 14: HTJ2K, T.814) */
    bool ht;                      /* HT code-blocks (T.814) in the default coding */
    bool reversible;              /* 5/3 wavelet (else 9/7) in the default coding */
    bool mct;                     /* RCT or ICT on components 0..2 */
    uint32_t num_resolutions;     /* decomposition levels + 1, default coding */
    uint32_t num_layers;
    gj2k_progression progression;
    uint32_t code_block_width, code_block_height;
    uint32_t tile_width, tile_height, num_tiles;
} gj2k_header;

/* Reads the headers of a codestream or JP2 file held in memory into a new
 * *out (free with gj2k_header_free). Only the headers need be there: a file
 * cut after its main header reads. */
GJ2K_API gj2k_status gj2k_header_read_memory(const uint8_t *data, size_t size, gj2k_header **out,
                                             gj2k_error *error);
/* The same from a file. */
GJ2K_API gj2k_status gj2k_header_read_file(const char *path, gj2k_header **out,
                                           gj2k_error *error);
GJ2K_API void gj2k_header_free(gj2k_header *header);

/* --------------------------------------------------- describing a file */

/* How gj2k_describe_file writes its description. */
typedef enum gj2k_describe_style {
    GJ2K_DESCRIBE_TEXT = 0, /* lines for reading, as `gj2k info` prints them */
    GJ2K_DESCRIBE_JSON      /* one JSON object on one line, as `gj2k info --json` prints it */
} gj2k_describe_style;

typedef struct gj2k_describe_options {
    size_t struct_size;           /* the caller's sizeof, or 0 (the top of this file) */
    gj2k_describe_style style;
    const gj2k_raw_geometry *raw; /* the geometry of raw input (GJ2K_FORMAT_RAW/RAWL) */
    gj2k_warning_fn warning;      /* a JPEG 2000 file's remarks (a damaged codestream,
                                     code-blocks not counted ...); may be NULL */
    void *warning_user;
} gj2k_describe_options;
#define GJ2K_DESCRIBE_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_describe_options)

/*
 * Describes a file as `gj2k info` does, known by its first bytes
 * (gj2k_format_of_file): a JPEG 2000 codestream or JP2 file by its JP2
 * boxes (Annex I) and its codestream's markers, coding parameters and
 * tiles (Annex A), an HT one (T.814) with its code-blocks counted from
 * their packet headers, one that names a cinema or IMF profile checked
 * against it; any other image by what gj2k_image_read_file reads of it
 * (size, components, colour, ICC profile, metadata, resolution): the image
 * is read whole, where a JPEG 2000 file has no code-block decoded.
 * `options` may be NULL (text, no warnings). The description
 * is a new malloc'ed, NUL-terminated string (*text) ending in a newline;
 * *size (`size` may be NULL) receives its length, the NUL not counted.
 * Failures name the file, and leave *text NULL.
 */
GJ2K_API gj2k_status gj2k_describe_file(const char *path, const gj2k_describe_options *options,
                                        char **text, size_t *size, gj2k_error *error);

/* ------------------------------------------------------ build and device */

/* "0.1.0" */
GJ2K_API const char *gj2k_version_string(void);

typedef struct gj2k_device_info {
    size_t struct_size;       /* the caller's sizeof or 0; then the bytes written */
    bool cuda_built;          /* this build contains CUDA kernels */
    int runtime_version;      /* CUDA runtime, e.g. 13000 for 13.0; 0 when not built */
    int driver_version;       /* CUDA driver; 0 when there is none */
    int device_count;         /* usable GPUs */
    char device_name[256];    /* the first GPU's name, or empty */
    int compute_major, compute_minor;
    size_t global_memory;     /* bytes on the first GPU */
    int multiprocessors;
    char detail[256];         /* why there is no usable GPU, when there is none */
} gj2k_device_info;
#define GJ2K_DEVICE_INFO_INIT GJ2K_STRUCT_INIT(gj2k_device_info)

/* Probes for a CUDA device. Never fails: a machine without one reports zero
 * devices. An `info` whose struct_size is refused is left untouched. */
GJ2K_API void gj2k_device_probe(gj2k_device_info *info);

/* Opens the first GPU's context now: the CUDA runtime's and driver's
 * start-up, some 0.3 s, which the first encode or decode on the GPU would
 * otherwise wait for. Call it on a thread of your own while the input is
 * read; a later encode or decode then finds the device open (or waits for
 * the rest). GJ2K_ERROR_DEVICE when there is no usable GPU or this build
 * has no CUDA. *milliseconds (may be NULL) receives how long it took. */
GJ2K_API gj2k_status gj2k_device_warm_up(double *milliseconds, gj2k_error *error);

#ifdef __cplusplus
}
#endif
#endif /* GJ2K_H */
