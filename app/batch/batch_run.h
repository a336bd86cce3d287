/* batch_run.h - codes a batch_list on worker threads: each worker takes
 * the next file, codes it whole (its own temporary, renamed when complete)
 * and reports; a failed file is reported with its path and the run goes
 * on. A progress line on a terminal, a summary at the end, and with
 * --report one JSON object a file (JSON Lines). */
#ifndef GJ2K_APP_BATCH_RUN_H
#define GJ2K_APP_BATCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "batch_inputs.h"
#include "batch_order.h"
#include "gj2k.h"

typedef enum batch_verdict {
    BATCH_DONE,
    BATCH_FAILED,
    BATCH_SKIPPED, /* --skip-existing found its output */
    BATCH_PENDING, /* handed to the writer threads (batch_defer), recorded once they ran */
} batch_verdict;

#define BATCH_STAGES 9

/* What coding one file gave. */
typedef struct batch_outcome {
    batch_verdict verdict;
    char message[512];    /* why it failed */
    uint64_t bytes_in, bytes_out;
    uint64_t pixels;      /* of the image coded */
    double seconds;
    double started;       /* Unix time the file was taken (the report's timeline) */
    /* --verify: the written file read back and compared with its source */
    bool verified;
    bool identical;       /* every sample equal */
    double psnr;          /* dB, when not identical */
    double stage_ms[BATCH_STAGES]; /* the library's report, stage by stage (batch_settings) */
    bool on_gpu;          /* some of its coding ran on a GPU: */
    unsigned gpu;         /*   that one */
} batch_outcome;

/* The end of a file's coding handed to the writer threads (batch_writer.h):
 * writes (and with --verify checks) the output, completing `outcome`
 * (verdict BATCH_DONE or BATCH_FAILED), and frees `arg`. */
typedef void (*batch_tail_fn)(void *arg, batch_outcome *outcome);
typedef struct batch_writer batch_writer;

/* The worker a file is coded by: its GPU, held open from its first file
 * to the end of the run (NULL when the run uses no GPU or it would not
 * open: the job then opens one a file, or codes on the CPU). */
typedef struct batch_worker {
    unsigned gpu;
    gj2k_gpu_context *gpu_context;
    bool on_cpu; /* a CPU worker beside the GPUs': its files are coded on the CPU */
    /* The run's writer threads, for batch_defer (NULL: the job finishes its
     * files itself), and what the run records a deferred file by. */
    batch_writer *writer;
    void *run;
    size_t number;
    double taken; /* when its file was taken (now_seconds) */
} batch_worker;

/* For a job on a worker with a writer: hands the end of the file's coding
 * (`tail` over `arg`) to the writer threads, `outcome` as filled so far,
 * and marks `outcome` BATCH_PENDING, so that the worker goes on to its next
 * file; the run records the file once `tail` ran. Without a writer (or
 * memory for the hand-over) `tail` runs here. Waits while the writers'
 * queue is full. */
void batch_defer(const batch_worker *worker, const batch_item *item, batch_outcome *outcome,
                 batch_tail_fn tail, void *arg);

/* Codes item with `threads` threads (0: the job's default) on the
 * worker's GPU (when the job uses one), filling `outcome` (verdict
 * BATCH_DONE or BATCH_FAILED); called from several threads at once. */
typedef void (*batch_job_fn)(void *context, const batch_item *item, unsigned threads,
                             const batch_worker *worker, batch_outcome *outcome);

typedef struct batch_settings {
    const char *command;  /* "encode" or "decode", for the messages */
    unsigned jobs;        /* files coded at once (0: as many as cores, at most the files) */
    unsigned threads;     /* threads each file's coding may use (0: cores / (jobs + CPU workers)) */
    bool skip_existing;   /* an output that exists is kept, the file skipped */
    bool quiet;           /* no progress line, no summary */
    const char *report;   /* JSON Lines report file, or NULL */
    /* What outcome.stage_ms holds, up to BATCH_STAGES names (NULL-terminated):
     * the summary prints each stage's time summed over the files. */
    const char *const *stage_names;
    /* The GPUs the files are shared out among: worker k codes on
     * gpus[k % num_gpus], so each GPU has jobs / num_gpus workers feeding
     * it, each with a gj2k_gpu_context of its own (num_gpus 0: no GPU). */
    const unsigned *gpus;
    size_t num_gpus;
    /* What the summary and report call gpus[k]: gpu_names[k] (the number
     * --devices gave before CUDA's were narrowed to them), or NULL: gpus[k]. */
    const unsigned *gpu_names;
    /* Workers beside the GPUs' that code on the CPU, taking the smallest
     * files left (and leaving the last few to the GPUs); -1: as many as
     * add throughput (batch_workers.c). With no GPU, every worker is the
     * CPU's and this is ignored. */
    int cpu_workers;
    /* Files coded at once a GPU wished for by default: a wish above
     * BATCH_JOBS_A_GPU is granted as far as half the cores a GPU allow, any
     * other (0 included) gives BATCH_JOBS_A_GPU (batch_workers.c). */
    unsigned jobs_a_gpu;
    /* The order the workers take the files in (batch_order.h); the default
     * (zero) is spread. */
    batch_order_policy order;
    /* The workers of one GPU open their contexts at ranks 0, 1, 2, ...
     * (gj2k_gpu_context_create_ranked) instead of all at the default
     * priority. The decoder's: 200 photos to 4K on one H200 with 16 at
     * once, 3.16 / 3.18 s against 3.35 / 3.38 (twelfth session); encoding
     * (its GPU's kernels already 98% of the time) gained nothing. */
    bool ranked_streams;
    /* Writer threads that jobs may hand their files' ends to (batch_defer;
     * a worker beside the GPUs writes its own files whatever this is): the
     * decoder's --writers, whose outputs are large. None by default:
     * on one H200 with 16 decodes at once (200 photos to 4K, PPM outputs)
     * a quarter as many writers raised the GPU's busy share in the files'
     * span (86-89% against 80-89%) but not the throughput (without CPU
     * workers 3.29 against 3.35 s over four pairs, with the default 8
     * beside 3.41 against 3.30 s over three) and held 0.4-0.9 GB more
     * (docs/gpu-notes.md, thirteenth session). */
    unsigned writers;
    /* Processes that share the files (0 or 1: this one alone): each forked
     * with its share of the GPUs (process k those at k, k + processes, ...,
     * or GPU k % num_gpus when there are fewer GPUs), CUDA shown only those
     * (so its start and end cost one GPU's), and its share of the cores and
     * workers; they take the files from one queue, write one report and
     * one summary. The caller must not have started CUDA: a process forked
     * after could not use it. */
    unsigned processes;
    /* The job's device (in its context), resolved from GJ2K_DEVICE_AUTO
     * (batch_resolve_device) by batch_run where the run is one process, else
     * by each process once CUDA shows it its GPUs; NULL: the job's is final.
     * Measured on an H200 and 16 cores, 120 photos from 768x512 to 4K:
     * encode 5.1 -> 4.3 s, decode 8.0 -> 3.3 s with every file on the GPU. */
    gj2k_device *device;
} batch_settings;

/* --device auto in a batch: the GPU, when CUDA shows one (the GPU opens
 * once for every file, so every file goes to it; for one file auto weighs
 * opening it against the image's size); any other as asked. Starts CUDA. */
gj2k_device batch_resolve_device(gj2k_device asked);

/* Runs the batch; returns the exit status: 0 when every file was coded (or
 * skipped), 1 when any failed or the report could not be written. */
int batch_run(const batch_list *list, const batch_settings *settings, batch_job_fn job,
              void *context);

#endif
