/* SPDX-License-Identifier: MIT */
/* The fuzz target without libFuzzer: a deterministic mutation loop over the seed snapshots
 * (bit flips, random bytes, interesting 32-bit values, copied and removed spans, truncation),
 * for a number of iterations or seconds, whichever ends first. With a directory argument it
 * only writes the seeds there (the corpus for libFuzzer).
 *   fuzz_load_loop [iterations [seconds [rng seed]]]
 *   fuzz_load_loop --write-corpus DIR
 *   fuzz_load_loop --replay FILE... (inputs found by libFuzzer, without its runtime) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_seeds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t mutate(unsigned char *d, size_t size, size_t cap)
{
    static const uint32_t interesting[] = {0, 1, 2, 3, 4, 7, 8, 16, 255, 256, 0x7fff, 0xffff, 0x10000,
                                           0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    const int edits = 1 + (int)(rnd() % 4);
    for (int e = 0; e < edits && size > 33; e++) {
        const size_t at = 32 + (size_t)(rnd() % (size - 32));
        switch (rnd() % 8) {
        case 0: d[at] ^= (unsigned char)(1u << (rnd() % 8)); break;
        case 1: d[at] = (unsigned char)rnd(); break;
        case 2:
        case 3:
            if (size - at >= 4) {
                uint32_t v = interesting[rnd() % (sizeof interesting / sizeof interesting[0])];
                if (rnd() % 3 == 0) /* near the current value: off by a little */
                    v = (uint32_t)(d[at] | d[at + 1] << 8 | d[at + 2] << 16 | (uint32_t)d[at + 3] << 24) +
                        (uint32_t)(rnd() % 5) - 2u;
                memcpy(d + at, &v, 4);
            }
            break;
        case 4: { /* a double set to an extreme */
            static const double xs[] = {0.0, -1.0, 1e-300, 4.5e-22, 1e300, 1e20, -0.0, 1.0};
            if (size - at >= 8)
                memcpy(d + at, &xs[rnd() % 8], 8);
            break;
        }
        case 5: { /* copy a span elsewhere */
            const size_t from = 32 + (size_t)(rnd() % (size - 32)), len = 1 + (size_t)(rnd() % 64);
            if (from + len <= size && at + len <= size)
                memmove(d + at, d + from, len);
            break;
        }
        case 6: { /* remove a span */
            const size_t len = 1 + (size_t)(rnd() % 16);
            if (at + len <= size) {
                memmove(d + at, d + at + len, size - at - len);
                size -= len;
            }
            break;
        }
        default: /* insert bytes */
            if (size + 8 <= cap) {
                memmove(d + at + 8, d + at, size - at);
                for (int k = 0; k < 8; k++)
                    d[at + k] = (unsigned char)rnd();
                size += 8;
            }
            break;
        }
    }
    return size;
}

static int write_corpus(const char *dir)
{
    for (int k = 0; k < FUZZ_SEED_COUNT; k++) {
        tu_stream s;
        const char *name;
        if (!fuzz_seed(k, &s, &name))
            return 1;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.snap", dir, name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(s.data, 1, s.size, f) != s.size)
            return 1;
        fclose(f);
        tu_stream_free(&s);
    }
    return 0;
}

static int replay(int count, char **paths)
{
    for (int k = 0; k < count; k++) {
        tu_stream s;
        tu_stream_init(&s);
        FILE *f = fopen(paths[k], "rb");
        if (!f)
            return 1;
        unsigned char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            tu_stream_write(&s, buf, n);
        fclose(f);
        const time_t start = time(NULL);
        LLVMFuzzerTestOneInput(s.data, s.size);
        printf("%s: %zu bytes, %.0f s\n", paths[k], s.size, difftime(time(NULL), start));
        tu_stream_free(&s);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "--replay") == 0)
        return replay(argc - 2, argv + 2);
    const long iterations = argc > 1 ? atol(argv[1]) : 2000;
    const double seconds = argc > 2 ? atof(argv[2]) : 30;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x9e3779b97f4a7c15ull;
    tu_stream seeds[FUZZ_SEED_COUNT];
    size_t cap = 0;
    for (int k = 0; k < FUZZ_SEED_COUNT; k++) {
        const char *name;
        if (!fuzz_seed(k, &seeds[k], &name)) {
            fprintf(stderr, "seed %d failed\n", k);
            return 1;
        }
        LLVMFuzzerTestOneInput(seeds[k].data, seeds[k].size); /* the seeds themselves */
        if (seeds[k].size > cap)
            cap = seeds[k].size;
    }
    cap += 4096;
    unsigned char *buf = (unsigned char *)malloc(cap);
    const time_t start = time(NULL); /* wall time: the suite's timeout is wall time */
    long done = 0;
    for (; done < iterations; done++) {
        if (difftime(time(NULL), start) > seconds)
            break;
        const tu_stream *s = &seeds[rnd() % FUZZ_SEED_COUNT];
        memcpy(buf, s->data, s->size);
        const size_t size = mutate(buf, s->size, cap);
        LLVMFuzzerTestOneInput(buf, size);
    }
    printf("%ld mutated snapshots in %.0f s, no crash\n", done, difftime(time(NULL), start));
    free(buf);
    for (int k = 0; k < FUZZ_SEED_COUNT; k++)
        tu_stream_free(&seeds[k]);
    return 0;
}
