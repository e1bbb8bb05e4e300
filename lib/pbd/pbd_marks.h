/* SPDX-License-Identifier: MIT */
/* The Gauss-Seidel sweeps' block marks (pbd_solve.c, pbd_rigid.c): a block is swept again when
 * a particle in it or next to it moved. Inline: the sweeps mark blocks in their inner loops. */
#ifndef GR_PBD_MARKS_H
#define GR_PBD_MARKS_H

#include "pbd_internal.h"

/* Block `block` and its 26 neighbours are swept in the coming sweep: a particle of the block
 * moved, and its contacts reach into the neighbouring cells, hence blocks. */
static inline void pbd_marks_around(pbd_state *st, uint32_t block)
{
    const gr_cell_grid *g = &st->grid;
    const int32_t d0 = (g->dims[0] + 1) / 2, d1 = (g->dims[1] + 1) / 2, d2 = (g->dims[2] + 1) / 2;
    const int32_t b2 = (int32_t)(block % (uint32_t)d2), b1 = (int32_t)(block / (uint32_t)d2 % (uint32_t)d1),
                  b0 = (int32_t)(block / (uint32_t)d2 / (uint32_t)d1);
    const uint32_t stamp = st->gs_stamp;
    for (int32_t a = GR_MAX(b0 - 1, 0); a <= GR_MIN(b0 + 1, d0 - 1); a++)
        for (int32_t b = GR_MAX(b1 - 1, 0); b <= GR_MIN(b1 + 1, d1 - 1); b++)
            for (int32_t k = GR_MAX(b2 - 1, 0); k <= GR_MIN(b2 + 1, d2 - 1); k++) {
                const uint32_t o = ((uint32_t)a * (uint32_t)d1 + (uint32_t)b) * (uint32_t)d2 + (uint32_t)k;
                st->gs_mark[o] = stamp;
            }
    st->gs_hot++;
}

/* A particle (sorted position s) moved: its block and the neighbours are swept again. */
static inline void pbd_solve_mark(pbd_state *st, uint32_t s)
{
    pbd_marks_around(st, st->gs_block_of[s]);
}

/* The next sweep's stamp (a wrap clears the marks: stamp 0 is never used). */
static inline void pbd_marks_next_sweep(pbd_state *st)
{
    if (++st->gs_stamp == 0) {
        for (uint32_t k = 0; k < st->gs_mark_cap; k++)
            st->gs_mark[k] = 0;
        st->gs_stamp = 1;
    }
    st->gs_hot = 0;
}

#endif /* GR_PBD_MARKS_H */
