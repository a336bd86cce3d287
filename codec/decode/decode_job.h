/* decode_job.h - one decode, from a file's bytes to samples, in the steps
 * that gj2k_decode_memory (decoder.c) and gj2k_decode_to_file
 * (decode_to_file.c) share: open (JP2 boxes, the codestream's headers, the
 * area asked for, its completeness), then the tiles decoded whole into one
 * image, or in strips of rows each handed to a sink (decode_strips.c). */
#ifndef GJ2K_DECODE_JOB_H
#define GJ2K_DECODE_JOB_H

#include "codestream.h"
#include "dwt.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "memory_budget.h"
#include "progress_meter.h"

typedef struct decode_job {
    const gj2k_decode_options *options; /* never NULL once open */
    gj2k_file_format format;            /* JP2 or J2K */
    jp2_file jp2;
    j2k_codestream *cs;
    const uint8_t *codestream;
    dwt_rect area;          /* on the reference grid: the image, region and tile asked for */
    dwt_rect reduced;       /* the same on the grid reduced by 2^reduce */
    memory_budget memory;
    progress_meter progress; /* options->progress, over the reduced area's samples */
    bool incomplete;        /* refused for lack of data */
    gj2k_decode_report report;
} decode_job;

/* Reads the JP2 boxes and the codestream's headers, checks what is asked
 * (the tile-components it would take, completeness unless allow_partial).
 * `options` may be NULL; `data` must outlive the job. Close the job even
 * when this fails. */
gj2k_status decode_job_open(decode_job *job, const uint8_t *data, size_t size,
                            const gj2k_decode_options *options, gj2k_error *error);
/* Hands the report to options->report and frees the job. */
void decode_job_close(decode_job *job);

/* A new image with the decoded image's components over `rows` of the
 * reduced grid (job->reduced for the whole image), its samples taken from
 * the budget (`what` names them in a refusal). */
gj2k_status decode_job_create_image(decode_job *job, dwt_rect rows, const char *what,
                                    gj2k_image **out, gj2k_error *error);

/* Bytes decode_job_create_image takes for `rows` (saturating). */
uint64_t decode_job_image_bytes(const decode_job *job, dwt_rect rows);

/* Whether tile t is decoded: it meets the area (and is the tile asked for)
 * and some component has samples in it. */
bool decode_job_decodes_tile(const decode_job *job, uint32_t t);

/* Whether the tiles go in strips: options->strip_rows is set, or a tile's
 * coefficients would take more than half of what the budget has left. */
bool decode_job_wants_strips(const decode_job *job);

/* Decodes every tile into `image` (decode_job_create_image of the whole),
 * whole or in strips. */
gj2k_status decode_job_tiles(decode_job *job, gj2k_image *image, gj2k_error *error);

/* Where decode_job_strips puts each strip of rows [grid_y0, grid_y1) of the
 * reduced grid: `open` gives the image to decode it into (covering those
 * rows at least), `close` takes it back once decoded. */
typedef struct decode_strip_sink {
    gj2k_status (*open)(void *user, uint32_t grid_y0, uint32_t grid_y1, gj2k_image **target,
                        gj2k_error *error);
    gj2k_status (*close)(void *user, gj2k_image *target, gj2k_error *error);
    void *user;
} decode_strip_sink;

/* Decodes the whole image and renders it (decode_job_tiles, then the
 * JP2 rendering of decode_render.h): what gj2k_decode_memory returns. */
gj2k_status decode_job_image(decode_job *job, gj2k_image **out, gj2k_error *error);

/* Warns of the decoded tiles that had no tile-parts (filled mid-grey). */
void decode_job_warn_missing(const decode_job *job, uint32_t missing, uint32_t first_missing);

/* Decodes the area a tile row at a time, each in strips, top to bottom. */
gj2k_status decode_job_strips(decode_job *job, const decode_strip_sink *sink, gj2k_error *error);

/* The end of a decode's tiles (`status`): GJ2K_ERROR_CANCELLED when the
 * progress callback asked to stop, else status, the callback told the end. */
gj2k_status decode_job_progress_end(decode_job *job, gj2k_status status, gj2k_error *error);

/* A caller's decode options taken in at a public entry point (struct_size.h,
 * decode_api.c): a whole copy, whose report, when the caller asked for one,
 * is `report`, handed back by decode_options_give_back. */
typedef struct decode_options_taken {
    gj2k_decode_options options;
    gj2k_decode_report report;
    gj2k_decode_report *caller_report;
} decode_options_taken;

/* Takes `options` (NULL: the defaults) in; refuses a struct_size of the
 * options or of their report that is neither 0 nor a struct's size. */
gj2k_status decode_options_take(decode_options_taken *taken, const gj2k_decode_options *options,
                                gj2k_error *error);
/* Hands the report to the caller's, no further than its struct_size. */
void decode_options_give_back(decode_options_taken *taken);

#endif
