/* batch_summary.c - see batch_state.h: what a batch run tells, as it goes
 * (the report's lines, the progress line) and at its end (the summary). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "batch_state.h"
#include "byte_buffer.h"
#include "clock.h"
#include "describe.h"

/* A JSON string literal of `text` (a path: UTF-8 passes through, a byte of
 * one that is not comes escaped), as gj2k_describe_file writes them. */
static void json_string(FILE *out, const char *text)
{
    byte_buffer literal = {0};
    describe_json_string(&literal, text, strlen(text), false);
    if (literal.failed) /* out of memory: a string still, the line stays JSON */
        fputs("\"\"", out);
    else
        fwrite(literal.data, 1, literal.size, out);
    byte_buffer_free(&literal);
}

void batch_report_line(batch_state *s, const batch_item *item, const batch_outcome *o)
{
    static const char *const names[] = {"ok", "failed", "skipped"};
    FILE *out = s->report;
    fputs("{\"input\":", out);
    json_string(out, item->input);
    fputs(",\"output\":", out);
    json_string(out, item->output);
    fprintf(out, ",\"status\":\"%s\"", names[o->verdict]);
    if (o->verdict == BATCH_FAILED) {
        fputs(",\"error\":", out);
        json_string(out, o->message);
    }
    fprintf(out, ",\"bytes_in\":%llu,\"bytes_out\":%llu,\"pixels\":%llu,\"started\":%.6f,"
            "\"seconds\":%.6f",
            (unsigned long long)o->bytes_in, (unsigned long long)o->bytes_out,
            (unsigned long long)o->pixels, o->started, o->seconds);
    if (o->verified)
        fprintf(out, ",\"verified\":true,\"identical\":%s", o->identical ? "true" : "false");
    else
        fputs(",\"verified\":false", out);
    if (o->verdict == BATCH_DONE && o->on_gpu)
        fprintf(out, ",\"gpu\":%u", o->gpu);
    if (o->verified && !o->identical && isfinite(o->psnr))
        fprintf(out, ",\"psnr\":%.4f", o->psnr);
    fputs("}\n", out);
    /* flushed a line at a time: the processes of a split run share the
     * file's offset, and each writes its lines under the tally's lock */
    if (fflush(out) != 0 || ferror(out))
        s->tally->report_failed = true;
}

void batch_show_progress(batch_state *s, bool final)
{
    batch_tally *t = s->tally;
    double now = now_seconds();
    if (!s->progress || (!final && now - s->start - t->last_progress < 0.25))
        return;
    t->last_progress = now - s->start;
    size_t finished = t->done + t->failed + t->skipped, total = s->list->count;
    double elapsed = now - s->start;
    double rate = elapsed > 0 ? (double)finished / elapsed : 0.0;
    double eta = rate > 0 ? (double)(total - finished) / rate : 0.0;
    fprintf(stderr, "\r%s: %zu/%zu files, %.1f MP/s, %.1f MB/s, ETA %.0f s, %zu failed   ",
            s->settings->command, finished, total,
            elapsed > 0 ? (double)t->pixels * 1e-6 / elapsed : 0.0,
            elapsed > 0 ? (double)t->bytes_in * 1e-6 / elapsed : 0.0, eta, t->failed);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* The files coded on the GPUs, each GPU's count, and the stages summed. */
static void print_stages(const batch_state *s, double seconds)
{
    const batch_tally *t = s->tally;
    const char *const *names = s->settings->stage_names;
    if (names == NULL || names[0] == NULL)
        return;
    /* summed over files coded at once: a stage can pass 100% of the run */
    printf("  %zu of %zu files on a GPU", t->on_gpu, t->done);
    size_t gpus = s->run->num_gpus;
    const unsigned *gpu_names = s->run->gpu_names ? s->run->gpu_names : s->run->gpus;
    for (size_t k = 0; gpus > 1 && k < gpus && k < BATCH_SHOWN_GPUS; k++)
        printf("%s GPU %u: %zu", k ? "," : " (", gpu_names[k], t->on_each_gpu[k]);
    printf("%s", gpus > 1 ? ")" : "");
    if (t->on_cpu_workers > 0)
        printf(", %zu by the CPU workers", t->on_cpu_workers);
    printf("; stages summed over the files, and against the run's time:");
    for (unsigned k = 0; k < BATCH_STAGES && names[k] != NULL; k++)
        printf("%s %s %.2f s (%.0f%%)", k ? "," : "", names[k], t->stage_ms[k] * 1e-3,
               seconds > 0 ? t->stage_ms[k] * 1e-3 / seconds * 100.0 : 0.0);
    printf("\n");
}

void batch_print_summary(const batch_state *s, double seconds, double coded, double closing)
{
    const batch_tally *t = s->tally;
    struct rusage self = {0}, children = {0};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children); /* a split run's processes, once waited for */
    long peak_kb = s->processes > 1 ? t->peak_kb : self.ru_maxrss;
    printf("%s: %zu files coded, %zu failed, %zu skipped (already there), in %.2f s, "
           "peak memory %.0f MB\n", s->settings->command, t->done, t->failed, t->skipped,
           seconds, (double)peak_kb / 1024.0);
    if (t->done == 0)
        return;
    printf("  %llu bytes in, %llu bytes out (%.2f:1), ", (unsigned long long)t->bytes_in,
           (unsigned long long)t->bytes_out,
           t->bytes_out && t->bytes_in ? (double)t->bytes_in / (double)t->bytes_out : 0.0);
    if (t->pixels > 0) /* a transcode does not count them */
        printf("%.1f MP/s, ", seconds > 0 ? (double)t->pixels * 1e-6 / seconds : 0.0);
    printf("%.1f MB/s read\n", seconds > 0 ? (double)t->bytes_in * 1e-6 / seconds : 0.0);
    print_stages(s, seconds);
    /* how the files were shared out (batch_workers.h), over every process */
    size_t gpus = s->run->num_gpus;
    printf("  the workers: %zu file%s at once on ", t->gpu_jobs, t->gpu_jobs > 1 ? "s" : "");
    if (gpus > 0)
        printf("%zu GPU%s and %zu on the CPU beside them", gpus, gpus > 1 ? "s" : "",
               t->cpu_workers);
    else
        printf("the CPU");
    printf(", %u thread%s a file", s->counts.threads_each, s->counts.threads_each > 1 ? "s" : "");
    if (s->processes > 1)
        printf(", in %zu processes", s->processes);
    if (s->writers > 0)
        printf("; %zu writer thread%s wrote %zu of the files", s->writers,
               s->writers > 1 ? "s" : "", t->written_by_writers);
    printf("\n");
    /* where the run's time went that no file's stages show */
    printf("  the run:");
    if (gpus > 0)
        printf(" every worker's GPU open at %.2f s,", t->gpus_opened);
    printf(" the last file started at %.2f s and the files were done at %.2f s", t->last_started,
           coded);
    if (gpus > 0)
        printf(", GPUs closed in %.2f s", closing);
    else if (s->processes > 1)
        printf(", the processes ended in %.2f s", closing);
    printf("\n");
    /* where the cores went: the kernel's share (page faults, locks, copies
     * through the driver) grows when the host stops keeping up */
    double user = (double)(self.ru_utime.tv_sec + children.ru_utime.tv_sec) +
                  (double)(self.ru_utime.tv_usec + children.ru_utime.tv_usec) * 1e-6;
    double system = (double)(self.ru_stime.tv_sec + children.ru_stime.tv_sec) +
                    (double)(self.ru_stime.tv_usec + children.ru_stime.tv_usec) * 1e-6;
    printf("  the process: %.2f s user and %.2f s system CPU, %ld page faults (%ld with I/O)",
           user, system, self.ru_minflt + self.ru_majflt + children.ru_minflt + children.ru_majflt,
           self.ru_majflt + children.ru_majflt);
    if (s->processes > 1)
        printf(", its %zu processes counted in", s->processes);
    printf("\n");
}
