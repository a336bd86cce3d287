/* crosscheck_support.h - what the OpenJPEG cross-check programs share:
 * finding and running OpenJPEG's command-line tools, reading back the PGX
 * files opj_decompress writes, and comparing images sample by sample. */
#ifndef GJ2K_CROSSCHECK_SUPPORT_H
#define GJ2K_CROSSCHECK_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

/* The command line the cross-check programs share: any of --quick, -v,
 * --equal-size, --only PART, -k SUBSTRING, --opj PATH, --gj2k PATH and one
 * operand; each program says which it uses. False (after a message) on
 * anything else. */
typedef struct crosscheck_arguments {
    const char *operand;      /* a directory, or NULL */
    const char *only, *filter, *opj, *gj2k;
    bool quick, verbose, equal_size;
} crosscheck_arguments;

bool crosscheck_arguments_parse(int argc, char **argv, crosscheck_arguments *out);

/* snprintf that cuts quietly (paths and messages here fit in practice). */
__attribute__((format(printf, 3, 4))) void text(char *out, size_t size, const char *format, ...);

/* ------------------------------------------------------------ tools */

/* Looks for `program` in the directories of PATH; its path in `out`. */
bool tool_find(const char *program, char *out, size_t size);

/* Finds a tool that a cross-check cannot do without. Returns 0 when found;
 * otherwise prints why and returns the exit status to leave with: 1 (FAIL)
 * when the environment variable CI is set, else 77 (SKIP). */
int tool_require(const char *program, char *out, size_t size);

/* Runs argv[0] (a path) with argv (NULL-terminated), its stdout and stderr
 * into the file `log`. Returns its exit status, 128 + the signal that ended
 * it, or -1 when it could not be started. */
int tool_run(char *const argv[], const char *log);

/* The last line of `log` that says ERROR (else its last line), for messages. */
void tool_log_tail(const char *log, char *out, size_t size);

/* What opj_decompress is asked to decode. */
typedef struct opj_decode_request {
    const char *opj;          /* the path of opj_decompress */
    const char *dir;          /* where its PGX files and its log (opj.log) go */
    const char *input;        /* a .j2k/.j2c/.jp2 file */
    const char *const *args;  /* more options (-r 1, -l 2, ...), NULL-terminated; may be NULL */
    uint32_t num_components;  /* how many components it may write at most */
    bool per_component;       /* one run a component (-c 0, -c 1, ...) */
    const bool *skip;         /* with per_component: components not to decode; may be NULL */
} opj_decode_request;

/* Runs opj_decompress to PGX and reads what it wrote, one single-component
 * image a component, into images[0..*count). Leaves no file behind. False,
 * with its last error line or the reason in `why`, on failure (images read
 * so far stay in `images` for the caller to destroy). */
bool opj_decompress_to_images(const opj_decode_request *request, gj2k_image **images,
                              uint32_t *count, char *why, size_t why_size);

/* Destroys images[0..count) and frees the array. */
void images_destroy(gj2k_image **images, uint32_t count);

/* ------------------------------------------------------ temporary files */

/* Creates a new directory $TMPDIR/PREFIX-XXXXXX (TMPDIR: /tmp when unset). */
bool temp_dir_create(const char *prefix, char *out, size_t size);

/* Removes the plain files in `dir`, then `dir` (it holds nothing else). */
void temp_dir_remove(const char *dir);

/* opj_decompress -o DIR/STEM.pgx writes one file a component, STEM_0.pgx,
 * STEM_1.pgx, ... (some versions STEM.pgx for one component). Reads them,
 * each as a one-component image appended to images[*count] (at most `max`
 * in all), and deletes them. False with the reason in `why`. */
bool pgx_outputs_read(const char *dir, const char *stem, gj2k_image **images, uint32_t max,
                      uint32_t *count, char *why, size_t why_size);

/* Deletes whatever PGX files of `stem` are left in `dir`. */
void pgx_outputs_remove(const char *dir, const char *stem);

/* ----------------------------------------------------------- comparing */

/* Compares component `a` sample by sample with the same-sized window of `b`
 * whose top-left sample is (bx, by); sizes, precision and signedness must
 * agree. Raises *max_diff to the largest difference seen. False, with the
 * first difference beyond `allowed` (or the mismatch) described in `why`,
 * when they differ; `index` names the component in messages. */
bool component_compare(const gj2k_component *a, const gj2k_component *b, uint32_t bx,
                       uint32_t by, int64_t allowed, uint32_t index, int64_t *max_diff,
                       char *why, size_t why_size);

/* Where gj2k's component `index` lies in opj's single component `opj`: the
 * window whose top-left sample is (*x, *y), *width by *height samples. */
typedef void (*opj_window_fn)(const void *user, uint32_t index, const gj2k_component *opj,
                              uint32_t *x, uint32_t *y, uint32_t *width, uint32_t *height);

/* Compares gj2k's decoded image `mine` with opj_decompress's `count`
 * single-component images `opj`: one for each component of `mine` not marked
 * in `skip` (NULL: none skipped), in order. Each such component must have the
 * size of its window in opj's component (`window`; NULL: all of it) and
 * match it within `allowed` (component_compare). *max_diff: the largest
 * difference seen. False, with the count, size or first sample mismatch
 * described in `why`, when they differ. */
bool decoders_compare(const gj2k_image *mine, gj2k_image *const *opj, uint32_t count,
                      const bool *skip, opj_window_fn window, const void *window_user,
                      int64_t allowed, int64_t *max_diff, char *why, size_t why_size);

#endif
