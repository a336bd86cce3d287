/* gj2k_encode.h - encoding: the options of an encode (progression,
 * rate targets, profiles, tile-parts), its report, and the calls that code
 * an image to memory, a file or a writer. Part of the public API, included
 * by gj2k.h where the encoding section stands; include gj2k.h, not this. */
#ifndef GJ2K_ENCODE_H
#define GJ2K_ENCODE_H

#ifndef GJ2K_H
#error "include gj2k.h, which includes gj2k_encode.h"
#endif

/* Progression orders (Annex B.12, Table A.16). */
typedef enum gj2k_progression {
    GJ2K_LRCP = 0,
    GJ2K_RLCP = 1,
    GJ2K_RPCL = 2,
    GJ2K_PCRL = 3,
    GJ2K_CPRL = 4
} gj2k_progression;

/* One progression order change (POC, Annex A.6.6): from layer 0 up to
 * `layer_end` (exclusive), resolutions [resolution_start, resolution_end),
 * components [component_start, component_end), in `progression`. */
typedef struct gj2k_progression_change {
    int32_t tile; /* the tile whose header carries it; -1: the main header (every tile) */
    uint32_t resolution_start, component_start;
    uint32_t layer_end, resolution_end, component_end;
    gj2k_progression progression;
} gj2k_progression_change;

/* What the per-layer targets of gj2k_encode_options mean. */
typedef enum gj2k_rate_target {
    GJ2K_TARGET_NONE = 0, /* no rate control: every coding pass in the last layer (lossless 5/3) */
    GJ2K_TARGET_RATIO,    /* compression ratio (opj_compress -r): raw bytes / file bytes */
    GJ2K_TARGET_PSNR,     /* PSNR in dB over all components (opj_compress -q) */
    GJ2K_TARGET_BPP,      /* bits per pixel of the image area, all components together */
    GJ2K_TARGET_BYTES     /* bytes of the whole output file */
} gj2k_rate_target;

typedef enum gj2k_mct_mode {
    GJ2K_MCT_AUTO = 0, /* RCT / ICT when components 0..2 share size, depth and sign */
    GJ2K_MCT_OFF,
    GJ2K_MCT_ON        /* fail when components 0..2 cannot take it */
} gj2k_mct_mode;

#define GJ2K_MAX_LAYERS 100      /* quality layers an encode may ask for */
#define GJ2K_MAX_RESOLUTIONS 33  /* decomposition levels + 1 (Annex A.6.1) */

/*
 * How to encode; zero-initialised means what opj_compress does without
 * options: one tile, 6 resolutions, 64x64 code-blocks, no precincts, LRCP,
 * reversible 5/3 with RCT for three alike components, one lossless layer.
 */
/* Codestream profiles that fix the coding (opj_compress -cinema2K, -cinema4K,
 * -IMF). The digital cinema profiles of T.800 Amd 1 (Rsiz 3 and 4): the image
 * must be 3 components of 12 bits (X'Y'Z'), at most 2048x1080 or 4096x2160;
 * the profile sets 9/7, one tile, 32x32 code-blocks, precincts of 256 (128 at
 * the lowest resolution), CPRL (4K: two POC volumes), one layer within
 * the frame's bytes at frame_rate, tile-parts by component and TLM.
 * The IMF profiles of T.800 Amd 8 (SMPTE ST 2067-21; Rsiz 0x0400 to 0x0900,
 * with the main level in bits 0-3 and the sub level in bits 4-7): 1 to 3
 * unsigned components of 8 to 16 bits (the second and third may be
 * subsampled 2:1 across), at most 2048x1556 (2K), 4096x3112 (4K) or
 * 8192x6224 (8K) from (0, 0); the profile sets 32x32 code-blocks, precincts
 * of 256 (128 at the lowest resolution), CPRL, one layer, tile-parts by
 * component and TLM; the lossy ones 9/7 and one tile, the _R ones 5/3 and
 * one tile or tiles of 1024 (4K_R and 8K_R: or 2048; 8K_R: or 4096). With a
 * frame_rate, the main level bounds the samples a second and the sub level
 * the bits a second (imf_main_level, imf_sub_level). */
typedef enum gj2k_profile {
    GJ2K_PROFILE_NONE = 0,
    GJ2K_PROFILE_CINEMA_2K,
    GJ2K_PROFILE_CINEMA_4K,
    GJ2K_PROFILE_IMF_2K,   /* single tile lossy: 9/7, at most 5 decomposition levels */
    GJ2K_PROFILE_IMF_4K,   /*   at most 6 */
    GJ2K_PROFILE_IMF_8K,   /*   at most 7 */
    GJ2K_PROFILE_IMF_2K_R, /* single or multi-tile reversible: 5/3 */
    GJ2K_PROFILE_IMF_4K_R,
    GJ2K_PROFILE_IMF_8K_R
} gj2k_profile;

/* An IMF level as gj2k_encode_options takes it: GJ2K_IMF_LEVEL_AUTO (0) for
 * the lowest the image, frame rate and coded size allow (level 0, "not
 * specified", without a frame rate), GJ2K_IMF_LEVEL(n) for level n (main
 * levels 0..11, sub levels 0..9). */
#define GJ2K_IMF_LEVEL_AUTO 0u
#define GJ2K_IMF_LEVEL(n) ((unsigned)(n) + 1u)

/* Tile-parts of a tile (T.800 A.4.2; opj_compress -TP): one, or a new one
 * at each change of resolution, layer or component along the progression
 * (so -TP C with CPRL gives one a component, as digital cinema asks). */
typedef enum gj2k_tile_parts {
    GJ2K_TILE_PARTS_ONE = 0,
    GJ2K_TILE_PARTS_RESOLUTION,  /* R */
    GJ2K_TILE_PARTS_LAYER,       /* L */
    GJ2K_TILE_PARTS_COMPONENT    /* C */
} gj2k_tile_parts;

typedef struct gj2k_encode_options {
    size_t struct_size;         /* the caller's sizeof, or 0 (the top of this file) */
    gj2k_file_format format;    /* J2K or JP2; UNKNOWN: from the path (file API), else J2K */
    bool irreversible;          /* -I: 9/7 wavelet, ICT, expounded quantization */
    unsigned num_resolutions;   /* -n: 1..33; 0 = 6 */
    uint32_t code_block_width;  /* -b: powers of two 4..1024, w * h <= 4096; 0 = 64 */
    uint32_t code_block_height;
    /* -c: precinct sizes (powers of two), the highest resolution first; the
     * resolutions below the last one given halve it. 0 sizes: no precincts. */
    unsigned num_precinct_sizes;
    uint32_t precinct_width[GJ2K_MAX_RESOLUTIONS], precinct_height[GJ2K_MAX_RESOLUTIONS];
    uint32_t tile_width, tile_height; /* -t; 0 = the whole image in one tile */
    uint32_t tile_x0, tile_y0;        /* -T: the tile grid's origin (at most the image's) */
    gj2k_progression progression;     /* -p */
    const gj2k_progression_change *progression_changes; /* -POC */
    size_t num_progression_changes;
    unsigned code_block_style;  /* -M: Table A.19 bits, 0..63; 64 (+ 8) for HT, as below */
    /* --ht / -M 64: HTJ2K code-blocks (T.814), every block HT (HTONLY); of
     * the Part 1 style bits only 8 (vertically causal) may join it, and it
     * takes one quality layer. */
    bool high_throughput;
    /* --ht-refine: with rate control, HT blocks may also be sent with their
     * HT SigProp and MagRef passes (T.814 7.4, 7.5) where that pays: a
     * little more PSNR at the same size. Off by default: Grok 10.0.5 does
     * not decode such blocks (OpenJPH and OpenJPEG do). */
    bool ht_refinement;
    bool use_sop, use_eph;      /* -SOP, -EPH */
    bool use_plt, use_tlm;      /* -PLT, -TLM */
    gj2k_tile_parts tile_parts; /* -TP R|L|C: a tile's packets in several tile-parts */
    gj2k_profile profile;       /* -cinema2K, -cinema4K, -IMF: the options the profile fixes
                                   are its */
    unsigned frame_rate;        /*   cinema: 24 or 48 frames a second (4K: 24), 0 = 24; IMF:
                                   0 = not given (the levels' rates are not bounded) */
    unsigned imf_main_level;    /*   IMF: GJ2K_IMF_LEVEL(n) or GJ2K_IMF_LEVEL_AUTO */
    unsigned imf_sub_level;
    gj2k_mct_mode mct;          /* -mct */
    unsigned guard_bits;        /* 0 = 2; raised when a band needs more (Annex E.1) */
    /* Quality layers: `num_layers` targets of kind `target`, one per layer,
     * cumulative and increasing in quality. A last-layer target of 0 (or a
     * ratio of at most 1) keeps every coding pass. */
    gj2k_rate_target target;
    unsigned num_layers;        /* 1..GJ2K_MAX_LAYERS; 0 = 1 */
    const double *targets;      /* num_layers values; NULL with GJ2K_TARGET_NONE */
    const char *comment;        /* COM text; NULL: "Created by gj2k <version>"; "": none */
    unsigned threads;           /* 0 = every core */
    gj2k_device device;         /* --device: where the forward transforms run */
    unsigned gpu;               /* --devices: which GPU, as CUDA numbers the visible ones
                                   (CUDA_VISIBLE_DEVICES applies); 0: the first */
    struct gj2k_gpu_context *gpu_context; /* a GPU held open (gj2k_gpu_context_create) that
                                   the encode uses instead of opening one, unless device
                                   is cpu; auto then takes it for any image */
    gj2k_progress_fn progress;  /* how far the encode has come, and a way to stop it; NULL: */
    void *progress_user;        /*   none */
    gj2k_warning_fn warning;
    void *warning_user;
    gj2k_temporary_fn temporary;   /* gj2k_encode_file's temporary file (gj2k_write_options) */
    void *temporary_user;
} gj2k_encode_options;
#define GJ2K_ENCODE_OPTIONS_INIT GJ2K_STRUCT_INIT(gj2k_encode_options)

/* What an encode produced. */
typedef struct gj2k_encode_report {
    size_t struct_size;         /* the caller's sizeof or 0; then the bytes written */
    size_t bytes;               /* of the whole output (JP2 boxes included) */
    size_t codestream_bytes;
    unsigned num_layers;
    size_t layer_bytes[GJ2K_MAX_LAYERS]; /* output bytes up to the end of each layer's packets */
    uint32_t num_tiles;
    size_t num_codeblocks;
    uint32_t guard_bits;        /* the largest used */
    bool mct;                   /* a component transform was applied */
    uint32_t gpu_tiles;         /* tiles whose transforms ran on the GPU */
    uint64_t gpu_blocks;        /* code-blocks whose Tier-1 coding ran on the GPU */
    /* Where the time went, in ms of wall time: opening the GPU stage (0
     * without one), the sample transforms (level shift, component
     * transform, DWT, quantization, with the GPU's transfers), Tier-1
     * (with its transfers; on the CPU path Tier-1 of one component overlaps
     * the GPU's transforms of the next and counts here), rate control (PCRD
     * with its Tier-2 dry runs) and Tier-2 (the packets and codestream
     * written, every round). copies_ms: of transform_ms, the GPU stage's
     * copies between host and device (device time: the samples up, and the
     * coefficients down where Tier-1 runs on the CPU). */
    double open_ms, transform_ms, tier1_ms, rate_ms, tier2_ms, copies_ms;
} gj2k_encode_report;
#define GJ2K_ENCODE_REPORT_INIT GJ2K_STRUCT_INIT(gj2k_encode_report)

/*
 * Encodes an image into a new malloc'ed JPEG 2000 codestream or JP2 file
 * (*data, *size). `options` may be NULL (lossless defaults); `report` may be
 * NULL, and is filled when the encode succeeds. Components must have 1 to 24
 * bits.
 */
GJ2K_API gj2k_status gj2k_encode_memory(const gj2k_image *image, const gj2k_encode_options *options,
                                        uint8_t **data, size_t *size, gj2k_encode_report *report,
                                        gj2k_error *error);
/* Encodes an image to a file, whole or not at all (a temporary name, then a
 * rename). The format comes from options->format, else the path's extension. */
GJ2K_API gj2k_status gj2k_encode_file(const gj2k_image *image, const char *path,
                                      const gj2k_encode_options *options,
                                      gj2k_encode_report *report, gj2k_error *error);

/* A sink of bytes for gj2k_encode_stream: `write` takes all `size` bytes
 * of `data` or returns false. */
typedef struct gj2k_writer {
    size_t struct_size;         /* the caller's sizeof, or 0 (the top of this file) */
    bool (*write)(void *user, const uint8_t *data, size_t size);
    void *user;
} gj2k_writer;
#define GJ2K_WRITER_INIT GJ2K_STRUCT_INIT(gj2k_writer)

/* Encodes as gj2k_encode_memory does (options->format: J2K or JP2) and
 * hands the result to `writer`, in pieces of at most 1 MiB; nothing is
 * written when the encode fails. */
GJ2K_API gj2k_status gj2k_encode_stream(const gj2k_image *image, const gj2k_encode_options *options,
                                        const gj2k_writer *writer, gj2k_encode_report *report,
                                        gj2k_error *error);

#endif
