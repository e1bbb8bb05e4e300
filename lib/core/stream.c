/* SPDX-License-Identifier: MIT */
#include "stream.h"

#include "hash.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#  define GR_BIG_ENDIAN 1
#else
#  define GR_BIG_ENDIAN 0
#endif

static void flush(gr_stream_writer *w)
{
    if (w->fill == 0)
        return;
    w->crc = gr_crc32(w->crc, w->buf, w->fill);
    if (w->write && !w->failed && w->write(w->user, w->buf, w->fill) != w->fill)
        w->failed = true;
    w->size += w->fill;
    w->fill = 0;
}

void gr_writer_init(gr_stream_writer *w, gr_write_fn *write, void *user)
{
    w->write = write;
    w->user = user;
    w->size = 0;
    w->crc = 0;
    w->failed = false;
    w->fill = 0;
}

void gr_writer_bytes(gr_stream_writer *w, const void *data, size_t size)
{
    const unsigned char *p = (const unsigned char *)data; /* NULL for an empty array */
    while (size > 0) {
        size_t room = sizeof w->buf - w->fill;
        size_t n = size < room ? size : room;
        memcpy(w->buf + w->fill, p, n);
        w->fill += (uint32_t)n;
        p += n;
        size -= n;
        if (w->fill == sizeof w->buf)
            flush(w);
    }
}

void gr_writer_u64(gr_stream_writer *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    gr_writer_bytes(w, b, 8);
}

void gr_writer_u32(gr_stream_writer *w, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    gr_writer_bytes(w, b, 4);
}

void gr_writer_f64(gr_stream_writer *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    gr_writer_u64(w, u);
}

void gr_writer_u32s(gr_stream_writer *w, const uint32_t *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_writer_bytes(w, v, n * 4);
        return;
    }
    for (size_t i = 0; i < n; i++)
        gr_writer_u32(w, v[i]);
}

void gr_writer_u16s(gr_stream_writer *w, const uint16_t *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_writer_bytes(w, v, n * 2);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char b[2] = {(unsigned char)v[i], (unsigned char)(v[i] >> 8)};
        gr_writer_bytes(w, b, 2);
    }
}

void gr_writer_f64s(gr_stream_writer *w, const double *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_writer_bytes(w, v, n * 8);
        return;
    }
    for (size_t i = 0; i < n; i++)
        gr_writer_f64(w, v[i]);
}

bool gr_writer_finish(gr_stream_writer *w)
{
    flush(w);
    return !w->failed;
}

void gr_reader_init(gr_stream_reader *r, const void *data, size_t size)
{
    r->data = (const unsigned char *)data;
    r->size = size;
    r->pos = 0;
    r->bad = false;
    r->fail_what = NULL;
    r->format = 0;
}

void gr_reader_bytes(gr_stream_reader *r, void *out, size_t size)
{
    if (size == 0)
        return; /* out may be NULL for an empty array */
    if (r->bad || size > r->size - r->pos) {
        r->bad = true;
        memset(out, 0, size);
        return;
    }
    memcpy(out, r->data + r->pos, size);
    r->pos += size;
}

uint64_t gr_reader_u64(gr_stream_reader *r)
{
    unsigned char b[8];
    gr_reader_bytes(r, b, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

uint32_t gr_reader_u32(gr_stream_reader *r)
{
    unsigned char b[4];
    gr_reader_bytes(r, b, 4);
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

double gr_reader_f64(gr_stream_reader *r)
{
    uint64_t u = gr_reader_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

void gr_reader_u32s(gr_stream_reader *r, uint32_t *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_reader_bytes(r, v, n * 4);
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = gr_reader_u32(r);
}

void gr_reader_u16s(gr_stream_reader *r, uint16_t *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_reader_bytes(r, v, n * 2);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char b[2];
        gr_reader_bytes(r, b, 2);
        v[i] = (uint16_t)(b[0] | (b[1] << 8));
    }
}

void gr_reader_f64s(gr_stream_reader *r, double *v, size_t n)
{
    if (!GR_BIG_ENDIAN) {
        gr_reader_bytes(r, v, n * 8);
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = gr_reader_f64(r);
}
