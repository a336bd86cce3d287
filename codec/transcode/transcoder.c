/* transcoder.c - the public transcoding API (gj2k.h): a JPEG 2000 file in,
 * opened as the decoder opens it (decode_job.h: JP2 boxes, headers,
 * completeness); each tile read by Tier-2 (transcode_tile.c), its
 * code-blocks decoded by Tier-1 and coded again with the other block coder
 * on all threads (transcode_recode.c), its packets written by Tier-2 into
 * one tile-part (transcode_output.c); the codestream wrapped in the
 * input's JP2 boxes when the output is a JP2 file. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gj2k.h"

#include "clock.h"
#include "decode_job.h"
#include "error.h"
#include "image_formats.h"
#include "jp2_file.h"
#include "parallel_pool.h"
#include "struct_size.h"
#include "transcode_output.h"
#include "transcode_recode.h"
#include "transcode_tile.h"

/* What one transcode shares across its tiles. */
typedef struct transcode_run {
    const j2k_codestream *cs;
    const uint8_t *codestream;
    bool to_ht;
    parallel_pool *pool;
    const gj2k_transcode_options *options;
    ht_lookup lookup;                 /* the HT decoder's tables */
    ht_encode_tables *ht_tables;      /* the HT encoder's (to_ht) */
    transcode_recoder *recoders;      /* one a worker */
    transcode_coefficients **decoded; /* one a worker */
    unsigned workers;
    gj2k_transcode_report report;
} transcode_run;

/* What the workers share for one tile. */
typedef struct tile_work {
    transcode_run *run;
    transcode_tile *tile;
    transcode_recoded *recoded;  /* one a block */
    atomic_size_t failed_block;  /* the first block that failed, else SIZE_MAX */
} tile_work;

static gj2k_status recode_block(void *context, size_t index, unsigned worker)
{
    tile_work *w = context;
    transcode_run *run = w->run;
    const transcode_block *b = &w->tile->blocks[index];
    transcode_coefficients *decoded = run->decoded[worker];
    transcode_recoder *r = &run->recoders[worker];
    gj2k_status status = transcode_block_decode(b, r->workspace, &run->lookup, decoded);
    unsigned style = transcode_output_style(b->coded.style, run->to_ht);
    if (status == GJ2K_OK)
        status = transcode_block_recode(b, decoded, run->to_ht, style, r, &w->recoded[index]);
    if (status == GJ2K_OK)
        return GJ2K_OK;
    size_t none = SIZE_MAX;
    atomic_compare_exchange_strong(&w->failed_block, &none, index);
    return status;
}

/* The message for block `index` of the tile failing with `status`. */
static gj2k_status block_failure(const transcode_tile *tile, size_t index, gj2k_status status,
                                 gj2k_error *error)
{
    if (index >= tile->num_blocks)
        return gj2k_fail(error, status, "tile %u: code-block transcoding failed (%s)",
                         tile->index, gj2k_status_name(status));
    const transcode_block *b = &tile->blocks[index];
    if (status == GJ2K_ERROR_UNSUPPORTED)
        return gj2k_fail(error, status,
                         "tile %u, component %u: a code-block of %u bit-planes (at most %d are "
                         "decoded)", tile->index, b->component, b->num_planes, TIER1_MAX_PLANES);
    if (status == GJ2K_ERROR_LIMIT)
        return gj2k_fail(error, status,
                         "tile %u, component %u: a code-block's HT cleanup pass would pass the "
                         "limits of ITU-T T.814 (MEL and VLC over %u bytes, or magnitudes of "
                         "more than 30 bits)", tile->index, b->component, HT_MAX_SCUP);
    return gj2k_fail(error, status, "tile %u, component %u: code-block transcoding failed (%s)",
                     tile->index, b->component, gj2k_status_name(status));
}

/* One tile read, its blocks re-coded on all threads, its tile-part written. */
static gj2k_status transcode_one_tile(transcode_run *run, uint32_t t, transcode_output *output,
                                      gj2k_error *error)
{
    const gj2k_transcode_options *o = run->options;
    double start = now_seconds();
    transcode_tile tile;
    gj2k_status status = transcode_tile_read(run->cs, run->codestream, t, o->warning,
                                             o->warning_user, &tile, error);
    for (uint32_t c = 0; status == GJ2K_OK && c < tile.num_components; c++)
        if (tile.params[c].roi_shift != 0) /* the coefficients are scaled (Annex H) */
            status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                               "tile %u, component %u: a region of interest (RGN, shift %u) "
                               "scales its coefficients; transcoding it is not supported",
                               t, c, tile.params[c].roi_shift);
    if (status != GJ2K_OK) {
        transcode_tile_free(&tile);
        return status;
    }
    double read = now_seconds();
    run->report.tier2_in_ms += (read - start) * 1e3;
    if (tile.params[0].layers > run->report.input_layers)
        run->report.input_layers = tile.params[0].layers;
    tile_work work = {.run = run, .tile = &tile,
                      .recoded = calloc(tile.num_blocks ? tile.num_blocks : 1,
                                        sizeof *work.recoded)};
    atomic_init(&work.failed_block, SIZE_MAX);
    if (work.recoded == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for tile %u", t);
    if (status == GJ2K_OK) {
        status = parallel_for(run->pool, tile.num_blocks, recode_block, &work);
        if (status != GJ2K_OK)
            status = block_failure(&tile, atomic_load(&work.failed_block), status, error);
    }
    double coded = now_seconds();
    run->report.tier1_ms += (coded - read) * 1e3;
    uint64_t damaged = 0, lost = 0;
    for (size_t i = 0; status == GJ2K_OK && i < tile.num_blocks; i++) {
        transcode_block *b = &tile.blocks[i];
        transcode_recoded *r = &work.recoded[i];
        b->block->source = &r->source;
        if (b->num_planes == 0)
            continue;
        run->report.num_codeblocks++;
        run->report.ht_codeblocks += (b->coded.style & TIER1_STYLE_HT) != 0;
        run->report.truncated_blocks += r->truncated;
        damaged += r->damaged;
        lost += r->lost_partial_plane;
    }
    if (damaged != 0)
        gj2k_warn(o->warning, o->warning_user,
                  "tile %u: %llu code-block%s damaged or truncated, re-coded as far as %s decode",
                  t, (unsigned long long)damaged, damaged == 1 ? "" : "s",
                  damaged == 1 ? "it does" : "they");
    run->report.damaged_blocks += damaged;
    run->report.partial_plane_blocks += lost;
    if (status == GJ2K_OK)
        status = transcode_output_tile(output, &tile, error);
    run->report.write_ms += (now_seconds() - coded) * 1e3;
    run->report.num_tiles += status == GJ2K_OK;
    for (size_t i = 0; work.recoded != NULL && i < tile.num_blocks; i++)
        transcode_recoded_free(&work.recoded[i]);
    free(work.recoded);
    transcode_tile_free(&tile);
    return status;
}

static void run_free(transcode_run *run)
{
    for (unsigned w = 0; run->recoders != NULL && w < run->workers; w++)
        transcode_recoder_free(&run->recoders[w]);
    for (unsigned w = 0; run->decoded != NULL && w < run->workers; w++)
        free(run->decoded[w]);
    free(run->recoders);
    free(run->decoded);
    free(run->ht_tables);
    parallel_pool_destroy(run->pool);
}

/* Every tile of the codestream re-coded into `out` (a codestream). */
static gj2k_status transcode_codestream(transcode_run *run, byte_buffer *out, gj2k_error *error)
{
    gj2k_status status = parallel_pool_create(run->options->threads, &run->pool, error);
    if (status != GJ2K_OK)
        return status;
    run->workers = parallel_pool_size(run->pool);
    ht_lookup_build(&run->lookup);
    if (run->to_ht) {
        run->ht_tables = malloc(sizeof *run->ht_tables);
        if (run->ht_tables != NULL)
            ht_encode_tables_build(run->ht_tables);
    }
    run->recoders = calloc(run->workers, sizeof *run->recoders);
    run->decoded = calloc(run->workers, sizeof *run->decoded);
    if (run->recoders == NULL || run->decoded == NULL || (run->to_ht && run->ht_tables == NULL))
        status = GJ2K_ERROR_OUT_OF_MEMORY;
    for (unsigned w = 0; w < run->workers && status == GJ2K_OK; w++) {
        status = transcode_recoder_init(&run->recoders[w], run->ht_tables);
        run->decoded[w] = malloc(sizeof *run->decoded[w]);
        if (status == GJ2K_OK && run->decoded[w] == NULL)
            status = GJ2K_ERROR_OUT_OF_MEMORY;
    }
    if (status != GJ2K_OK)
        return gj2k_fail(error, status, "out of memory");
    transcode_output output;
    status = transcode_output_begin(&output, run->cs, run->to_ht, error);
    for (uint32_t t = 0; t < run->cs->siz.num_tiles && status == GJ2K_OK; t++)
        if (j2k_codestream_tile(run->cs, t) != NULL) /* the input's tiles: check_complete
                                                        refused any missing with samples */
            status = transcode_one_tile(run, t, &output, error);
    double start = now_seconds();
    if (status == GJ2K_OK)
        status = transcode_output_finish(&output, out, error);
    run->report.write_ms += (now_seconds() - start) * 1e3;
    transcode_output_free(&output);
    return status;
}

/* The JP2 boxes of a codestream that came without: as gj2k_encode writes
 * them for an image of the codestream's components, colour space unknown. */
static gj2k_status describe_codestream(const j2k_siz *siz, const uint8_t *codestream,
                                       size_t size, byte_buffer *out, gj2k_error *error)
{
    gj2k_component *components = calloc(siz->num_components, sizeof *components);
    if (components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t c = 0; c < siz->num_components; c++)
        components[c] = (gj2k_component){.dx = siz->components[c].dx,
                                         .dy = siz->components[c].dy,
                                         .precision = siz->components[c].precision,
                                         .is_signed = siz->components[c].is_signed,
                                         .role = GJ2K_ROLE_COLOR};
    gj2k_image shell = {.x0 = siz->image_x0, .y0 = siz->image_y0, .x1 = siz->image_x1,
                        .y1 = siz->image_y1, .num_components = siz->num_components,
                        .components = components, .color_space = GJ2K_COLOR_UNKNOWN};
    jp2_file jp2;
    gj2k_status status = jp2_file_describe_image(&jp2, &shell, error);
    if (status == GJ2K_OK) {
        status = jp2_file_write(&jp2, codestream, size, out, error);
        jp2_file_free(&jp2);
    }
    free(components);
    return status;
}

static gj2k_status transcode(const uint8_t *input, size_t input_size,
                             const gj2k_transcode_options *options, byte_buffer *out,
                             gj2k_transcode_report *report, gj2k_error *error)
{
    double start = now_seconds();
    if (options->format != GJ2K_FORMAT_UNKNOWN && options->format != GJ2K_FORMAT_J2K &&
        options->format != GJ2K_FORMAT_JP2)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "transcode: the output is a JPEG 2000 codestream or JP2 file, not %s",
                         gj2k_format_name(options->format));
    if (options->coder > GJ2K_CODER_HT)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "transcode: block coder %d",
                         (int)options->coder);
    gj2k_decode_options open_options = {.threads = options->threads, .warning = options->warning,
                                        .warning_user = options->warning_user};
    decode_job job;
    gj2k_status status = decode_job_open(&job, input, input_size, &open_options, error);
    transcode_run run = {.options = options};
    if (status == GJ2K_OK) {
        run.cs = job.cs;
        run.codestream = job.codestream;
        run.to_ht = options->coder == GJ2K_CODER_HT ||
                    (options->coder == GJ2K_CODER_AUTO &&
                     !j2k_header_uses_ht(&job.cs->main_header));
        run.report.read_ms = (now_seconds() - start) * 1e3;
        gj2k_file_format format = options->format != GJ2K_FORMAT_UNKNOWN ? options->format
                                                                          : job.format;
        byte_buffer codestream = {0};
        status = transcode_codestream(&run, &codestream, error);
        double wrapping = now_seconds();
        if (status == GJ2K_OK && format == GJ2K_FORMAT_JP2 && job.format == GJ2K_FORMAT_JP2)
            status = jp2_file_rewrap(input, input_size, codestream.data, codestream.size, out,
                                     error);
        else if (status == GJ2K_OK && format == GJ2K_FORMAT_JP2)
            status = describe_codestream(&job.cs->siz, codestream.data, codestream.size, out,
                                         error);
        else if (status == GJ2K_OK)
            byte_buffer_append(out, codestream.data, codestream.size);
        if (status == GJ2K_OK && format == GJ2K_FORMAT_J2K && job.format == GJ2K_FORMAT_JP2)
            gj2k_warn(options->warning, options->warning_user,
                      "the JP2 boxes (colour space, ICC profile, resolution, metadata) are not "
                      "carried into a codestream; name the output .jp2 or .jph to keep them");
        if (status == GJ2K_OK && out->failed)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the output");
        run.report.write_ms += (now_seconds() - wrapping) * 1e3;
        run.report.codestream_bytes = codestream.size;
        run.report.bytes = out->size;
        run.report.format = format;
        run.report.coder = run.to_ht ? GJ2K_CODER_HT : GJ2K_CODER_PART1;
        byte_buffer_free(&codestream);
    }
    if (status == GJ2K_OK && run.report.partial_plane_blocks > 0)
        gj2k_warn(options->warning, options->warning_user,
                  "%llu code-block%s coded only part of %s last bit-plane: re-coded as HT "
                  "cleanup passes without it (the transcoder codes no HT SigProp or MagRef "
                  "passes)",
                  (unsigned long long)run.report.partial_plane_blocks,
                  run.report.partial_plane_blocks == 1 ? "" : "s",
                  run.report.partial_plane_blocks == 1 ? "its" : "their");
    run_free(&run);
    decode_job_close(&job);
    if (status == GJ2K_OK)
        *report = run.report;
    return status;
}

gj2k_status gj2k_transcode_memory(const uint8_t *input, size_t input_size,
                                  const gj2k_transcode_options *options, uint8_t **data,
                                  size_t *size, gj2k_error *error)
{
    if (data == NULL || size == NULL || (input == NULL && input_size > 0))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "transcode: bad arguments");
    *data = NULL;
    *size = 0;
    gj2k_transcode_options taken; /* whole, as struct_size.h takes them */
    gj2k_status status = STRUCT_SIZE_TAKE(&taken, options, gj2k_transcode_options, error);
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_CHECK(taken.report, gj2k_transcode_report, error);
    if (status != GJ2K_OK)
        return status;
    byte_buffer out = {0};
    gj2k_transcode_report report = {.struct_size = sizeof report};
    status = transcode(input, input_size, &taken, &out, &report, error);
    if (status != GJ2K_OK) {
        byte_buffer_free(&out);
        return status;
    }
    if (taken.report != NULL)
        STRUCT_SIZE_GIVE(taken.report, &report, gj2k_transcode_report);
    *data = byte_buffer_release(&out, size);
    return GJ2K_OK;
}

/* Whether the path ends in .jph or .jhc (HTJ2K's names, T.814 Annex D). */
static bool names_htj2k(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot != NULL && (strcasecmp(dot, ".jph") == 0 || strcasecmp(dot, ".jhc") == 0);
}

gj2k_status gj2k_transcode_file(const char *input, const char *output,
                                const gj2k_transcode_options *options, gj2k_error *error)
{
    if (input == NULL || output == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "transcode: no input or output path");
    gj2k_transcode_options chosen;
    gj2k_status status = STRUCT_SIZE_TAKE(&chosen, options, gj2k_transcode_options, error);
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_CHECK(chosen.report, gj2k_transcode_report, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_transcode_report *caller_report = chosen.report;
    if (chosen.format == GJ2K_FORMAT_UNKNOWN)
        chosen.format = gj2k_format_from_path(output);
    if (chosen.format != GJ2K_FORMAT_J2K && chosen.format != GJ2K_FORMAT_JP2)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "%s: not a JPEG 2000 name (use .j2k .j2c .jpc .jhc, or .jp2 .jph)",
                         output);
    if (chosen.coder == GJ2K_CODER_AUTO)
        chosen.coder = names_htj2k(output) ? GJ2K_CODER_HT : GJ2K_CODER_PART1;
    gj2k_transcode_report report = {.struct_size = sizeof report};
    chosen.report = &report;
    double start = now_seconds();
    uint8_t *in_data = NULL;
    size_t in_size = 0;
    status = file_read_all(input, &in_data, &in_size, error);
    if (status != GJ2K_OK)
        return gj2k_fail_naming(error, status, input);
    double read_ms = (now_seconds() - start) * 1e3;
    uint8_t *data = NULL;
    size_t size = 0;
    status = gj2k_transcode_memory(in_data, in_size, &chosen, &data, &size, error);
    free(in_data);
    if (status != GJ2K_OK)
        return gj2k_fail_naming(error, status, input);
    start = now_seconds();
    gj2k_write_options write = {.temporary = chosen.temporary,
                                .temporary_user = chosen.temporary_user};
    status = file_write_whole(output, data, size, &write, error);
    free(data);
    if (status != GJ2K_OK)
        return gj2k_fail_naming(error, status, output);
    report.read_ms += read_ms;
    report.write_ms += (now_seconds() - start) * 1e3;
    if (caller_report != NULL)
        STRUCT_SIZE_GIVE(caller_report, &report, gj2k_transcode_report);
    return GJ2K_OK;
}
