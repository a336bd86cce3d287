/* test_byte_buffer.c - the output buffer of every writer: appends of every
 * kind keep their bytes in order, and a counting buffer (the encoder's
 * Tier-2 dry runs) adds up the same size while keeping none. */
#include <stdlib.h>
#include <string.h>

#include "byte_buffer.h"
#include "test_harness.h"

/* The same writes, of random lengths and kinds, to `b`. */
static void write_some(byte_buffer *b, unsigned seed)
{
    static const uint8_t block[10000] = {1, 2, 3};
    unsigned x = seed;
    for (int k = 0; k < 200; k++) {
        x = x * 1664525u + 1013904223u;
        switch (x >> 29) {
        case 0: byte_buffer_put_u8(b, (uint8_t)x); break;
        case 1: byte_buffer_put_u16_be(b, (uint16_t)x); break;
        case 2: byte_buffer_put_u32_le(b, x); break;
        case 3: byte_buffer_printf(b, "%u-%d", x, k); break;
        default: byte_buffer_append(b, block, (x >> 8) % sizeof block); break;
        }
    }
}

static void counting_matches_writing(void)
{
    for (unsigned seed = 1; seed <= 20; seed++) {
        byte_buffer kept = {0}, counted = {.counting = true};
        write_some(&kept, seed);
        write_some(&counted, seed);
        CHECK(!kept.failed && !counted.failed);
        CHECK_EQ(counted.size, kept.size);
        CHECK(counted.data == NULL && kept.data != NULL);
        CHECK(byte_buffer_reserve(&counted, 1u << 30) && counted.data == NULL);
        byte_buffer_free(&kept);
        byte_buffer_free(&counted);
    }
}

static void bytes_in_order(void)
{
    byte_buffer b = {0};
    byte_buffer_put_u8(&b, 0x01);
    byte_buffer_put_u16_be(&b, 0x0203);
    byte_buffer_put_u16_le(&b, 0x0504);
    byte_buffer_put_u32_be(&b, 0x06070809);
    byte_buffer_put_u32_le(&b, 0x0D0C0B0A);
    byte_buffer_append(&b, "\x0E\x0F", 2);
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    CHECK_EQ(b.size, sizeof want);
    CHECK(b.size == sizeof want && memcmp(b.data, want, sizeof want) == 0);
    size_t size = 0;
    uint8_t *data = byte_buffer_release(&b, &size);
    CHECK(size == sizeof want && data != NULL && b.data == NULL && b.size == 0);
    free(data);
}

static const test_case cases[] = {
    {"counting_matches_writing", counting_matches_writing},
    {"bytes_in_order", bytes_in_order},
};
TEST_MAIN(cases)
