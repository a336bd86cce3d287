/* batch_jobs.h - coding one file of a batch (batch_job_fn): an encode with
 * the command line's encode_request, a decode with its decode options;
 * each output written whole (a temporary renamed when complete) and, with
 * --verify, read back and checked before it counts. */
#ifndef GJ2K_APP_BATCH_JOBS_H
#define GJ2K_APP_BATCH_JOBS_H

#include <stdbool.h>

#include "batch_run.h"
#include "encode_request.h"
#include "gj2k.h"

typedef struct batch_encode_job {
    encode_request request;            /* input, output, threads and GPU set per file */
    const gj2k_raw_geometry *geometry; /* -F, or NULL */
    bool verify;
} batch_encode_job;

typedef struct batch_transcode_job {
    gj2k_transcode_options transcode;  /* threads, warnings and report set per file */
    bool verify;
} batch_transcode_job;

typedef struct batch_decode_job {
    gj2k_decode_options decode;        /* threads, GPU and warnings set per file */
    gj2k_write_options write;
    bool verify;
} batch_decode_job;

/* batch_job_fn over a batch_encode_job or a batch_decode_job. */
void batch_encode_file(void *job, const batch_item *item, unsigned threads,
                       const batch_worker *worker, batch_outcome *outcome);
void batch_decode_file(void *job, const batch_item *item, unsigned threads,
                       const batch_worker *worker, batch_outcome *outcome);
/* ... or a batch_transcode_job: with --verify, both files decoded and
 * compared (a lossless input must come out exact). */
void batch_transcode_file(void *job, const batch_item *item, unsigned threads,
                          const batch_worker *worker, batch_outcome *outcome);

#endif
