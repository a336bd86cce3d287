/* gpu_trace.c - a GPU timeline of any CUDA program, for finding where a GPU
 * sits idle (issue 18: the one-GPU decode's busy share). Loaded by the
 * driver through CUDA_INJECTION64_PATH, it records through CUPTI's activity
 * API every kernel and copy (start, end, device, stream) and every runtime
 * call (start, end, thread), and writes them at the process's exit to
 * GJ2K_TRACE_OUT (default gpu-trace.txt), one record a line:
 *   clock CUPTI_NS UNIX_NS              the two clocks at the start
 *   kernel START END DEVICE STREAM NAME
 *   copy START END DEVICE STREAM BYTES KIND FROM TO   (KIND: htod, dtoh, ...;
 *                                                      FROM, TO: pageable, pinned, device, ...)
 *   api START END THREAD NAME
 * Times are CUPTI's nanoseconds; `clock` maps them to Unix time.
 * scripts/gpu_timeline.py reads the file. A measuring tool: it prints to
 * stderr and is built only where CUPTI is found. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

enum { kBufferBytes = 8 << 20 };

static FILE *trace_file;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *copy_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "htod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "dtoh";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "dtod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "htoh";
    default: return "other";
    }
}

static const char *memory_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
    default: return "other";
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, kBufferBytes);
    *size = *buffer != NULL ? kBufferBytes : 0;
    *max_records = 0;
}

/* One record a line; the fields read are those every version of the
 * records has kept at the same place (CUPTI appends new fields). */
static void write_record(const CUpti_Activity *record)
{
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        fprintf(trace_file, "kernel %llu %llu %u %u %s\n", (unsigned long long)k->start,
                (unsigned long long)k->end, k->deviceId, k->streamId,
                k->name != NULL ? k->name : "?");
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)record;
        fprintf(trace_file, "copy %llu %llu %u %u %llu %s %s %s\n", (unsigned long long)c->start,
                (unsigned long long)c->end, c->deviceId, c->streamId,
                (unsigned long long)c->bytes, copy_kind(c->copyKind), memory_kind(c->srcKind),
                memory_kind(c->dstKind));
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)record;
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS)
            name = NULL;
        fprintf(trace_file, "api %llu %llu %u %s\n", (unsigned long long)a->start,
                (unsigned long long)a->end, a->threadId, name != NULL ? name : "?");
    }
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)context;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    pthread_mutex_lock(&trace_lock);
    while (trace_file != NULL &&
           cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        write_record(record);
    pthread_mutex_unlock(&trace_lock);
    free(buffer);
}

static void trace_end(void)
{
    cuptiActivityFlushAll(1);
    pthread_mutex_lock(&trace_lock);
    if (trace_file != NULL && fclose(trace_file) != 0)
        fprintf(stderr, "gpu_trace: the trace could not be written whole\n");
    trace_file = NULL;
    pthread_mutex_unlock(&trace_lock);
}

/* The driver calls this once, at its start, when CUDA_INJECTION64_PATH
 * names this library. */
int InitializeInjection(void);
int InitializeInjection(void)
{
    const char *path = getenv("GJ2K_TRACE_OUT");
    trace_file = fopen(path != NULL ? path : "gpu-trace.txt", "w");
    if (trace_file == NULL) {
        fprintf(stderr, "gpu_trace: cannot write %s\n", path != NULL ? path : "gpu-trace.txt");
        return 0;
    }
    uint64_t cupti_now = 0;
    struct timespec unix_now;
    cuptiGetTimestamp(&cupti_now);
    clock_gettime(CLOCK_REALTIME, &unix_now);
    unsigned long long unix_ns = (unsigned long long)unix_now.tv_sec * 1000000000ull +
                                 (unsigned long long)unix_now.tv_nsec;
    fprintf(trace_file, "clock %llu %llu\n", (unsigned long long)cupti_now, unix_ns);
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS) {
        fprintf(stderr, "gpu_trace: CUPTI's activity API refused\n");
        return 0;
    }
    atexit(trace_end);
    return 1;
}
