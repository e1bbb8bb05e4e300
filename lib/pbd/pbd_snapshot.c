/* SPDX-License-Identifier: MIT */
/* PBD snapshot section: the particles (grains and body particles, in storage order) and the
 * particle-covered bodies. Lists, scaled masses and scratch are rebuilt every substep, so
 * stepping a loaded world is bit-identical. Loading checks every index it will follow. */
#include <math.h>

#include "../core/stream.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_snapshot.h"
#include "pbd_store.h"
#include "pbd_solve.h"
#include "pbd_bodies.h"

#define PBD_SECTION_TAG 0x44425031u /* "1PBD" */

static void put_v3s(gr_stream_writer *w, const gr_vec3 *v, uint32_t n) { gr_writer_f64s(w, (const double *)v, (size_t)n * 3); }
static void get_v3s(gr_stream_reader *r, gr_vec3 *v, uint32_t n) { gr_reader_f64s(r, (double *)v, (size_t)n * 3); }
/* As pbd_bodies.c decides it: such bodies' particles do not move with forces. */
static bool is_fixed_motion(gr_motion_type m) { return m == GR_MOTION_STATIC || m == GR_MOTION_KINEMATIC; }

gr_status pbd_save(const void *state, gr_stream_writer *w)
{
    const pbd_state *st = (const pbd_state *)state;
    const uint32_t n = st->n;
    gr_writer_u32(w, PBD_SECTION_TAG);
    gr_writer_u32(w, n);
    gr_writer_u32(w, st->n_grains);
    put_v3s(w, st->x, n);
    put_v3s(w, st->v, n);
    put_v3s(w, st->f, n);
    put_v3s(w, st->rest, n);
    gr_writer_f64s(w, st->calm, n);
    gr_writer_bytes(w, st->stir, n);
    gr_writer_f64s(w, st->r, n);
    gr_writer_f64s(w, st->inv_m, n);
    gr_writer_u32s(w, st->mat, n);
    gr_writer_u32s(w, st->owner, n);
    gr_writer_u32s(w, st->slot, n);
    gr_writer_u32s(w, st->touch, n);
    gr_writer_u32(w, st->nb);
    for (uint32_t b = 0; b < st->nb; b++) {
        const pbd_body *pb = &st->bodies[b];
        gr_writer_u32(w, pb->slot);
        gr_writer_u32(w, pb->first);
        gr_writer_u32(w, pb->count);
        gr_writer_u32(w, pb->fixed);
        gr_writer_f64(w, pb->particle_mass);
        gr_writer_f64s(w, (const double *)&pb->centroid, 3);
        gr_writer_f64s(w, (const double *)&pb->rot, 4);
        const double unused[6] = {0, 0, 0, 0, 0, 0};
        gr_writer_f64s(w, unused, 6);
    }
    gr_writer_u64(w, st->contact_pairs);
    gr_writer_u64(w, st->body_pairs);
    gr_writer_u64(w, st->rebuilds);
    gr_writer_u32(w, st->thaw ? 1u : 0u); /* the next substep freezes nothing (pbd_freeze.c) */
    /* the force records (frozen grains report theirs again), sparse */
    const uint32_t places = 2 * GR_MIN(n, st->sense_cap);
    uint32_t records = 0;
    for (uint32_t k = 0; k < places; k++)
        records += st->sense_slot[k] != GR_INVALID_INDEX;
    gr_writer_u32(w, records);
    for (uint32_t k = 0; k < places; k++) {
        if (st->sense_slot[k] == GR_INVALID_INDEX)
            continue;
        gr_writer_u32(w, k);
        gr_writer_u32(w, st->sense_slot[k]);
        put_v3s(w, &st->sense_force[k], 1);
        put_v3s(w, &st->sense_torque[k], 1);
    }
    gr_writer_bytes(w, st->sampled, n);
    gr_upsample_save(&st->points, w);
    /* format 7: the warm start (the last substep's contact multipliers) and the sleepers'
     * gravity they slept under, so that stepping a loaded world is bit-identical to stepping the
     * saved one */
    gr_writer_f64(w, st->ws_h);
    gr_writer_u32(w, st->ws_n);
    gr_writer_u32(w, st->ws_count);
    gr_writer_u32s(w, st->ws_start, st->ws_n);
    gr_writer_u32s(w, st->ws_end, st->ws_n);
    gr_writer_u32s(w, st->ws_other, st->ws_count);
    gr_writer_f64s(w, st->ws_ln, st->ws_count);
    put_v3s(w, st->ws_lt, st->ws_count);
    put_v3s(w, &st->gravity_seen, 1);
    return GR_OK;
}

#define LOAD_CHECK(cond, what) GR_LOAD_CHECK(r, cond, what)

/* Load into a fresh state created for the snapshot's world (bodies, materials and the grain
 * table already restored and validated by the caller). */
gr_status pbd_load(void *state, gr_stream_reader *r)
{
    pbd_state *st = (pbd_state *)state;
    const gr_solver_env *env = &st->env;
    LOAD_CHECK(gr_reader_u32(r) == PBD_SECTION_TAG, "the PBD section is missing");
    const bool sleep_state = r->format >= 6; /* format 5 predates deep sleep */
    const uint32_t n = gr_reader_u32(r), n_grains = gr_reader_u32(r);
    /* 15 doubles, 4 words and a byte per particle must still be in the stream */
    LOAD_CHECK(n <= GR_MAX_GRAINS && n_grains <= n && n <= gr_reader_left(r) / (8 * 15 + 4 * 4 + 1),
               "the particle counts are out of range");
    if (pbd_reserve_particles(st, GR_MAX(n, 1u)) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    get_v3s(r, st->x, n);
    get_v3s(r, st->v, n);
    get_v3s(r, st->f, n);
    get_v3s(r, st->rest, n);
    gr_reader_f64s(r, st->calm, n);
    if (sleep_state)
        gr_reader_bytes(r, st->stir, n);
    else
        memset(st->stir, 0, n);
    gr_reader_f64s(r, st->r, n);
    gr_reader_f64s(r, st->inv_m, n);
    gr_reader_u32s(r, st->mat, n);
    gr_reader_u32s(r, st->owner, n);
    gr_reader_u32s(r, st->slot, n);
    gr_reader_u32s(r, st->touch, n);
    const uint32_t nb = gr_reader_u32(r);
    LOAD_CHECK(nb <= n && nb <= gr_reader_left(r) / (4 * 4 + 8 * 14), "the body record count is out of range");
    const gr_body_store *bs = env->bodies;
    for (uint32_t b = 0; b < nb; b++) {
        pbd_body pb;
        memset(&pb, 0, sizeof pb);
        pb.slot = gr_reader_u32(r);
        pb.first = gr_reader_u32(r);
        pb.count = gr_reader_u32(r);
        pb.fixed = gr_reader_u32(r);
        pb.particle_mass = gr_reader_f64(r);
        gr_reader_f64s(r, (double *)&pb.centroid, 3);
        gr_reader_f64s(r, (double *)&pb.rot, 4);
        double unused[6];
        gr_reader_f64s(r, unused, 6);
        LOAD_CHECK(pb.slot < bs->slot_count && bs->alive[pb.slot] && bs->data[pb.slot].particles,
                   "a body record names no live particle-covered body");
        LOAD_CHECK(pb.first <= n && pb.count >= 1 && pb.count <= n - pb.first,
                   "a body record's particle range lies outside the particles");
        LOAD_CHECK(pb.count == bs->data[pb.slot].particle_count, "a body record's particle count is not its body's");
        LOAD_CHECK(pb.fixed == (is_fixed_motion(bs->data[pb.slot].motion) ? 1u : 0u),
                   "a body record's fixed flag does not match its body's motion");
        LOAD_CHECK(isfinite(pb.particle_mass) && pb.particle_mass > 0 && v3_finite(pb.centroid) &&
                       quat_finite(pb.rot) && fabs(quat_len2(pb.rot) - 1.0) < 1e-6,
                   "a body record's state is not finite or not normalised");
        if (pbd_reserve_records(st, st->nb + 1) != GR_OK)
            return GR_ERROR_OUT_OF_MEMORY;
        st->bodies[st->nb++] = pb;
    }
    st->contact_pairs = gr_reader_u64(r);
    st->body_pairs = gr_reader_u64(r);
    st->rebuilds = gr_reader_u64(r);
    /* format 5: nothing was frozen, so no force records, and the next substep thaws all */
    const uint32_t thaw = sleep_state ? gr_reader_u32(r) : 1u;
    LOAD_CHECK(thaw <= 1, "the thaw flag is invalid");
    st->thaw = thaw == 1;
    const uint32_t records = sleep_state ? gr_reader_u32(r) : 0u;
    LOAD_CHECK(records <= 2 * n && records <= gr_reader_left(r) / (2 * 4 + 6 * 8),
               "the force record count is out of range");
    if (pbd_reserve_sensing(st) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t e = 0; e < records; e++) {
        const uint32_t k = gr_reader_u32(r), slot = gr_reader_u32(r);
        LOAD_CHECK(k < 2 * n && st->sense_slot[k] == GR_INVALID_INDEX,
                   "a force record's place is out of range or taken twice");
        LOAD_CHECK(slot < bs->slot_count && bs->alive[slot], "a force record names no live body");
        st->sense_slot[k] = slot;
        get_v3s(r, &st->sense_force[k], 1);
        get_v3s(r, &st->sense_torque[k], 1);
        LOAD_CHECK(v3_finite(st->sense_force[k]) && v3_finite(st->sense_torque[k]), "a force record is not finite");
    }
    LOAD_CHECK(n <= gr_reader_left(r), "");
    gr_reader_bytes(r, st->sampled, n);
    {
        const gr_status ps = gr_upsample_load(&st->points, r);
        if (ps != GR_OK)
            return ps;
    }
    for (uint32_t i = 0; i < n; i++)
        st->sampled[i] = st->sampled[i] ? 1 : 0;
    /* the warm start (format 7; older formats start cold: the first substep after loading
     * differs from the saved world's) */
    st->ws_n = st->ws_count = 0;
    st->ws_h = 0;
    if (r->format >= 7) {
        const double ws_h = gr_reader_f64(r);
        const uint32_t ws_n = gr_reader_u32(r), ws_count = gr_reader_u32(r);
        LOAD_CHECK(isfinite(ws_h) && ws_h >= 0 && ws_n <= n && ws_n <= gr_reader_left(r) / 8,
                   "the warm start's particle count is out of range");
        gr_reader_u32s(r, st->ws_start, ws_n);
        gr_reader_u32s(r, st->ws_end, ws_n);
        LOAD_CHECK(ws_count <= gr_reader_left(r) / (4 + 8 + 24), "the warm start's record count is out of range");
        if (pbd_reserve_warm_start(st, ws_count) != GR_OK)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_reader_u32s(r, st->ws_other, ws_count);
        gr_reader_f64s(r, st->ws_ln, ws_count);
        get_v3s(r, st->ws_lt, ws_count);
        for (uint32_t i = 0; i < ws_n; i++)
            LOAD_CHECK(st->ws_start[i] <= st->ws_end[i] && st->ws_end[i] <= ws_count,
                       "a warm-start range lies outside the records");
        for (uint32_t e = 0; e < ws_count; e++)
            LOAD_CHECK(isfinite(st->ws_ln[e]) && st->ws_ln[e] >= 0 && v3_finite(st->ws_lt[e]),
                       "a warm-start record is not finite");
        st->ws_h = ws_h;
        st->ws_n = ws_n;
        st->ws_count = ws_count;
        get_v3s(r, &st->gravity_seen, 1);
        LOAD_CHECK(v3_finite(st->gravity_seen), "the sleepers' gravity is not finite");
    } else {
        st->gravity_seen = (*env->gravity);
    }
    /* body slot map */
    const uint32_t slots = GR_MAX(bs->slot_count, 1u);
    uint32_t *map = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * slots);
    if (!map)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < slots; k++)
        map[k] = GR_INVALID_INDEX;
    st->body_of_slot = map;
    st->b_slot_cap = slots;
    for (uint32_t b = 0; b < nb; b++) {
        LOAD_CHECK(map[st->bodies[b].slot] == GR_INVALID_INDEX, "a body has two records");
        map[st->bodies[b].slot] = b;
    }
    /* every body with particles has its record */
    for (uint32_t a = 0; a < bs->count; a++)
        LOAD_CHECK(!bs->data[bs->active[a]].particles || map[bs->active[a]] != GR_INVALID_INDEX,
                   "a particle-covered body has no record");
    /* particles: owners and grain slots consistent with the records and the grain table */
    gr_grain_table *t = env->grains;
    LOAD_CHECK(n_grains == gr_grain_table_count_system(t, env->system), "the grain count differs from the live grain slots");
    uint32_t grains = 0;
    st->r_min = INFINITY;
    st->r_max = 0;
    for (uint32_t i = 0; i < n; i++) {
        LOAD_CHECK(v3_finite(st->x[i]) && v3_finite(st->v[i]) && v3_finite(st->f[i]) && v3_finite(st->rest[i]) &&
                       isfinite(st->calm[i]) && st->calm[i] >= 0 && st->stir[i] <= PBD_STIR_SUBSTEPS,
                   "a particle's state is not finite");
        LOAD_CHECK(isfinite(st->r[i]) && st->r[i] > 0 && isfinite(st->inv_m[i]) && st->inv_m[i] >= 0,
                   "a particle's radius or mass is invalid");
        LOAD_CHECK(st->mat[i] < env->materials->count, "a particle's material is not one of its materials");
        const uint32_t o = st->owner[i];
        if (o == GR_INVALID_INDEX) {
            const uint32_t slot = st->slot[i];
            LOAD_CHECK(slot < t->slot_count && t->alive[slot] && gr_grain_of(t, slot, env->system) &&
                           t->dense[slot] == GR_INVALID_INDEX,
                       "a grain's slot is not live, not of this system, or taken twice");
            LOAD_CHECK(st->inv_m[i] > 0 && st->r[i] <= 1e3, "a grain's radius or mass is out of range");
            t->dense[slot] = i;
            grains++;
        } else {
            LOAD_CHECK(o < nb && i >= st->bodies[o].first && i < st->bodies[o].first + st->bodies[o].count &&
                           st->slot[i] == GR_INVALID_INDEX,
                       "a body particle lies outside its body record's range");
            LOAD_CHECK((st->inv_m[i] == 0) == (st->bodies[o].fixed == 1),
                       "a body particle's mass does not match its body's motion");
        }
        st->xp[i] = st->x[i];
        if (st->inv_m[i] != 0)
            st->r_min = GR_MIN(st->r_min, st->r[i]);
        st->r_max = GR_MAX(st->r_max, st->r[i]);
    }
    LOAD_CHECK(grains == n_grains, "the grain count differs from the grain particles");
    for (uint32_t b = 0; b < nb; b++) /* every particle of a record's range is its own */
        for (uint32_t i = st->bodies[b].first; i < st->bodies[b].first + st->bodies[b].count; i++)
            LOAD_CHECK(st->owner[i] == b, "a body record's range holds a particle not its own");
    st->n = n;
    st->n_grains = n_grains;
    return GR_OK;
}
