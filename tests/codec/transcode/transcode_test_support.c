/* transcode_test_support.c - see transcode_test_support.h. */
#include "transcode_test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_job.h"
#include "test_harness.h"
#include "transcode_tile.h"

void coded_file_free(coded_file *f)
{
    free(f->data);
    f->data = NULL;
    f->size = 0;
}

gj2k_image *make_image(uint32_t x0, uint32_t y0, uint32_t width, uint32_t height,
                       uint32_t components, uint32_t precision, unsigned noise_bits,
                       uint32_t seed)
{
    gj2k_component_info info[4];
    if (components == 0 || components > 4)
        return NULL;
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, x0, y0, x0 + width, y0 + height, components, info, &error) !=
        GJ2K_OK) {
        fprintf(stderr, "image: %s\n", error.message);
        return NULL;
    }
    uint32_t state = seed * 2654435761u + 1u;
    uint64_t max = ((uint64_t)1 << precision) - 1;
    for (uint32_t c = 0; c < components; c++) {
        gj2k_component *k = &image->components[c];
        for (uint32_t y = 0; y < k->height; y++)
            for (uint32_t x = 0; x < k->width; x++) {
                state = state * 1664525u + 1013904223u;
                uint64_t smooth = ((uint64_t)x * 7 + (uint64_t)y * 5 + c * 40) * max /
                                  (7u * k->width + 5u * k->height + 120u);
                uint64_t noise = noise_bits ? (state >> (32 - noise_bits)) : 0;
                uint64_t v = smooth + noise;
                k->samples[(size_t)y * k->width + x] = (int32_t)(v > max ? max : v);
            }
    }
    return image;
}

bool encode_image(const gj2k_image *image, const gj2k_encode_options *options, coded_file *out)
{
    gj2k_error error = {0};
    if (gj2k_encode_memory(image, options, &out->data, &out->size, NULL, &error) != GJ2K_OK) {
        fprintf(stderr, "encode: %s\n", error.message);
        return false;
    }
    return true;
}

bool transcode_to(const coded_file *in, gj2k_block_coder coder, gj2k_file_format format,
                  unsigned threads, gj2k_transcode_report *report, coded_file *out)
{
    gj2k_transcode_options options = {.coder = coder, .format = format, .threads = threads,
                                      .report = report};
    gj2k_error error = {0};
    if (gj2k_transcode_memory(in->data, in->size, &options, &out->data, &out->size, &error) !=
        GJ2K_OK) {
        fprintf(stderr, "transcode: %s\n", error.message);
        return false;
    }
    return true;
}

gj2k_image *decode_raw(const coded_file *f)
{
    gj2k_decode_options options = {.raw_components = true, .device = GJ2K_DEVICE_CPU};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_decode_memory(f->data, f->size, &options, &image, &error) != GJ2K_OK)
        fprintf(stderr, "decode: %s\n", error.message);
    return image;
}

bool images_equal(const gj2k_image *a, const gj2k_image *b)
{
    if (a == NULL || b == NULL || a->num_components != b->num_components || a->x0 != b->x0 ||
        a->y0 != b->y0 || a->x1 != b->x1 || a->y1 != b->y1)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *p = &a->components[c], *q = &b->components[c];
        if (p->width != q->width || p->height != q->height || p->precision != q->precision ||
            p->is_signed != q->is_signed)
            return false;
        for (size_t i = 0; i < (size_t)p->width * p->height; i++)
            if (p->samples[i] != q->samples[i]) {
                fprintf(stderr, "component %u differs at sample %zu: %d, %d\n", c, i,
                        p->samples[i], q->samples[i]);
                return false;
            }
    }
    return true;
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

size_t find_marker(const coded_file *f, uint16_t marker, size_t *end)
{
    size_t found = 0, at = 2;
    while (at + 4 <= f->size && be16(f->data + at) != 0xFF90u /* SOT */) {
        if (be16(f->data + at) == marker)
            found = at;
        at += 2 + be16(f->data + at + 2);
    }
    if (end != NULL)
        *end = at;
    return found;
}

bool codestream_facts(const coded_file *f, bool *part15, bool *has_cap, unsigned *style,
                      unsigned *layers)
{
    decode_job job;
    gj2k_error error = {0};
    bool ok = decode_job_open(&job, f->data, f->size, NULL, &error) == GJ2K_OK;
    if (ok) {
        *part15 = (job.cs->siz.capabilities & 0x4000u) != 0;
        *has_cap = job.cs->capabilities.present;
        *style = job.cs->main_header.cod->coding.code_block_style;
        *layers = job.cs->main_header.cod->layers;
    } else {
        fprintf(stderr, "open: %s\n", error.message);
    }
    decode_job_close(&job);
    return ok;
}

static uint32_t magnitude(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* Block i of two tiles; false (said) on a difference. */
static bool compare_block(const transcode_tile *ta, const transcode_tile *tb, size_t i,
                          block_relation relation, transcode_coefficients *a,
                          transcode_coefficients *b, block_census *census)
{
    const transcode_block *ba = &ta->blocks[i], *bb = &tb->blocks[i];
    if (ba->component != bb->component || ba->width != bb->width || ba->height != bb->height ||
        ba->subband_index != bb->subband_index || ba->magnitude_bits != bb->magnitude_bits) {
        fprintf(stderr, "tile %u block %zu: another geometry\n", ta->index, i);
        return false;
    }
    size_t area = (size_t)ba->width * ba->height;
    unsigned keep = 0; /* planes below this are dropped by the relation */
    if (relation == BLOCKS_WHOLE_PLANES && a->passes > 0)
        keep = a->last_plane + (a->last_type != TIER1_PASS_CLEANUP ? 1u : 0u);
    bool any = false, changed = false;
    for (size_t k = 0; k < area; k++) {
        uint32_t m = magnitude(a->values[k]);
        uint32_t kept = keep < 32 ? (m >> keep) << keep : 0;
        int32_t expected = a->values[k] < 0 ? -(int32_t)kept : (int32_t)kept;
        any = any || m != 0;
        changed = changed || kept != m || (m != 0 && a->lowest[k] < keep);
        if (b->values[k] != expected) {
            fprintf(stderr, "tile %u block %zu (component %u, subband %u) coefficient %zu: %d, "
                    "expected %d\n", ta->index, i, ba->component, ba->subband_index, k,
                    b->values[k], expected);
            return false;
        }
        unsigned lowest = a->lowest[k] > keep ? a->lowest[k] : keep;
        if (expected != 0 && b->lowest[k] != lowest) {
            fprintf(stderr, "tile %u block %zu coefficient %zu: lowest plane %u, expected %u\n",
                    ta->index, i, k, b->lowest[k], lowest);
            return false;
        }
    }
    census->blocks++;
    census->with_data += any;
    census->partial += any && a->last_type != TIER1_PASS_CLEANUP;
    census->changed += changed;
    return true;
}

bool compare_blocks(const coded_file *before, const coded_file *after, block_relation relation,
                    block_census *census)
{
    memset(census, 0, sizeof *census);
    decode_job ja = {0}, jb = {0};
    gj2k_error error = {0};
    bool ok = decode_job_open(&ja, before->data, before->size, NULL, &error) == GJ2K_OK;
    ok = ok && decode_job_open(&jb, after->data, after->size, NULL, &error) == GJ2K_OK;
    if (!ok)
        fprintf(stderr, "open: %s\n", error.message);
    ok = ok && ja.cs->siz.num_tiles == jb.cs->siz.num_tiles;
    tier1_workspace *workspace = tier1_workspace_create();
    ht_lookup *lookup = malloc(sizeof *lookup);
    transcode_coefficients *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    if (workspace == NULL || lookup == NULL || a == NULL || b == NULL)
        ok = false;
    else
        ht_lookup_build(lookup);
    for (uint32_t t = 0; ok && t < ja.cs->siz.num_tiles; t++) {
        bool present = j2k_codestream_tile(ja.cs, t) != NULL;
        if (present != (j2k_codestream_tile(jb.cs, t) != NULL)) {
            fprintf(stderr, "tile %u: present in one file only\n", t);
            ok = false;
            break;
        }
        if (!present)
            continue;
        transcode_tile ta, tb;
        ok = transcode_tile_read(ja.cs, ja.codestream, t, NULL, NULL, &ta, &error) == GJ2K_OK;
        if (!ok)
            break;
        ok = transcode_tile_read(jb.cs, jb.codestream, t, NULL, NULL, &tb, &error) == GJ2K_OK;
        if (!ok) {
            transcode_tile_free(&ta);
            break;
        }
        ok = ta.num_blocks == tb.num_blocks;
        for (size_t i = 0; ok && i < ta.num_blocks; i++) {
            ok = transcode_block_decode(&ta.blocks[i], workspace, lookup, a) == GJ2K_OK &&
                 transcode_block_decode(&tb.blocks[i], workspace, lookup, b) == GJ2K_OK &&
                 !a->damaged && !b->damaged;
            if (!ok)
                fprintf(stderr, "tile %u block %zu: does not decode cleanly\n", t, i);
            ok = ok && compare_block(&ta, &tb, i, relation, a, b, census);
        }
        transcode_tile_free(&ta);
        transcode_tile_free(&tb);
    }
    if (error.status != GJ2K_OK)
        fprintf(stderr, "compare: %s\n", error.message);
    tier1_workspace_destroy(workspace);
    free(lookup);
    free(a);
    free(b);
    decode_job_close(&ja);
    decode_job_close(&jb);
    return ok;
}
