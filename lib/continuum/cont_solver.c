/* SPDX-License-Identifier: MIT */
/* The continuum solver's table (lib/core/solver.h): grains are its particles (Narain et al.
 * sec. 3: each a sample of the material with mass, velocity and an ellipsoid), bodies are met
 * by their shapes (no surface particles: the grid sees their volume fractions) and coupled two
 * ways (sec. 2.4, cont_bodies.h): the solver moves kinematic, dynamic and host-owned bodies. */
#include <math.h>
#include <string.h>

#include "../bodies/body_store.h"
#include "../core/stream.h"
#include "cont_def.h"
#include "cont_points.h"
#include "cont_regrain.h"
#include "cont_solver.h"
#include "cont_step.h"

static gr_status cont_create(const gr_solver_env *env, void **out)
{
    cont_state *st = (cont_state *)gr_mem_calloc(env->mem, sizeof(cont_state));
    if (!st)
        return GR_ERROR_OUT_OF_MEMORY;
    st->env = *env;
    st->mem = env->mem;
    st->par = cont_def_params((const gr_continuum_def *)env->def);
    gr_sparse_grid_init(&st->grid);
    gr_sparse_grid_init(&st->prev);
    *out = st;
    return GR_OK;
}

static void cont_destroy(void *state)
{
    cont_state *st = (cont_state *)state;
    if (!st)
        return;
    cont_free_fields(st);
    cont_free_particles(st);
    cont_regrain_free(st);
    gr_mem_free(st->mem, st, sizeof *st);
}

static gr_status cont_reserve(void *state, const gr_grain_init *g, uint32_t count)
{
    cont_state *st = (cont_state *)state;
    for (uint32_t k = 0; k < count; k++)
        if (g[k].clump != GR_INVALID_INDEX)
            return GR_ERROR_UNSUPPORTED; /* a continuum particle is a sample of sand, not a shaped grain */
    if ((uint64_t)st->n + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    return cont_reserve_particles(st, st->n + count);
}

static void cont_add_grains(void *state, const gr_grain_init *g, uint32_t count)
{
    cont_state *st = (cont_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = st->n++;
        st->x[i] = g[k].position;
        st->v[i] = g[k].velocity;
        st->radius[i] = g[k].radius;
        st->mat[i] = g[k].material;
        st->slot[i] = g[k].slot;
        st->shape[i] = cont_sym3_sphere(st->par.radius);
        cont_particle_material(st, i);
        st->env.grains->dense[g[k].slot] = i;
        if (st->par.points)
            cont_points_sample(st, i, 0);
    }
}

static void cont_remove_grains(void *state, const uint32_t *dense, uint32_t count)
{
    cont_state *st = (cont_state *)state;
    for (uint32_t k = 0; k < count; k++)
        st->slot[dense[k]] = GR_INVALID_INDEX;
    cont_compact_particles(st);
}

/* The whole dt (the solver is adaptive: its CFL limit, sec. 4, changes with the flow within a
 * step), in steps of at most cont_stable_step each. A particle whose state is not finite is a
 * blow-up: it stops at its last finite state and the step ends. */
static gr_status cont_step_n(void *state, uint32_t n, double h, gr_step_report *rep)
{
    cont_state *st = (cont_state *)state;
    /* the bodies' impulses over the step, by slot (reserved before anything moves) */
    const uint32_t slots = st->env.bodies->slot_count;
    if (slots > st->imp_cap) {
        const uint32_t cap = gr_grow_capacity(st->imp_cap, slots);
        const gr_array_ref a = {(void **)&st->imp, 2 * sizeof(gr_vec3)};
        if (!gr_mem_grow_arrays(st->mem, &a, 1, st->imp_cap, cap, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        st->imp_cap = cap;
    }
    for (size_t k = 0; k < 2 * (size_t)slots; k++)
        st->imp[k] = v3(0, 0, 0);
    rep->body_impulse = st->imp;
    rep->impulse_slots = slots;
    rep->impulse_time = 0;
    rep->fall = 0;
    for (uint32_t i = 0; i < st->n; i++) /* the materials may have changed since */
        cont_particle_material(st, i);
    const double total = n * h;
    double done = 0;
    while (done < total) {
        /* what is left in equal steps within the CFL limit: a sliver of a step at the end would
         * undo the last steps' small over-compression with a velocity of (phi - 1) h / dt */
        const double left = total - done;
        const double k = ceil(left / fmin(cont_stable_step(st), left) - 1e-9);
        const double dt = k > 1 ? left / k : left;
        uint32_t lost;
        const gr_status s = cont_step(st, dt, &lost);
        if (s != GR_OK)
            return s;
        for (uint32_t i = 0; i < st->n; i++)
            if (!v3_finite(st->x[i]) || !(v3_len(st->v[i]) <= GR_MAX_SPEED)) {
                if (!rep->blowups++)
                    rep->blowup_slot = st->slot[i];
                st->v[i] = v3(0, 0, 0);
                if (!v3_finite(st->x[i]))
                    st->x[i] = v3(0, 0, 0); /* (the world removes blown-up grains) */
            }
        rep->fall += dt * (done + dt); /* symplectic Euler: sum of h_k t_k (body_host.c) */
        rep->impulse_time += dt;
        done = dt == left ? total : done + dt;
        rep->substeps++;
        rep->time += dt;
        rep->last_substep = dt;
        if (rep->blowups)
            return GR_ERROR_UNSTABLE;
    }
    return GR_OK;
}

static bool cont_adaptive(const void *state)
{
    (void)state;
    return true;
}

static double cont_stable_substep(void *state) { return cont_stable_step((const cont_state *)state); }

static void cont_read_field(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out)
{
    const cont_state *st = (const cont_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        double *o = out + 4 * (size_t)k;
        gr_vec3 a = {0, 0, 0};
        switch (field) {
        case GR_FIELD_POSITION: a = st->x[i]; break;
        case GR_FIELD_VELOCITY: a = st->v[i]; break;
        case GR_FIELD_ORIENTATION: o[0] = o[1] = o[2] = 0; o[3] = 1; continue;
        case GR_FIELD_RADIUS: o[0] = st->radius[i]; continue;
        case GR_FIELD_MASS: o[0] = st->m[i]; continue;
        case GR_FIELD_MATERIAL: o[0] = (double)st->mat[i]; continue;
        default: break; /* angular velocity, force: none */
        }
        o[0] = a.x, o[1] = a.y, o[2] = a.z;
    }
}

static void cont_write_field(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in)
{
    cont_state *st = (cont_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        const double *p = in + 4 * (size_t)k;
        if (field == GR_FIELD_POSITION)
            st->x[i] = v3(p[0], p[1], p[2]);
        else if (field == GR_FIELD_VELOCITY)
            st->v[i] = v3(p[0], p[1], p[2]);
    }
}

static uint32_t cont_render_point_count(const void *state)
{
    const cont_state *st = (const cont_state *)state;
    return st->par.points ? st->n * st->par.points : st->n;
}

/* par.points points per particle, particle by particle (cont_points.h), each of radius r / cbrt K
 * (together the grain's solid volume); without them, the particles themselves. */
static void cont_read_render_points(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    const cont_state *st = (const cont_state *)state;
    const uint32_t K = st->par.points ? st->par.points : 1;
    const double scale = 1.0 / cbrt((double)K);
    for (uint32_t k = 0; k < count; k++) {
        float *p = (float *)(void *)((char *)dst + stride * k);
        const uint32_t q = first + k, i = q / K;
        const gr_vec3 x = st->par.points ? v3_add(st->x[i], st->pts[q]) : st->x[i];
        p[0] = (float)x.x, p[1] = (float)x.y, p[2] = (float)x.z;
        p[3] = (float)(st->radius[i] * scale);
    }
}

static void cont_contact_counts(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds)
{
    (void)state;
    *pairs = *body_pairs = *rebuilds = 0;
}

/* ---- snapshot: the particles, and the last step's pressure, stress and density potential by
 * cell (the next step warm-starts from them, so a loaded world continues with the same bits;
 * format 9 has no potential: its next density correction starts from 0) ----------------------- */

/* Values a warm-start cell holds: p, the stress's 5, y (format 10 on). */
#define CONT_WARM_VALUES 7
#define CONT_WARM_VALUES_9 6

static gr_status cont_save(const void *state, gr_stream_writer *w)
{
    const cont_state *st = (const cont_state *)state;
    gr_writer_u32(w, st->n);
    for (uint32_t i = 0; i < st->n; i++) {
        const cont_sym3 A = st->shape[i];
        const double v[] = {st->x[i].x, st->x[i].y, st->x[i].z, st->v[i].x, st->v[i].y, st->v[i].z, st->radius[i],
                            A.xx, A.yy, A.zz, A.xy, A.yz, A.xz};
        gr_writer_f64s(w, v, GR_COUNTOF(v));
        gr_writer_u32(w, st->mat[i]);
        gr_writer_u32(w, st->slot[i]);
    }
    if (st->par.points) /* (the def in the snapshot says how many) */
        gr_writer_f64s(w, (const double *)st->pts, 3 * (size_t)st->par.points * st->n);
    gr_writer_u64(w, st->splits);
    gr_writer_u64(w, st->merges);
    const gr_sparse_grid *g = &st->prev;
    const uint32_t cells = gr_sparse_grid_cells(g);
    uint32_t kept = 0;
    for (uint32_t c = 0; c < cells; c++) {
        bool any = st->prev_p[c] != 0 || st->prev_y[c] != 0;
        for (int j = 0; j < 5; j++)
            any = any || st->prev_s[(size_t)j * cells + c] != 0;
        kept += any;
    }
    gr_writer_u32(w, kept);
    gr_writer_f64(w, g->h);
    const double o[3] = {g->origin.x, g->origin.y, g->origin.z};
    gr_writer_f64s(w, o, 3);
    for (uint32_t c = 0; c < cells; c++) {
        double v[CONT_WARM_VALUES] = {st->prev_p[c]};
        for (int j = 0; j < 5; j++)
            v[1 + j] = st->prev_s[(size_t)j * cells + c];
        v[6] = st->prev_y[c];
        bool any = false;
        for (int j = 0; j < CONT_WARM_VALUES; j++)
            any = any || v[j] != 0;
        if (!any)
            continue;
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        gr_writer_u32s(w, (const uint32_t *)k, 3);
        gr_writer_f64s(w, v, CONT_WARM_VALUES);
    }
    return GR_OK;
}

#define LOAD_CHECK(cond, what) GR_LOAD_CHECK(r, cond, what)

static gr_status cont_load(void *state, gr_stream_reader *r)
{
    cont_state *st = (cont_state *)state;
    gr_grain_table *t = st->env.grains;
    const uint32_t n = gr_reader_u32(r);
    LOAD_CHECK(n == gr_grain_table_count_system(t, st->env.system), "the grain count differs from its live grain slots");
    LOAD_CHECK((uint64_t)n * (13 * 8 + 8) <= gr_reader_left(r), "the particle count exceeds the snapshot");
    if (cont_reserve_particles(st, n) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        double v[13];
        gr_reader_f64s(r, v, 13);
        const uint32_t mat = gr_reader_u32(r), slot = gr_reader_u32(r);
        for (int c = 0; c < 13; c++)
            LOAD_CHECK(isfinite(v[c]), "a particle's state is not finite");
        LOAD_CHECK(v[6] > 0 && v[6] <= 1e3, "a particle's radius is out of range");
        LOAD_CHECK(v[7] > 0 && v[8] > 0 && v[9] > 0, "a particle's shape is not positive definite");
        LOAD_CHECK(mat < st->env.materials->count, "a particle's material is not one of its materials");
        LOAD_CHECK(slot < t->slot_count && t->alive[slot] && gr_grain_of(t, slot, st->env.system) &&
                       t->dense[slot] == GR_INVALID_INDEX,
                   "a particle's slot is not live, not of this system, or taken twice");
        st->x[i] = v3(v[0], v[1], v[2]);
        st->v[i] = v3(v[3], v[4], v[5]);
        st->radius[i] = v[6];
        st->shape[i] = (cont_sym3){v[7], v[8], v[9], v[10], v[11], v[12]};
        st->mat[i] = mat;
        st->slot[i] = slot;
        t->dense[slot] = i;
        st->n = i + 1;
        cont_particle_material(st, i);
    }
    if (st->par.points) {
        const size_t values = 3 * (size_t)st->par.points * n;
        LOAD_CHECK(values * 8 <= gr_reader_left(r), "the render points exceed the snapshot");
        gr_reader_f64s(r, (double *)st->pts, values);
        for (size_t k = 0; k < values; k++)
            LOAD_CHECK(isfinite(((const double *)st->pts)[k]) && fabs(((const double *)st->pts)[k]) <= 1e3,
                       "a render point is not finite or far from its particle");
    }
    st->splits = gr_reader_u64(r);
    st->merges = gr_reader_u64(r);
    /* the warm start: a grid over the kept cells' centres (halo 0), their values on it */
    const uint32_t nv = r->format >= 10 ? CONT_WARM_VALUES : CONT_WARM_VALUES_9;
    const uint32_t kept = gr_reader_u32(r);
    const double h = gr_reader_f64(r);
    double o[3];
    gr_reader_f64s(r, o, 3);
    LOAD_CHECK((uint64_t)kept * (3 * 4 + nv * 8) <= gr_reader_left(r), "the warm-start cell count exceeds the snapshot");
    LOAD_CHECK(kept == 0 || (h == st->par.cell && isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2])),
               "the warm start's grid is not the solver's");
    if (kept == 0)
        return GR_OK;
    double *centres = (double *)gr_mem_alloc(st->mem, sizeof(double) * 3 * kept);
    double *values = (double *)gr_mem_alloc(st->mem, sizeof(double) * CONT_WARM_VALUES * kept);
    gr_status s = centres && values ? GR_OK : GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < kept && s == GR_OK; k++) {
        int32_t c[3];
        gr_reader_u32s(r, (uint32_t *)c, 3);
        double *v = values + CONT_WARM_VALUES * (size_t)k;
        v[6] = 0.0; /* (format 9: the density correction starts cold) */
        gr_reader_f64s(r, v, nv);
        for (int a = 0; a < 3; a++)
            centres[3 * k + a] = o[a] + (c[a] + 0.5) * h;
        for (int a = 0; a < CONT_WARM_VALUES; a++)
            if (!isfinite(v[a]))
                s = GR_ERROR_CORRUPT_DATA;
        if (!(v[6] >= 0)) /* (the correction's potential is an LCP's answer: y >= 0) */
            s = GR_ERROR_CORRUPT_DATA;
    }
    if (r->bad)
        s = GR_ERROR_CORRUPT_DATA;
    if (s == GR_OK && !gr_sparse_grid_build(&st->prev, st->mem, centres, 3, kept, h, v3(o[0], o[1], o[2]), 0))
        s = GR_ERROR_OUT_OF_MEMORY;
    const uint32_t cells = gr_sparse_grid_cells(&st->prev);
    if (s == GR_OK && st->prev.rejected)
        s = GR_ERROR_CORRUPT_DATA;
    if (s == GR_OK && cells > st->prev_cap) {
        gr_array_ref a[] = {{(void **)&st->prev_p, sizeof(double)},
                            {(void **)&st->prev_s, 5 * sizeof(double)},
                            {(void **)&st->prev_y, sizeof(double)}};
        if (!gr_mem_grow_arrays(st->mem, a, GR_COUNTOF(a), st->prev_cap, cells, 0))
            s = GR_ERROR_OUT_OF_MEMORY;
        else
            st->prev_cap = cells;
    }
    if (s == GR_OK) {
        memset(st->prev_p, 0, sizeof(double) * cells);
        memset(st->prev_s, 0, 5 * sizeof(double) * cells);
        memset(st->prev_y, 0, sizeof(double) * cells);
        for (uint32_t k = 0; k < kept; k++) {
            const uint32_t c = st->prev.point_cell[k];
            const double *v = values + CONT_WARM_VALUES * (size_t)k;
            st->prev_p[c] = v[0];
            for (int j = 0; j < 5; j++)
                st->prev_s[(size_t)j * cells + c] = v[1 + j];
            st->prev_y[c] = v[6];
        }
    }
    gr_mem_free(st->mem, centres, sizeof(double) * 3 * kept);
    gr_mem_free(st->mem, values, sizeof(double) * CONT_WARM_VALUES * kept);
    if (s == GR_ERROR_CORRUPT_DATA)
        gr_reader_fail(r, "the warm start's cells are not finite, not in reach, or hold a negative density potential");
    return s;
}

static gr_status cont_regrain_plan_(void *state, uint32_t max_add, gr_regrain *plan)
{
    return cont_regrain_plan((cont_state *)state, max_add, plan);
}

static void cont_regrain_apply_(void *state, gr_regrain *plan) { cont_regrain_apply((cont_state *)state, plan); }

static void cont_regrain_counts(const void *state, uint64_t *made, uint64_t *unmade)
{
    const cont_state *st = (const cont_state *)state;
    *made = st->splits;
    *unmade = st->merges;
}

static void cont_invalidate(void *state) { (void)state; /* materials are read at every step */ }

const gr_solver_vtable gr_continuum_solver = {
    .kind = GR_SOLVER_CONTINUUM,
    .name = "continuum",
    .def_kind = GR_DEF_CONTINUUM,
    .def_size = sizeof(gr_continuum_def),
    .def_layout = &cont_def_layout,
    .def_defaults = cont_def_defaults,
    .def_validate = cont_def_validate,
    .def_save = cont_def_save,
    .oldest_format = 9,
    .def_load = cont_def_load,
    .create = cont_create,
    .destroy = cont_destroy,
    .reserve = cont_reserve,
    .add_grains = cont_add_grains,
    .remove_grains = cont_remove_grains,
    .step = cont_step_n,
    .adaptive = cont_adaptive,
    .stable_substep = cont_stable_substep,
    .read_field = cont_read_field,
    .write_field = cont_write_field,
    .render_point_count = cont_render_point_count,
    .read_render_points = cont_read_render_points,
    .contact_counts = cont_contact_counts,
    .save = cont_save,
    .load = cont_load,
    .invalidate = cont_invalidate,
    .integrates_bodies = true,
    .body_particles = false,
    .regrain_plan = cont_regrain_plan_,
    .regrain_apply = cont_regrain_apply_,
    .regrain_counts = cont_regrain_counts,
};
