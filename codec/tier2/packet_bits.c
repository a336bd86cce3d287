/* packet_bits.c - see packet_bits.h (T.800 B.10.1). */
#include "packet_bits.h"

void packet_bit_reader_init(packet_bit_reader *reader, const uint8_t *data, size_t size)
{
    *reader = (packet_bit_reader){.data = data, .size = data != NULL ? size : 0};
}

unsigned packet_bits_read(packet_bit_reader *reader)
{
    if (reader->bits_left == 0) {
        if (reader->position >= reader->size) {
            reader->overrun = true;
            return 0;
        }
        /* After 0xFF the stuffed MSB is skipped: 7 bits remain (B.10.1). */
        reader->bits_left = reader->position > 0 && reader->current == 0xFF ? 7u : 8u;
        reader->current = reader->data[reader->position++];
    }
    reader->bits_left--;
    return (reader->current >> reader->bits_left) & 1u;
}

uint32_t packet_bits_read_value(packet_bit_reader *reader, unsigned count)
{
    uint32_t value = 0;
    for (unsigned i = 0; i < count && i < 32; i++)
        value = (value << 1) | packet_bits_read(reader);
    return value;
}

size_t packet_bits_finish(packet_bit_reader *reader)
{
    reader->bits_left = 0;
    if (reader->position > 0 && reader->current == 0xFF) {
        /* The header may not end with 0xFF: the next byte is part of it. */
        if (reader->position >= reader->size)
            reader->overrun = true;
        else
            reader->current = reader->data[reader->position++];
    }
    return reader->position;
}

void packet_bit_writer_init(packet_bit_writer *writer, byte_buffer *out)
{
    *writer = (packet_bit_writer){.out = out, .capacity = 8};
}

static void emit_byte(packet_bit_writer *writer)
{
    byte_buffer_put_u8(writer->out, writer->current);
    writer->last_was_ff = writer->current == 0xFF;
    writer->capacity = writer->last_was_ff ? 7u : 8u;
    writer->current = 0;
    writer->bits_used = 0;
}

void packet_bits_write(packet_bit_writer *writer, unsigned bit)
{
    writer->bits_used++;
    if (bit & 1u)
        writer->current |= (uint8_t)(1u << (writer->capacity - writer->bits_used));
    if (writer->bits_used == writer->capacity)
        emit_byte(writer);
}

void packet_bits_write_value(packet_bit_writer *writer, uint32_t value, unsigned count)
{
    if (count > 32)
        count = 32;
    for (unsigned i = count; i-- > 0;)
        packet_bits_write(writer, (unsigned)(value >> i) & 1u);
}

void packet_bits_flush(packet_bit_writer *writer)
{
    if (writer->bits_used > 0 || writer->last_was_ff)
        emit_byte(writer); /* zero padding; or the stuffed bit's byte after 0xFF */
    writer->last_was_ff = false;
    writer->capacity = 8;
}
