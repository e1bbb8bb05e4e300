/* SPDX-License-Identifier: MIT */
/* The static bodies' solid fractions, kept across steps. A static body's fraction of a cell
 * depends only on the body and the cell's coordinates, yet measuring it (a mesh's binned
 * distance and 8 inside tests near its surface) was more than a quarter of an hourglass step.
 * The cache holds, for every block of the last grid, each static body's fractions of its 64
 * cells in eighths (cont_bodies' fractions are 0, 1 or a count of 8 samples over 8: exact), only
 * for the bodies that fill some of the block. A step's grid takes the blocks it shares with the
 * last one (a merge of the two block lists, both in the grids' Morton order) and measures only
 * the new ones.
 *
 * Bounded by the live grid: each update rebuilds the table from the new grid's blocks alone, so
 * a block the sand left is dropped at once (measured again if the sand comes back) and the
 * memory is that of one grid's records, twice (the table being built beside the last one).
 *
 * Valid while the static geometry is: the body store's revision (bumped by every add, remove and
 * pose change of any body; a snapshot's load makes a new solver state), the cell edge and the
 * grid's origin are recorded, and any change empties the table. */
#ifndef GR_CONTINUUM_CONT_STATIC_H
#define GR_CONTINUUM_CONT_STATIC_H

#include "../bodies/body_store.h"
#include "../core/tasks.h"
#include "../grid/sparse_grid.h"

/// One grid's records: block i's are [first[i], first[i] + count[i]), in static-body order.
typedef struct cont_static_table {
    uint32_t blocks, block_cap;
    int32_t *coord;    ///< [3 block_cap] the blocks' coordinates (the grid's order)
    uint32_t *first;   ///< [block_cap]
    uint32_t *count;   ///< [block_cap]
    uint32_t recs, rec_cap;
    uint32_t *body;    ///< [rec_cap] the static body (its rank among the static bodies)
    uint8_t *eighths;  ///< [64 rec_cap] 8 x its fraction of each of the block's cells
} cont_static_table;

typedef struct cont_static_cache {
    cont_static_table now, spare; ///< the last update's table; the next one is built in spare
    bool valid;                   ///< `now` holds the geometry below
    uint32_t revision;            ///< the body store's
    uint32_t statics;             ///< static bodies
    double h;
    gr_vec3 origin;
    uint64_t reused, measured;    ///< blocks taken from the last table, blocks measured (counts)
    /* an update's scratch: the new blocks, their eighths by static body, the mesh queries'
     * stamps (a share per worker) and each worker's last query id */
    uint32_t *fresh_block, fresh_cap;
    uint8_t *fresh;
    size_t fresh_bytes;
    uint32_t *stamps, stamp_cap;
    uint32_t query[GR_MAX_WORKERS];
} cont_static_cache;

void cont_static_free(cont_static_cache *c, gr_mem *mem);

/// The table for grid g's blocks (c->now, block i of the grid at index i): reused where the last
/// table had the block and the static geometry is unchanged, measured elsewhere
/// (cont_fraction.h), the new blocks on `tasks` (NULL: here; the same table for any worker
/// count). On out of memory returns GR_ERROR_OUT_OF_MEMORY, the table unchanged.
gr_status cont_static_update(cont_static_cache *c, gr_mem *mem, gr_tasks *tasks, const gr_sparse_grid *g,
                             const gr_body_store *bs);

/// frac[64 i + l] = static body `rank`'s fraction of cell l of block i, for every block of the
/// updated grid; by blocks on `tasks` (NULL: here).
void cont_static_fractions(const cont_static_cache *c, gr_tasks *tasks, uint32_t rank, double *frac);

#endif /* GR_CONTINUUM_CONT_STATIC_H */
