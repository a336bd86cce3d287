/* test_codestream.c - whole codestreams of Annex A: random main and
 * tile-part headers written and parsed back (with and without PPM), the
 * parser's structure rules, many-component segments, and the parsing of real
 * codestreams, cut short and corrupted. The marker segments one by one:
 * test_markers.c. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "codestream_test_support.h"
#include "test_harness.h"

/* ------------------------------------------------ whole codestreams */

/* A deep copy through the setters (the model owns everything it points to). */
static void header_copy(j2k_header_params *to, const j2k_header_params *from)
{
    *to = (j2k_header_params){0};
    if (from->cod)
        j2k_header_set_cod(to, from->cod, NULL);
    if (from->qcd)
        j2k_header_set_qcd(to, from->qcd, NULL);
    for (size_t i = 0; i < from->num_cocs; i++)
        j2k_header_add_coc(to, &from->cocs[i], NULL, NULL);
    for (size_t i = 0; i < from->num_qccs; i++)
        j2k_header_add_qcc(to, &from->qccs[i], NULL, NULL);
    for (size_t i = 0; i < from->num_rgns; i++)
        j2k_header_add_rgn(to, &from->rgns[i], NULL, NULL);
    j2k_header_add_pocs(to, from->pocs, from->num_pocs, NULL);
    for (size_t i = 0; i < from->num_comments; i++)
        j2k_header_add_comment(to, from->comments[i].registration, from->comments[i].data,
                               from->comments[i].size, NULL);
}

static void random_header(j2k_header_params *h, uint32_t components, bool coding, bool is_main)
{
    *h = (j2k_header_params){0};
    unsigned levels = (unsigned)test_random_range(0, 8);
    if (coding && (is_main || rand_bool())) {
        j2k_cod cod = random_cod(levels);
        if (components < 3)
            cod.mct = 0;
        j2k_header_set_cod(h, &cod, NULL);
        j2k_quantization q = random_quantization(levels);
        j2k_header_set_qcd(h, &q, NULL);
    }
    for (int i = coding ? (int)test_random_range(0, 3) : 0; i > 0; i--) {
        uint32_t c = (uint32_t)test_random_range(0, components - 1);
        j2k_coc coc = {c, random_coding(levels)};
        j2k_qcc qcc = {c, random_quantization(levels)};
        j2k_rgn rgn = {.component = c, .shift = (uint8_t)test_random_range(0, 255)};
        j2k_header_add_coc(h, &coc, NULL, NULL);
        j2k_header_add_qcc(h, &qcc, NULL, NULL);
        j2k_header_add_rgn(h, &rgn, NULL, NULL);
    }
    if (rand_bool()) {
        uint32_t limit = components < 257 ? 256 : 16384;
        j2k_progression_change poc = {0, 0, 3, 1, limit, (uint8_t)test_random_range(0, 4)};
        poc.component_start = (uint32_t)test_random_range(0, components - 1);
        j2k_header_add_pocs(h, &poc, 1, NULL);
    }
    if (rand_bool())
        j2k_header_add_comment(h, J2K_COMMENT_LATIN, (const uint8_t *)"gj2k", 4, NULL);
}

typedef struct planned_part {
    uint32_t tile;
    uint8_t part, num_parts;
    j2k_header_params header;
    uint32_t lengths[20];
    size_t num_lengths;          /* PLT (or PLM) */
    uint8_t packed[300];
    size_t packed_size;          /* PPT (or PPM) */
    bool has_packed;
    size_t sot_offset, size;     /* within the tile-parts' buffer */
} planned_part;

static void codestream_round_trip_with(uint32_t components, bool use_ppm)
{
    gj2k_error error = {0};
    j2k_siz siz = random_siz(components, 12);
    j2k_header_params main_header;
    random_header(&main_header, components, true, true);
    /* Tile-parts: each tile's in order, the tiles interleaved at random. */
    uint32_t tiles = siz.num_tiles;
    uint8_t *num_parts = calloc(tiles, 1), *next_part = calloc(tiles, 1);
    size_t total = 0;
    for (uint32_t t = 0; t < tiles; t++)
        total += num_parts[t] = (uint8_t)test_random_range(1, 3);
    planned_part *plan = calloc(total, sizeof *plan);
    for (size_t i = 0; i < total; i++) {
        uint32_t t;
        do
            t = (uint32_t)test_random_range(0, tiles - 1);
        while (next_part[t] == num_parts[t]);
        planned_part *pp = &plan[i];
        pp->tile = t;
        pp->part = next_part[t]++;
        pp->num_parts = rand_bool() ? num_parts[t] : 0;
        random_header(&pp->header, components, pp->part == 0, false);
        pp->num_lengths = (size_t)test_random_range(use_ppm ? 1 : 0, 20);
        for (size_t k = 0; k < pp->num_lengths; k++)
            pp->lengths[k] = (uint32_t)test_random_range(0, 100000);
        pp->has_packed = use_ppm || rand_bool();
        pp->packed_size = pp->has_packed ? (size_t)test_random_range(0, 300) : 0;
        for (size_t k = 0; k < pp->packed_size; k++)
            pp->packed[k] = (uint8_t)test_random();
    }
    byte_buffer parts = {0}, out = {0};
    for (size_t i = 0; i < total; i++) {
        planned_part *pp = &plan[i];
        j2k_sot sot = {.tile_index = pp->tile, .part_index = pp->part, .num_parts = pp->num_parts};
        REQUIRE(j2k_write_tile_part_begin(&parts, &siz, &sot, &pp->header, &pp->sot_offset,
                                          &error) == GJ2K_OK);
        if (!use_ppm && pp->num_lengths)
            REQUIRE(j2k_plt_write(&parts, pp->lengths, pp->num_lengths, &error) == GJ2K_OK);
        if (!use_ppm && pp->has_packed)
            REQUIRE(j2k_ppt_write(&parts, pp->packed, pp->packed_size, &error) == GJ2K_OK);
        j2k_marker_write(&parts, J2K_SOD);
        for (int k = (int)test_random_range(0, 200); k > 0; k--)
            byte_buffer_put_u8(&parts, (uint8_t)test_random());
        REQUIRE(j2k_write_tile_part_end(&parts, pp->sot_offset, &error) == GJ2K_OK);
        pp->size = parts.size - pp->sot_offset;
    }
    REQUIRE(j2k_write_main_header(&out, &siz, &main_header, &error) == GJ2K_OK);
    j2k_tlm tlm = {.index = 0, .tile_index_size = 2, .length_size = 4, .count = total};
    tlm.entries = calloc(total, sizeof *tlm.entries);
    for (size_t i = 0; i < total; i++)
        tlm.entries[i] = (j2k_tlm_entry){plan[i].tile, (uint32_t)plan[i].size};
    REQUIRE(j2k_tlm_write(&out, &tlm, &error) == GJ2K_OK);
    if (use_ppm) {
        j2k_bytes packed[36];
        j2k_packet_lengths lengths[36];
        for (size_t i = 0; i < total; i++) {
            packed[i] = (j2k_bytes){plan[i].packed, plan[i].packed_size};
            lengths[i] = (j2k_packet_lengths){plan[i].lengths, plan[i].num_lengths};
        }
        REQUIRE(j2k_ppm_write(&out, packed, total, &error) == GJ2K_OK);
        REQUIRE(j2k_plm_write(&out, lengths, total, &error) == GJ2K_OK);
    }
    j2k_registration_offset *crg = calloc(components, sizeof *crg);
    crg[components - 1].x = 77;
    REQUIRE(j2k_crg_write(&out, crg, components, &error) == GJ2K_OK);
    size_t header_size = out.size;
    byte_buffer_append(&out, parts.data, parts.size);
    j2k_marker_write(&out, J2K_EOC);
    REQUIRE(!out.failed);

    warnings w = {0};
    j2k_codestream *cs = NULL;
    gj2k_status status = j2k_codestream_parse(out.data, out.size, collect_warning, &w, &cs, &error);
    if (status != GJ2K_OK)
        fprintf(stderr, "  parse: %s\n", error.message);
    REQUIRE(status == GJ2K_OK);
    if (w.count)
        fprintf(stderr, "  warning: %s\n", w.last);
    CHECK(w.count == 0);
    CHECK(cs->siz.num_components == components && cs->siz.num_tiles == tiles &&
          cs->siz.image_x1 == siz.image_x1 && cs->siz.tile_y0 == siz.tile_y0);
    CHECK(header_equal(&cs->main_header, &main_header));
    CHECK(cs->registration && cs->registration[components - 1].x == 77);
    CHECK(cs->has_eoc && cs->eoc_offset == out.size - 2 && cs->main_header_end == header_size);
    CHECK(cs->num_tile_parts == total && cs->num_tiles_present == tiles && cs->num_tlm == total);
    CHECK(cs->has_ppm == use_ppm);
    for (size_t i = 0; i < total && i < cs->num_tlm; i++)
        CHECK(cs->tlm[i].tile_index == plan[i].tile && cs->tlm[i].length == plan[i].size);
    for (uint32_t t = 0; t < tiles; t++) {
        const j2k_tile *tile = j2k_codestream_tile(cs, t);
        REQUIRE(tile != NULL && tile->num_parts == num_parts[t]);
        j2k_header_params expected = {0};
        size_t packed_at = 0;
        for (size_t i = 0; i < total; i++) {
            const planned_part *pp = &plan[i];
            if (pp->tile != t)
                continue;
            j2k_header_params copy;
            header_copy(&copy, &pp->header);
            j2k_header_merge(&expected, &copy, NULL);
            const j2k_tile_part *part = &tile->parts[pp->part];
            CHECK(part->part_index == pp->part && part->num_parts == pp->num_parts);
            CHECK(part->sot_offset == header_size + pp->sot_offset &&
                  part->data_end == part->sot_offset + pp->size && part->psot == pp->size);
            CHECK(part->packet_lengths.count == pp->num_lengths &&
                  (pp->num_lengths == 0 || memcmp(part->packet_lengths.lengths, pp->lengths,
                                                  pp->num_lengths * 4) == 0));
            CHECK(part->packed_headers_offset == packed_at &&
                  part->packed_headers_size == pp->packed_size);
            CHECK(pp->packed_size == 0 || memcmp(tile->packed_headers + packed_at, pp->packed,
                                                 pp->packed_size) == 0);
            packed_at += pp->packed_size;
        }
        CHECK(header_equal(&tile->header, &expected));
        CHECK(tile->packed_headers_size == packed_at);
        j2k_header_free(&expected);
        for (uint32_t c = 0; c < components; c += 1 + components / 8) {
            j2k_tile_component_params params;
            (void)j2k_resolve_tile_component(&cs->main_header, &tile->header, c, &params, NULL);
        }
    }
    byte_buffer text = {0};
    REQUIRE(j2k_codestream_describe(cs, &text, &error) == GJ2K_OK);
    CHECK(text.size > 100);
    byte_buffer_free(&text);

    j2k_codestream_destroy(cs);
    for (size_t i = 0; i < total; i++)
        j2k_header_free(&plan[i].header);
    j2k_header_free(&main_header);
    j2k_tlm_free(&tlm);
    j2k_siz_free(&siz);
    free(crg);
    free(plan);
    free(num_parts);
    free(next_part);
    byte_buffer_free(&parts);
    byte_buffer_free(&out);
}

static void codestream_round_trip(void)
{
    for (int i = 0; i < 60; i++)
        codestream_round_trip_with(i % 3 == 0 ? 300 : (uint32_t)test_random_range(1, 4), false);
}

static void codestream_round_trip_ppm(void)
{
    for (int i = 0; i < 60; i++)
        codestream_round_trip_with(i % 3 == 0 ? 257 : (uint32_t)test_random_range(1, 4), true);
}

/* ------------------------------------------------ real codestreams */

/* The contents of the top-level jp2c box of a JP2 file (I.4), or NULL. */
static const uint8_t *find_jp2c(const uint8_t *data, size_t size, size_t *length)
{
    size_t pos = 0;
    while (size - pos >= 8) {
        uint64_t box = (uint64_t)data[pos] << 24 | data[pos + 1] << 16 | data[pos + 2] << 8 |
                       data[pos + 3];
        size_t header = 8;
        if (box == 1 && size - pos >= 16) {
            box = 0;
            for (int i = 0; i < 8; i++)
                box = box << 8 | data[pos + 8 + i];
            header = 16;
        } else if (box == 0) {
            box = size - pos;
        }
        if (box < header || box > size - pos)
            return NULL;
        if (memcmp(data + pos + 4, "jp2c", 4) == 0) {
            *length = (size_t)box - header;
            return data + pos + header;
        }
        pos += (size_t)box;
    }
    return NULL;
}

/* Checks what any parsed codestream must satisfy; `intact` ones must also
 * give every tile-component its parameters. */
static void check_parsed(const j2k_codestream *cs, size_t size, bool intact)
{
    CHECK(cs->siz.num_tiles >= 1 && cs->siz.num_tiles <= J2K_MAX_TILES);
    CHECK(cs->num_tiles_present <= cs->siz.num_tiles);
    /* The tile-parts tile the bytes between the main header and EOC exactly. */
    size_t count = 0;
    for (size_t t = 0; t < cs->num_tiles_present; t++)
        count += cs->tiles[t].num_parts;
    CHECK_EQ(count, cs->num_tile_parts);
    const j2k_tile_part **order = calloc(count + 1, sizeof *order);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        const j2k_tile *tile = &cs->tiles[t];
        CHECK(tile->index < cs->siz.num_tiles);
        CHECK(t == 0 || tile->index > cs->tiles[t - 1].index);
        for (size_t i = 0; i < tile->num_parts; i++) {
            const j2k_tile_part *part = &tile->parts[i];
            CHECK(part->tile_index == tile->index && part->ordinal < count);
            CHECK(i == 0 || part->part_index >= tile->parts[i - 1].part_index);
            CHECK(part->sot_offset + J2K_SOT_SEGMENT_SIZE + 2 <= part->data_start &&
                  part->data_start <= part->data_end && part->data_end <= size);
            if (part->ordinal < count)
                order[part->ordinal] = part;
            CHECK(part->packed_headers_offset + part->packed_headers_size <=
                  tile->packed_headers_size);
        }
        /* Every tile-component has parameters (A.6 precedence, E.1 steps). */
        for (uint32_t c = 0; c < cs->siz.num_components; c++) {
            j2k_tile_component_params params;
            gj2k_error error = {0};
            gj2k_status status = j2k_resolve_tile_component(&cs->main_header, &tile->header, c,
                                                            &params, &error);
            if (intact && status != GJ2K_OK)
                fprintf(stderr, "  tile %u: %s\n", tile->index, error.message);
            CHECK(status == GJ2K_OK || !intact);
        }
    }
    size_t expected = cs->main_header_end;
    for (size_t i = 0; i < count; i++) {
        REQUIRE(order[i] != NULL);
        CHECK_EQ(order[i]->sot_offset, expected);
        expected = order[i]->data_end;
    }
    /* A damaged stream may have lost a tile-part cut short in its header. */
    size_t end = cs->has_eoc ? cs->eoc_offset : size;
    CHECK(intact ? expected == end : expected <= end);
    free(order);
    byte_buffer text = {0};
    CHECK(j2k_codestream_describe(cs, &text, NULL) == GJ2K_OK && text.size > 0);
    byte_buffer_free(&text);
}

static void parse_directory(const char *relative, int *parsed)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", test_shared_path(relative));
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        const char *name = entry->d_name, *dot = strrchr(name, '.');
        if (dot == NULL || (strcmp(dot, ".j2k") && strcmp(dot, ".j2c") && strcmp(dot, ".jp2")))
            continue;
        char path[1300];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t size = 0, length = 0;
        uint8_t *data = test_read_file(path, &size);
        REQUIRE(data != NULL);
        const uint8_t *stream = data;
        length = size;
        if (strcmp(dot, ".jp2") == 0)
            stream = find_jp2c(data, size, &length);
        CHECK(stream != NULL);
        if (stream == NULL) {
            free(data);
            continue;
        }
        warnings w = {0};
        j2k_codestream *cs = NULL;
        gj2k_error error = {0};
        gj2k_status status = j2k_codestream_parse(stream, length, collect_warning, &w, &cs, &error);
        if (status != GJ2K_OK)
            fprintf(stderr, "  %s: %s\n", name, error.message);
        if (w.count)
            fprintf(stderr, "  %s: %d warnings, the last: %s\n", name, w.count, w.last);
        CHECK(status == GJ2K_OK);
        if (status == GJ2K_OK) {
            check_parsed(cs, length, true);
            (*parsed)++;
        }
        if (strcmp(name, "kodak_2layers_lrcp.j2c") == 0) {
            CHECK(cs->siz.image_x1 == 2048 && cs->siz.image_y1 == 1556 &&
                  cs->siz.num_components == 3 && cs->siz.components[2].precision == 12 &&
                  !cs->siz.components[0].is_signed && cs->main_header.cod->layers == 2 &&
                  cs->main_header.cod->progression == J2K_LRCP &&
                  cs->main_header.cod->coding.transform == J2K_TRANSFORM_97 && w.count == 0);
        } else if (strcmp(name, "p0_03.j2k") == 0) {
            CHECK(cs->num_tlm == cs->num_tile_parts && cs->registration != NULL &&
                  cs->main_header.num_pocs > 0 && w.count == 0);
        } else if (strcmp(name, "e1_colr.j2c") == 0) {
            const j2k_tile *tile = j2k_codestream_tile(cs, 1);
            CHECK(tile && tile->num_parts == 2 && tile->header.num_pocs >= 2);
        } else if (strcmp(name, "g3_colr.j2c") == 0 || strcmp(name, "p1_05.j2k") == 0) {
            CHECK(cs->has_ppm && cs->tiles[0].has_packed_headers &&
                  cs->tiles[0].packed_headers_size > 0 && w.count == 0);
        } else if (strcmp(name, "g4_colr.j2c") == 0 || strcmp(name, "p1_06.j2k") == 0) {
            CHECK(!cs->has_ppm && cs->tiles[0].has_packed_headers &&
                  cs->tiles[0].packed_headers_size > 0 && w.count == 0);
        } else if (strcmp(name, "p0_06.j2k") == 0) {
            CHECK(cs->main_header.num_rgns == 1 && cs->tiles[0].header.num_rgns == 1);
        }
        j2k_codestream_destroy(cs);
        free(data);
    }
    closedir(d);
}

static void conformance_codestreams_parse(void)
{
    int parsed = 0;
    parse_directory("conformance/input", &parsed);
    CHECK(parsed >= 40);
    int images = 0;
    parse_directory("images", &images);
    CHECK(images >= 5);
}

/* Prefixes and byte flips of real codestreams never crash; a prefix always
 * gives an error or a warning. */
static void damaged_codestreams_never_crash(void)
{
    const char *files[] = {"conformance/input/p0_03.j2k", "conformance/input/p1_06.j2k",
                           "conformance/input/g3_colr.j2c", "conformance/input/e1_colr.j2c"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t size = 0;
        uint8_t *data = test_read_file(test_shared_path(files[f]), &size);
        REQUIRE(data != NULL);
        size_t step = size < 20000 ? 1 : 7;
        for (size_t length = 0; length < size; length += step) {
            uint8_t *copy = malloc(length ? length : 1); /* exact size: ASan sees overreads */
            memcpy(copy, data, length);
            warnings w = {0};
            j2k_codestream *cs = NULL;
            gj2k_status status = j2k_codestream_parse(copy, length, collect_warning, &w, &cs, NULL);
            CHECK(status != GJ2K_OK || w.count > 0);
            if (status == GJ2K_OK)
                check_parsed(cs, length, false);
            j2k_codestream_destroy(cs);
            free(copy);
        }
        uint8_t *copy = malloc(size);
        for (int flip = 0; flip < 3000; flip++) {
            memcpy(copy, data, size);
            for (int k = (int)test_random_range(1, 3); k > 0; k--) {
                size_t at = rand_bool() ? (size_t)test_random_range(0, size - 1)
                                        : (size_t)test_random_range(0, size < 400 ? size - 1 : 399);
                copy[at] ^= (uint8_t)test_random_range(1, 255);
            }
            warnings w = {0};
            j2k_codestream *cs = NULL;
            if (j2k_codestream_parse(copy, size, collect_warning, &w, &cs, NULL) == GJ2K_OK)
                check_parsed(cs, size, false);
            j2k_codestream_destroy(cs);
        }
        free(copy);
        free(data);
    }
}

/* ------------------------------------------- parser: structure rules */

/* SOC, SIZ (100x80, tiles 64x64: 4 tiles, one component), COD, QCD. */
static void small_main_header(byte_buffer *out, j2k_siz *siz, j2k_header_params *main_header)
{
    static j2k_component_size component = {8, false, 1, 1};
    *siz = (j2k_siz){.image_x1 = 100, .image_y1 = 80, .tile_width = 64, .tile_height = 64,
                     .num_components = 1, .components = &component};
    *main_header = (j2k_header_params){0};
    j2k_cod cod = {.progression = J2K_LRCP, .layers = 1,
                   .coding = {.levels = 2, .code_block_width_log2 = 6, .code_block_height_log2 = 6,
                              .transform = J2K_TRANSFORM_53}};
    j2k_component_coding_default_precincts(&cod.coding);
    j2k_quantization q = {.style = J2K_QUANT_NONE, .guard_bits = 2, .num_steps = 7};
    j2k_header_set_cod(main_header, &cod, NULL);
    j2k_header_set_qcd(main_header, &q, NULL);
    CHECK(j2k_write_main_header(out, siz, main_header, NULL) == GJ2K_OK);
}

static size_t add_tile_part(byte_buffer *out, const j2k_siz *siz, uint32_t tile, uint8_t part,
                            uint8_t num_parts, const j2k_header_params *header, size_t data_bytes)
{
    j2k_sot sot = {.tile_index = tile, .part_index = part, .num_parts = num_parts};
    size_t at = 0;
    CHECK(j2k_write_tile_part_begin(out, siz, &sot, header, &at, NULL) == GJ2K_OK);
    j2k_marker_write(out, J2K_SOD);
    for (size_t i = 0; i < data_bytes; i++)
        byte_buffer_put_u8(out, (uint8_t)(i * 7));
    CHECK(j2k_write_tile_part_end(out, at, NULL) == GJ2K_OK);
    return at;
}

/* Parses `out`; returns the status and fills `w`, `message`, `*cs`. */
static gj2k_status parse_buffer(const byte_buffer *out, warnings *w, char *message,
                                j2k_codestream **cs)
{
    *w = (warnings){0};
    gj2k_error error = {0};
    gj2k_status status = j2k_codestream_parse(out->data, out->size, collect_warning, w, cs, &error);
    snprintf(message, 256, "%s", error.message);
    return status;
}

#define EXPECT_WARNING(text)                                                                   \
    do {                                                                                       \
        if (!contains(w.all, text))                                                            \
            fprintf(stderr, "  warnings \"%s\" lack \"%s\"\n", w.all, text);                   \
        CHECK(w.count > 0 && contains(w.all, text));                                           \
    } while (0)
#define EXPECT_ERROR(code, text)                                                               \
    do {                                                                                       \
        if (!contains(message, text))                                                          \
            fprintf(stderr, "  error \"%s\" lacks \"%s\"\n", message, text);                   \
        CHECK(status == (code) && contains(message, text));                                    \
    } while (0)

static void parser_structure_rules(void)
{
    j2k_siz siz;
    j2k_header_params main_header, later = {0};
    byte_buffer out = {0};
    warnings w;
    char message[256];
    j2k_codestream *cs = NULL;
    gj2k_status status;

    /* Interleaved tile-parts, a marker without parameters, Psot 0 for the last. */
    small_main_header(&out, &siz, &main_header);
    j2k_marker_write(&out, 0xFF30);
    size_t first = out.size;
    add_tile_part(&out, &siz, 2, 0, 2, NULL, 10);
    add_tile_part(&out, &siz, 0, 0, 1, NULL, 5);
    j2k_header_add_comment(&later, J2K_COMMENT_LATIN, (const uint8_t *)"gj2k", 4, NULL);
    size_t last = add_tile_part(&out, &siz, 2, 1, 2, &later, 20);
    j2k_header_free(&later);
    uint8_t psot = out.data[last + 9]; /* 12 + 10 (COM) + 2 + 20 */
    CHECK(psot == 44 && out.data[last + 8] == 0);
    memset(out.data + last + 6, 0, 4); /* Psot 0: up to EOC */
    j2k_marker_write(&out, J2K_EOC);
    status = parse_buffer(&out, &w, message, &cs);
    REQUIRE(status == GJ2K_OK);
    CHECK(w.count == 0 && cs->main_header_end == first && cs->num_tiles_present == 2);
    const j2k_tile *tile = j2k_codestream_tile(cs, 2);
    CHECK(tile && tile->num_parts == 2 && tile->parts[1].psot == 0 &&
          tile->parts[1].data_end == out.size - 2 &&
          tile->parts[1].data_end - tile->parts[1].data_start == 20 &&
          tile->header.num_comments == 1);
    CHECK(j2k_codestream_tile(cs, 1) == NULL);
    check_parsed(cs, out.size, true);
    j2k_codestream_destroy(cs);

    /* No EOC; bytes after EOC. */
    out.size -= 2;
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_OK);
    EXPECT_WARNING("no EOC");
    j2k_codestream_destroy(cs);
    out.data[last + 9] = psot;
    j2k_marker_write(&out, J2K_EOC);
    j2k_marker_write(&out, 0x1234);
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_OK);
    EXPECT_WARNING("2 bytes after EOC");
    j2k_codestream_destroy(cs);

    /* Psot past the end of the data: truncated, clipped. */
    out.size -= 4;
    out.data[last + 9] = 200;
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_OK);
    EXPECT_WARNING("past the end of the data");
    tile = j2k_codestream_tile(cs, 2);
    CHECK(tile && tile->num_parts == 2 && tile->parts[1].truncated &&
          tile->parts[1].data_end == out.size);
    j2k_codestream_destroy(cs);
    /* Psot ending inside the tile-part header. */
    out.data[last + 9] = 13;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "Psot 13");
    out.data[last + 9] = 18;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "ends inside the tile-part header");
    out.data[last + 9] = psot;
    /* Isot beyond the tile grid. */
    out.data[last + 5] = 4;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "tile 4 (the image has 4 tiles)");
    out.data[last + 5] = 2;
    /* Something other than SOT or EOC after a tile-part. */
    out.data[last] = 0x12;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "expected SOT or EOC");
    byte_buffer_free(&out);
    j2k_header_free(&main_header);

    /* Tile-parts out of TPsot order, TNsot disagreeing, COD in a later
     * tile-part, misplaced and unknown segments. */
    small_main_header(&out, &siz, &main_header);
    size_t plt_at = out.size;
    const uint32_t one = 1;
    CHECK(j2k_plt_write(&out, &one, 1, NULL) == GJ2K_OK);
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_ERROR_TRUNCATED);
    out.size = plt_at;
    byte_buffer_put_u16_be(&out, 0xFF50); /* a Part 15 CAP: unknown to Part 1 */
    byte_buffer_put_u16_be(&out, 4);
    byte_buffer_put_u16_be(&out, 0);
    j2k_header_set_cod(&later, main_header.cod, NULL);
    add_tile_part(&out, &siz, 1, 1, 3, NULL, 3);
    size_t second = add_tile_part(&out, &siz, 1, 0, 2, NULL, 3);
    j2k_marker_write(&out, J2K_EOC);
    status = parse_buffer(&out, &w, message, &cs);
    CHECK(status == GJ2K_OK && w.count >= 3);
    tile = cs ? j2k_codestream_tile(cs, 1) : NULL;
    CHECK(tile && tile->parts[0].part_index == 0 && tile->parts[0].sot_offset == second);
    j2k_codestream_destroy(cs);
    out.size = plt_at;
    CHECK(j2k_plt_write(&out, &one, 1, NULL) == GJ2K_OK);
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_ERROR_TRUNCATED); /* no tile-part yet */
    add_tile_part(&out, &siz, 0, 0, 2, NULL, 1);
    j2k_sot sot = {.tile_index = 0, .part_index = 1, .num_parts = 2};
    size_t at = 0;
    CHECK(j2k_write_tile_part_begin(&out, &siz, &sot, &later, &at, NULL) ==
          GJ2K_ERROR_INVALID_ARGUMENT); /* the writer refuses COD there */
    out.size = at;
    CHECK(j2k_write_tile_part_begin(&out, &siz, &sot, NULL, &at, NULL) == GJ2K_OK);
    CHECK(j2k_cod_write(&out, main_header.cod, NULL) == GJ2K_OK);
    j2k_tlm tlm = {.tile_index_size = 1, .length_size = 2};
    CHECK(j2k_tlm_write(&out, &tlm, NULL) == GJ2K_OK);
    j2k_marker_write(&out, J2K_SOD);
    CHECK(j2k_write_tile_part_end(&out, at, NULL) == GJ2K_OK);
    j2k_marker_write(&out, J2K_EOC);
    status = parse_buffer(&out, &w, message, &cs);
    CHECK(status == GJ2K_OK && w.count == 3);
    EXPECT_WARNING("TLM at offset");
    CHECK(cs && cs->tiles[0].header.cod != NULL);
    j2k_codestream_destroy(cs);
    /* A header cut off by the end of the data: the tile-part is dropped. */
    out.size = at + 16;
    status = parse_buffer(&out, &w, message, &cs);
    CHECK(status == GJ2K_OK && cs->num_tile_parts == 1);
    EXPECT_WARNING("cut off");
    j2k_codestream_destroy(cs);
    j2k_header_free(&later);

    /* PPT when the main header has PPM. */
    out.size = plt_at;
    j2k_bytes packed = {(const uint8_t *)"xy", 2};
    CHECK(j2k_ppm_write(&out, &packed, 1, NULL) == GJ2K_OK);
    CHECK(j2k_write_tile_part_begin(&out, &siz, &sot, NULL, &at, NULL) == GJ2K_OK);
    CHECK(j2k_ppt_write(&out, (const uint8_t *)"z", 1, NULL) == GJ2K_OK);
    j2k_marker_write(&out, J2K_SOD);
    CHECK(j2k_write_tile_part_end(&out, at, NULL) == GJ2K_OK);
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "PPT at offset");

    /* Main header rules: SOC, SIZ first, COD and QCD present, lengths >= 2. */
    out.data[0] = 0;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "does not start with SOC");
    out.data[0] = 0xFF;
    out.data[3] = 0x52;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "SIZ must follow SOC");
    byte_buffer_free(&out);
    j2k_header_free(&main_header);
    small_main_header(&out, &siz, &main_header);
    size_t cod_at = 2 + 2 + 41;
    CHECK(out.data[cod_at] == 0xFF && out.data[cod_at + 1] == 0x52);
    out.data[cod_at + 1] = 0x64; /* the COD becomes a COM */
    add_tile_part(&out, &siz, 0, 0, 1, NULL, 0);
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "no COD");
    out.data[cod_at + 3] = 1;
    status = parse_buffer(&out, &w, message, &cs);
    EXPECT_ERROR(GJ2K_ERROR_MALFORMED, "has length 1");
    byte_buffer_free(&out);
    j2k_header_free(&main_header);
    CHECK(parse_buffer(&out, &w, message, &cs) == GJ2K_ERROR_MALFORMED);
}

/* 16384 components, a COC and a QCC for each in descending order and one
 * repeated: parsed in O(n log n), sorted, the later repeat applying. */
static void many_component_segments(void)
{
    j2k_siz siz = random_siz(J2K_MAX_COMPONENTS, 4);
    j2k_header_params main_header = {0};
    j2k_cod cod = random_cod(5);
    j2k_quantization qcd = random_quantization(5);
    j2k_header_set_cod(&main_header, &cod, NULL);
    j2k_header_set_qcd(&main_header, &qcd, NULL);
    byte_buffer out = {0};
    gj2k_error error = {0};
    REQUIRE(j2k_write_main_header(&out, &siz, &main_header, &error) == GJ2K_OK);
    j2k_coc coc = {.coding = random_coding(3)};
    j2k_qcc qcc = {.quantization = {.style = J2K_QUANT_DERIVED, .num_steps = 1, .steps = {{20, 3}}}};
    for (uint32_t c = J2K_MAX_COMPONENTS; c-- > 0;) {
        coc.component = qcc.component = c;
        CHECK(j2k_coc_write(&out, &coc, J2K_MAX_COMPONENTS, NULL) == GJ2K_OK);
        CHECK(j2k_qcc_write(&out, &qcc, J2K_MAX_COMPONENTS, NULL) == GJ2K_OK);
    }
    coc.component = 5;
    coc.coding.levels = 4;
    CHECK(j2k_coc_write(&out, &coc, J2K_MAX_COMPONENTS, NULL) == GJ2K_OK);
    j2k_sot sot = {.tile_index = 0};
    size_t at;
    REQUIRE(j2k_write_tile_part_begin(&out, &siz, &sot, NULL, &at, &error) == GJ2K_OK);
    j2k_marker_write(&out, J2K_SOD);
    REQUIRE(j2k_write_tile_part_end(&out, at, &error) == GJ2K_OK);
    j2k_marker_write(&out, J2K_EOC);
    warnings w = {0};
    j2k_codestream *cs = NULL;
    REQUIRE(j2k_codestream_parse(out.data, out.size, collect_warning, &w, &cs, &error) == GJ2K_OK);
    CHECK(w.count == 1 && contains(w.last, "1 repeated COC"));
    CHECK(cs->main_header.num_cocs == J2K_MAX_COMPONENTS &&
          cs->main_header.num_qccs == J2K_MAX_COMPONENTS);
    for (size_t i = 1; i < cs->main_header.num_cocs; i++)
        CHECK(cs->main_header.cocs[i].component == i && cs->main_header.qccs[i].component == i);
    j2k_tile_component_params params;
    REQUIRE(j2k_resolve_tile_component(&cs->main_header, NULL, 5, &params, &error) == GJ2K_OK);
    CHECK(params.coding.levels == 4);
    REQUIRE(j2k_resolve_tile_component(&cs->main_header, NULL, 6, &params, &error) == GJ2K_OK);
    CHECK(params.coding.levels == 3);
    j2k_codestream_destroy(cs);
    j2k_header_free(&main_header);
    j2k_siz_free(&siz);
    byte_buffer_free(&out);
}

static const test_case cases[] = {
    {"codestream_round_trip", codestream_round_trip},
    {"codestream_round_trip_ppm", codestream_round_trip_ppm},
    {"parser_structure_rules", parser_structure_rules},
    {"many_component_segments", many_component_segments},
    {"conformance_codestreams_parse", conformance_codestreams_parse},
    {"damaged_codestreams_never_crash", damaged_codestreams_never_crash},
};

TEST_MAIN(cases)
