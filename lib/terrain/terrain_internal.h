/* SPDX-License-Identifier: MIT */
/* The terrain's state (docs/terrain.md): a heightfield of sand columns (Sumner, O'Brien,
 * Hodgins 1999) held by the world as a system beside its particle solver. Bodies press into
 * the columns (terrain_press.c), steep slopes erode (terrain_erode.c), and the coupling with
 * the particle system (lib/couple) turns disturbed columns into grains and resting grains back
 * into columns (terrain_hybrid.c). State and types only: each file declares its functions in
 * a header of its own. */
#ifndef GR_TERRAIN_TERRAIN_INTERNAL_H
#define GR_TERRAIN_TERRAIN_INTERNAL_H

#include "../core/solver.h"
#include "../geom/heightfield.h"

/// Columns per erosion block edge: small enough that a pass costs the columns near what moves
/// (a blade's block and its neighbours), large enough that the block lists stay short.
#define TERRAIN_BLOCK 16u

enum {
    TERRAIN_CONTACT = 1, ///< under a body at the last press: receives no sand
    TERRAIN_MOVING = 2,  ///< part of an avalanche: stops at the stop angle, not the start angle
};

/// The e-th of a column's 8 neighbours (0 .. 7): the four along the axes, then the diagonals.
static inline void terrain_neighbour(int e, int *di, int *dk)
{
    static const int8_t o[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    *di = o[e][0], *dk = o[e][1];
}

/// The terrain's parameters as resolved for its world (angles as tangents per material).
typedef struct terrain_params {
    double d, area;          ///< spacing, spacing^2
    double sigma;            ///< moving fraction
    double compression;
    double bearing, elastic; ///< bearing pressure [Pa], elastic depth [m]
    double bearing_gradient; ///< [Pa/m] below the footprint's rim
    double plough;
    double packing;
    double grain_radius, grain_volume;
    double release_speed, rest_speed, disturb_speed;
    double erosion_interval;
    uint32_t sweeps, rest_steps;
    bool hybrid, debug_volume;
} terrain_params;

typedef struct terrain_state {
    gr_solver_env env;
    gr_terrain_def def;      ///< as given (validated)
    terrain_params p;
    gr_heightfield field;    ///< field.h: the heights, owned
    uint32_t n;              ///< columns
    uint32_t material;       ///< the def's material, resolved (index)
    uint8_t *mat;            ///< [n] material index per column
    uint8_t *flags;          ///< [n] TERRAIN_*
    double *factor;          ///< [n] erosion: sigma / |S| of a giving column, 0 elsewhere
    double *next;            ///< [n] erosion: the heights after a sweep
    int32_t *dist;           ///< [n] press: contour distance in a body's footprint; erosion: received marks
    double *push;            ///< [n] press: height a footprint column hands on
    /* what a moving body displaced in this step, to become grains (hybrid) */
    double *pending;         ///< [n] bulk volume [m^3]
    uint32_t *pending_body;  ///< [n] the body that displaced it (slot)
    uint32_t *pending_list;  ///< columns with pending > 0
    uint32_t pending_count;
    uint32_t *contacts;      ///< [n] columns under bodies at the last press
    uint32_t contact_count;
    uint32_t *contacts_prev; ///< [n] press scratch: those of the press before
    /* the host's tiles: what changed since it last took them */
    uint32_t tile, tiles_x, tiles_z, tile_count;
    gr_terrain_rect *changed; ///< [tile_count]
    /* erosion's blocks of TERRAIN_BLOCK^2 columns: work goes where sand may move */
    uint32_t blocks_x, blocks_z, block_count;
    uint8_t *block_active;   ///< [block_count] erosion may move something there
    uint8_t *block_region;   ///< [block_count] scratch of a sweep
    uint8_t *block_moved;    ///< [block_count] scratch of a sweep
    uint32_t *block_list;    ///< [block_count] scratch of a sweep
    gr_terrain_rect *block_rect; ///< [block_count] scratch of a sweep: the columns it moved
    uint32_t active_blocks;
    /* per material: tangents of the stop and start angles */
    double tan_stop[GR_MAX_MATERIALS], tan_start[GR_MAX_MATERIALS];
    double stop_deg, start_deg; ///< the terrain material's
    uint32_t materials_revision; ///< of the tables above (UINT32_MAX: none yet)
    uint32_t body;           ///< the terrain's own body (slot), GR_INVALID_INDEX before the API adds it
    double clock;            ///< time since the last erosion pass [s]
    /* bodies: what the columns gave them over the last step */
    gr_vec3 *impulse;        ///< [2 impulse_cap]
    uint32_t impulse_cap;
    double stiffest;         ///< largest sqrt(K / m) of a body on the columns at the last press
    /* hybrid: per grain slot, steps at rest on the surface (low 16 bits) of the grain of that
     * slot's generation (high 16 bits: a reused slot starts again) */
    uint32_t *rest;
    uint32_t rest_cap;
    double *grain_top;       ///< [n] exchange scratch: the highest grain top over a column (NaN: none)
    uint32_t *top_list;      ///< [n] columns with a grain_top
    uint32_t top_count;
    /* counters (saved) */
    double compressed;       ///< bulk volume compacted away [m^3]
    uint64_t released, absorbed;
    uint64_t rng;            ///< the release jitter's state
    double volume_ref;       ///< debug_volume: phi x bulk + grain volume at the first check (NaN: none)
    uint32_t grains_seen;    ///< the world's grain count after the last exchange
} terrain_state;

#endif /* GR_TERRAIN_TERRAIN_INTERNAL_H */
