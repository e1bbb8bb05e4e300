#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Verify a PNG written by the examples, with the Python standard library only.

Usage: python3 check_png.py FILE.png [min_distinct_colours]

Checks the signature, every chunk's CRC, IHDR sanity (8-bit grey/RGB/grey+alpha/RGBA, no
interlace), the chunk order (IHDR first, contiguous IDATs, IEND last), decompresses the zlib
stream (which verifies its Adler-32), undoes the row filters (all five PNG filter types) and
checks the image is not blank: at least min_distinct_colours distinct pixel values (default 2).
Exits 0 and prints a one-line summary on success; prints the problem and exits 1 otherwise.
"""
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel (8-bit only)


class PngError(Exception):
    pass


def read_chunks(data):
    if data[:8] != SIGNATURE:
        raise PngError("bad PNG signature")
    pos, chunks = 8, []
    while True:
        if pos + 12 > len(data):
            raise PngError("truncated chunk header at offset %d" % pos)
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        if length > 0x7FFFFFFF or pos + 12 + length > len(data):
            raise PngError("chunk %r at offset %d overruns the file" % (ctype, pos))
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise PngError("CRC mismatch in chunk %r at offset %d" % (ctype, pos))
        chunks.append((ctype, body))
        pos += 12 + length
        if ctype == b"IEND":
            break
    if pos != len(data):
        raise PngError("%d trailing bytes after IEND" % (len(data) - pos))
    return chunks


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    if len(raw) != height * (stride + 1):
        raise PngError("decompressed size %d, expected %d" % (len(raw), height * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 0:
            pass
        elif ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xFF
        else:
            raise PngError("row %d has unknown filter type %d" % (y, ftype))
        rows.append(bytes(line))
        prev = line
    return rows


def check(path, min_colours):
    with open(path, "rb") as f:
        data = f.read()
    chunks = read_chunks(data)
    types = [t for t, _ in chunks]
    if types[0] != b"IHDR" or len(chunks[0][1]) != 13:
        raise PngError("first chunk is not a 13-byte IHDR")
    width, height, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if not (0 < width <= 0x7FFFFFFF and 0 < height <= 0x7FFFFFFF):
        raise PngError("bad dimensions %dx%d" % (width, height))
    if depth != 8 or ctype not in CHANNELS:
        raise PngError("unsupported bit depth %d / colour type %d" % (depth, ctype))
    if comp != 0 or filt != 0 or interlace != 0:
        raise PngError("bad compression/filter/interlace method %d/%d/%d" % (comp, filt, interlace))
    idat = [i for i, t in enumerate(types) if t == b"IDAT"]
    if not idat:
        raise PngError("no IDAT chunk")
    if idat != list(range(idat[0], idat[-1] + 1)):
        raise PngError("IDAT chunks are not contiguous")
    if types.count(b"IHDR") != 1 or types.count(b"IEND") != 1:
        raise PngError("duplicate IHDR or IEND")
    try:
        raw = zlib.decompress(b"".join(chunks[i][1] for i in idat))  # checks Adler-32 too
    except zlib.error as e:
        raise PngError("zlib stream: %s" % e)
    bpp = CHANNELS[ctype]
    rows = unfilter(raw, width, height, bpp)
    colours = set()
    for line in rows:
        colours.update(line[i:i + bpp] for i in range(0, len(line), bpp))
        if len(colours) >= max(min_colours, 1) and len(colours) > 4096:
            break  # enough evidence; avoid building a huge set for big photos
    if len(colours) < min_colours:
        raise PngError("too few distinct colours (blank image?): %d, need %d"
                       % (len(colours), min_colours))
    return width, height, ctype, len(colours)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        min_colours = int(argv[2]) if len(argv) == 3 else 2
    except ValueError:
        print("min_distinct_colours must be an integer", file=sys.stderr)
        return 2
    try:
        w, h, ctype, n = check(argv[1], min_colours)
    except (OSError, PngError) as e:
        print("%s: FAIL: %s" % (argv[1], e), file=sys.stderr)
        return 1
    print("%s: OK %dx%d colour type %d, %s distinct colours"
          % (argv[1], w, h, ctype, ("%d" % n) if n <= 4096 else ">4096"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
