/* decode_api.c - the public decode calls: gj2k_decode_memory, _file and
 * _stream. Each takes the caller's options in as their struct_size says
 * (struct_size.h), gathers the bytes (from memory, a file or a reader),
 * runs a decode job (decoder.c) and hands the report back. */
#include <stdlib.h>

#include "byte_buffer.h"
#include "decode_job.h"
#include "error.h"
#include "image_formats.h"
#include "memory_budget.h"
#include "struct_size.h"

gj2k_status decode_options_take(decode_options_taken *taken, const gj2k_decode_options *options,
                                gj2k_error *error)
{
    gj2k_status status = STRUCT_SIZE_TAKE(&taken->options, options, gj2k_decode_options, error);
    taken->report = (gj2k_decode_report){.struct_size = sizeof taken->report};
    taken->caller_report = taken->options.report;
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_CHECK(taken->caller_report, gj2k_decode_report, error);
    if (status != GJ2K_OK)
        taken->caller_report = NULL; /* not written: its size is unknown */
    taken->options.report = taken->caller_report != NULL ? &taken->report : NULL;
    return status;
}

void decode_options_give_back(decode_options_taken *taken)
{
    if (taken->caller_report != NULL)
        STRUCT_SIZE_GIVE(taken->caller_report, &taken->report, gj2k_decode_report);
}

/* Decodes `data` with options already taken in. */
static gj2k_status decode_taken(const uint8_t *data, size_t size, decode_options_taken *taken,
                                gj2k_image **out, gj2k_error *error)
{
    decode_job job;
    gj2k_status status = decode_job_open(&job, data, size, &taken->options, error);
    if (status == GJ2K_OK)
        status = decode_job_image(&job, out, error);
    decode_job_close(&job);
    return status;
}

gj2k_status gj2k_decode_memory(const uint8_t *data, size_t size, const gj2k_decode_options *options,
                               gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    decode_options_taken taken;
    gj2k_status status = decode_options_take(&taken, options, error);
    if (status == GJ2K_OK)
        status = decode_taken(data, size, &taken, out, error);
    decode_options_give_back(&taken);
    return status;
}

gj2k_status gj2k_decode_file(const char *path, const gj2k_decode_options *options, gj2k_image **out,
                             gj2k_error *error)
{
    *out = NULL;
    decode_options_taken taken;
    gj2k_status status = decode_options_take(&taken, options, error);
    uint8_t *data = NULL;
    size_t size = 0;
    if (status == GJ2K_OK) /* a file that does not read: a report of zeros */
        status = file_read_all(path, &data, &size, error);
    if (status == GJ2K_OK)
        status = decode_taken(data, size, &taken, out, error);
    free(data);
    decode_options_give_back(&taken);
    return status;
}

gj2k_status gj2k_decode_stream(const gj2k_reader *caller_reader, const gj2k_decode_options *options,
                               gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    gj2k_reader reader;
    decode_options_taken taken;
    gj2k_status status = decode_options_take(&taken, options, error);
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_TAKE(&reader, caller_reader, gj2k_reader, error);
    if (status == GJ2K_OK && reader.read == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "decode: no reader");
    if (status == GJ2K_OK && reader.seek != NULL && !reader.seek(reader.user, 0))
        status = gj2k_fail(error, GJ2K_ERROR_IO, "decode: the reader cannot go to its start");
    uint64_t most = taken.options.max_memory ? taken.options.max_memory : memory_default_limit();
    byte_buffer held = {0};
    while (status == GJ2K_OK) {
        if (!byte_buffer_reserve(&held, 1 << 16)) {
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                               "decode: out of memory for the stream");
            break;
        }
        int64_t got = reader.read(reader.user, held.data + held.size, held.capacity - held.size);
        if (got < 0 || (uint64_t)got > held.capacity - held.size) {
            status = gj2k_fail(error, GJ2K_ERROR_IO, "decode: the reader failed after %zu bytes",
                               held.size);
            break;
        }
        if (got == 0) {
            status = decode_taken(held.data, held.size, &taken, out, error);
            break;
        }
        held.size += (size_t)got;
        if (held.size > most)
            status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "decode: the stream passes %llu bytes "
                               "(--max-memory)", (unsigned long long)most);
    }
    byte_buffer_free(&held);
    decode_options_give_back(&taken);
    return status;
}
