/* SPDX-License-Identifier: MIT */
/* Snapshot byte streams: little-endian scalars, CRC-32, and bounds-checked reading. */
#ifndef GR_CORE_STREAM_H
#define GR_CORE_STREAM_H

#include "common.h"

/// Writer: with write == NULL it only counts bytes and checksums (the sizing pass).
typedef struct gr_stream_writer {
    gr_write_fn *write;
    void *user;
    uint64_t size;
    uint32_t crc;
    bool failed;
    uint32_t fill;
    unsigned char buf[4096];
} gr_stream_writer;

void gr_writer_init(gr_stream_writer *w, gr_write_fn *write, void *user);
void gr_writer_bytes(gr_stream_writer *w, const void *data, size_t size);
void gr_writer_u32(gr_stream_writer *w, uint32_t v);
void gr_writer_u64(gr_stream_writer *w, uint64_t v);
void gr_writer_f64(gr_stream_writer *w, double v);
void gr_writer_u32s(gr_stream_writer *w, const uint32_t *v, size_t n);
void gr_writer_u16s(gr_stream_writer *w, const uint16_t *v, size_t n);
void gr_writer_f64s(gr_stream_writer *w, const double *v, size_t n);
/// Flush the buffer; returns false if any write came up short.
bool gr_writer_finish(gr_stream_writer *w);

/// Reader over an in-memory payload. Any read past the end sets `bad` and yields zeros.
typedef struct gr_stream_reader {
    const unsigned char *data;
    size_t size;
    size_t pos;
    bool bad;
    const char *fail_what; ///< the first broken rule, a phrase for the error message (NULL: none)
    uint32_t format;       ///< snapshot format being read (older ones lack some fields)
} gr_stream_reader;

void gr_reader_init(gr_stream_reader *r, const void *data, size_t size);
uint32_t gr_reader_u32(gr_stream_reader *r);
uint64_t gr_reader_u64(gr_stream_reader *r);
double gr_reader_f64(gr_stream_reader *r);
void gr_reader_bytes(gr_stream_reader *r, void *out, size_t size);
void gr_reader_u32s(gr_stream_reader *r, uint32_t *v, size_t n);
void gr_reader_u16s(gr_stream_reader *r, uint16_t *v, size_t n);
void gr_reader_f64s(gr_stream_reader *r, double *v, size_t n);
/// Bytes left (to bound counts read from the stream before allocating for them).
static inline size_t gr_reader_left(const gr_stream_reader *r) { return r->bad ? 0 : r->size - r->pos; }

/// Record why loading stops (the first reason wins; a read past the end is named as such).
static inline void gr_reader_fail(gr_stream_reader *r, const char *what)
{
    if (!r->fail_what)
        r->fail_what = r->bad ? "its content ends before everything it declares was read" : what;
}

/// A loader's consistency check: unless `cond` holds (and nothing was read past the end),
/// stop with GR_ERROR_CORRUPT_DATA, `what` saying in words which rule the snapshot breaks.
#define GR_LOAD_CHECK(r, cond, what)          \
    do {                                      \
        if ((r)->bad || !(cond)) {            \
            gr_reader_fail((r), (what));      \
            return GR_ERROR_CORRUPT_DATA;     \
        }                                     \
    } while (0)

#endif /* GR_CORE_STREAM_H */
