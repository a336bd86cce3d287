/* codestream_tiles.c - gathers the tile-parts read into tiles (A.4.2): orders
 * each tile's tile-parts by TPsot, merges their header parameters, joins
 * their packed packet headers (PPM A.7.4, PPT A.7.5), decodes their packet
 * lengths (PLT A.7.3, PLM A.7.2) and checks them against TLM (A.7.1). */
#include "codestream_parse.h"

#include <stdlib.h>
#include <string.h>

typedef struct part_key {
    uint32_t tile;
    uint32_t part_index;
    size_t ordinal; /* index into parser.parts */
} part_key;

static int compare_tile_then_order(const void *a, const void *b)
{
    const part_key *x = a, *y = b;
    if (x->tile != y->tile)
        return x->tile < y->tile ? -1 : 1;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static int compare_part_index_then_order(const void *a, const void *b)
{
    const part_key *x = a, *y = b;
    if (x->part_index != y->part_index)
        return x->part_index < y->part_index ? -1 : 1;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/* The packed headers PPM gives each tile-part, in codestream order. */
typedef struct ppm_split {
    uint8_t *joined;
    size_t *offsets, *sizes;
    size_t count;
} ppm_split;

static gj2k_status split_ppm(codestream_parser *p, ppm_split *ppm)
{
    size_t size, repeats;
    gj2k_status status = j2k_indexed_chunks_sort(p->ppm.items, p->ppm.count, &repeats, p->error);
    if (status != GJ2K_OK)
        return status;
    if (repeats > 0)
        gj2k_warn(p->warning, p->warning_user, "PPM: repeated Zppm indices");
    status = j2k_indexed_chunks_join(p->ppm.items, p->ppm.count, &ppm->joined, &size, p->error);
    if (status == GJ2K_OK)
        status = j2k_ppm_split(ppm->joined, size, &ppm->offsets, &ppm->sizes, &ppm->count,
                               p->error);
    if (status == GJ2K_OK && ppm->count != p->num_parts)
        gj2k_warn(p->warning, p->warning_user,
                  "PPM: packed headers for %zu tile-parts, the codestream has %zu", ppm->count,
                  p->num_parts);
    return status;
}

/* PLT: each tile-part's segments in Zplt order; a broken one is reported. */
static gj2k_status decode_plt(codestream_parser *p)
{
    for (size_t i = 0; i < p->num_parts; i++) {
        parsed_tile_part *tp = &p->parts[i];
        if (tp->num_plt == 0)
            continue;
        j2k_indexed_chunk *chunks = p->plt.items + tp->first_plt;
        uint8_t *joined;
        size_t size, repeats;
        gj2k_status status = j2k_indexed_chunks_sort(chunks, tp->num_plt, &repeats, p->error);
        if (status != GJ2K_OK)
            return status;
        if (repeats > 0)
            gj2k_warn(p->warning, p->warning_user, "tile %u, tile-part %u: repeated Zplt indices",
                      tp->part.tile_index, tp->part.part_index);
        status = j2k_indexed_chunks_join(chunks, tp->num_plt, &joined, &size, p->error);
        if (status != GJ2K_OK)
            return status;
        gj2k_error why = {0};
        j2k_packet_lengths *lengths = &tp->part.packet_lengths;
        if (j2k_packet_lengths_decode(joined, size, "PLT", &lengths->lengths, &lengths->count,
                                      &why) != GJ2K_OK) {
            gj2k_warn(p->warning, p->warning_user, "tile %u, tile-part %u: %s (PLT ignored)",
                      tp->part.tile_index, tp->part.part_index, why.message);
            free(lengths->lengths);
            *lengths = (j2k_packet_lengths){0};
        }
        free(joined);
    }
    return GJ2K_OK;
}

/* PLM: tile-parts in codestream order; used where a tile-part has no PLT. */
static gj2k_status decode_plm(codestream_parser *p)
{
    if (p->plm.count == 0)
        return GJ2K_OK;
    uint8_t *joined;
    size_t size, count, repeats;
    gj2k_status status = j2k_indexed_chunks_sort(p->plm.items, p->plm.count, &repeats, p->error);
    if (status != GJ2K_OK)
        return status;
    if (repeats > 0)
        gj2k_warn(p->warning, p->warning_user, "PLM: repeated Zplm indices");
    status = j2k_indexed_chunks_join(p->plm.items, p->plm.count, &joined, &size, p->error);
    if (status != GJ2K_OK)
        return status;
    j2k_packet_lengths *list;
    gj2k_error why = {0};
    if (j2k_plm_decode(joined, size, &list, &count, &why) != GJ2K_OK) {
        gj2k_warn(p->warning, p->warning_user, "%s (PLM ignored)", why.message);
        free(joined);
        return GJ2K_OK;
    }
    free(joined);
    if (count != p->num_parts)
        gj2k_warn(p->warning, p->warning_user,
                  "PLM: packet lengths for %zu tile-parts, the codestream has %zu", count,
                  p->num_parts);
    for (size_t i = 0; i < count; i++) {
        if (i < p->num_parts && p->parts[i].num_plt == 0) {
            p->parts[i].part.packet_lengths = list[i];
        } else {
            free(list[i].lengths);
        }
    }
    free(list);
    return GJ2K_OK;
}

/* TLM: every entry in Ztlm order; ST = 0 means the k-th entry is tile k. */
static gj2k_status flatten_tlm(codestream_parser *p)
{
    j2k_codestream *cs = p->cs;
    if (p->num_tlms == 0)
        return GJ2K_OK;
    /* Ztlm order, stable: a counting sort of the segments' positions. */
    size_t start[257] = {0}, total = 0;
    for (size_t i = 0; i < p->num_tlms; i++) {
        start[p->tlms[i].index + 1]++;
        total += p->tlms[i].count;
    }
    if (total == 0)
        return GJ2K_OK;
    for (unsigned z = 0; z < 256; z++)
        start[z + 1] += start[z];
    size_t *order = malloc(p->num_tlms * sizeof *order);
    cs->tlm = malloc(total * sizeof *cs->tlm);
    if (order == NULL || cs->tlm == NULL) {
        free(order);
        return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "TLM: out of memory");
    }
    for (size_t i = 0; i < p->num_tlms; i++)
        order[start[p->tlms[i].index]++] = i;
    for (size_t i = 0; i < p->num_tlms; i++) {
        const j2k_tlm *tlm = &p->tlms[order[i]];
        for (size_t k = 0; k < tlm->count; k++) {
            j2k_tlm_entry e = tlm->entries[k];
            if (e.tile_index == J2K_TLM_TILE_IMPLIED)
                e.tile_index = (uint32_t)cs->num_tlm;
            cs->tlm[cs->num_tlm++] = e;
        }
    }
    free(order);
    if (cs->num_tlm != p->num_parts)
        gj2k_warn(p->warning, p->warning_user, "TLM lists %zu tile-parts, the codestream has %zu",
                  cs->num_tlm, p->num_parts);
    for (size_t i = 0; i < cs->num_tlm && i < p->num_parts; i++) {
        const j2k_tile_part *part = &p->parts[i].part;
        uint64_t length = part->psot ? part->psot : part->data_end - part->sot_offset;
        if (cs->tlm[i].tile_index != part->tile_index || cs->tlm[i].length != length) {
            gj2k_warn(p->warning, p->warning_user,
                      "TLM entry %zu (tile %u, %u bytes) disagrees with the tile-part at offset "
                      "%zu (tile %u, %llu bytes)", i, cs->tlm[i].tile_index, cs->tlm[i].length,
                      part->sot_offset, part->tile_index, (unsigned long long)length);
            break;
        }
    }
    return GJ2K_OK;
}

/* Joins the packed headers of a tile's tile-parts (`order`: TPsot order). */
static gj2k_status join_packed_headers(codestream_parser *p, const ppm_split *ppm,
                                       const part_key *order, size_t count, j2k_tile *tile)
{
    size_t total = 0;
    bool any_ppt = false;
    for (size_t i = 0; i < count; i++) {
        const parsed_tile_part *tp = &p->parts[order[i].ordinal];
        if (p->cs->has_ppm) {
            if (tp->part.ordinal < ppm->count)
                total += ppm->sizes[tp->part.ordinal];
        } else {
            for (size_t k = 0; k < tp->num_ppt; k++)
                total += p->ppt.items[tp->first_ppt + k].size;
            any_ppt |= tp->num_ppt > 0;
        }
    }
    tile->has_packed_headers = p->cs->has_ppm || any_ppt;
    if (!tile->has_packed_headers || total == 0)
        return GJ2K_OK;
    tile->packed_headers = malloc(total);
    if (tile->packed_headers == NULL)
        return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for packed headers");
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        parsed_tile_part *tp = &p->parts[order[i].ordinal];
        j2k_tile_part *part = &tile->parts[i];
        part->packed_headers_offset = at;
        if (p->cs->has_ppm) {
            if (tp->part.ordinal < ppm->count) {
                size_t n = ppm->sizes[tp->part.ordinal];
                if (n)
                    memcpy(tile->packed_headers + at, ppm->joined + ppm->offsets[tp->part.ordinal], n);
                at += n;
            }
        } else {
            j2k_indexed_chunk *chunks = p->ppt.items + tp->first_ppt;
            size_t repeats;
            gj2k_status status = j2k_indexed_chunks_sort(chunks, tp->num_ppt, &repeats, p->error);
            if (status != GJ2K_OK)
                return status;
            if (repeats > 0)
                gj2k_warn(p->warning, p->warning_user,
                          "tile %u, tile-part %u: repeated Zppt indices", tile->index,
                          part->part_index);
            for (size_t k = 0; k < tp->num_ppt; k++) {
                if (chunks[k].size)
                    memcpy(tile->packed_headers + at, chunks[k].data, chunks[k].size);
                at += chunks[k].size;
            }
        }
        part->packed_headers_size = at - part->packed_headers_offset;
    }
    tile->packed_headers_size = total;
    return GJ2K_OK;
}

/* One tile from its tile-parts `keys` (codestream order on entry). */
static gj2k_status build_tile(codestream_parser *p, const ppm_split *ppm, part_key *keys,
                              size_t count, j2k_tile *tile)
{
    tile->index = keys[0].tile;
    /* A.4.2: a tile's tile-parts come in TPsot order 0, 1, 2, ... */
    for (size_t i = 0; i < count; i++)
        if (keys[i].part_index != i) {
            gj2k_warn(p->warning, p->warning_user,
                      "tile %u: tile-part %u found where %zu was expected", tile->index,
                      keys[i].part_index, i);
            break;
        }
    qsort(keys, count, sizeof *keys, compare_part_index_then_order);
    unsigned declared = 0;
    bool disagree = false;
    for (size_t i = 0; i < count; i++) {
        unsigned n = p->parts[keys[i].ordinal].part.num_parts;
        if (n != 0 && declared != 0 && n != declared)
            disagree = true;
        if (n != 0)
            declared = n;
    }
    if (disagree)
        gj2k_warn(p->warning, p->warning_user, "tile %u: its tile-parts disagree on TNsot",
                  tile->index);
    else if (declared != 0 && declared != count)
        gj2k_warn(p->warning, p->warning_user, "tile %u: %zu of its %u tile-parts found",
                  tile->index, count, declared);

    tile->parts = calloc(count, sizeof *tile->parts);
    if (tile->parts == NULL)
        return gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    tile->num_parts = count;
    for (size_t i = 0; i < count; i++) {
        parsed_tile_part *tp = &p->parts[keys[i].ordinal];
        tile->parts[i] = tp->part;
        tp->part.packet_lengths = (j2k_packet_lengths){0}; /* moved */
        gj2k_status status = j2k_header_merge_unsorted(&tile->header, &tp->header, p->error);
        if (status != GJ2K_OK)
            return status;
    }
    size_t repeats;
    gj2k_status status = j2k_header_sort_components(&tile->header, &repeats, p->error);
    if (status != GJ2K_OK)
        return status;
    return join_packed_headers(p, ppm, keys, count, tile);
}

gj2k_status j2k_parser_assemble_tiles(codestream_parser *p)
{
    j2k_codestream *cs = p->cs;
    cs->num_tile_parts = p->num_parts;
    ppm_split ppm = {0};
    part_key *keys = NULL;
    gj2k_status status = GJ2K_OK;
    if (p->ppm.count > 0) {
        cs->has_ppm = true;
        status = split_ppm(p, &ppm);
    }
    if (status == GJ2K_OK)
        status = decode_plt(p);
    if (status == GJ2K_OK)
        status = decode_plm(p);
    if (status == GJ2K_OK)
        status = flatten_tlm(p);
    if (status != GJ2K_OK || p->num_parts == 0)
        goto done;

    keys = malloc(p->num_parts * sizeof *keys);
    if (keys == NULL) {
        status = gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->num_parts; i++)
        keys[i] = (part_key){p->parts[i].part.tile_index, p->parts[i].part.part_index, i};
    qsort(keys, p->num_parts, sizeof *keys, compare_tile_then_order);
    size_t num_tiles = 1;
    for (size_t i = 1; i < p->num_parts; i++)
        num_tiles += keys[i].tile != keys[i - 1].tile;
    cs->tiles = calloc(num_tiles, sizeof *cs->tiles);
    if (cs->tiles == NULL) {
        status = gj2k_fail(p->error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (size_t start = 0; start < p->num_parts && status == GJ2K_OK;) {
        size_t end = start + 1;
        while (end < p->num_parts && keys[end].tile == keys[start].tile)
            end++;
        status = build_tile(p, &ppm, keys + start, end - start, &cs->tiles[cs->num_tiles_present++]);
        start = end;
    }
done:
    free(keys);
    free(ppm.joined);
    free(ppm.offsets);
    free(ppm.sizes);
    return status;
}
