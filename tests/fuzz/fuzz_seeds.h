/* SPDX-License-Identifier: MIT */
/* Seed snapshots for the loader's fuzz target: one of every solver and feature. */
#ifndef GR_FUZZ_SEEDS_H
#define GR_FUZZ_SEEDS_H

#include <stddef.h>

#include "../test_util.h"

#define FUZZ_SEED_COUNT 5

/// Snapshot number k (0 <= k < FUZZ_SEED_COUNT) into *out (a fresh stream); its name in *name.
/// Returns 0 on failure.
int fuzz_seed(int k, tu_stream *out, const char **name);

/// The host hooks a loading world needs for snapshots with host-owned bodies.
gr_host_hooks fuzz_host_hooks(void);

#endif
