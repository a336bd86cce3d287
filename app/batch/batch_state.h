/* batch_state.h - a batch run's state, shared by batch_run.c (the workers,
 * the processes) and batch_summary.c (the report, the progress line, the
 * summary). Not for other files. */
#ifndef GJ2K_APP_BATCH_STATE_H
#define GJ2K_APP_BATCH_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "batch_run.h"
#include "batch_workers.h"

/* GPUs the summary counts files for, one by one. */
#define BATCH_SHOWN_GPUS 16

/* What every process of a run shares, under its lock: in memory mapped
 * shared before the processes are forked (one process maps it too), the
 * lock process-shared. Times are seconds from the run's start. */
typedef struct batch_tally {
    pthread_mutex_t lock;
    size_t front, back;     /* the files of order[front, back) are left */
    size_t gpu_jobs;        /* the GPU workers of every process (take_next) */
    size_t cpu_workers;     /* the CPU workers beside the GPUs, of every process */
    size_t done, failed, skipped, on_gpu, on_cpu_workers;
    size_t written_by_writers; /* files the --writers threads wrote */
    size_t on_each_gpu[BATCH_SHOWN_GPUS]; /* files coded on each of the run's GPUs */
    uint64_t bytes_in, bytes_out, pixels;
    double stage_ms[BATCH_STAGES];
    double last_progress;
    double gpus_opened;     /* when the last worker's GPU was open */
    double last_started;    /* when the last file was taken */
    double coded;           /* when the last process's files were done */
    long peak_kb;           /* the processes' peaks of resident memory, summed */
    bool report_failed;
} batch_tally;

/* One process's view of the run (a process of a split run sees its own
 * GPUs and workers, and the tally every process shares). */
typedef struct batch_state {
    const batch_list *list;
    const size_t *order;    /* the list's indices in the order they are taken */
    const batch_settings *run;      /* the run's, as batch_run was given them */
    const batch_settings *settings; /* this process's: its GPUs, as CUDA numbers them here */
    batch_job_fn job;
    void *context;
    batch_worker *workers;  /* the GPU workers first, then the CPU workers beside them */
    const unsigned *gpu_names; /* what the summary and report call each of settings->gpus */
    const size_t *gpu_slots;   /* each of settings->gpus' place among the run's GPUs */
    batch_worker_counts counts; /* this process's workers */
    size_t processes;       /* the run's processes (1: this one alone) */
    size_t writers;         /* --writers threads in this process */
    FILE *report;
    bool progress;
    double start;           /* now_seconds at the run's start */
    batch_tally *tally;
} batch_state;

/* One JSON Lines report line for `item` (under the tally's lock). */
void batch_report_line(batch_state *s, const batch_item *item, const batch_outcome *o);
/* The progress line (under the tally's lock): files, MP/s, MB/s, ETA,
 * failures; at most every 0.25 s unless `final`. */
void batch_show_progress(batch_state *s, bool final);
/* The summary at the run's end: `seconds` in all, the files done at
 * `coded` s, the GPUs closed (and the processes ended) `closing` s later. */
void batch_print_summary(const batch_state *s, double seconds, double coded, double closing);

#endif
