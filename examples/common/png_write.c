/* SPDX-License-Identifier: MIT */
/* Minimal PNG encoder: RGB 8-bit, zlib stream of stored deflate blocks (see png_write.h). */
#include "png_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest payload of one stored deflate block (LEN is a 16-bit field). */
#define STORED_BLOCK_MAX 65535u

/* CRC-32 (ISO 3309 / PNG, reflected polynomial 0xEDB88320), four bits at a time. A 16-entry
 * const table is small enough to write out and avoids any lazily-built global table. */
static const uint32_t crc_nibble_table[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

/* Continue a CRC-32: pass 0 to start; the result is the finished CRC of all bytes so far. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        crc = (crc >> 4) ^ crc_nibble_table[crc & 15u];
        crc = (crc >> 4) ^ crc_nibble_table[crc & 15u];
    }
    return ~crc;
}

static void put_u32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Write a chunk at p: length, type, the `len` data bytes already at p+8, then the CRC over
 * type and data. Returns the chunk's total size. */
static size_t finish_chunk(unsigned char *p, const char type[4], size_t len)
{
    put_u32be(p, (uint32_t)len);
    memcpy(p + 4, type, 4);
    put_u32be(p + 8 + len, crc32_update(0, p + 4, len + 4));
    return len + 12;
}

int png_encode_rgb(int width, int height, const unsigned char *rgb, unsigned char **out,
                   size_t *out_size)
{
    if (!rgb || !out || !out_size || width <= 0 || height <= 0 || width > PNG_WRITE_MAX_DIM ||
        height > PNG_WRITE_MAX_DIM)
        return -1;

    /* With dimensions <= 16384 every size below fits easily in 32 bits, so no overflow
     * checks are needed (raw <= 16384 * (3*16384+1) < 2^30). */
    const size_t row = (size_t)width * 3u + 1u; /* filter byte + pixels */
    const size_t raw = row * (size_t)height;
    const size_t nblocks = (raw + STORED_BLOCK_MAX - 1u) / STORED_BLOCK_MAX;
    const size_t zlen = 2u + nblocks * 5u + raw + 4u; /* header, block headers, data, adler */
    const size_t total = 8u + (12u + 13u) + (12u + zlen) + 12u;

    unsigned char *buf = malloc(total);
    if (!buf)
        return -1;

    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char *p = buf;
    memcpy(p, signature, 8);
    p += 8;

    /* IHDR: width, height, bit depth 8, colour type 2 (RGB), deflate, filter 0, no interlace */
    put_u32be(p + 8, (uint32_t)width);
    put_u32be(p + 12, (uint32_t)height);
    p[16] = 8;
    p[17] = 2;
    p[18] = 0;
    p[19] = 0;
    p[20] = 0;
    p += finish_chunk(p, "IHDR", 13);

    /* IDAT: one chunk holding the whole zlib stream. */
    unsigned char *z = p + 8;
    z[0] = 0x78; /* CMF: deflate, 32K window */
    z[1] = 0x01; /* FLG: no dictionary, fastest level; (0x78*256 + 0x01) % 31 == 0 */
    z += 2;

    /* The raw scanline stream (filter byte 0 then the row's pixels) is cut into stored
     * blocks at arbitrary positions, independent of row boundaries. */
    uint32_t s1 = 1, s2 = 0; /* Adler-32 of the raw stream */
    size_t pos = 0;          /* position in the raw stream */
    size_t left_in_block = 0;
    while (pos < raw) {
        if (left_in_block == 0) {
            size_t n = raw - pos;
            if (n > STORED_BLOCK_MAX)
                n = STORED_BLOCK_MAX;
            z[0] = (pos + n == raw) ? 1 : 0; /* BFINAL, BTYPE=00; byte-aligned */
            z[1] = (unsigned char)(n & 0xFFu);
            z[2] = (unsigned char)(n >> 8);
            z[3] = (unsigned char)(~n & 0xFFu);
            z[4] = (unsigned char)((~n >> 8) & 0xFFu);
            z += 5;
            left_in_block = n;
        }
        const size_t y = pos / row, x = pos % row;
        size_t n = row - x;
        if (n > left_in_block)
            n = left_in_block;
        if (x == 0) {
            z[0] = 0; /* filter type None */
            if (n > 1)
                memcpy(z + 1, rgb + y * (row - 1u), n - 1u);
        } else {
            memcpy(z, rgb + y * (row - 1u) + (x - 1u), n);
        }
        /* Adler-32 over the bytes just copied; reduce modulo 65521 at least every 5552 bytes
         * (the zlib bound that keeps s2 from overflowing 32 bits). */
        for (size_t i = 0; i < n;) {
            size_t m = n - i;
            if (m > 5552u)
                m = 5552u;
            for (size_t k = 0; k < m; ++k) {
                s1 += z[i + k];
                s2 += s1;
            }
            s1 %= 65521u;
            s2 %= 65521u;
            i += m;
        }
        z += n;
        pos += n;
        left_in_block -= n;
    }
    put_u32be(z, (s2 << 16) | s1);
    z += 4;
    p += finish_chunk(p, "IDAT", (size_t)(z - (p + 8)));

    p += finish_chunk(p, "IEND", 0);

    *out = buf;
    *out_size = (size_t)(p - buf);
    return 0;
}

int png_write_rgb(const char *path, int width, int height, const unsigned char *rgb)
{
    if (!path)
        return -1;
    unsigned char *png = NULL;
    size_t size = 0;
    if (png_encode_rgb(width, height, rgb, &png, &size) != 0)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(png);
        return -1;
    }
    const int ok = fwrite(png, 1, size, f) == size;
    free(png);
    return (fclose(f) == 0 && ok) ? 0 : -1;
}
