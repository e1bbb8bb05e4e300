/* SPDX-License-Identifier: MIT */
/* DEM snapshot section: the complete solver state (grains in their current order, neighbour
 * lists with contact history, slabs), so that stepping a loaded world is bit-identical.
 * Loading validates every index it will later follow: a crafted file cannot cause a crash. */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../core/stream.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_snapshot.h"
#include "dem_store.h"
#include "dem_rebuild.h"
#include "dem_clumps.h"
#include "dem_bodies.h"

#define DEM_SECTION_TAG 0x4d454431u /* "1DEM" */

static void put_v3s(gr_stream_writer *w, const gr_vec3 *v, uint32_t n) { gr_writer_f64s(w, (const double *)v, (size_t)n * 3); }
static void get_v3s(gr_stream_reader *r, gr_vec3 *v, uint32_t n) { gr_reader_f64s(r, (double *)v, (size_t)n * 3); }

gr_status dem_save(const void *state, gr_stream_writer *w)
{
    const dem_state *st = (const dem_state *)state;
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    const uint32_t n = st->n, nb = st->n_built;
    gr_writer_u32(w, DEM_SECTION_TAG);
    gr_writer_u32(w, n);
    gr_writer_u32(w, nb);
    gr_writer_u32(w, st->n_dead);
    gr_writer_f64s(w, (const double *)st->xr, (size_t)n * 4);
    put_v3s(w, st->v, n);
    put_v3s(w, st->w, n);
    put_v3s(w, st->f, n);
    put_v3s(w, st->t, n);
    put_v3s(w, st->x_ref, n);
    gr_writer_f64s(w, (const double *)st->q, (size_t)n * 4);
    gr_writer_f64s(w, st->m, n);
    gr_writer_f64s(w, st->inv_m, n);
    gr_writer_f64s(w, st->inv_i, n);
    gr_writer_u32s(w, st->mat, n);
    gr_writer_u32s(w, st->slot, n);
    gr_writer_u32s(w, st->member, n);
    gr_writer_u32(w, st->render_count);
    /* clumps and their members */
    gr_writer_u32(w, st->nc);
    gr_writer_u32(w, st->nm);
    gr_writer_u32(w, st->nc_dead);
    put_v3s(w, st->c_x, st->nc);
    put_v3s(w, st->c_v, st->nc);
    put_v3s(w, st->c_w, st->nc);
    put_v3s(w, st->c_L, st->nc);
    put_v3s(w, st->c_f, st->nc);
    put_v3s(w, st->c_t, st->nc);
    gr_writer_f64s(w, (const double *)st->c_q, (size_t)st->nc * 4);
    gr_writer_f64s(w, st->c_m, st->nc);
    put_v3s(w, st->c_inertia, st->nc);
    gr_writer_f64s(w, st->c_radius, st->nc);
    gr_writer_u32s(w, st->c_first, st->nc);
    gr_writer_u32s(w, st->c_count, st->nc);
    gr_writer_u32s(w, st->c_slot, st->nc);
    gr_writer_u32s(w, st->c_mat, st->nc);
    gr_writer_u32s(w, st->c_body, st->nc);
    gr_writer_bytes(w, st->c_fixed, st->nc);
    gr_writer_f64s(w, (const double *)st->c_frame, (size_t)st->nc * 4);
    gr_writer_u32s(w, st->m_sphere, st->nm);
    gr_writer_u32s(w, st->m_clump, st->nm);
    put_v3s(w, st->m_offset, st->nm);
    /* lists exist only once built */
    const bool built = st->rebuilds > 0;
    gr_writer_u32(w, built ? 1u : 0u);
    if (built) {
        gr_writer_u32(w, st->nb_count);
        gr_writer_u32s(w, st->nb_start, (size_t)nb + 1);
        gr_writer_u32s(w, st->nb_j, st->nb_count);
        put_v3s(w, st->nb_hist, st->nb_count);
        if (roll)
            put_v3s(w, st->nb_roll, st->nb_count);
        gr_writer_u32(w, st->bc_count);
        gr_writer_u32s(w, st->bc_start, (size_t)nb + 1);
        gr_writer_u32s(w, st->bc_id, st->bc_count);
        put_v3s(w, st->bc_hist, st->bc_count);
        if (roll)
            put_v3s(w, st->bc_roll, st->bc_count);
        gr_writer_u32(w, st->nslabs);
        gr_writer_u32s(w, st->slab_start, (size_t)st->nslabs + 1);
        gr_writer_u32(w, st->body_slots);
        gr_writer_f64s(w, st->body_bound, st->body_slots);
        gr_writer_f64s(w, st->body_reach, st->body_slots);
    }
    gr_writer_u32(w, st->mat_rmin_cap);
    gr_writer_f64s(w, st->mat_rmin, st->mat_rmin_cap);
    gr_writer_f64(w, st->skin);
    gr_writer_f64(w, st->skin_auto);
    gr_writer_u32(w, st->substeps_since_rebuild);
    gr_writer_f64(w, st->r_max);
    gr_writer_u32(w, (st->need_rebuild ? 1u : 0u) | (st->forces_stale ? 2u : 0u));
    gr_writer_u32(w, st->bodies_revision);
    gr_writer_u64(w, st->rebuilds);
    gr_writer_u64(w, st->contacts);
    gr_writer_u64(w, st->body_contacts);
    gr_writer_u32(w, st->unstable_count);
    gr_writer_f64(w, st->rkf_h);
    /* format 8: the render points (which spheres have theirs, and the points) */
    gr_writer_bytes(w, st->sampled, st->n);
    gr_upsample_save(&st->points, w);
    return GR_OK;
}

#define LOAD_CHECK(cond, what) GR_LOAD_CHECK(r, cond, what)
#define TRY(expr)                  \
    do {                           \
        const gr_status s_ = (expr); \
        if (s_ != GR_OK)           \
            return s_;             \
    } while (0)

static bool fits(const gr_stream_reader *r, uint64_t count, uint64_t elem)
{
    return count <= gr_reader_left(r) / elem;
}

/* Grow (never shrink, never reallocate when large enough: contents already read are kept). */
static bool reserve_lists(dem_state *st, uint32_t nb_count, uint32_t bc_count)
{
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    uint32_t nbc = GR_MAX(nb_count, 1u), bcc = GR_MAX(bc_count, 1u);
    if (nbc > st->nb_cap) {
        gr_array_ref a[3] = {{(void **)&st->nb_j, sizeof(uint32_t)},
                             {(void **)&st->nb_hist, sizeof(gr_vec3)},
                             {(void **)&st->nb_roll, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, a, roll ? 3 : 2, st->nb_cap, nbc, 0))
            return false;
        st->nb_cap = nbc;
    }
    if (bcc > st->bc_cap) {
        gr_array_ref b[3] = {{(void **)&st->bc_id, sizeof(uint32_t)},
                             {(void **)&st->bc_hist, sizeof(gr_vec3)},
                             {(void **)&st->bc_roll, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, b, roll ? 3 : 2, st->bc_cap, bcc, 0))
            return false;
        st->bc_cap = bcc;
    }
    return true;
}

static bool v3s_finite(const gr_vec3 *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!v3_finite(v[k]))
            return false;
    return true;
}

/* The clumps and their member records: every clump's range of member records lies within the
 * records and holds exactly the records naming it (so the ranges cover every record once), a
 * live clump is a live grain or a live covered body, once each. */
static gr_status check_clumps(dem_state *st, gr_stream_reader *r)
{
    const gr_solver_env *env = &st->env;
    const gr_grain_table *t = env->grains;
    const uint32_t nc = st->nc, nm = st->nm;
    uint32_t dead_clumps = 0;
    for (uint32_t c = 0; c < nc; c++) {
        LOAD_CHECK(st->c_first[c] <= nm && st->c_count[c] >= 1 && st->c_count[c] <= nm - st->c_first[c],
                   "a clump's member range lies outside the member records");
        for (uint32_t m = st->c_first[c]; m < st->c_first[c] + st->c_count[c]; m++)
            LOAD_CHECK(st->m_clump[m] == c, "a clump's member range holds another clump's member");
        LOAD_CHECK(st->c_mat[c] < env->materials->count, "a clump's material is not one of its materials");
        LOAD_CHECK(st->c_m[c] > 0 && isfinite(st->c_m[c]) && st->c_inertia[c].x > 0 && st->c_inertia[c].y > 0 &&
                       st->c_inertia[c].z > 0 && v3_finite(st->c_inertia[c]) && isfinite(st->c_radius[c]) &&
                       st->c_radius[c] >= 0,
                   "a clump's mass, inertia or radius is invalid");
        LOAD_CHECK(v3_finite(st->c_x[c]) && v3_finite(st->c_v[c]) && v3_finite(st->c_w[c]) && v3_finite(st->c_L[c]) &&
                       v3_finite(st->c_f[c]) && v3_finite(st->c_t[c]) && quat_finite(st->c_q[c]) &&
                       fabs(quat_len2(st->c_q[c]) - 1) < 1e-6 && quat_finite(st->c_frame[c]) &&
                       fabs(quat_len2(st->c_frame[c]) - 1) < 1e-6,
                   "a clump's state is not finite or its orientation not normalised");
        LOAD_CHECK(st->c_fixed[c] <= 1, "a clump's fixed flag is invalid");
        if (st->c_slot[c] == GR_INVALID_INDEX) {
            dead_clumps++;
            continue;
        }
        if (st->c_slot[c] == DEM_BODY_SLOT) {
            /* a body's particles: one clump per live covered body, matching it */
            const uint32_t bs = st->c_body[c];
            LOAD_CHECK(bs < env->bodies->slot_count && env->bodies->alive[bs] && env->bodies->data[bs].particles,
                       "a body clump names no live particle-covered body");
            const gr_body_data *b = &env->bodies->data[bs];
            LOAD_CHECK(b->particle_count == st->c_count[c] && b->material == st->c_mat[c] &&
                           st->c_fixed[c] == (dem_body_is_fixed(b) ? 1 : 0),
                       "a body clump does not match its body");
            LOAD_CHECK(st->body_clump[bs] == GR_INVALID_INDEX, "a body has two clumps");
            st->body_clump[bs] = c;
            continue;
        }
        LOAD_CHECK(st->c_body[c] == GR_INVALID_INDEX && st->c_fixed[c] == 0, "a clump grain is marked as a body");
        LOAD_CHECK(st->c_slot[c] < t->slot_count && t->alive[st->c_slot[c]] && gr_grain_of(t, st->c_slot[c], env->system) &&
                       t->dense[st->c_slot[c]] == GR_INVALID_INDEX,
                   "a clump's grain slot is not live or is taken twice");
        t->dense[st->c_slot[c]] = DEM_CLUMP_BIT | c;
    }
    LOAD_CHECK(dead_clumps == st->nc_dead, "the count of removed clumps is wrong");
    for (uint32_t a = 0; a < env->bodies->count; a++) {
        const uint32_t bs = env->bodies->active[a];
        LOAD_CHECK(!env->bodies->data[bs].particles || st->body_clump[bs] != GR_INVALID_INDEX,
                   "a particle-covered body has no clump");
    }
    for (uint32_t m = 0; m < nm; m++) {
        const uint32_t c = st->m_clump[m];
        LOAD_CHECK(c < nc && m >= st->c_first[c] && m - st->c_first[c] < st->c_count[c],
                   "a member record lies outside its clump's member range");
        LOAD_CHECK(st->m_sphere[m] < st->n && st->member[st->m_sphere[m]] == m,
                   "a member record and its sphere do not name each other");
        /* a clump's radius bounds its members' offsets (a template's unit offsets times the
         * grain's scale; a body's particles within their reach) */
        LOAD_CHECK(v3_finite(st->m_offset[m]) && v3_len(st->m_offset[m]) <= st->c_radius[c] * (1 + 1e-9),
                   "a member lies outside its clump's radius");
    }
    return GR_OK;
}

/* Every sphere: valid numbers, a member of the clump that names it (or of none), alive exactly
 * when its clump is, a free sphere's grain slot live and its own. */
static gr_status check_spheres(dem_state *st, gr_stream_reader *r)
{
    const gr_solver_env *env = &st->env;
    const gr_grain_table *t = env->grains;
    uint32_t dead = 0, live_spheres = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        const uint32_t m = st->member[i];
        LOAD_CHECK(m == GR_INVALID_INDEX || (m < st->nm && st->m_sphere[m] == i),
                   "a sphere and its member record do not name each other");
        LOAD_CHECK(st->mat[i] < env->materials->count, "a sphere's material is not one of its materials");
        LOAD_CHECK(st->xr[i].r > 0 && st->xr[i].r <= 1e3 && st->m[i] > 0 && isfinite(st->m[i]) &&
                       isfinite(st->inv_m[i]) && st->inv_m[i] >= 0 && isfinite(st->inv_i[i]) && st->inv_i[i] >= 0,
                   "a sphere's radius or mass is invalid");
        LOAD_CHECK(v3_finite(xr_pos(&st->xr[i])) && v3_finite(st->v[i]) && v3_finite(st->w[i]) && v3_finite(st->f[i]) &&
                       v3_finite(st->t[i]) && v3_finite(st->x_ref[i]) && quat_finite(st->q[i]),
                   "a sphere's state is not finite");
        const uint32_t slot = st->slot[i];
        if (m != GR_INVALID_INDEX)
            LOAD_CHECK(slot == st->c_slot[st->m_clump[m]], "a clump's sphere is not alive exactly when its clump is");
        else
            LOAD_CHECK(slot != DEM_BODY_SLOT, "a body particle belongs to no body clump");
        if (slot == GR_INVALID_INDEX) {
            dead++;
            continue;
        }
        if (slot == DEM_BODY_SLOT)
            continue;
        live_spheres++;
        if (m != GR_INVALID_INDEX)
            continue;
        LOAD_CHECK(slot < t->slot_count && t->alive[slot] && gr_grain_of(t, slot, env->system) &&
                       t->dense[slot] == GR_INVALID_INDEX,
                   "a sphere's grain slot is not live, not of this system, or taken twice");
        t->dense[slot] = i;
    }
    LOAD_CHECK(dead == st->n_dead, "the count of removed spheres is wrong");
    LOAD_CHECK(live_spheres == st->render_count, "the render point count is wrong");
    for (uint32_t k = 0; k < t->count; k++)
        LOAD_CHECK(!gr_grain_of(t, t->list[k], env->system) || t->dense[t->list[k]] != GR_INVALID_INDEX,
                   "a live grain has no sphere or clump");
    return GR_OK;
}

/* The neighbour lists: CSR ranges in order, partners after the grain and within its slab or
 * the next (the parallel colouring), grain-body entries naming live analytic bodies' features,
 * finite histories. */
static gr_status read_lists(dem_state *st, gr_stream_reader *r)
{
    const gr_solver_env *env = &st->env;
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    const uint32_t nb = st->n_built;
    const uint32_t nbc = gr_reader_u32(r);
    LOAD_CHECK(fits(r, (uint64_t)nb + 1, 4) && fits(r, nbc, 28), "the neighbour list is longer than the snapshot");
    gr_reader_u32s(r, st->nb_start, (size_t)nb + 1);
    if (!reserve_lists(st, nbc, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_u32s(r, st->nb_j, nbc);
    get_v3s(r, st->nb_hist, nbc);
    if (roll)
        get_v3s(r, st->nb_roll, nbc);
    const uint32_t bcc = gr_reader_u32(r);
    LOAD_CHECK(fits(r, (uint64_t)nb + 1, 4) && fits(r, bcc, 28), "the body contact list is longer than the snapshot");
    gr_reader_u32s(r, st->bc_start, (size_t)nb + 1);
    if (!reserve_lists(st, nbc, bcc))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_u32s(r, st->bc_id, bcc);
    get_v3s(r, st->bc_hist, bcc);
    if (roll)
        get_v3s(r, st->bc_roll, bcc);
    st->nb_count = nbc;
    st->bc_count = bcc;
    LOAD_CHECK(st->nb_start[0] == 0 && st->nb_start[nb] == nbc && st->bc_start[0] == 0 && st->bc_start[nb] == bcc,
               "a contact list's ranges do not span it");
    /* the whole sequences first: only then are the entries they delimit within bounds */
    for (uint32_t i = 0; i < nb; i++)
        LOAD_CHECK(st->nb_start[i] <= st->nb_start[i + 1] && st->bc_start[i] <= st->bc_start[i + 1],
                   "a contact list's ranges are out of order");
    LOAD_CHECK(v3s_finite(st->nb_hist, nbc) && v3s_finite(st->bc_hist, bcc) &&
                   (!roll || (v3s_finite(st->nb_roll, nbc) && v3s_finite(st->bc_roll, bcc))),
               "a contact history is not finite");
    for (uint32_t e = 0; e < bcc; e++) {
        const uint32_t bs = st->bc_id[e] >> 3, f = st->bc_id[e] & 7u;
        LOAD_CHECK(bs < env->bodies->slot_count && env->bodies->alive[bs] && !env->bodies->data[bs].particles &&
                       f < gr_body_feature_count(&env->bodies->data[bs]),
                   "a body contact names no live analytic body or no feature of it");
    }
    const uint32_t nslabs = gr_reader_u32(r);
    /* a rebuild has one slab per cell layer of a grid of at most max(4 n, 4096) cells */
    LOAD_CHECK(nslabs >= 1 && nslabs <= GR_MAX(4u * nb, 4096u) && fits(r, (uint64_t)nslabs + 1, 4),
               "the slab count is out of range");
    const uint32_t bslots = env->bodies->slot_count;
    /* slab arrays sized like a rebuild would */
    if (!dem_reserve_slabs(st, nslabs, bslots))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_u32s(r, st->slab_start, (size_t)nslabs + 1);
    st->nslabs = nslabs;
    LOAD_CHECK(st->slab_start[0] == 0 && st->slab_start[nslabs] == nb, "the slabs do not span the listed grains");
    for (uint32_t s = 0; s < nslabs; s++)
        LOAD_CHECK(st->slab_start[s] <= st->slab_start[s + 1], "the slabs are out of order");
    /* the colouring invariant: partners of a slab's grains lie in that slab or the next */
    for (uint32_t s = 0; s < nslabs; s++)
        for (uint32_t i = st->slab_start[s]; i < st->slab_start[s + 1]; i++)
            for (uint32_t e = st->nb_start[i]; e < st->nb_start[i + 1]; e++) {
                uint32_t j = st->nb_j[e] & DEM_INDEX_MASK;
                LOAD_CHECK(j > i && j < nb, "a neighbour entry names no later listed grain");
                LOAD_CHECK(j < st->slab_start[GR_MIN(s + 2, nslabs)], "a neighbour lies beyond the next slab");
            }
    const uint32_t saved_slots = gr_reader_u32(r);
    LOAD_CHECK(saved_slots <= st->body_slots && fits(r, saved_slots, 16), "the body bounds are out of range");
    gr_reader_f64s(r, st->body_bound, saved_slots);
    gr_reader_f64s(r, st->body_reach, saved_slots);
    for (uint32_t k = 0; k < saved_slots; k++)
        LOAD_CHECK(isfinite(st->body_bound[k]) && st->body_bound[k] >= 0 && isfinite(st->body_reach[k]),
                   "a body's motion bound is invalid");
    if (!dem_reserve_fixed_active(st))
        return GR_ERROR_OUT_OF_MEMORY;
    dem_update_fixed_active(st); /* derived from the lists, as a rebuild does */
    st->rebuilds = 1;            /* marks lists as built; the real count follows */
    return GR_OK;
}

/* Load into a fresh state created for the snapshot's world (bodies, materials and the grain
 * table already restored and validated by the caller). */
gr_status dem_load(void *state, gr_stream_reader *r)
{
    dem_state *st = (dem_state *)state;
    LOAD_CHECK(gr_reader_u32(r) == DEM_SECTION_TAG, "the DEM section is missing");
    const uint32_t n = gr_reader_u32(r), nb = gr_reader_u32(r), n_dead = gr_reader_u32(r);
    LOAD_CHECK(n <= GR_MAX_GRAINS && nb <= n && n_dead <= n && fits(r, n, 8 * 23), "the sphere counts are out of range");
    if (dem_reserve_particles(st, GR_MAX(n, 1u)) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_f64s(r, (double *)st->xr, (size_t)n * 4);
    get_v3s(r, st->v, n);
    get_v3s(r, st->w, n);
    get_v3s(r, st->f, n);
    get_v3s(r, st->t, n);
    get_v3s(r, st->x_ref, n);
    gr_reader_f64s(r, (double *)st->q, (size_t)n * 4);
    gr_reader_f64s(r, st->m, n);
    gr_reader_f64s(r, st->inv_m, n);
    gr_reader_f64s(r, st->inv_i, n);
    gr_reader_u32s(r, st->mat, n);
    gr_reader_u32s(r, st->slot, n);
    gr_reader_u32s(r, st->member, n);
    st->render_count = gr_reader_u32(r);
    LOAD_CHECK(true, "");
    st->n = n;
    st->n_dead = n_dead;
    st->n_built = nb;
    /* clumps */
    const uint32_t nc = gr_reader_u32(r), nm = gr_reader_u32(r), nc_dead = gr_reader_u32(r);
    LOAD_CHECK(nc <= n && nm <= n && nc_dead <= nc && fits(r, nc, 8 * 33) && fits(r, nm, 32),
               "the clump counts are out of range");
    if (dem_reserve_clumps(st, GR_MAX(nc, 1u), GR_MAX(nm, 1u)) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    get_v3s(r, st->c_x, nc);
    get_v3s(r, st->c_v, nc);
    get_v3s(r, st->c_w, nc);
    get_v3s(r, st->c_L, nc);
    get_v3s(r, st->c_f, nc);
    get_v3s(r, st->c_t, nc);
    gr_reader_f64s(r, (double *)st->c_q, (size_t)nc * 4);
    gr_reader_f64s(r, st->c_m, nc);
    get_v3s(r, st->c_inertia, nc);
    gr_reader_f64s(r, st->c_radius, nc);
    gr_reader_u32s(r, st->c_first, nc);
    gr_reader_u32s(r, st->c_count, nc);
    gr_reader_u32s(r, st->c_slot, nc);
    gr_reader_u32s(r, st->c_mat, nc);
    gr_reader_u32s(r, st->c_body, nc);
    gr_reader_bytes(r, st->c_fixed, nc);
    gr_reader_f64s(r, (double *)st->c_frame, (size_t)nc * 4);
    gr_reader_u32s(r, st->m_sphere, nm);
    gr_reader_u32s(r, st->m_clump, nm);
    get_v3s(r, st->m_offset, nm);
    LOAD_CHECK(true, "");
    st->nc = nc;
    st->nm = nm;
    st->nc_dead = nc_dead;
    if (dem_reset_body_map(st) != GR_OK) /* filled while checking the clumps */
        return GR_ERROR_OUT_OF_MEMORY;
    TRY(check_clumps(st, r));
    TRY(check_spheres(st, r));
    dem_update_uniform_material(st); /* derived, as a rebuild computes it */

    const uint32_t built = gr_reader_u32(r);
    LOAD_CHECK(built <= 1, "the neighbour list flag is invalid");
    if (built)
        TRY(read_lists(st, r));
    /* the per-material smallest radii: they set the stable substep, so none may lie above a
     * live grain's radius (they only ever decrease) */
    const uint32_t mcap = gr_reader_u32(r);
    LOAD_CHECK(mcap <= GR_MAX_MATERIALS && fits(r, mcap, 8), "the material radius table is out of range");
    if (mcap > st->mat_rmin_cap) {
        double *a = (double *)gr_mem_alloc(st->mem, sizeof(double) * mcap);
        if (!a)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->mat_rmin, sizeof(double) * st->mat_rmin_cap);
        st->mat_rmin = a;
        st->mat_rmin_cap = mcap;
    }
    gr_reader_f64s(r, st->mat_rmin, mcap);
    for (uint32_t k = mcap; k < st->mat_rmin_cap; k++)
        st->mat_rmin[k] = INFINITY; /* no grain of these materials yet */
    LOAD_CHECK(true, "");
    for (uint32_t k = 0; k < mcap; k++)
        LOAD_CHECK(st->mat_rmin[k] > 0, "a material's smallest radius is not positive");
    for (uint32_t i = 0; i < n; i++)
        if (st->slot[i] != GR_INVALID_INDEX && st->slot[i] != DEM_BODY_SLOT)
            LOAD_CHECK(st->mat[i] < mcap && st->mat_rmin[st->mat[i]] <= st->xr[i].r,
                       "a material's smallest radius is above one of its grains'");
    st->skin = gr_reader_f64(r);
    st->skin_auto = gr_reader_f64(r);
    st->substeps_since_rebuild = gr_reader_u32(r);
    st->r_max = gr_reader_f64(r);
    const uint32_t flags = gr_reader_u32(r);
    st->need_rebuild = (flags & 1u) != 0;
    st->forces_stale = (flags & 2u) != 0;
    st->bodies_revision = gr_reader_u32(r);
    st->rebuilds = gr_reader_u64(r);
    st->contacts = gr_reader_u64(r);
    st->body_contacts = gr_reader_u64(r);
    st->unstable_count = gr_reader_u32(r);
    st->rkf_h = gr_reader_f64(r);
    LOAD_CHECK(flags <= 3u, "the solver flags are invalid");
    LOAD_CHECK(isfinite(st->rkf_h) && st->rkf_h >= 0, "the RKF45 step size is invalid");
    LOAD_CHECK(isfinite(st->skin) && st->skin >= 0 && isfinite(st->skin_auto) && st->skin_auto >= 0 &&
                   isfinite(st->r_max) && st->r_max >= 0,
               "the neighbour skin is invalid");
    if (built == 0)
        st->need_rebuild = true;
    /* the render points (format 8; older snapshots have none, and no render-point radius) */
    if (r->format >= 8) {
        LOAD_CHECK(n <= gr_reader_left(r), "the render points' flags are cut short");
        gr_reader_bytes(r, st->sampled, n);
        for (uint32_t i = 0; i < n; i++)
            LOAD_CHECK(st->sampled[i] <= 1, "a sphere's render-point flag is invalid");
        const gr_status ps = gr_upsample_load(&st->points, r);
        if (ps != GR_OK)
            return ps;
    } else {
        memset(st->sampled, 0, n);
    }
    return GR_OK;
}
