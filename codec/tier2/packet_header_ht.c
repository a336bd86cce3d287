/* packet_header_ht.c - the lengths of an HT code-block's first passes in a
 * packet header (T.814 Annex B), until its first HT cleanup pass: passes
 * before it are placeholders (no bytes) and share its segment, so the
 * cleanup pass falls on pass 0, 3, 6... of the block; in an HT MIXED
 * tile-component a block whose first bytes are not marked as an HT cleanup
 * segment is a Part 1 block. After the cleanup pass the usual rule holds:
 * each cleanup pass one segment, each SigProp and MagRef pair the next
 * (tier1_pass_ends_segment). */
#include "packet_header.h"

#include "error.h"

/* In a MIXED tile-component, an HT cleanup segment's length is sent with
 * Lblock above 3 and its top bit 0 (a Part 1 block's first length has no
 * leading 0 once Lblock has grown). */
static bool marks_ht_cleanup(uint32_t length, unsigned width, unsigned lblock)
{
    return lblock > 3 && length > 1 && (length >> (width - 1)) == 0;
}

static gj2k_status read_length(packet_bit_reader *bits, unsigned width, uint32_t *length,
                               gj2k_error *error)
{
    if (width > 32)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "packet header: a %u-bit codeword segment length", width);
    *length = packet_bits_read_value(bits, width);
    return GJ2K_OK;
}

gj2k_status packet_read_ht_opening(packet_header *h, tile_codeblock *block,
                                   packet_contribution *c, unsigned style,
                                   packet_bit_reader *bits, gj2k_error *error)
{
    unsigned first = block->num_passes, n = c->new_passes;
    unsigned after = (first + n - 1) % 3; /* passes after the last cleanup position */
    bool mixed = (style & J2K_CBLK_HT_MIXED) != 0;
    uint32_t length = 0;
    gj2k_status status;
    if (n > after) { /* the new passes reach a cleanup position */
        unsigned upto = n - after, width = block->lblock + packet_floor_log2(upto);
        status = read_length(bits, width, &length, error);
        if (status != GJ2K_OK)
            return status;
        if (length != 0 && (!mixed || marks_ht_cleanup(length, width, block->lblock))) {
            if (length < 2)
                return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                                 "packet header: an HT cleanup segment of %u byte", length);
            block->coder = TILE_CODER_HT;
            c->placeholder_passes = upto - 1;
            status = packet_header_add_piece(h, length, 1, error);
            c->bytes += length;
            if (status != GJ2K_OK || after == 0)
                return status;
            status = read_length(bits, block->lblock + packet_floor_log2(after), &length, error);
            if (status == GJ2K_OK)
                status = packet_header_add_piece(h, length, after, error);
            c->bytes += length;
            return status;
        }
        /* zero so far, or a Part 1 block: the length has the bits Part 1 gives n passes */
        unsigned extra = packet_floor_log2(n) - packet_floor_log2(upto);
        if (width + extra > 32)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "packet header: a %u-bit codeword segment length", width + extra);
        length = (length << extra) | packet_bits_read_value(bits, extra);
    } else {
        status = read_length(bits, block->lblock + packet_floor_log2(n), &length, error);
        if (status != GJ2K_OK)
            return status;
    }
    if (length == 0) { /* placeholder passes */
        c->placeholder_passes = n;
        return GJ2K_OK;
    }
    if (!mixed)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "packet header: HT placeholder passes with %u bytes", length);
    if (first != 0 || packet_piece_passes(0, n, tile_part1_style(style)) < n)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "packet header: a Part 1 code-block of an HT MIXED tile-component "
                         "starts %s", first != 0 ? "after HT placeholder passes"
                                                 : "with more than one codeword segment");
    block->coder = TILE_CODER_PART1;
    c->bytes += length;
    return packet_header_add_piece(h, length, n, error);
}

gj2k_status packet_plan_ht_opening(const tile_codeblock_source *s, bool part1, unsigned first,
                                   unsigned n, unsigned style, packet_plan *plan,
                                   gj2k_error *error)
{
    bool mixed = (style & J2K_CBLK_HT_MIXED) != 0;
    if (part1) { /* a Part 1 block of a MIXED tile-component: one segment */
        if (!mixed)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "a Part 1 code-block in an HT tile-component that is not MIXED");
        uint64_t length = packet_source_bytes(s, first, first + n);
        if (first != 0 || length == 0 || packet_piece_passes(0, n, tile_part1_style(style)) < n)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "a Part 1 code-block of an HT MIXED tile-component must open with "
                             "bytes in one codeword segment");
        plan->coder = TILE_CODER_PART1;
        return packet_plan_add(plan, length, n, false, error);
    }
    unsigned after = (first + n - 1) % 3;
    uint64_t cleanup = n > after ? packet_source_bytes(s, first, first + n - after) : 0;
    if (cleanup == 0) { /* placeholders only */
        if (packet_source_bytes(s, first, first + n) != 0)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "an HT code-block has bytes in passes before its cleanup pass");
        return packet_plan_add(plan, 0, n, false, error);
    }
    if (packet_source_bytes(s, first, first + n - after - 1) != 0 || cleanup < 2)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "an HT code-block's cleanup pass has %llu bytes, or bytes before it",
                         (unsigned long long)cleanup);
    plan->coder = TILE_CODER_HT;
    gj2k_status status = packet_plan_add(plan, cleanup, n - after, mixed, error);
    if (status == GJ2K_OK && after > 0)
        status = packet_plan_add(plan, packet_source_bytes(s, first + n - after, first + n),
                                 after, false, error);
    return status;
}
