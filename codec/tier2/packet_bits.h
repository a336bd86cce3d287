/* packet_bits.h - the bit-level coding of packet headers (T.800 B.10.1):
 * bits most significant first; a byte that follows a 0xFF byte carries only
 * 7 bits, its most significant bit being a stuffed 0. A header ends on a byte
 * boundary and never with a 0xFF byte. */
#ifndef GJ2K_PACKET_BITS_H
#define GJ2K_PACKET_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"

typedef struct packet_bit_reader {
    const uint8_t *data;
    size_t size;
    size_t position;   /* bytes loaded so far */
    uint8_t current;   /* the byte being read */
    unsigned bits_left; /* unread bits of `current` */
    bool overrun;      /* a read went past `size` (reads then give 0) */
} packet_bit_reader;

void packet_bit_reader_init(packet_bit_reader *reader, const uint8_t *data, size_t size);
/* One bit; past the end sets `overrun` and gives 0. */
unsigned packet_bits_read(packet_bit_reader *reader);
/* `count` (0..32) bits, most significant first. */
uint32_t packet_bits_read_value(packet_bit_reader *reader, unsigned count);
/* Ends the header (B.10.1): skips the padding bits and, after a final 0xFF
 * byte, the byte holding its stuffed bit. Returns the header's size in bytes
 * (the reader's position). Sets `overrun` when that byte is missing. */
size_t packet_bits_finish(packet_bit_reader *reader);

typedef struct packet_bit_writer {
    byte_buffer *out;
    uint8_t current;    /* bits gathered, aligned at the top of the byte */
    unsigned bits_used; /* of the byte's capacity */
    unsigned capacity;  /* 8, or 7 after a 0xFF byte */
    bool last_was_ff;   /* the last byte emitted was 0xFF */
} packet_bit_writer;

void packet_bit_writer_init(packet_bit_writer *writer, byte_buffer *out);
void packet_bits_write(packet_bit_writer *writer, unsigned bit);
/* The low `count` (0..32) bits of `value`, most significant first. */
void packet_bits_write_value(packet_bit_writer *writer, uint32_t value, unsigned count);
/* Pads the last byte with 0 bits and, when the header would end with 0xFF,
 * emits the byte that carries its stuffed bit (B.10.1). */
void packet_bits_flush(packet_bit_writer *writer);

#endif
