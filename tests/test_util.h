/* SPDX-License-Identifier: MIT */
/* Shared by the tests: a counting/failing allocator, state hashes, memory streams, scenes. */
#ifndef GR_TEST_UTIL_H
#define GR_TEST_UTIL_H

#include <granular/granular.h>

/// Counting allocator; the allocation number `fail_at` (0-based) and all later ones fail
/// when fail_at >= 0 (sticky), or only that one when `fail_once` is set.
typedef struct tu_alloc {
    long long fail_at;
    int fail_once;
    long long calls;
    long long live;
    long long live_bytes;
    long long failures;
    long long max_request; ///< the largest single request so far [bytes]
} tu_alloc;

void tu_alloc_init(tu_alloc *a);
gr_allocator tu_allocator(tu_alloc *a);

/// FNV-1a 64 of n bytes, continuing from h (start: 1469598103934665603).
uint64_t tu_fnv(uint64_t h, const void *data, size_t n);
/// FNV-1a 64 hash of the whole observable state: every grain field in bulk order, time,
/// counts, and the poses of the given bodies.
uint64_t tu_state_hash(const gr_world *w, const gr_body *bodies, int nbodies);

/// Growable in-memory byte stream for snapshots.
typedef struct tu_stream {
    unsigned char *data;
    size_t size, cap, pos;
    size_t fail_after; ///< writes fail once size would exceed this (SIZE_MAX: never)
} tu_stream;

void tu_stream_init(tu_stream *s);
void tu_stream_free(tu_stream *s);
size_t tu_stream_write(void *user, const void *data, size_t size);
size_t tu_stream_read(void *user, void *data, size_t size);

/// A world with the given worker count (and optional allocator), Y-up gravity.
gr_status tu_world(gr_world **out, unsigned workers, const gr_allocator *alloc);
/// A small pile scene: a container of half extents `half` centred above the origin (floor at
/// y = 0, open top) with `nx*ny*nz` lattice grains of radius r above the floor. Returns the
/// container handle in *box (may be NULL).
gr_status tu_pile(gr_world *w, double half, double r, unsigned n_max, gr_body *box);

/// CRC-32 (IEEE) as the snapshot format uses it; put32 stores little-endian.
uint32_t tu_crc32(const unsigned char *p, size_t n);
void tu_put32(unsigned char *p, uint32_t v);
/// Recompute both checksums of a snapshot after editing it (to reach the content checks).
void tu_reseal(tu_stream *s);

/// Where the fields of a snapshot (format 6) lie, found by walking it as the loader reads it
/// (offsets from the start of the stream, header included): crafted-snapshot tests edit them.
typedef struct tu_snap_map {
    size_t pbd_def;          ///< the PBD settings (after the DEM settings)
    size_t pbd_max_substep;  ///< the f64 pbd.max_substep
    size_t materials;        ///< the material count; each material is 8 numbers (format 11: 9)
    uint32_t mats;           ///< how many materials
    size_t bodies;           ///< the body slot count
    size_t first_host_motion; ///< the motion field of the first host-owned body (0: none)
    size_t grains;           ///< the grain table (slot count)
    size_t systems;          ///< the system count (format 9; older formats: where it would be)
    size_t solver;           ///< the solver section (its tag)
    uint32_t n, nb, nc, nm;  ///< DEM: spheres, listed spheres, clumps, member records; PBD: n, body records
    /* DEM arrays */
    size_t slot, member, c_first, c_count, c_slot, c_body, m_sphere, m_clump, built, nb_count, nb_start, nb_j, nb_hist,
        bc_count, bc_start, bc_id, nslabs, slab_start, mat_rmin;
    /* PBD */
    size_t owner, p_slot, p_bodies, p_records, hr_n, hr_pt, ws, gravity;
    uint32_t hr_count, ws_n, ws_count;
} tu_snap_map;

/// Fill *m for a snapshot of solver `solver` (GR_SOLVER_DEM or GR_SOLVER_PBD; GR_SOLVER_CONTINUUM:
/// up to `solver`, its section); false when the bytes are not a snapshot this walker understands.
int tu_snap_walk(const unsigned char *data, size_t size, gr_solver_kind solver, tu_snap_map *m);
uint32_t tu_get32(const unsigned char *p);
/// A format 11 snapshot as format 10 wrote it: each material's ninth number (continuum_friction)
/// dropped and the format word set to 10. 0 when it is not format 11; 2 when every material's
/// continuum_friction equals its friction (what a loaded older file sets), else 1.
int tu_snap_drop_continuum_friction(const tu_stream *now, gr_solver_kind solver, tu_stream *out);

/// The material many tests were built with before issue 37 derived each solver's coefficients:
/// the defaults with PBD's static 0.6 and kinetic 0.5 and the continuum's alpha = friction 0.5
/// given explicitly (so that the scenes they tuned keep their behaviour).
gr_status tu_material_as_built(gr_world *w, gr_material *out);

/// Sum of kinetic energy (translation + rotation) of all grains.
double tu_kinetic_energy(const gr_world *w);

/// A box mesh of half extents h centred at c: 8 vertices, 12 triangles wound outwards.
void tu_box_mesh(gr_vec3 h, gr_vec3 c, gr_vec3 v[8], uint32_t idx[36]);
/// An octahedron refined `levels` times onto the sphere of radius r: returns the triangle
/// count (8 * 4^levels; v needs room for 4^levels * 4 + 2 vertices, idx for 3 per triangle).
uint32_t tu_sphere_mesh(double r, int levels, gr_vec3 *v, uint32_t *idx, uint32_t *nv);

#endif /* GR_TEST_UTIL_H */
