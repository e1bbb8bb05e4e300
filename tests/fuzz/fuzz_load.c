/* SPDX-License-Identifier: MIT */
/* Fuzz target for gr_world_load: whatever the loader accepts must be safe to step and to save
 * and load again. The input is a snapshot; its checksums are recomputed first, so that
 * mutations reach the content checks instead of stopping at the checksum (the checksum code is
 * a few lines the unit tests cover). A world of the snapshot's solver with host hooks loads it
 * (so host-owned bodies load too). Built for libFuzzer (clang -fsanitize=fuzzer) and for the
 * plain mutation loop of fuzz_main.c. */
#include <granular/granular.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seeds.h"

/* A failed expectation: crash loudly so that either driver reports the input. */
#define FUZZ_ASSERT(cond)    \
    do {                     \
        if (!(cond))         \
            abort();         \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 32 || size > (1u << 22))
        return 0;
    tu_stream s;
    tu_stream_init(&s);
    tu_stream_write(&s, data, size);
    tu_reseal(&s);
    const uint32_t solver = tu_get32(s.data + 12);
    gr_world_def def;
    gr_world_def_init(&def, solver == GR_SOLVER_PBD ? GR_SOLVER_PBD : GR_SOLVER_DEM);
    def.host = fuzz_host_hooks();
    gr_world *w;
    FUZZ_ASSERT(gr_world_create(&def, &w) == GR_OK);
    s.pos = 0;
    const gr_status st = gr_world_load(w, tu_stream_read, &s);
    /* refusals name their reason, never a source line */
    FUZZ_ASSERT(st == GR_OK || (gr_world_last_error(w)[0] != 0 && !strstr(gr_world_last_error(w), ".c:")));
    if (st == GR_OK) {
        /* stepping may refuse (unstable, too much work), never crash */
        for (int i = 0; i < 3; i++)
            if (gr_step(w, 1.0 / 240) != GR_OK)
                break;
        tu_stream again;
        tu_stream_init(&again);
        if (gr_world_save(w, tu_stream_write, &again) == GR_OK) {
            again.pos = 0;
            const gr_status back = gr_world_load(w, tu_stream_read, &again);
            /* a world saves what it can load, except a blow-up's non-finite state */
            FUZZ_ASSERT(back == GR_OK || back == GR_ERROR_CORRUPT_DATA);
        }
        tu_stream_free(&again);
    }
    gr_world_destroy(w);
    tu_stream_free(&s);
    return 0;
}
