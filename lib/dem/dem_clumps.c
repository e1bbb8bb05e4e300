/* SPDX-License-Identifier: MIT */
/* Clumps: grains made of rigid collections of spheres (Bell 2005, section 3.1). The member
 * spheres take part in contacts like any sphere; a clump sums their forces and torques and
 * moves as one rigid body:
 *   velocity Verlet for the centre, and for the rotation the symplectic splitting of
 *   Dullweber, Leimkuhler and McLachlan (1997): kicks of the world angular momentum by the
 *   torque around a free rotation split into rotations about the principal axes
 *   (x/2, y/2, z, y/2, x/2). Each sub-rotation keeps |L| exactly; the splitting is
 *   time-reversible, so a free tumbling body's energy does not drift.
 * Members sit at fixed body-frame offsets: x_k = x + R b_k, v_k = v + w x (x_k - x). */
#include <math.h>

#include "../bodies/body_cover.h"
#include "../bodies/body_store.h"
#include "../core/blowup.h"
#include "../geom/clump_store.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_clumps.h"
#include "dem_store.h"
#include "dem_blowups.h"

/* ---- body clumps ------------------------------------------------------------------------------ */

bool dem_clump_pose_from_body(dem_state *st, uint32_t c, const gr_body_data *b)
{
    gr_vec3 x;
    gr_quat q;
    gr_body_principal_pose(b, &x, &q);
    st->c_x[c] = x;
    st->c_q[c] = q;
    st->c_w[c] = b->angular_velocity;
    st->c_v[c] = v3_add(b->linear_velocity, v3_cross(b->angular_velocity, v3_sub(x, b->position)));
    return b->motion != GR_MOTION_STATIC;
}

bool dem_sync_body_clump(dem_state *st, uint32_t c)
{
    const gr_body_data *b = &st->env.bodies->data[st->c_body[c]];
    if (!dem_clump_pose_from_body(st, c, b))
        return false;
    dem_place_members(st, c);
    return true;
}

/* ---- fixed clumps' active members ------------------------------------------------------------ */

void dem_update_fixed_active(dem_state *st)
{
    const uint32_t n = st->n_built;
    bool any = false;
    for (uint32_t c = 0; c < st->nc; c++) {
        st->c_fa_first[c] = st->c_fa_count[c] = 0;
        any = any || (st->c_fixed[c] && st->c_slot[c] != GR_INVALID_INDEX);
    }
    if (!any)
        return;
    /* bit 0: a fixed clump's sphere; bit 1: it has a partner that is not fixed */
    uint8_t *flag = st->sorted_fixed;
    for (uint32_t i = 0; i < n; i++)
        flag[i] = st->member[i] != GR_INVALID_INDEX && st->c_fixed[st->m_clump[st->member[i]]] ? 1u : 0u;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t e = st->nb_start[i]; e < st->nb_start[i + 1]; e++) {
            const uint32_t j = st->nb_j[e] & DEM_INDEX_MASK;
            if ((flag[i] ^ flag[j]) & 1u) {
                flag[i] |= 2u;
                flag[j] |= 2u;
            }
        }
    uint32_t k = 0;
    for (uint32_t c = 0; c < st->nc; c++) {
        if (!st->c_fixed[c] || st->c_slot[c] == GR_INVALID_INDEX)
            continue;
        st->c_fa_first[c] = k;
        for (uint32_t m = st->c_first[c]; m < st->c_first[c] + st->c_count[c]; m++)
            if (st->m_sphere[m] < n && (flag[st->m_sphere[m]] & 2u))
                st->fa_member[k++] = m;
        st->c_fa_count[c] = k - st->c_fa_first[c];
    }
}

/* ---- rotation helpers ------------------------------------------------------------------- */

static void rotation_matrix(gr_quat q, double r[3][3])
{
    const double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    r[0][0] = 1 - 2 * (yy + zz); r[0][1] = 2 * (xy - wz);     r[0][2] = 2 * (xz + wy);
    r[1][0] = 2 * (xy + wz);     r[1][1] = 1 - 2 * (xx + zz); r[1][2] = 2 * (yz - wx);
    r[2][0] = 2 * (xz - wy);     r[2][1] = 2 * (yz + wx);     r[2][2] = 1 - 2 * (xx + yy);
}

static inline gr_vec3 mat_mul(const double r[3][3], gr_vec3 b)
{
    return v3(r[0][0] * b.x + r[0][1] * b.y + r[0][2] * b.z, r[1][0] * b.x + r[1][1] * b.y + r[1][2] * b.z,
              r[2][0] * b.x + r[2][1] * b.y + r[2][2] * b.z);
}

static inline gr_vec3 mat_mul_t(const double r[3][3], gr_vec3 b)
{
    return v3(r[0][0] * b.x + r[1][0] * b.y + r[2][0] * b.z, r[0][1] * b.x + r[1][1] * b.y + r[2][1] * b.z,
              r[0][2] * b.x + r[1][2] * b.y + r[2][2] * b.z);
}

/* World angular velocity from the world angular momentum: w = R I^-1 R^T L. */
static gr_vec3 angular_velocity(gr_quat q, gr_vec3 inertia, gr_vec3 L)
{
    double r[3][3];
    rotation_matrix(q, r);
    gr_vec3 l = mat_mul_t(r, L);
    return mat_mul(r, v3(l.x / inertia.x, l.y / inertia.y, l.z / inertia.z));
}

/* Free rotation about body axis a for time tau: the body turns by theta = tau l_a / I_a, the
 * body-frame momentum by -theta. The turn uses the Cayley form (an exact rotation, by an angle
 * within theta^3/12 of theta): one square root instead of a sine and a cosine. */
static void rotate_about(gr_quat *q, gr_vec3 *l, int axis, double tau, gr_vec3 inertia)
{
    const double la = axis == 0 ? l->x : (axis == 1 ? l->y : l->z);
    const double ia = axis == 0 ? inertia.x : (axis == 1 ? inertia.y : inertia.z);
    const double t = 0.5 * tau * la / ia; /* tan of half the angle */
    const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
    /* q <- q * (c, s e_a) */
    gr_quat d = {axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0, c};
    *q = quat_mul(*q, d);
    /* l <- rot(-angle) l about axis a: cos = c^2 - s^2, sin = 2 c s */
    const double cs = c * c - s * s, sn = 2.0 * c * s;
    if (axis == 0) {
        const double y = l->y, z = l->z;
        l->y = cs * y + sn * z;
        l->z = -sn * y + cs * z;
    } else if (axis == 1) {
        const double z = l->z, x = l->x;
        l->z = cs * z + sn * x;
        l->x = -sn * z + cs * x;
    } else {
        const double x = l->x, y = l->y;
        l->x = cs * x + sn * y;
        l->y = -sn * x + cs * y;
    }
}

/* ---- adding ----------------------------------------------------------------------------- */

void dem_place_members(dem_state *st, uint32_t c)
{
    double r[3][3];
    rotation_matrix(st->c_q[c], r);
    const gr_vec3 x = st->c_x[c], v = st->c_v[c], w = st->c_w[c];
    for (uint32_t k = st->c_first[c]; k < st->c_first[c] + st->c_count[c]; k++) {
        const uint32_t s = st->m_sphere[k];
        const gr_vec3 arm = mat_mul(r, st->m_offset[k]);
        st->xr[s].x = x.x + arm.x;
        st->xr[s].y = x.y + arm.y;
        st->xr[s].z = x.z + arm.z;
        st->v[s] = v3_add(v, v3_cross(w, arm));
        st->w[s] = w;
    }
}

void dem_add_clump(dem_state *st, const gr_grain_init *g, uint32_t tmpl)
{
    const gr_clump_store *cs = st->env.clumps;
    const gr_clump_template *t = &cs->templates[tmpl];
    const double rho = st->env.materials->defs[g->material].density;
    const double scale = g->radius;
    const double s3 = scale * scale * scale, s5 = s3 * scale * scale;
    const uint32_t c = st->nc++;
    const double mass = rho * t->unit_volume * s3;
    /* the caller's orientation is of the template's frame; the clump turns in its principal frame */
    const gr_quat q = quat_normalize(quat_mul(g->orientation, t->principal));
    st->c_x[c] = g->position;
    st->c_q[c] = q;
    st->c_frame[c] = t->principal;
    st->c_v[c] = g->velocity;
    st->c_inertia[c] = v3_scale(t->unit_inertia, rho * s5);
    st->c_m[c] = mass;
    st->c_radius[c] = scale;
    st->c_slot[c] = g->slot;
    st->c_mat[c] = g->material;
    st->c_body[c] = GR_INVALID_INDEX;
    st->c_fixed[c] = 0;
    st->c_f[c] = v3(0, 0, 0);
    st->c_t[c] = v3(0, 0, 0);
    /* angular momentum from the given angular velocity: L = R I R^T w */
    double r[3][3];
    rotation_matrix(q, r);
    const gr_vec3 wl = mat_mul_t(r, g->angular_velocity);
    const gr_vec3 ic = st->c_inertia[c];
    st->c_L[c] = mat_mul(r, v3(wl.x * ic.x, wl.y * ic.y, wl.z * ic.z));
    st->c_w[c] = g->angular_velocity;
    st->c_first[c] = st->nm;
    st->c_count[c] = t->count;
    const uint8_t sampled = gr_upsample_take_presampled(&st->points) ? 1 : 0; /* (dem_fill_region) */
    for (uint32_t k = 0; k < t->count; k++) {
        const uint32_t m = st->nm++;
        const uint32_t s = st->n++;
        const double rs = cs->radii[t->first + k] * scale;
        st->m_offset[m] = v3_scale(cs->offsets[t->first + k], scale);
        st->m_sphere[m] = s;
        st->m_clump[m] = c;
        st->member[s] = m;
        st->sampled[s] = sampled;
        st->xr[s].r = rs;
        st->m[s] = mass; /* the clump's mass enters the contacts' reduced mass */
        st->inv_m[s] = 0;
        st->inv_i[s] = 0;
        st->q[s] = quat_identity();
        st->f[s] = v3(0, 0, 0);
        st->t[s] = v3(0, 0, 0);
        st->mat[s] = g->material;
        st->slot[s] = g->slot;
        if (rs < st->mat_rmin[g->material])
            st->mat_rmin[g->material] = rs;
    }
    dem_place_members(st, c);
    for (uint32_t k = st->c_first[c]; k < st->c_first[c] + t->count; k++)
        st->x_ref[st->m_sphere[k]] = xr_pos(&st->xr[st->m_sphere[k]]);
    st->env.grains->dense[g->slot] = DEM_CLUMP_BIT | c;
    st->render_count += t->count;
}

/* ---- integration -------------------------------------------------------------------------- */

typedef struct clump_ctx {
    dem_state *st;
    double k1, k2, h;
    gr_vec3 gravity;
    double *block_max; ///< per block
    uint32_t *block_bad; ///< per block: first blown-up clump's grain slot, their count
} clump_ctx;

enum { CLUMP_BLOCK = 512 };

/* Members' forces cleared for the next evaluation; returns the larger of max_d2 and their
 * squared displacements since the last rebuild. */
static double clear_members(dem_state *st, uint32_t c, double max_d2)
{
    for (uint32_t k = st->c_first[c]; k < st->c_first[c] + st->c_count[c]; k++) {
        const uint32_t s = st->m_sphere[k];
        st->f[s] = v3(0, 0, 0);
        st->t[s] = v3(0, 0, 0);
        const double d2 = v3_len2(v3_sub(xr_pos(&st->xr[s]), st->x_ref[s]));
        max_d2 = d2 > max_d2 ? d2 : max_d2;
    }
    return max_d2;
}

static void clump_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const clump_ctx *c = (const clump_ctx *)vctx;
    dem_state *st = c->st;
    double max_d2 = 0;
    uint32_t bad = 0, *block_bad = c->block_bad + 2 * (begin / CLUMP_BLOCK);
    for (uint32_t i = begin; i < end; i++) {
        if (st->c_slot[i] == GR_INVALID_INDEX)
            continue;
        if (st->c_fixed[i]) {
            /* a static, kinematic or host body: its pose comes from the body, not from forces */
            if (c->h == 0)
                continue;
            st->c_f[i] = v3(0, 0, 0);
            st->c_t[i] = v3(0, 0, 0);
            if (dem_sync_body_clump(st, i)) {
                max_d2 = clear_members(st, i, max_d2); /* it moves: every member counts */
                continue;
            }
            /* a static body: only members with a neighbour can have been pushed */
            for (uint32_t k = st->c_fa_first[i]; k < st->c_fa_first[i] + st->c_fa_count[i]; k++) {
                const uint32_t s = st->m_sphere[st->fa_member[k]];
                st->f[s] = v3(0, 0, 0);
                st->t[s] = v3(0, 0, 0);
            }
            continue;
        }
        const double inv_m = 1.0 / st->c_m[i];
        gr_vec3 v = st->c_v[i], L = st->c_L[i];
        /* two separate half kicks, as for spheres */
        v = v3_madd(v, st->c_f[i], c->k1 * inv_m);
        L = v3_madd(L, st->c_t[i], c->k1);
        v = v3_madd(v, st->c_f[i], c->k2 * inv_m);
        L = v3_madd(L, st->c_t[i], c->k2);
        gr_quat q = st->c_q[i];
        const gr_vec3 inertia = st->c_inertia[i];
        const gr_vec3 x_new = v3_madd(st->c_x[i], v, c->h);
        if (GR_UNLIKELY(!v3_finite(x_new) || !v3_finite(L) ||
                        gr_blown_up(v, v3(L.x / inertia.x, L.y / inertia.y, L.z / inertia.z), st->c_radius[i]))) {
            /* keep the last finite state, stop the clump (|L / I| bounds |w| from above
             * within a factor of the inertia ratio: enough for a bound this far out) */
            v = L = v3(0, 0, 0);
            if (!v3_finite(st->c_f[i]) || !v3_finite(st->c_t[i]) || c->h > 0) {
                const gr_vec3 g = v3_scale(c->gravity, st->c_m[i]);
                st->c_f[i] = v3_finite(g) ? g : v3(0, 0, 0);
                st->c_t[i] = v3(0, 0, 0);
            }
            st->c_v[i] = v;
            st->c_L[i] = L;
            st->c_w[i] = v;
            if (bad++ == 0)
                block_bad[0] = st->c_body[i] == GR_INVALID_INDEX ? st->c_slot[i] : GR_INVALID_INDEX;
            if (c->h > 0)
                max_d2 = clear_members(st, i, max_d2);
            continue;
        }
        st->c_v[i] = v;
        st->c_L[i] = L;
        /* a spherical top (the tetrahedron, the cube): w = L / I stays fixed in free flight,
         * so the free rotation is one exact turn about w; no splitting needed */
        const bool spherical = inertia.x == inertia.y && inertia.y == inertia.z;
        if (c->h > 0) {
            const double h = c->h;
            if (spherical) {
                const gr_vec3 w = v3_scale(L, 1.0 / inertia.x);
                const double wl = v3_len(w);
                if (wl > 0) {
                    /* Cayley form of the turn by |w| h about w (world axes): q <- dq q */
                    const double t = 0.5 * h * wl, cs = 1.0 / sqrt(1.0 + t * t), sn = t * cs / wl;
                    const gr_quat d = {sn * w.x, sn * w.y, sn * w.z, cs};
                    q = quat_mul(d, q);
                }
            } else {
                /* free rotation over h, split about the principal axes */
                double r[3][3];
                rotation_matrix(q, r);
                gr_vec3 l = mat_mul_t(r, L);
                rotate_about(&q, &l, 0, 0.5 * h, inertia);
                rotate_about(&q, &l, 1, 0.5 * h, inertia);
                rotate_about(&q, &l, 2, h, inertia);
                rotate_about(&q, &l, 1, 0.5 * h, inertia);
                rotate_about(&q, &l, 0, 0.5 * h, inertia);
            }
            q = quat_normalize(q);
            st->c_q[i] = q;
            st->c_x[i] = x_new;
            st->c_f[i] = v3_scale(c->gravity, st->c_m[i]);
            st->c_t[i] = v3(0, 0, 0);
        }
        st->c_w[i] = spherical ? v3_scale(L, 1.0 / inertia.x) : angular_velocity(q, inertia, L);
        if (c->h > 0) {
            dem_place_members(st, i);
            max_d2 = clear_members(st, i, max_d2);
        }
    }
    c->block_max[begin / CLUMP_BLOCK] = bad ? INFINITY : max_d2;
    block_bad[1] = bad;
}

double dem_integrate_clumps(dem_state *st, double k1, double k2, double h)
{
    if (st->nc == 0)
        return 0;
    /* per-block maxima in the tail of the block array (sized for spheres + clumps) */
    const uint32_t nblocks = (st->nc + CLUMP_BLOCK - 1) / CLUMP_BLOCK;
    double *blocks = st->block_max + (st->block_cap - nblocks);
    uint32_t *bad = st->block_bad + 2 * (st->block_cap - nblocks);
    clump_ctx c = {st, k1, k2, h, (*st->env.gravity), blocks, bad};
    gr_parallel_for_affine(st->env.tasks, st->nc, CLUMP_BLOCK, clump_range, &c);
    dem_note_blowups(st, bad, nblocks);
    double m = 0;
    for (uint32_t b = 0; b < nblocks; b++)
        m = blocks[b] > m ? blocks[b] : m;
    return m;
}

static void reduce_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    dem_state *st = ((const clump_ctx *)vctx)->st;
    for (uint32_t i = begin; i < end; i++) {
        if (st->c_slot[i] == GR_INVALID_INDEX)
            continue;
        gr_vec3 f = st->c_f[i], t = st->c_t[i];
        const gr_vec3 x = st->c_x[i];
        if (st->c_fixed[i]) {
            /* a fixed body senses the force: only members with a neighbour carry any */
            for (uint32_t k = st->c_fa_first[i]; k < st->c_fa_first[i] + st->c_fa_count[i]; k++) {
                const uint32_t s = st->m_sphere[st->fa_member[k]];
                f = v3_add(f, st->f[s]);
                t = v3_add(t, v3_add(st->t[s], v3_cross(v3_sub(xr_pos(&st->xr[s]), x), st->f[s])));
            }
            st->c_f[i] = f;
            st->c_t[i] = t;
            continue;
        }
        for (uint32_t k = st->c_first[i]; k < st->c_first[i] + st->c_count[i]; k++) {
            const uint32_t s = st->m_sphere[k];
            f = v3_add(f, st->f[s]);
            t = v3_add(t, v3_add(st->t[s], v3_cross(v3_sub(xr_pos(&st->xr[s]), x), st->f[s])));
        }
        if (st->c_body[i] != GR_INVALID_INDEX) {
            /* what another system (a terrain) puts on the body, about its position */
            const gr_body_data *b = &st->env.bodies->data[st->c_body[i]];
            if (b->ext_active) {
                f = v3_add(f, b->ext_force);
                t = v3_add(t, v3_add(b->ext_torque, v3_cross(v3_sub(b->position, x), b->ext_force)));
            }
        }
        st->c_f[i] = f;
        st->c_t[i] = t;
    }
}

void dem_reduce_clumps(dem_state *st)
{
    if (st->nc == 0)
        return;
    clump_ctx c = {st, 0, 0, 0, (*st->env.gravity), NULL, NULL};
    gr_parallel_for_affine(st->env.tasks, st->nc, CLUMP_BLOCK, reduce_range, &c);
}

/* ---- compaction ----------------------------------------------------------------------------- */

void dem_compact_clumps(dem_state *st)
{
    if (st->nc_dead == 0)
        return;
    uint32_t nc = 0, nm = 0;
    for (uint32_t c = 0; c < st->nc; c++) {
        if (st->c_slot[c] == GR_INVALID_INDEX)
            continue;
        const uint32_t first = st->c_first[c], count = st->c_count[c];
        st->c_x[nc] = st->c_x[c];
        st->c_v[nc] = st->c_v[c];
        st->c_w[nc] = st->c_w[c];
        st->c_L[nc] = st->c_L[c];
        st->c_f[nc] = st->c_f[c];
        st->c_t[nc] = st->c_t[c];
        st->c_q[nc] = st->c_q[c];
        st->c_m[nc] = st->c_m[c];
        st->c_inertia[nc] = st->c_inertia[c];
        st->c_radius[nc] = st->c_radius[c];
        st->c_slot[nc] = st->c_slot[c];
        st->c_mat[nc] = st->c_mat[c];
        st->c_body[nc] = st->c_body[c];
        st->c_fixed[nc] = st->c_fixed[c];
        st->c_frame[nc] = st->c_frame[c];
        st->c_first[nc] = nm;
        st->c_count[nc] = count;
        for (uint32_t k = 0; k < count; k++) {
            st->m_sphere[nm + k] = st->m_sphere[first + k];
            st->m_offset[nm + k] = st->m_offset[first + k];
            st->m_clump[nm + k] = nc;
            st->member[st->m_sphere[nm + k]] = nm + k;
        }
        if (st->c_body[nc] == GR_INVALID_INDEX)
            st->env.grains->dense[st->c_slot[nc]] = DEM_CLUMP_BIT | nc;
        else
            st->body_clump[st->c_body[nc]] = nc;
        nm += count;
        nc++;
    }
    st->nc = nc;
    st->nm = nm;
    st->nc_dead = 0;
}

/* Put the clumps in the order of their spheres (cell order after a rebuild) and their member
 * records with them: the per-substep passes over clumps then walk the sphere arrays nearly
 * sequentially instead of jumping around them (they were dominated by cache misses). Uses the
 * rebuild's scratch buffers; linear time. */
void dem_sort_clumps(dem_state *st)
{
    const uint32_t nc = st->nc, nm = st->nm, n = st->n;
    if (nc < 2)
        return;
    uint32_t *at = st->cell_tmp; /* sphere index -> the clump keyed there */
    uint32_t *order = st->perm;  /* new clump -> old clump */
    for (uint32_t k = 0; k < n; k++)
        at[k] = GR_INVALID_INDEX;
    for (uint32_t c = 0; c < nc; c++)
        at[st->m_sphere[st->c_first[c]]] = c;
    uint32_t j = 0;
    bool sorted = true;
    for (uint32_t k = 0; k < n; k++)
        if (at[k] != GR_INVALID_INDEX) {
            sorted = sorted && at[k] == j;
            order[j++] = at[k];
        }
    if (sorted)
        return;
    /* member records in the new clump order (at[] is free again) */
    uint32_t *morder = at, m = 0;
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t k = st->c_first[order[c]]; k < st->c_first[order[c]] + st->c_count[order[c]]; k++)
            morder[m++] = k;
    unsigned char *tmp = st->spare; /* 32 bytes per sphere: room for any record below */
    gr_array_ref a[24];
    dem_member_arrays(st, a);
    for (int k = 0; k < DEM_MEMBER_ARRAYS; k++) {
        const size_t size = a[k].elem_size;
        unsigned char *base = (unsigned char *)*a[k].ptr;
        for (uint32_t i = 0; i < nm; i++)
            memcpy(tmp + i * size, base + (size_t)morder[i] * size, size);
        memcpy(base, tmp, nm * size);
    }
    size_t na;
    dem_clump_arrays(st, a, &na);
    for (size_t k = 0; k < na; k++) {
        const size_t size = a[k].elem_size;
        unsigned char *base = (unsigned char *)*a[k].ptr;
        for (uint32_t i = 0; i < nc; i++)
            memcpy(tmp + i * size, base + (size_t)order[i] * size, size);
        memcpy(base, tmp, nc * size);
    }
    m = 0;
    for (uint32_t c = 0; c < nc; c++) {
        st->c_first[c] = m;
        for (uint32_t k = m; k < m + st->c_count[c]; k++) {
            st->m_clump[k] = c;
            st->member[st->m_sphere[k]] = k;
        }
        m += st->c_count[c];
        if (st->c_body[c] == GR_INVALID_INDEX)
            st->env.grains->dense[st->c_slot[c]] = DEM_CLUMP_BIT | c;
        else
            st->body_clump[st->c_body[c]] = c;
    }
}

/* ---- fields ------------------------------------------------------------------------------ */

void dem_clump_read(const dem_state *st, uint32_t c, gr_field field, double *o)
{
    gr_vec3 a = {0, 0, 0};
    switch (field) {
    case GR_FIELD_POSITION: a = st->c_x[c]; break;
    case GR_FIELD_VELOCITY: a = st->c_v[c]; break;
    case GR_FIELD_ANGULAR_VELOCITY: a = st->c_w[c]; break;
    case GR_FIELD_FORCE: a = st->c_f[c]; break;
    case GR_FIELD_ORIENTATION: {
        const gr_quat q = quat_normalize(quat_mul(st->c_q[c], quat_conj(st->c_frame[c])));
        o[0] = q.x; o[1] = q.y; o[2] = q.z; o[3] = q.w;
        return;
    }
    case GR_FIELD_RADIUS: o[0] = st->c_radius[c]; return;
    case GR_FIELD_MASS: o[0] = st->c_m[c]; return;
    case GR_FIELD_MATERIAL: o[0] = (double)st->c_mat[c]; return;
    default: return;
    }
    o[0] = a.x; o[1] = a.y; o[2] = a.z;
}

void dem_clump_write(dem_state *st, uint32_t c, gr_field field, const double *p)
{
    switch (field) {
    case GR_FIELD_POSITION: st->c_x[c] = v3(p[0], p[1], p[2]); st->need_rebuild = true; break;
    case GR_FIELD_VELOCITY: st->c_v[c] = v3(p[0], p[1], p[2]); break;
    case GR_FIELD_ANGULAR_VELOCITY: {
        double r[3][3];
        rotation_matrix(st->c_q[c], r);
        const gr_vec3 wl = mat_mul_t(r, v3(p[0], p[1], p[2]));
        const gr_vec3 ic = st->c_inertia[c];
        st->c_L[c] = mat_mul(r, v3(wl.x * ic.x, wl.y * ic.y, wl.z * ic.z));
        st->c_w[c] = v3(p[0], p[1], p[2]);
        break;
    }
    case GR_FIELD_ORIENTATION: {
        /* the body turns, its angular velocity stays: recompute L for the new frame */
        gr_quat q = {p[0], p[1], p[2], p[3]};
        st->c_q[c] = quat_normalize(quat_mul(q, st->c_frame[c]));
        double w[4] = {st->c_w[c].x, st->c_w[c].y, st->c_w[c].z, 0};
        dem_clump_write(st, c, GR_FIELD_ANGULAR_VELOCITY, w);
        st->need_rebuild = true;
        break;
    }
    default: break;
    }
    dem_place_members(st, c);
}
