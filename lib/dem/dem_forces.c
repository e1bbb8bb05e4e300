/* SPDX-License-Identifier: MIT */
/* DEM contact forces (docs/dem.md). Work is cut into slabs of cell layers; slabs of one colour
 * (even, then odd) run in parallel and never share a grain, so forces are scattered to partners
 * without atomics in a fixed order: bit-identical for any worker count.
 *
 * Within a slab the touching pairs are gathered into batches (structure of arrays), the contact
 * laws are evaluated over a batch in loops the compiler vectorises (independent contacts overlap
 * their square roots and divisions), then the forces are accumulated in list order. Grain-body
 * contacts are fewer and run through the scalar kernel of dem_contact.h. */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "dem_contact.h"
#include "dem_batch.h"
#include "../simd/contact_law.h"
#include "dem_internal.h"
#include "dem_forces.h"
#include "dem_clumps.h"


gr_status dem_reserve_batches(dem_state *st)
{
    uint32_t workers = st->env.tasks->worker_count;
    if (st->batches)
        return GR_OK;
    st->batches = (struct gr_contact_batch *)gr_mem_alloc(st->mem, sizeof(struct gr_contact_batch) * workers);
    if (!st->batches)
        return GR_ERROR_OUT_OF_MEMORY;
    st->batch_count = workers;
    return GR_OK;
}

void dem_free_batches(dem_state *st)
{
    gr_mem_free(st->mem, st->batches, sizeof(struct gr_contact_batch) * st->batch_count);
    st->batches = NULL;
    st->batch_count = 0;
}

/* ---- the batch kernel --------------------------------------------------------------------- */

typedef struct law_consts {
    gr_normal_law normal;
    gr_tangential_law tangential;
    gr_rolling_law rolling;
} law_consts;

/* Coefficients a batch entry needs from its material pair, by law (c1..c4). */
static GR_FORCE_INLINE void pair_coeffs(struct gr_contact_batch *b, uint32_t k, const dem_pair_params *p, gr_normal_law normal)
{
    b->mu[k] = p->mu;
    b->mur[k] = p->mu_roll;
    switch (normal) {
    case GR_NORMAL_LINEAR:
        b->c1[k] = p->kr_per_m;
        b->c2[k] = p->kd_per_m;
        b->c3[k] = 0;
        b->c4[k] = 0;
        break;
    case GR_NORMAL_NONLINEAR:
        b->c1[k] = p->hertz_kr;
        b->c2[k] = b->c3[k] = b->c4[k] = 0;
        break;
    default:
        b->c1[k] = p->kn_coef;
        b->c2[k] = p->gn_coef;
        b->c3[k] = p->st_coef;
        b->c4[k] = p->gt_coef;
        break;
    }
}

/* Evaluate every contact of the batch: the same arithmetic as dem_contact_laws, written as a
 * loop without data-dependent control flow so that it vectorises. Hertz, the history spring and
 * EPSD rolling are the vector kernels' own expressions (simd/contact_law.h). */
#define SCALAR(x) (x)
#define SELECT(m, a, b) ((m) ? (a) : (b))
static GR_FORCE_INLINE void batch_laws(struct gr_contact_batch *restrict b, const dem_law *law, law_consts lc, double h)
{
    const uint32_t n = b->n;
    /* loop invariants in locals: no aliasing doubt, no branches left in the loop */
    const bool clamp = law->clamp;
    const double shear_damping = law->shear_damping, coulomb_eps = law->coulomb_eps;
    /* no dashpots at h = 0 (a contact sliding at the cap would take the sticking branch:
     * dem_contact_laws); x 1.0 leaves them bit for bit */
    const double damp_on = h > 0 ? 1.0 : 0.0;
    const double roll_damping = law->roll_damping * damp_on;
    for (uint32_t k = 0; k < n; k++) {
        GR_CONTACT_GEOMETRY(double, SCALAR, sqrt, b->d2[k], b->dx[k], b->dy[k], b->dz[k], b->ri[k], b->rj[k], b->vx[k],
                            b->vy[k], b->vz[k], b->wix[k], b->wiy[k], b->wiz[k], b->wjx[k], b->wjy[k], b->wjz[k],
                            b->mi[k], b->mj[k]);
        double kn, fn, gamma_n, kt, gamma_t;
        switch (lc.normal) {
        case GR_NORMAL_LINEAR: {
            const dem_normal o = dem_normal_linear(law, b->c1[k], b->c2[k], delta, meff, vn);
            kn = o.kn, gamma_n = o.gamma_n, fn = o.fn, kt = o.kt, gamma_t = o.gamma_t;
            break;
        }
        case GR_NORMAL_NONLINEAR: {
            const dem_normal o = dem_normal_nonlinear(law, b->c1[k], delta, reff, vn);
            kn = o.kn, gamma_n = o.gamma_n, fn = o.fn, kt = o.kt, gamma_t = o.gamma_t;
            break;
        }
        default: {
            GR_CONTACT_HERTZ(double, sqrt, b->c1[k], b->c2[k], b->c3[k], b->c4[k], kn, gamma_n, fn, kt, gamma_t);
            break;
        }
        }
        fn = (clamp & (fn < 0)) ? 0.0 : fn; /* no short-circuit: keeps the loop branch-free */
        const double fn_abs = fabs(fn);

        double ftx, fty, ftz;
        switch (lc.tangential) {
        case GR_TANGENTIAL_NONE:
            ftx = fty = ftz = 0;
            break;
        case GR_TANGENTIAL_VISCOUS: {
            const double kv = shear_damping > 0 ? shear_damping : gamma_n;
            ftx = -kv * vtx;
            fty = -kv * vty;
            ftz = -kv * vtz;
            break;
        }
        case GR_TANGENTIAL_COULOMB: {
            const double s = sqrt(vtx * vtx + vty * vty + vtz * vtz);
            const double c = -b->mu[k] * fn_abs / (s > coulomb_eps ? s : coulomb_eps);
            ftx = c * vtx;
            fty = c * vty;
            ftz = c * vtz;
            break;
        }
        case GR_TANGENTIAL_COMBINED: {
            const double s = sqrt(vtx * vtx + vty * vty + vtz * vtz);
            const double kv = shear_damping > 0 ? shear_damping : gamma_n;
            const double mag = GR_MIN(b->mu[k] * fn_abs, kv * s);
            const double c = -mag / (s > 1e-300 ? s : 1e-300);
            ftx = c * vtx;
            fty = c * vty;
            ftz = c * vtz;
            break;
        }
        default: { /* history spring, projected, Coulomb-truncated */
            GR_CONTACT_HISTORY(double, SCALAR, sqrt, SCALAR, SELECT, b->hx[k], b->hy[k], b->hz[k], h, b->mu[k], fn_abs,
                               gamma_t * damp_on);
            const int slide = ft2 > fmax * fmax;
            /* both branches computed, one selected: no control flow, the loop vectorises */
            ftx = slide ? slx : stx;
            fty = slide ? sly : sty;
            ftz = slide ? slz : stz;
            /* the spring after sliding is where the capped force puts it (selected below) */
            b->hx[k] = xx;
            b->hy[k] = xy;
            b->hz[k] = xz;
            b->rhx[k] = slx * ikt;
            b->rhy[k] = sly * ikt;
            b->rhz[k] = slz * ikt;
            b->slide[k] = slide ? 1.0 : 0.0;
            break;
        }
        }
        b->fx[k] = ftx + fn * nx;
        b->fy[k] = fty + fn * ny;
        b->fz[k] = ftz + fn * nz;
        b->cx[k] = ny * ftz - nz * fty;
        b->cy[k] = nz * ftx - nx * ftz;
        b->cz[k] = nx * fty - ny * ftx;
        b->ai[k] = ai;
        b->aj[k] = aj;

        if (lc.rolling != GR_ROLLING_NONE) {
            GR_CONTACT_ROLLING_VELOCITY(double, b->wix[k], b->wiy[k], b->wiz[k], b->wjx[k], b->wjy[k], b->wjz[k]);
            const double mur = b->mur[k];
            if (lc.rolling == GR_ROLLING_CDT) {
                const double s = sqrt(wrx * wrx + wry * wry + wrz * wrz);
                const double c_any = mur * kn * delta * reff / (s > 1e-12 ? s : 1.0);
                const double c = s > 1e-12 ? c_any : 0.0;
                b->mx[k] = c * wrx;
                b->my[k] = c * wry;
                b->mz[k] = c * wrz;
            } else {
                GR_CONTACT_EPSD(double, SCALAR, sqrt, SCALAR, SELECT, b->mx[k], b->my[k], b->mz[k], h, mur, fn_abs,
                                roll_damping, b->mi[k], b->mj[k]);
                b->mx[k] = qx + damp * wrx;
                b->my[k] = qy + damp * wry;
                b->mz[k] = qz + damp * wrz;
                b->rlx[k] = qx;
                b->rly[k] = qy;
                b->rlz[k] = qz;
            }
        }
    }
    /* a separate loop for the history selection keeps both loops simple enough to vectorise */
    if (lc.tangential == GR_TANGENTIAL_HISTORY)
        for (uint32_t k = 0; k < n; k++) {
            const int slide = b->slide[k] != 0.0;
            b->hx[k] = slide ? b->rhx[k] : b->hx[k];
            b->hy[k] = slide ? b->rhy[k] : b->hy[k];
            b->hz[k] = slide ? b->rhz[k] : b->hz[k];
        }
}

/* The law combinations the vectorised kernel covers (others run batch_laws). */
static GR_FORCE_INLINE bool uses_vector_kernel(law_consts lc)
{
    return lc.normal == GR_NORMAL_HERTZ && lc.tangential == GR_TANGENTIAL_HISTORY &&
           (lc.rolling == GR_ROLLING_NONE || lc.rolling == GR_ROLLING_EPSD);
}

/* Test hook: the scalar batch code for Hertz + history (+ EPSD), the reference the vectorised
 * kernels must match bit for bit. */
void dem_kernel_reference(struct gr_contact_batch *b, const dem_law *law, bool epsd, double h)
{
    law_consts lc = {GR_NORMAL_HERTZ, GR_TANGENTIAL_HISTORY, epsd ? GR_ROLLING_EPSD : GR_ROLLING_NONE};
    batch_laws(b, law, lc, h);
    /* the scalar code leaves the sliding selection to its second loop; the rolling spring out
     * is in rl*, as the kernels write it */
}

/* Fill the lanes past b->n up to a whole vector (8 lanes) with copies of lane 0. */
static void pad_batch(struct gr_contact_batch *b)
{
    /* the coefficient arrays come last: with a uniform material they are not read */
    double *const in[] = {b->d2, b->dx, b->dy, b->dz, b->ri, b->rj, b->mi, b->mj, b->vx, b->vy, b->vz,
                          b->wix, b->wiy, b->wiz, b->wjx, b->wjy, b->wjz, b->hx, b->hy, b->hz,
                          b->mx, b->my, b->mz, b->mu, b->mur, b->c1, b->c2, b->c3, b->c4};
    const uint32_t count = b->uniform ? 23u : 29u; /* the rolling spring is padded either way */
    const uint32_t end = (b->n + 7u) & ~7u;
    for (uint32_t a = 0; a < count; a++)
        for (uint32_t k = b->n; k < end && k < BATCH; k++)
            in[a][k] = in[a][0];
}

/* Gather the inputs of the batch's pairs, evaluate, scatter forces and history in list order. */
static GR_FORCE_INLINE void flush_batch(dem_state *st, struct gr_contact_batch *restrict b, law_consts lc, double h)
{
    if (b->n == 0)
        return;
    const gr_vec3 *restrict v = st->v, *restrict w = st->w;
    const dem_xr *restrict xr = st->xr;
    const double *restrict m = st->m;
    const uint32_t *restrict mat = st->mat;
    gr_vec3 *restrict hist = st->nb_hist;
    gr_vec3 *restrict roll = st->nb_roll;
    const uint32_t pdim = st->pair_dim;
    const bool epsd = lc.rolling == GR_ROLLING_EPSD;
    for (uint32_t k = 0; k < b->n; k++) {
        const uint32_t i = b->i[k], j = b->j[k], e = b->e[k];
        b->ri[k] = xr[i].r;
        b->rj[k] = xr[j].r;
        b->mi[k] = m[i];
        b->mj[k] = m[j];
        b->vx[k] = v[i].x - v[j].x;
        b->vy[k] = v[i].y - v[j].y;
        b->vz[k] = v[i].z - v[j].z;
        b->wix[k] = w[i].x;
        b->wiy[k] = w[i].y;
        b->wiz[k] = w[i].z;
        b->wjx[k] = w[j].x;
        b->wjy[k] = w[j].y;
        b->wjz[k] = w[j].z;
        if (lc.tangential == GR_TANGENTIAL_HISTORY) {
            b->hx[k] = hist[e].x;
            b->hy[k] = hist[e].y;
            b->hz[k] = hist[e].z;
        }
        if (epsd) {
            b->mx[k] = roll[e].x;
            b->my[k] = roll[e].y;
            b->mz[k] = roll[e].z;
        }
        if (!b->uniform)
            pair_coeffs(b, k, st->pairs + (size_t)mat[i] * pdim + mat[j], lc.normal);
    }
    if (uses_vector_kernel(lc)) {
        /* the vectorised kernel reads whole vectors: lanes past n repeat lane 0 */
        pad_batch(b);
        /* no dashpots at h = 0 (dem_contact_laws) */
        const gr_contact_consts kc = {h, st->law.clamp ? 1.0 : 0.0, h > 0 ? st->law.roll_damping : 0.0,
                                      h > 0 ? 1.0 : 0.0};
        /* (EPSD's kernel only where a rolling spring acts: pick_slab_fn) */
        (epsd ? st->kernel : st->env.kernels->contact)(b, &kc);
    } else {
        batch_laws(b, &st->law, lc, h);
    }
    gr_vec3 *restrict f = st->f, *restrict t = st->t;
    const bool rolling = lc.rolling != GR_ROLLING_NONE;
    for (uint32_t k = 0; k < b->n; k++) {
        const uint32_t i = b->i[k], j = b->j[k], e = b->e[k];
        f[i].x += b->fx[k];
        f[i].y += b->fy[k];
        f[i].z += b->fz[k];
        f[j].x -= b->fx[k];
        f[j].y -= b->fy[k];
        f[j].z -= b->fz[k];
        const double mrx = rolling ? b->mx[k] : 0.0, mry = rolling ? b->my[k] : 0.0, mrz = rolling ? b->mz[k] : 0.0;
        t[i].x -= b->cx[k] * b->ai[k] + mrx;
        t[i].y -= b->cy[k] * b->ai[k] + mry;
        t[i].z -= b->cz[k] * b->ai[k] + mrz;
        t[j].x += mrx - b->cx[k] * b->aj[k];
        t[j].y += mry - b->cy[k] * b->aj[k];
        t[j].z += mrz - b->cz[k] * b->aj[k];
        if (lc.tangential == GR_TANGENTIAL_HISTORY)
            hist[e] = v3(b->hx[k], b->hy[k], b->hz[k]);
        if (epsd)
            roll[e] = v3(b->rlx[k], b->rly[k], b->rlz[k]);
    }
    b->n = 0;
}

/* ---- one slab ----------------------------------------------------------------------------- */

static GR_FORCE_INLINE void force_slab_impl(dem_state *st, struct gr_contact_batch *b, uint32_t s, double h, law_consts lc)
{
    const dem_xr *restrict xr = st->xr;
    const uint32_t *restrict nb_start = st->nb_start;
    uint32_t *restrict nb_j = st->nb_j;
    gr_vec3 *restrict hist = st->nb_hist;
    gr_vec3 *restrict roll = st->nb_roll;
    const gr_vec3 zero = {0, 0, 0};
    uint64_t contacts = 0;
    const uint32_t first = st->slab_start[s], last = st->slab_start[s + 1];
    b->n = 0;
    /* all grains of one material: one set of coefficients for every pair */
    b->uniform = st->uniform_material != GR_INVALID_INDEX && uses_vector_kernel(lc);
    if (b->uniform) {
        const uint32_t um = st->uniform_material;
        const dem_pair_params *p = st->pairs + (size_t)um * st->pair_dim + um;
        b->u_mu = p->mu;
        b->u_mur = p->mu_roll;
        b->u_c1 = p->kn_coef;
        b->u_c2 = p->gn_coef;
        b->u_c3 = p->st_coef;
        b->u_c4 = p->gt_coef;
    }

    /* grain-grain pairs */
    for (uint32_t i = first; i < last; i++) {
        const dem_xr xi = xr[i];
        for (uint32_t e = nb_start[i]; e < nb_start[i + 1]; e++) {
            const uint32_t entry = nb_j[e];
            const uint32_t j = entry & DEM_INDEX_MASK;
            const dem_xr xj = xr[j];
            const double dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
            const double rsum = xi.r + xj.r;
            const double d2 = dx * dx + dy * dy + dz * dz;
            /* Branch-free compaction: whether a neighbour touches is close to a coin flip in a
             * dense bed, so the candidate is always written and the count advances by 0 or 1. */
            const uint32_t touching = d2 < rsum * rsum;
            const uint32_t k = b->n;
            b->e[k] = e;
            b->i[k] = i;
            b->j[k] = j;
            b->dx[k] = dx;
            b->dy[k] = dy;
            b->dz[k] = dz;
            b->d2[k] = d2;
            b->n = k + touching;
            contacts += touching;
            const uint32_t updated = j | (touching ? DEM_TOUCHING : 0u);
            if (GR_UNLIKELY(updated != entry)) {
                /* a contact began or ended; when it ends, its history ends with it */
                nb_j[e] = updated;
                if (!touching) {
                    if (lc.tangential == GR_TANGENTIAL_HISTORY)
                        hist[e] = zero;
                    if (lc.rolling == GR_ROLLING_EPSD)
                        roll[e] = zero;
                }
            }
            if (b->n == BATCH)
                flush_batch(st, b, lc, h);
        }
    }
    flush_batch(st, b, lc, h);

    /* grain-body contacts: the body is a sphere of infinite radius and mass */
    const dem_law *law = &st->law;
    const gr_vec3 *restrict v = st->v, *restrict w = st->w;
    const double *restrict m = st->m;
    gr_vec3 *restrict f = st->f, *restrict t = st->t;
    const gr_body_store *bodies = st->env.bodies;
    uint64_t body_contacts = 0;
    gr_vec3 dummy_roll = zero;
    for (uint32_t i = first; i < last; i++) {
        for (uint32_t e = st->bc_start[i]; e < st->bc_start[i + 1]; e++) {
            const uint32_t id = st->bc_id[e];
            const uint32_t bs = id >> 3, feat = id & 7u;
            const gr_body_data *bd = &bodies->data[bs];
            gr_vec3 n, pc;
            const double ri = xr[i].r;
            const double dist = gr_body_feature_distance(bd, feat, xr_pos(&xr[i]), &n, &pc);
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
            c.vrel = v3_sub(v3_sub(v[i], gr_body_point_velocity(bd, pc)), v3_cross(v3_scale(w[i], ai), n));
            c.reff = ri;
            c.meff = m[i];
            c.h = h;
            c.wrel = v3_sub(w[i], bd->angular_velocity);
            c.iroll = 1.4 * m[i] * ri * ri;
            dem_contact_out o;
            const dem_pair_params *pp = st->pairs + (size_t)st->mat[i] * st->pair_dim + bd->material;
            dem_contact_laws(law, lc.normal, lc.tangential, lc.rolling, pp, &c, &st->bc_hist[e],
                             st->bc_roll ? &st->bc_roll[e] : &dummy_roll, &o);
            f[i] = v3_add(f[i], o.f);
            t[i] = v3_sub(t[i], v3_add(v3_scale(o.nxft, ai), o.mroll));
            /* reaction on the body, torque about its position */
            /* indexed here, not before the loop: without bodies slab_body is NULL */
            double *sb = st->slab_body + ((size_t)s * st->body_slots + bs) * 6;
            gr_vec3 tb = v3_add(v3_cross(v3_sub(pc, bd->position), v3_neg(o.f)), o.mroll);
            sb[0] -= o.f.x;
            sb[1] -= o.f.y;
            sb[2] -= o.f.z;
            sb[3] += tb.x;
            sb[4] += tb.y;
            sb[5] += tb.z;
            body_contacts++;
        }
    }
    st->slab_contacts[2 * s] = contacts;
    st->slab_contacts[2 * s + 1] = body_contacts;
}

/* Specialisations: the common law combinations compile without law branches; every other
 * combination runs the generic instance (same arithmetic, branching on the world's laws). */
#define LAW_INSTANCE(name, N, T, R)                                                   \
    static void name(dem_state *st, struct gr_contact_batch *b, uint32_t s, double h)        \
    {                                                                                 \
        law_consts lc = {N, T, R};                                                    \
        force_slab_impl(st, b, s, h, lc);                                             \
    }
LAW_INSTANCE(slab_hertz_history, GR_NORMAL_HERTZ, GR_TANGENTIAL_HISTORY, GR_ROLLING_NONE)
LAW_INSTANCE(slab_hertz_history_epsd, GR_NORMAL_HERTZ, GR_TANGENTIAL_HISTORY, GR_ROLLING_EPSD)
LAW_INSTANCE(slab_linear_history, GR_NORMAL_LINEAR, GR_TANGENTIAL_HISTORY, GR_ROLLING_NONE)

static void slab_generic(dem_state *st, struct gr_contact_batch *b, uint32_t s, double h)
{
    law_consts lc = {st->law.normal, st->law.tangential, st->law.rolling};
    force_slab_impl(st, b, s, h, lc);
}

typedef void slab_fn(dem_state *st, struct gr_contact_batch *b, uint32_t s, double h);

static slab_fn *pick_slab_fn(const dem_law *law, bool pairs_roll)
{
    if (law->tangential == GR_TANGENTIAL_HISTORY) {
        /* (EPSD with no rolling friction in any pair is NONE, bit for bit: dem_update_pairs) */
        if (law->normal == GR_NORMAL_HERTZ && law->rolling == GR_ROLLING_EPSD && !pairs_roll)
            return slab_hertz_history;
        if (law->normal == GR_NORMAL_HERTZ && law->rolling == GR_ROLLING_NONE)
            return slab_hertz_history;
        if (law->normal == GR_NORMAL_HERTZ && law->rolling == GR_ROLLING_EPSD)
            return slab_hertz_history_epsd;
        if (law->normal == GR_NORMAL_LINEAR && law->rolling == GR_ROLLING_NONE)
            return slab_linear_history;
    }
    return slab_generic;
}

/* ---- the phase ------------------------------------------------------------------------------ */

typedef struct force_ctx {
    dem_state *st;
    slab_fn *fn;
    double h;
    uint32_t parity; ///< slabs 2k + parity
} force_ctx;

static void force_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    const force_ctx *c = (const force_ctx *)vctx;
    struct gr_contact_batch *b = &c->st->batches[worker];
    for (uint32_t k = begin; k < end; k++)
        c->fn(c->st, b, 2 * k + c->parity, c->h);
}

void dem_forces(dem_state *st, double h, double w_impulse)
{
    const uint32_t ns = st->nslabs;
    if (st->body_slots)
        memset(st->slab_body, 0, sizeof(double) * (size_t)ns * st->body_slots * 6);
    slab_fn *fn = pick_slab_fn(&st->law, st->pairs_roll);
    force_ctx even = {st, fn, h, 0}, odd = {st, fn, h, 1};
    /* affinity: a worker takes the same stretch of the bed in both colours and every substep */
    gr_parallel_for_affine(st->env.tasks, (ns + 1) / 2, 1, force_range, &even);
    gr_parallel_for_affine(st->env.tasks, ns / 2, 1, force_range, &odd);
    uint64_t c = 0, cb = 0;
    for (uint32_t s = 0; s < ns; s++) {
        c += st->slab_contacts[2 * s];
        cb += st->slab_contacts[2 * s + 1];
    }
    st->contacts = c;
    st->body_contacts = cb;
    /* body impulses, summed over slabs in slab order (deterministic) */
    const gr_body_store *bodies = st->env.bodies;
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
        st->body_impulse[2 * bs] = v3_madd(st->body_impulse[2 * bs], fsum, w_impulse);
        st->body_impulse[2 * bs + 1] = v3_madd(st->body_impulse[2 * bs + 1], tsum, w_impulse);
    }
}

void dem_compute_forces(dem_state *st)
{
    /* gravity first, as the drift passes do: on free spheres and on clumps (not members) */
    const gr_vec3 g = (*st->env.gravity);
    for (uint32_t i = 0; i < st->n; i++) {
        st->f[i] = st->member[i] == GR_INVALID_INDEX ? v3_scale(g, st->m[i]) : v3(0, 0, 0);
        st->t[i] = v3(0, 0, 0);
    }
    for (uint32_t c = 0; c < st->nc; c++) {
        st->c_f[c] = st->c_fixed[c] ? v3(0, 0, 0) : v3_scale(g, st->c_m[c]);
        st->c_t[c] = v3(0, 0, 0);
    }
    dem_forces(st, 0.0, 0.0);
    dem_reduce_clumps(st);
}
