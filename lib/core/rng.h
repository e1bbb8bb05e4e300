/* SPDX-License-Identifier: MIT */
/* splitmix64: tiny, seedable, reproducible on every platform (also the bench lattice's). */
#ifndef GR_CORE_RNG_H
#define GR_CORE_RNG_H

#include <stdint.h>

typedef struct gr_rng {
    uint64_t state;
} gr_rng;

static inline uint64_t gr_rng_next(gr_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Uniform in [0, 1) with 53 random bits.
static inline double gr_rng_uniform(gr_rng *r)
{
    return (double)(gr_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* GR_CORE_RNG_H */
