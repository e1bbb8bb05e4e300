/* SPDX-License-Identifier: MIT */
/* DEM substeps: velocity Verlet (kick-drift, forces, kick) with the half kicks of consecutive
 * substeps fused into one pass, forces over slabs of cells in two colours (no two slabs that
 * share a grain run at once, so scattering to partners is race-free and the summation order
 * is fixed: bit-identical for any worker count). */
#include <math.h>

#include "../geom/vec3.h"
#include "dem_contact.h"
#include "dem_internal.h"

enum { INTEGRATE_BLOCK = 2048 };

/* ---- integration -------------------------------------------------------------------------- */

typedef struct integrate_ctx {
    dem_state *st;
    double kick1; ///< first half kick (completes the previous substep), 0 at the first
    double kick2; ///< second half kick (h/2)
    double h;     ///< drift, 0 for a kick-only pass
    gr_vec3 gravity;
} integrate_ctx;

static void integrate_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const integrate_ctx *c = (const integrate_ctx *)vctx;
    dem_state *st = c->st;
    gr_vec3 *restrict x = st->x, *restrict v = st->v, *restrict w = st->w;
    gr_vec3 *restrict f = st->f, *restrict t = st->t;
    const double *restrict inv_m = st->inv_m, *restrict inv_i = st->inv_i, *restrict m = st->m;
    const double k1 = c->kick1, k2 = c->kick2, h = c->h;
    double max_d2 = 0;
    uint32_t bad = 0;
    for (uint32_t i = begin; i < end; i++) {
        gr_vec3 vi = v[i], wi = w[i];
        const double am = inv_m[i], ai = inv_i[i];
        /* two separate half kicks: bit-identical to ending one substep and starting the next */
        vi = v3_madd(vi, f[i], k1 * am);
        wi = v3_madd(wi, t[i], k1 * ai);
        vi = v3_madd(vi, f[i], k2 * am);
        wi = v3_madd(wi, t[i], k2 * ai);
        if (h == 0) {
            v[i] = vi;
            w[i] = wi;
            continue;
        }
        gr_vec3 xi = v3_madd(x[i], vi, h);
        if (GR_UNLIKELY(!v3_finite(xi) || !v3_finite(vi) || !v3_finite(wi))) {
            /* keep the last finite state, stop the grain; the step reports GR_ERROR_UNSTABLE */
            v[i] = v3(0, 0, 0);
            w[i] = v3(0, 0, 0);
            if (bad++ == 0)
                st->block_bad[begin / INTEGRATE_BLOCK] = st->slot[i];
        } else {
            x[i] = xi;
            v[i] = vi;
            w[i] = wi;
            /* orientation: first-order update, renormalised (cosmetic for spheres) */
            gr_quat q = st->q[i];
            double hx = 0.5 * h * wi.x, hy = 0.5 * h * wi.y, hz = 0.5 * h * wi.z;
            gr_quat dq = {hx * q.w + hy * q.z - hz * q.y, -hx * q.z + hy * q.w + hz * q.x,
                          hx * q.y - hy * q.x + hz * q.w, -hx * q.x - hy * q.y - hz * q.z};
            q.x += dq.x; q.y += dq.y; q.z += dq.z; q.w += dq.w;
            st->q[i] = quat_normalize(q);
        }
        f[i] = v3_scale(c->gravity, m[i]);
        t[i] = v3(0, 0, 0);
        double d2 = v3_len2(v3_sub(x[i], st->x_ref[i]));
        if (d2 > max_d2)
            max_d2 = d2;
    }
    /* a non-finite grain marks its block with an infinite displacement (see dem_step) */
    st->block_max[begin / INTEGRATE_BLOCK] = bad ? INFINITY : max_d2;
}

void dem_free_blocks(dem_state *st)
{
    gr_mem_free(st->mem, st->block_max, sizeof(double) * st->block_cap);
    gr_mem_free(st->mem, st->block_bad, sizeof(uint32_t) * st->block_cap);
    st->block_max = NULL;
    st->block_bad = NULL;
    st->block_cap = 0;
}

static gr_status reserve_blocks(dem_state *st)
{
    uint32_t nblocks = (st->n + INTEGRATE_BLOCK - 1) / INTEGRATE_BLOCK + 1;
    if (nblocks <= st->block_cap)
        return GR_OK;
    uint32_t cap = gr_grow_capacity(st->block_cap, nblocks);
    double *b = (double *)gr_mem_alloc(st->mem, sizeof(double) * cap);
    uint32_t *bad = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
    if (!b || !bad) {
        gr_mem_free(st->mem, b, sizeof(double) * cap);
        gr_mem_free(st->mem, bad, sizeof(uint32_t) * cap);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    dem_free_blocks(st);
    st->block_max = b;
    st->block_bad = bad;
    st->block_cap = cap;
    return GR_OK;
}

/* Largest squared displacement since the last rebuild (INFINITY if a grain went non-finite). */
static double integrate(dem_state *st, double kick1, double kick2, double h)
{
    integrate_ctx c = {st, kick1, kick2, h, st->world->def.gravity};
    gr_parallel_for(&st->world->tasks, st->n, INTEGRATE_BLOCK, integrate_range, &c);
    double m = 0;
    if (h > 0) {
        uint32_t nblocks = (st->n + INTEGRATE_BLOCK - 1) / INTEGRATE_BLOCK;
        for (uint32_t b = 0; b < nblocks; b++) {
            if (st->block_max[b] == INFINITY && st->unstable_slot == GR_INVALID_INDEX)
                st->unstable_slot = st->block_bad[b]; /* first in block order: deterministic */
            m = st->block_max[b] > m ? st->block_max[b] : m;
        }
    }
    return m;
}

/* ---- forces ------------------------------------------------------------------------------- */

typedef struct force_ctx {
    dem_state *st;
    double h;
    uint32_t parity; ///< slabs 2k + parity
} force_ctx;

static inline double rolling_inertia(double mi, double ri, double mj, double rj)
{
    double a = mi * ri * ri, b = mj * rj * rj;
    return 1.4 * a * b / (a + b);
}

static void force_slab(dem_state *st, uint32_t s, double h)
{
    const dem_law *law = &st->law;
    const gr_vec3 *restrict x = st->x, *restrict v = st->v, *restrict w = st->w;
    gr_vec3 *restrict f = st->f, *restrict t = st->t;
    const double *restrict r = st->r, *restrict m = st->m;
    const uint32_t *restrict mat = st->mat;
    const uint32_t *restrict nb_start = st->nb_start, *restrict nb_j = st->nb_j;
    gr_vec3 *restrict hist = st->nb_hist;
    gr_vec3 *restrict roll = st->nb_roll;
    const dem_pair_params *pairs = st->pairs;
    const uint32_t pdim = st->pair_dim;
    const bool rolling = law->rolling != GR_ROLLING_NONE;
    const bool has_roll_hist = roll != NULL;
    const gr_body_store *bodies = &st->world->bodies;
    double *slab_body = st->slab_body + (size_t)s * st->body_slots * 6;
    uint64_t contacts = 0, body_contacts = 0;
    gr_vec3 zero = {0, 0, 0};
    gr_vec3 dummy_roll = zero;

    for (uint32_t i = st->slab_start[s]; i < st->slab_start[s + 1]; i++) {
        const gr_vec3 xi = x[i], vi = v[i], wi = w[i];
        const double ri = r[i], mi = m[i];
        const dem_pair_params *prow = pairs + (size_t)mat[i] * pdim;
        gr_vec3 fi = zero, ti = zero;
        for (uint32_t e = nb_start[i]; e < nb_start[i + 1]; e++) {
            const uint32_t j = nb_j[e];
            const gr_vec3 d = v3_sub(xi, x[j]);
            const double rj = r[j];
            const double rsum = ri + rj;
            const double dist2 = v3_len2(d);
            if (dist2 >= rsum * rsum) {
                /* not touching: the contact's history ends */
                if (hist[e].x != 0 || hist[e].y != 0 || hist[e].z != 0)
                    hist[e] = zero;
                if (has_roll_hist)
                    roll[e] = zero;
                continue;
            }
            const double dist = sqrt(dist2);
            const double inv = 1.0 / dist;
            dem_contact_in c;
            c.n = v3_scale(d, inv);
            c.delta = rsum - dist;
            /* lever arms to the contact point (mid-overlap): they sum to the centre distance,
             * so the pair's torques conserve angular momentum exactly */
            const double ai = ri - 0.5 * c.delta, aj = rj - 0.5 * c.delta;
            const gr_vec3 vj = v[j], wj = w[j];
            const gr_vec3 rw = v3_add(v3_scale(wi, ai), v3_scale(wj, aj));
            c.vrel = v3_sub(v3_sub(vi, vj), v3_cross(rw, c.n));
            c.reff = ri * rj / rsum;
            const double mj = m[j];
            c.meff = mi * mj / (mi + mj);
            c.h = h;
            if (rolling) {
                c.wrel = v3_sub(wi, wj);
                c.iroll = rolling_inertia(mi, ri, mj, rj);
            } else {
                c.wrel = zero;
                c.iroll = 0;
            }
            dem_contact_out o;
            dem_contact(law, prow + mat[j], &c, &hist[e], has_roll_hist ? &roll[e] : &dummy_roll, &o);
            fi = v3_add(fi, o.f);
            f[j] = v3_sub(f[j], o.f);
            ti = v3_sub(ti, v3_add(v3_scale(o.nxft, ai), o.mroll));
            t[j] = v3_add(t[j], v3_sub(o.mroll, v3_scale(o.nxft, aj)));
            contacts++;
        }

        /* grain-body contacts: the body is a sphere of infinite radius and mass */
        for (uint32_t e = st->bc_start[i]; e < st->bc_start[i + 1]; e++) {
            const uint32_t id = st->bc_id[e];
            const uint32_t bs = id >> 3, feat = id & 7u;
            const gr_body_data *b = &bodies->data[bs];
            gr_vec3 n, pc;
            const double dist = gr_body_feature_distance(b, feat, xi, &n, &pc);
            const double delta = ri - dist;
            if (delta <= 0) {
                st->bc_hist[e] = zero;
                if (st->bc_roll)
                    st->bc_roll[e] = zero;
                continue;
            }
            dem_contact_in c;
            c.n = n;
            c.delta = delta;
            const double ai = ri - 0.5 * delta; /* grain's lever arm to the contact point */
            pc = v3_madd(pc, n, 0.5 * delta);   /* contact point: mid-overlap */
            c.vrel = v3_sub(v3_sub(vi, gr_body_point_velocity(b, pc)), v3_cross(v3_scale(wi, ai), n));
            c.reff = ri;
            c.meff = mi;
            c.h = h;
            c.wrel = v3_sub(wi, b->angular_velocity);
            c.iroll = 1.4 * mi * ri * ri;
            dem_contact_out o;
            dem_contact(law, prow + b->material, &c, &st->bc_hist[e], st->bc_roll ? &st->bc_roll[e] : &dummy_roll, &o);
            fi = v3_add(fi, o.f);
            ti = v3_sub(ti, v3_add(v3_scale(o.nxft, ai), o.mroll));
            /* reaction on the body, torque about its position */
            double *sb = slab_body + (size_t)bs * 6;
            gr_vec3 tb = v3_add(v3_cross(v3_sub(pc, b->position), v3_neg(o.f)), o.mroll);
            sb[0] -= o.f.x; sb[1] -= o.f.y; sb[2] -= o.f.z;
            sb[3] += tb.x; sb[4] += tb.y; sb[5] += tb.z;
            body_contacts++;
        }
        f[i] = v3_add(f[i], fi);
        t[i] = v3_add(t[i], ti);
    }
    st->slab_contacts[2 * s] = contacts;
    st->slab_contacts[2 * s + 1] = body_contacts;
}

static void force_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const force_ctx *c = (const force_ctx *)vctx;
    for (uint32_t k = begin; k < end; k++)
        force_slab(c->st, 2 * k + c->parity, c->h);
}

/* Forces at the current positions (half-step velocities), plus per-body reactions. */
static void compute_forces(dem_state *st, double h)
{
    const uint32_t ns = st->nslabs;
    if (st->body_slots)
        memset(st->slab_body, 0, sizeof(double) * (size_t)ns * st->body_slots * 6);
    force_ctx even = {st, h, 0}, odd = {st, h, 1};
    gr_parallel_for(&st->world->tasks, (ns + 1) / 2, 1, force_range, &even);
    gr_parallel_for(&st->world->tasks, ns / 2, 1, force_range, &odd);
    uint64_t c = 0, cb = 0;
    for (uint32_t s = 0; s < ns; s++) {
        c += st->slab_contacts[2 * s];
        cb += st->slab_contacts[2 * s + 1];
    }
    st->contacts = c;
    st->body_contacts = cb;
    /* body impulses, summed over slabs in slab order (deterministic) */
    const gr_body_store *bodies = &st->world->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        if (bs >= st->body_slots)
            continue;
        gr_vec3 fsum = {0, 0, 0}, tsum = {0, 0, 0};
        for (uint32_t s = 0; s < ns; s++) {
            const double *sb = st->slab_body + ((size_t)s * st->body_slots + bs) * 6;
            fsum = v3_add(fsum, v3(sb[0], sb[1], sb[2]));
            tsum = v3_add(tsum, v3(sb[3], sb[4], sb[5]));
        }
        st->body_impulse[2 * bs] = v3_madd(st->body_impulse[2 * bs], fsum, h);
        st->body_impulse[2 * bs + 1] = v3_madd(st->body_impulse[2 * bs + 1], tsum, h);
    }
}

void dem_compute_forces(dem_state *st)
{
    /* gravity first, as the drift pass does */
    const gr_vec3 g = st->world->def.gravity;
    for (uint32_t i = 0; i < st->n; i++) {
        st->f[i] = v3_scale(g, st->m[i]);
        st->t[i] = v3(0, 0, 0);
    }
    compute_forces(st, 0.0);
}

/* ---- the step ------------------------------------------------------------------------------ */

static bool bodies_moved_too_far(dem_state *st, double max_disp)
{
    const gr_body_store *bodies = &st->world->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        if (bs < st->body_slots && max_disp + st->body_bound[bs] > st->skin)
            return true;
    }
    return false;
}

static void advance_bodies(dem_state *st, double h)
{
    gr_body_store *bodies = &st->world->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        gr_body_data *b = &bodies->data[bs];
        if (b->motion != GR_MOTION_KINEMATIC)
            continue;
        gr_body_integrate(b, h);
        if (bs < st->body_slots)
            st->body_bound[bs] += v3_len(b->linear_velocity) * h + v3_len(b->angular_velocity) * h * st->body_reach[bs];
    }
}

gr_status dem_step(void *state, uint32_t nsub, double h)
{
    dem_state *st = (dem_state *)state;
    gr_world *world = st->world;
    gr_status s;

    /* Everything that may allocate, before any state changes. */
    if ((s = dem_update_pairs(st)) != GR_OK || (s = reserve_blocks(st)) != GR_OK)
        return s;
    if (st->need_rebuild || st->n_dead || st->bodies_revision != world->bodies.revision) {
        if ((s = dem_rebuild(st)) != GR_OK)
            return s;
    }
    if (st->forces_stale) {
        dem_compute_forces(st);
        st->forces_stale = false;
    }
    const gr_body_store *bodies = &world->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        if (bs < st->body_slots)
            st->body_impulse[2 * bs] = st->body_impulse[2 * bs + 1] = v3(0, 0, 0);
    }
    st->unstable_slot = GR_INVALID_INDEX;
    gr_status result = GR_OK;

    for (uint32_t k = 0; k < nsub; k++) {
        double max_d2 = integrate(st, k == 0 ? 0.0 : 0.5 * h, 0.5 * h, h);
        if (max_d2 == INFINITY) {
            result = GR_ERROR_UNSTABLE;
            max_d2 = 0;
            for (uint32_t i = 0; i < st->n; i++) {
                double d2 = v3_len2(v3_sub(st->x[i], st->x_ref[i]));
                max_d2 = d2 > max_d2 ? d2 : max_d2;
            }
        }
        advance_bodies(st, h);
        const double max_disp = sqrt(max_d2);
        if (2.0 * max_disp > st->skin || bodies_moved_too_far(st, max_disp) ||
            st->bodies_revision != world->bodies.revision) {
            gr_status rs = dem_rebuild(st);
            if (rs != GR_OK && result == GR_OK) {
                /* keep going on the old lists (still a valid state); retry at the next substep */
                result = rs;
                st->need_rebuild = true;
            }
        }
        compute_forces(st, h);
        world->time += h;
        world->substep_count++;
        if (result != GR_OK) {
            nsub = k + 1; /* stop after completing this substep */
            break;
        }
    }
    integrate(st, 0.5 * h, 0.0, 0.0);
    world->last_substep = h;
    double total = h * nsub;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        gr_body_data *b = &world->bodies.data[bs];
        if (bs < st->body_slots && total > 0) {
            b->force = v3_scale(st->body_impulse[2 * bs], 1.0 / total);
            b->torque = v3_scale(st->body_impulse[2 * bs + 1], 1.0 / total);
        }
    }
    if (result == GR_ERROR_UNSTABLE)
        st->unstable_count++;
    return result;
}
