/* encode_cases.h - the cases of the encoder cross-check (encode_crosscheck.c):
 * deterministic synthetic images and the option matrix they are encoded with. */
#ifndef GJ2K_ENCODE_CASES_H
#define GJ2K_ENCODE_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

#define CASE_MAX_COMPONENTS 4
#define CASE_MAX_TARGETS 12
#define CASE_MAX_CHANGES 2

/* What a synthetic image shows. */
typedef enum image_pattern {
    PATTERN_PICTURE = 0, /* gradients, shapes, a zone plate, a little noise */
    PATTERN_FLAT,        /* one value: every code-block empty of bit-planes */
    PATTERN_CHECKER,     /* the extremes alternating: the largest high-pass values */
    PATTERN_NOISE        /* uniform over the whole range: every pass costs */
} image_pattern;

/* A synthetic image from a seeded generator; by default with structure, so
 * that coding and rate control see what photographs give them. */
typedef struct image_spec {
    uint32_t x0, y0, width, height; /* the image area on the reference grid */
    uint32_t num_components;
    uint32_t precision;             /* 1..16, every component */
    bool is_signed;
    uint8_t dx[CASE_MAX_COMPONENTS], dy[CASE_MAX_COMPONENTS]; /* 0: 1 */
    uint32_t seed;
    image_pattern pattern;
} image_spec;

typedef enum case_part {
    PART_MATRIX, /* encoded by gj2k, decoded by gj2k and opj_decompress */
    PART_RATE    /* the same, and the size within 1% under the target */
} case_part;

typedef struct encode_case {
    char name[96];
    case_part part;
    image_spec image;
    /* `targets` and `progression_changes` are bound to the arrays below by
     * encode_case_options (the cases move around in memory). */
    gj2k_encode_options options;
    double targets[CASE_MAX_TARGETS];
    gj2k_progression_change changes[CASE_MAX_CHANGES];
    bool reverse; /* also opj_compress with the same options, decoded by both */
    bool quick;   /* in the --quick subset (sanitizer builds) */
} encode_case;

/* Every case, in a new array; NULL when memory ran out. */
encode_case *encode_cases_build(size_t *count);

/* The case's options with their pointers bound to the case's arrays. */
gj2k_encode_options encode_case_options(const encode_case *c);

/* True when the case must decode to exactly its source: the 5/3 wavelet and
 * a last layer that keeps every coding pass (gj2k.h). */
bool encode_case_is_lossless(const encode_case *c);

/* "LRCP", "RLCP", ... as opj_compress -p names them. */
const char *progression_name(gj2k_progression progression);

/* Draws the image `spec` describes. */
gj2k_status synthetic_image_create(const image_spec *spec, gj2k_image **out, gj2k_error *error);

#endif
