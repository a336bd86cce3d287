/* packet_header.c - see packet_header.h (T.800 B.9, B.10). */
#include "packet_header.h"

#include <stdlib.h>

#include "error.h"
#include "marker_io.h"

/* ------------------------------------------------------------ Table B.4 */

void packet_write_pass_count(packet_bit_writer *writer, unsigned passes)
{
    if (passes <= 1) {
        packet_bits_write(writer, 0);
    } else if (passes == 2) {
        packet_bits_write_value(writer, 2, 2); /* 10 */
    } else if (passes <= 5) {
        packet_bits_write_value(writer, 0xC | (passes - 3), 4); /* 11xx */
    } else if (passes <= 36) {
        packet_bits_write_value(writer, 0x1E0 | (passes - 6), 9); /* 1111 xxxxx */
    } else {
        packet_bits_write_value(writer, 0x1FF, 9); /* 1111 11111 xxxxxxx */
        packet_bits_write_value(writer, passes - 37, 7);
    }
}

unsigned packet_read_pass_count(packet_bit_reader *reader)
{
    if (!packet_bits_read(reader))
        return 1;
    if (!packet_bits_read(reader))
        return 2;
    unsigned v = packet_bits_read_value(reader, 2);
    if (v != 3)
        return 3 + v;
    v = packet_bits_read_value(reader, 5);
    if (v != 31)
        return 6 + v;
    return 37 + packet_bits_read_value(reader, 7);
}

unsigned packet_piece_passes(unsigned first, unsigned remaining, unsigned style)
{
    unsigned n = 1;
    while (n < remaining && !tier1_pass_ends_segment(first + n - 1, style))
        n++;
    return n;
}

unsigned packet_floor_log2(uint32_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

/* ------------------------------------------------------- shared helpers */

void packet_header_free(packet_header *header)
{
    free(header->contributions);
    free(header->pieces);
    *header = (packet_header){0};
}

static void header_clear(packet_header *h)
{
    h->empty = true;
    h->sop_found = h->eph_missing = false;
    h->sop_sequence = 0;
    h->num_contributions = h->num_pieces = 0;
    h->body_size = 0;
    h->num_complete = 0;
}

gj2k_status packet_header_add_piece(packet_header *h, uint32_t length, unsigned passes,
                                    gj2k_error *error)
{
    if (h->num_pieces == h->pieces_capacity) {
        tier1_segment *grown = j2k_array_grow(h->pieces, &h->pieces_capacity, h->num_pieces + 1,
                                              sizeof *grown);
        if (grown == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for a packet header");
        h->pieces = grown;
    }
    h->pieces[h->num_pieces++] = (tier1_segment){.length = length, .num_passes = passes};
    return GJ2K_OK;
}

static gj2k_status add_contribution(packet_header *h, const packet_contribution *c,
                                    gj2k_error *error)
{
    if (h->num_contributions == h->contributions_capacity) {
        packet_contribution *grown = j2k_array_grow(h->contributions, &h->contributions_capacity,
                                                    h->num_contributions + 1, sizeof *grown);
        if (grown == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for a packet header");
        h->contributions = grown;
    }
    h->contributions[h->num_contributions++] = *c;
    return GJ2K_OK;
}

/* ------------------------------------------------------------- reading */

static gj2k_status read_block(packet_header *h, tile_precinct_band *pb, uint32_t x, uint32_t y,
                              unsigned layer, unsigned style, packet_bit_reader *bits,
                              gj2k_error *error)
{
    tile_codeblock *block = &pb->blocks[(size_t)y * pb->blocks_wide + x];
    packet_contribution c = {.block = block, .first_pass = block->num_passes};
    bool included;
    uint32_t value = 0;
    if (!block->included) /* B.10.4: tag tree up to this layer */
        included = tag_tree_decode(&pb->inclusion, x, y, layer + 1, bits, &value);
    else
        included = packet_bits_read(bits);
    if (bits->overrun)
        return GJ2K_ERROR_TRUNCATED;
    if (!included)
        return GJ2K_OK;
    if (!block->included) { /* B.10.5: missing MSBs */
        if (!tag_tree_decode(&pb->zero_planes, x, y, TILE_MAX_MISSING_MSBS + 1, bits, &value)) {
            if (bits->overrun)
                return GJ2K_ERROR_TRUNCATED;
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "packet header: more than %u missing bit-planes",
                             TILE_MAX_MISSING_MSBS);
        }
        block->included = true;
        block->missing_msbs = (uint16_t)value;
        c.first_inclusion = true;
    }
    c.new_passes = packet_read_pass_count(bits); /* B.10.6 */
    if (block->num_passes + c.new_passes > TILE_MAX_BLOCK_PASSES)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "packet header: a code-block gets more than %u coding passes",
                         TILE_MAX_BLOCK_PASSES);
    while (packet_bits_read(bits)) { /* B.10.7.1: Lblock increments */
        if (++block->lblock > 32)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "packet header: Lblock above 32");
    }
    c.first_piece = h->num_pieces;
    unsigned pass = block->num_passes, remaining = c.new_passes;
    if ((style & J2K_CBLK_HT) && block->coder == TILE_CODER_AS_STYLED) {
        gj2k_status status = packet_read_ht_opening(h, block, &c, style, bits, error);
        if (status != GJ2K_OK)
            return status;
        pass += remaining;
        remaining = 0;
    }
    unsigned block_style = tile_codeblock_style(block, style);
    while (remaining > 0) { /* B.10.7.2: one length per codeword segment touched */
        unsigned n = packet_piece_passes(pass, remaining, block_style);
        unsigned width = block->lblock + packet_floor_log2(n);
        if (width > 32)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "packet header: a %u-bit codeword segment length", width);
        uint32_t length = packet_bits_read_value(bits, width);
        gj2k_status status = packet_header_add_piece(h, length, n, error);
        if (status != GJ2K_OK)
            return status;
        c.bytes += length;
        pass += n;
        remaining -= n;
    }
    if (bits->overrun)
        return GJ2K_ERROR_TRUNCATED;
    c.num_pieces = h->num_pieces - c.first_piece;
    block->num_passes = (uint16_t)pass;
    h->body_size += c.bytes;
    return add_contribution(h, &c, error);
}

static gj2k_status read_header(packet_header *h, tile_precinct *precinct, unsigned num_bands,
                               unsigned layer, unsigned style, packet_bit_reader *bits,
                               gj2k_error *error)
{
    unsigned present = packet_bits_read(bits); /* B.10.3 */
    if (bits->overrun)
        return GJ2K_ERROR_TRUNCATED;
    h->empty = !present;
    if (!present)
        return GJ2K_OK;
    for (unsigned b = 0; b < num_bands; b++) {
        tile_precinct_band *pb = &precinct->bands[b];
        for (uint32_t y = 0; y < pb->blocks_high; y++)
            for (uint32_t x = 0; x < pb->blocks_wide; x++) {
                gj2k_status status = read_block(h, pb, x, y, layer, style, bits, error);
                if (status != GJ2K_OK)
                    return status;
            }
    }
    return GJ2K_OK;
}

/* The stream's current byte; NULL for an empty stream without storage. */
static const uint8_t *stream_at(const packet_stream *s)
{
    return s->data != NULL ? s->data + s->position : NULL;
}

gj2k_status packet_read(packet_header *header, tile_precinct *precinct, unsigned num_bands,
                        unsigned layer, unsigned style, bool use_sop, bool use_eph,
                        packet_stream *headers, packet_stream *body, gj2k_error *error)
{
    header_clear(header);
    size_t body_start = body->position, headers_start = headers->position;
    size_t left = body->size - body->position;
    if (use_sop && left >= J2K_SOP_SEGMENT_SIZE &&
        j2k_sop_parse(stream_at(body), left, &header->sop_sequence)) {
        header->sop_found = true;
        body->position += J2K_SOP_SEGMENT_SIZE;
    } else if (use_sop && left > 0 && left < J2K_SOP_SEGMENT_SIZE && stream_at(body)[0] == 0xFF &&
               (left == 1 || stream_at(body)[1] == 0x91)) {
        /* A.8.1: an SOP marker segment cut short, not a body (code-block data
           never holds 0xFF91, nor ends on 0xFF) */
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "SOP marker segment cut short");
    }
    packet_bit_reader bits;
    packet_bit_reader_init(&bits, stream_at(headers), headers->size - headers->position);
    gj2k_status status = read_header(header, precinct, num_bands, layer, style, &bits, error);
    size_t length = packet_bits_finish(&bits);
    if (status == GJ2K_OK && bits.overrun)
        status = GJ2K_ERROR_TRUNCATED;
    if (status != GJ2K_OK) {
        body->position = body_start;
        headers->position = headers_start;
        if (status == GJ2K_ERROR_TRUNCATED)
            return gj2k_fail(error, status, "packet header cut short");
        return status;
    }
    headers->position += length;
    if (use_eph) { /* A.8.2 */
        const uint8_t *p = stream_at(headers);
        if (headers->size - headers->position >= J2K_EPH_SIZE && p[0] == 0xFF && p[1] == 0x92)
            headers->position += J2K_EPH_SIZE;
        else
            header->eph_missing = true;
    }
    size_t available = body->size - body->position;
    uint64_t offset = 0;
    for (size_t i = 0; i < header->num_contributions; i++) {
        packet_contribution *c = &header->contributions[i];
        if (c->bytes > available - offset) {
            body->position = body->size;
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "packet body cut short: %llu bytes announced, %zu there",
                             (unsigned long long)header->body_size, available);
        }
        c->data = c->bytes > 0 ? stream_at(body) + offset : NULL;
        offset += c->bytes;
        header->num_complete = i + 1;
    }
    body->position += (size_t)offset;
    return GJ2K_OK;
}

/* ------------------------------------------------------------- writing */

/* The choice an HT block's source sends by layer `layer`, or NULL. */
static const tile_codeblock_choice *source_choice(const tile_codeblock_source *s, unsigned layer)
{
    if (s == NULL || s->choices == NULL || s->layer_passes == NULL)
        return NULL;
    unsigned n = s->layer_passes[layer];
    return n > 0 && n <= s->num_passes ? &s->choices[n - 1] : NULL;
}

/* Passes a block's source puts in the packets of layers 0..layer. */
static unsigned source_passes(const tile_codeblock_source *s, unsigned layer)
{
    if (s == NULL || s->layer_passes == NULL)
        return 0;
    if (s->choices != NULL) {
        const tile_codeblock_choice *c = source_choice(s, layer);
        return c != NULL ? c->num_passes : 0;
    }
    unsigned n = s->layer_passes[layer];
    return n < s->num_passes ? n : s->num_passes;
}

/* The missing MSBs the block is sent with: its choice's, for HT choices
 * (the one of the last layer: the first that includes it must agree). */
static unsigned source_missing_msbs(const tile_codeblock_source *s, unsigned num_layers)
{
    if (s == NULL)
        return 0;
    if (s->choices == NULL)
        return s->missing_msbs;
    const tile_codeblock_choice *c = source_choice(s, num_layers - 1);
    return c != NULL ? c->missing_msbs : s->missing_msbs; /* never sent: as Part 1's (Mb) */
}

static void setup_trees(tile_precinct *precinct, unsigned num_bands, unsigned num_layers)
{
    for (unsigned b = 0; b < num_bands; b++) {
        tile_precinct_band *pb = &precinct->bands[b];
        for (uint32_t y = 0; y < pb->blocks_high; y++)
            for (uint32_t x = 0; x < pb->blocks_wide; x++) {
                const tile_codeblock_source *s = pb->blocks[(size_t)y * pb->blocks_wide + x].source;
                uint32_t first = UINT32_MAX; /* never included */
                for (unsigned l = 0; l < num_layers; l++)
                    if (source_passes(s, l) > 0) {
                        first = l;
                        break;
                    }
                tag_tree_set_value(&pb->inclusion, x, y, first);
                tag_tree_set_value(&pb->zero_planes, x, y, source_missing_msbs(s, num_layers));
            }
        tag_tree_update_minima(&pb->inclusion);
        tag_tree_update_minima(&pb->zero_planes);
        tag_tree_reset(&pb->inclusion);
        tag_tree_reset(&pb->zero_planes);
    }
}

static size_t pass_end(const tile_codeblock_source *s, unsigned passes)
{
    return passes == 0 ? 0 : s->pass_lengths[passes - 1];
}

uint64_t packet_source_bytes(const tile_codeblock_source *s, unsigned from, unsigned to)
{
    size_t start = pass_end(s, from), stop = pass_end(s, to);
    return stop >= start ? stop - start : UINT64_MAX; /* UINT64_MAX: refused as a length */
}

gj2k_status packet_plan_add(packet_plan *plan, uint64_t length, unsigned passes,
                            bool marked_cleanup, gj2k_error *error)
{
    if (plan->count == PACKET_MAX_NEW_PASSES || length > UINT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "bad code-block pass lengths");
    unsigned needed = length == 0 ? 0 : packet_floor_log2((uint32_t)length) + 1;
    unsigned extra = packet_floor_log2(passes);
    if (marked_cleanup) /* a leading 0 (packet_header_ht.c) */
        needed++;
    if (needed > extra && needed - extra > plan->lblock)
        plan->lblock = needed - extra;
    if (marked_cleanup && plan->lblock < 4)
        plan->lblock = 4;
    if (plan->lblock + extra > 32)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "a code-block length of %u bits",
                         plan->lblock + extra);
    plan->pieces[plan->count++] = (tier1_segment){.length = (uint32_t)length, .num_passes = passes};
    return GJ2K_OK;
}

static gj2k_status write_block(tile_precinct_band *pb, uint32_t x, uint32_t y, unsigned layer,
                               unsigned num_layers, unsigned style, packet_bit_writer *bits,
                               byte_buffer *payload, gj2k_error *error)
{
    tile_codeblock *block = &pb->blocks[(size_t)y * pb->blocks_wide + x];
    const tile_codeblock_source *s = block->source;
    unsigned target = source_passes(s, layer);
    tile_codeblock_source chosen; /* an HT block's choice, seen as its passes */
    const tile_codeblock_choice *choice = source_choice(s, layer);
    if (choice != NULL) {
        if (choice != source_choice(s, num_layers - 1))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "an HT code-block changes its cleanup pass between layers");
        chosen = (tile_codeblock_source){.data = choice->data,
                                         .pass_lengths = choice->pass_lengths,
                                         .num_passes = choice->num_passes,
                                         .missing_msbs = choice->missing_msbs};
        s = &chosen;
    }
    unsigned first = block->num_passes;
    unsigned n = target > first ? target - first : 0;
    if (n > PACKET_MAX_NEW_PASSES)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "a code-block adds %u passes in one layer (at most %u)", n,
                         PACKET_MAX_NEW_PASSES);
    if (!block->included)
        tag_tree_encode(&pb->inclusion, x, y, layer + 1, bits);
    else
        packet_bits_write(bits, n > 0);
    if (n == 0)
        return GJ2K_OK;
    if (!block->included) {
        if (s->missing_msbs > TILE_MAX_MISSING_MSBS)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "a code-block with %u missing bit-planes", s->missing_msbs);
        tag_tree_encode(&pb->zero_planes, x, y, s->missing_msbs + 1u, bits);
        block->included = true;
        block->missing_msbs = (uint16_t)s->missing_msbs;
    }
    packet_write_pass_count(bits, n);
    packet_plan plan = {.lblock = block->lblock, .coder = block->coder};
    gj2k_status status = GJ2K_OK;
    if ((style & J2K_CBLK_HT) && block->coder == TILE_CODER_AS_STYLED) {
        status = packet_plan_ht_opening(s, block->source->part1, first, n, style, &plan, error);
    } else {
        unsigned block_style = tile_codeblock_style(block, style);
        for (unsigned pass = first, left = n; left > 0 && status == GJ2K_OK;) {
            unsigned m = packet_piece_passes(pass, left, block_style);
            status = packet_plan_add(&plan, packet_source_bytes(s, pass, pass + m), m, false,
                                     error);
            pass += m;
            left -= m;
        }
    }
    if (status != GJ2K_OK)
        return status;
    for (unsigned i = block->lblock; i < plan.lblock; i++) /* B.10.7.1 */
        packet_bits_write(bits, 1);
    packet_bits_write(bits, 0);
    block->lblock = (uint8_t)plan.lblock;
    block->coder = plan.coder;
    for (unsigned i = 0; i < plan.count; i++)
        packet_bits_write_value(bits, plan.pieces[i].length,
                                plan.lblock + packet_floor_log2(plan.pieces[i].num_passes));
    byte_buffer_append(payload, s->data + pass_end(s, first), pass_end(s, target) - pass_end(s, first));
    block->num_passes = (uint16_t)target;
    return GJ2K_OK;
}

gj2k_status packet_write(tile_precinct *precinct, unsigned num_bands, unsigned layer,
                         unsigned style, const packet_write_options *options,
                         byte_buffer *headers, byte_buffer *body, size_t *body_bytes,
                         gj2k_error *error)
{
    if (layer >= options->num_layers)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "layer %u of %u", layer,
                         options->num_layers);
    if (layer == 0)
        setup_trees(precinct, num_bands, options->num_layers);
    bool any = false;
    for (unsigned b = 0; b < num_bands && !any; b++) {
        const tile_precinct_band *pb = &precinct->bands[b];
        for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high && !any; i++)
            any = source_passes(pb->blocks[i].source, layer) > pb->blocks[i].num_passes;
    }
    size_t body_before = body->size;
    if (options->use_sop)
        j2k_sop_write(body, options->sequence);
    packet_bit_writer bits;
    packet_bit_writer_init(&bits, headers);
    byte_buffer payload = {.counting = body->counting}; /* sizes only, when body counts */
    packet_bits_write(&bits, any); /* B.10.3 */
    gj2k_status status = GJ2K_OK;
    for (unsigned b = 0; b < num_bands && any && status == GJ2K_OK; b++) {
        tile_precinct_band *pb = &precinct->bands[b];
        for (uint32_t y = 0; y < pb->blocks_high && status == GJ2K_OK; y++)
            for (uint32_t x = 0; x < pb->blocks_wide && status == GJ2K_OK; x++)
                status = write_block(pb, x, y, layer, options->num_layers, style, &bits, &payload,
                                     error);
    }
    packet_bits_flush(&bits);
    if (options->use_eph)
        j2k_marker_write(headers, J2K_EPH);
    byte_buffer_append(body, payload.data, payload.size);
    if (status == GJ2K_OK && (payload.failed || body->failed || headers->failed))
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory writing a packet");
    byte_buffer_free(&payload);
    if (body_bytes != NULL)
        *body_bytes += body->size - body_before;
    return status;
}
