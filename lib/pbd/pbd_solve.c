/* SPDX-License-Identifier: MIT */
/* The contact solve of the PBD solver (docs/pbd.md, "The solve"): the seed's contact and
 * friction constraints (Sommer & Schwanecke eq. 1-4) solved by projected Gauss-Seidel with
 * accumulated multipliers, warm-started from the last substep, in a symmetric order over a
 * colouring of space:
 *
 *   - Each contact keeps its accumulated normal multiplier lambda_n >= 0 and friction
 *     multiplier lambda_t (a vector, |lambda_t| <= mu lambda_n). A projection changes them by
 *     what the contact still needs and moves its ends by w dlambda: a correction that turns
 *     out too large is taken back by a later one (the seed's one-sided projections never
 *     are, which pumps energy into piles). Friction is bounded by the contact's whole normal
 *     multiplier of the substep, not by one sweep's correction.
 *   - Warm start: a contact that existed in the last substep starts with that substep's
 *     multipliers (scaled by (h / h_last)^2; a collision's by at most h / h_last:
 *     pbd_solve_begin). A resting stack then
 *     carries its weight from the first sweep on; without it a Jacobi or Gauss-Seidel sweep
 *     carries support one contact per sweep and tall columns sink.
 *   - Order: the cells of the list grid are grouped in blocks of 2 x 2 x 2 and the blocks in
 *     8 colours by parity. Every listed pair lies within neighbouring cells, so blocks of one
 *     colour never share a particle: they run in parallel, each in a fixed order (its
 *     particles in packed order: the particle's pairs as first end, then its immovable
 *     surfaces), colour after colour. Odd sweeps run the whole order backwards (symmetric
 *     Gauss-Seidel: no drift from one direction). The result is the same for any worker
 *     count.
 *   - Pairs with a free body's particle are solved with the body as one rigid body
 *     (pbd_rigid.c), after the colours in every sweep.
 *   - Stabilisation (Macklin 2014 sec. 6.1): first, overlap left at the substep's start is
 *     projected out of x and x* alike (one-sided, at x, no friction), so it creates no
 *     velocity. */
#include <math.h>
#include <stdatomic.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_solve.h"
#include "pbd_store.h"
#include "pbd_rigid.h"
#include "pbd_marks.h"

typedef struct gs_ctx {
    pbd_state *st;
    double h;
    bool stabilize; ///< the stabilisation pass: at x, moves x and x*, one-sided
    bool first;     ///< first solve sweep: apply the warm start of each pair before projecting it
    bool reverse;   ///< backwards (odd sweeps)
    bool all;       ///< every block (else the active ones: gs_mark == gs_stamp)
    uint32_t colour;
    double omega;   ///< relaxation of the normal multipliers
    gr_vec3 up;     ///< normal of coincident centres
    const double *mu; ///< the one pair of coefficients when every particle has one material, else NULL
    double wake2;   ///< squared wake speed (the final pass)
} gs_ctx;

/* ---- blocks and colours ----------------------------------------------------------------- */

/* The packed ranges of block (b0, b1, b2) of the list grid: up to 4 runs (the block's rows of 2
 * cells along the fastest axis are contiguous). Returns the number of runs. */
static uint32_t block_runs(const gr_cell_grid *g, uint32_t block, uint32_t begin[4], uint32_t end[4])
{
    const uint32_t d1 = ((uint32_t)g->dims[1] + 1u) / 2u, d2 = ((uint32_t)g->dims[2] + 1u) / 2u;
    const int32_t b2 = (int32_t)(block % d2), b1 = (int32_t)(block / d2 % d1), b0 = (int32_t)(block / d2 / d1);
    const int32_t k0 = 2 * b2, k1 = GR_MIN(2 * b2 + 1, g->dims[2] - 1);
    uint32_t n = 0;
    for (int32_t a = 2 * b0; a <= 2 * b0 + 1 && a < g->dims[0]; a++)
        for (int32_t b = 2 * b1; b <= 2 * b1 + 1 && b < g->dims[1]; b++) {
            const int32_t lo[3] = {a, b, k0}, hi[3] = {a, b, k1};
            const uint32_t s0 = g->cell_start[gr_cell_grid_index(g, lo)];
            const uint32_t s1 = g->cell_start[gr_cell_grid_index(g, hi) + 1];
            if (s1 > s0) {
                begin[n] = s0;
                end[n++] = s1;
            }
        }
    return n;
}

/* The non-empty blocks by colour (gs_blocks, gs_colour_start), each particle's block. */
static void build_blocks(pbd_state *st)
{
    const gr_cell_grid *g = &st->grid;
    const uint32_t d0 = ((uint32_t)g->dims[0] + 1u) / 2u, d1 = ((uint32_t)g->dims[1] + 1u) / 2u,
                   d2 = ((uint32_t)g->dims[2] + 1u) / 2u;
    uint32_t n = 0;
    for (uint32_t colour = 0; colour < 8; colour++) {
        st->gs_colour_start[colour] = n;
        for (uint32_t b0 = colour & 1u; b0 < d0; b0 += 2)
            for (uint32_t b1 = colour >> 1 & 1u; b1 < d1; b1 += 2)
                for (uint32_t b2 = colour >> 2 & 1u; b2 < d2; b2 += 2) {
                    const uint32_t block = (b0 * d1 + b1) * d2 + b2;
                    uint32_t rb[4], re[4];
                    const uint32_t runs = block_runs(g, block, rb, re);
                    if (runs)
                        st->gs_blocks[n++] = block;
                    for (uint32_t r = 0; r < runs; r++)
                        for (uint32_t s = rb[r]; s < re[r]; s++)
                            st->gs_block_of[s] = block;
                }
    }
    st->gs_colour_start[8] = n;
}

/* ---- the active set ------------------------------------------------------------------------ */

gr_status pbd_solve_reserve(pbd_state *st)
{
    /* at most one block per movable particle; the warm-start records at most one per pair */
    const uint32_t blocks = GR_MAX(st->nm, 1u);
    if (blocks > st->gs_blocks_cap) {
        const uint32_t cap = gr_grow_capacity(st->gs_blocks_cap, blocks);
        const gr_array_ref arrays[] = {{(void **)&st->gs_blocks, sizeof(uint32_t)},
                                       {(void **)&st->gs_resid, sizeof(double)},
                                       {(void **)&st->gs_block_of, sizeof(uint32_t)}};
        if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->gs_blocks_cap, cap, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        st->gs_blocks_cap = cap;
    }
    const gr_cell_grid *g = &st->grid;
    const uint64_t grid_blocks = (uint64_t)((g->dims[0] + 1) / 2) * (uint64_t)((g->dims[1] + 1) / 2) *
                                 (uint64_t)((g->dims[2] + 1) / 2);
    if (grid_blocks > UINT32_MAX)
        return GR_ERROR_OUT_OF_MEMORY;
    if (grid_blocks > st->gs_mark_cap) {
        const uint32_t cap = gr_grow_capacity(st->gs_mark_cap, (uint32_t)grid_blocks);
        uint32_t *m = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
        if (!m)
            return GR_ERROR_OUT_OF_MEMORY;
        for (uint32_t k = 0; k < cap; k++)
            m[k] = 0;
        gr_mem_free(st->mem, st->gs_mark, sizeof(uint32_t) * st->gs_mark_cap);
        st->gs_mark = m;
        st->gs_mark_cap = cap;
        st->gs_stamp = 1;
    }
    const uint32_t nblk = (st->nm + PBD_BLOCK - 1) / PBD_BLOCK;
    const uint64_t need = st->nm ? (uint64_t)st->blk_base[nblk] + st->fblk_base[nblk] + (uint64_t)PBD_EXACT_SLOTS * st->nm : 0;
    if (need > UINT32_MAX)
        return GR_ERROR_OUT_OF_MEMORY;
    return pbd_reserve_warm_start(st, (uint32_t)need);
}

void pbd_free_solve(pbd_state *st)
{
    const gr_array_ref arrays[] = {{(void **)&st->wn_other, sizeof(uint32_t)}, {(void **)&st->wn_ln, sizeof(double)},
                                   {(void **)&st->wn_lt, sizeof(gr_vec3)},     {(void **)&st->ws_other, sizeof(uint32_t)},
                                   {(void **)&st->ws_ln, sizeof(double)},      {(void **)&st->ws_lt, sizeof(gr_vec3)}};
    gr_mem_free_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->ws_cap);
    st->ws_cap = st->ws_count = st->ws_n = 0;
    const gr_array_ref blocks[] = {{(void **)&st->gs_blocks, sizeof(uint32_t)},
                                   {(void **)&st->gs_resid, sizeof(double)},
                                   {(void **)&st->gs_block_of, sizeof(uint32_t)}};
    gr_mem_free_arrays(st->mem, blocks, GR_COUNTOF(blocks), st->gs_blocks_cap);
    st->gs_blocks_cap = 0;
    gr_mem_free(st->mem, st->gs_mark, sizeof(uint32_t) * st->gs_mark_cap);
    st->gs_mark = NULL;
    st->gs_mark_cap = 0;
}

/* ---- warm start ---------------------------------------------------------------------------- */

/* The last substep's multipliers of pair (i, j) (storage indices), as seen from i, and
 * whether it was solved as a collision then (PBD_WS_HIT). */
static bool ws_find(const pbd_state *st, uint32_t i, uint32_t j, double *ln, gr_vec3 *lt, bool *hit)
{
    if (i < st->ws_n)
        for (uint32_t e = st->ws_start[i]; e < st->ws_end[i]; e++)
            if ((st->ws_other[e] & ~PBD_WS_HIT) == j) {
                *ln = st->ws_ln[e];
                *lt = st->ws_lt[e];
                *hit = st->ws_other[e] & PBD_WS_HIT;
                return true;
            }
    if (j < st->ws_n)
        for (uint32_t e = st->ws_start[j]; e < st->ws_end[j]; e++)
            if ((st->ws_other[e] & ~PBD_WS_HIT) == i) {
                *ln = st->ws_ln[e];
                *lt = v3_scale(st->ws_lt[e], -1.0);
                *hit = st->ws_other[e] & PBD_WS_HIT;
                return true;
            }
    return false;
}

/* The last substep's push of particle i's own immovable contact `key` (a fixed particle's
 * storage index, or PBD_WS_EXACT | body slot << 4 | feature). */
static bool ws_find_own(const pbd_state *st, uint32_t i, uint32_t key, double *an, gr_vec3 *at)
{
    if (i < st->ws_n)
        for (uint32_t e = st->ws_start[i]; e < st->ws_end[i]; e++)
            if (st->ws_other[e] == key) {
                *an = st->ws_ln[e];
                *at = st->ws_lt[e];
                return true;
            }
    return false;
}

typedef struct init_ctx {
    pbd_state *st;
    double scale;     ///< (h / h_last)^2: loads (pbd_solve_begin)
    double scale_hit; ///< min((h / h_last)^2, h / h_last): impacts
    double h;
} init_ctx;

/* Every pair starts from the last substep's multipliers (or none); immovable contacts from none. */
static void init_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const init_ctx *c = (const init_ctx *)vctx;
    pbd_state *st = c->st;
    const bool warm = st->ws_n > 0 && c->scale > 0;
    /* the height-scaled masses (mass scaling) stiffen resting stacks, but they would not
     * conserve momentum where grains collide: a pair whose ends approached each other faster
     * than PBD_IMPACT_GH2 g h at the end of the last substep is solved with the true ones */
    const double hit_speed = PBD_IMPACT_GH2 * v3_len((*st->env.gravity)) * c->h;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t i = st->perm[s];
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++) {
            const uint32_t b = st->pr_b[k], j = st->perm[b];
            const gr_vec3 xab = v3_sub(st->pk[s].x, st->pk[b].x);
            const double closing = -v3_dot(v3_sub(st->v[i], st->v[j]), xab);
            const double v2 = GR_MAX(v3_len2(st->v[i]), v3_len2(st->v[j]));
            const bool hit = st->pr_body[k] || !st->scaling || closing > hit_speed * v3_len(xab) ||
                             v2 > hit_speed * hit_speed;
            st->pr_hit[k] = hit;
            double ln = 0;
            gr_vec3 lt = {0, 0, 0};
            bool was_hit = hit;
            if (warm && ws_find(st, i, j, &ln, &lt, &was_hit)) {
                double f = was_hit ? c->scale_hit : c->scale;
                if (was_hit != hit) { /* the same push, by the other masses */
                    const double w_true = st->hot[s].inv_m + st->hot[b].inv_m;
                    const double w_scaled = st->hot[s].w_star + st->hot[b].w_star;
                    f *= hit ? w_scaled / w_true : w_true / w_scaled;
                }
                ln *= f;
                lt = v3_scale(lt, f);
            }
            st->pr_ln[k] = ln;
            st->pr_lt[k] = lt;
        }
        /* immovable contacts: a grain's warm start is applied here (it moves only the grain); a
         * free body's particle's in the rigid pass */
        const bool apply = !(st->hot[s].bits & (PBD_HOT_BODY | PBD_HOT_FROZEN));
        gr_vec3 q = st->pk[s].p;
        for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
            double an = 0;
            gr_vec3 at = {0, 0, 0};
            const uint32_t j = st->fx_j[st->fc_u[k]];
            if (warm && ws_find_own(st, i, j, &an, &at) && an > 0) {
                an *= c->scale;
                at = v3_scale(at, c->scale);
                if (apply) {
                    const double *e = st->fc_xyzr + 4 * (size_t)k;
                    const gr_vec3 xij = v3_sub(q, v3(e[0], e[1], e[2]));
                    const double len = v3_len(xij);
                    const gr_vec3 n = len > 0 ? v3_scale(xij, 1.0 / len) : st->up;
                    at = v3_madd(at, n, -v3_dot(at, n));
                    q = v3_add(q, v3_madd(at, n, an));
                }
            }
            st->fc_an[k] = an;
            st->fc_at[k] = at;
        }
        pbd_exact_acc *ea = &st->ex_acc[s];
        for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++)
            ea->key[m] = UINT32_MAX;
        if (warm && i < st->ws_n) {
            uint32_t m = 0;
            for (uint32_t e = st->ws_start[i]; e < st->ws_end[i] && m < PBD_EXACT_SLOTS; e++) {
                const uint32_t key = st->ws_other[e];
                if (!(key & PBD_WS_EXACT))
                    continue;
                const uint32_t slot = (key & ~PBD_WS_EXACT) >> 4, f = key & 15u;
                uint32_t x = 0;
                while (x < st->exact_count && st->exact[x].slot != slot)
                    x++;
                if (x == st->exact_count)
                    continue; /* the body is gone */
                const gr_body_data *b = &st->env.bodies->data[slot];
                if (f >= gr_body_feature_count(b) || !gr_body_feature_enabled(b, f))
                    continue; /* (another body in its slot, or a face opened since) */
                gr_vec3 n, pt;
                gr_body_feature_distance(b, f, q, &n, &pt);
                const gr_vec3 at = v3_scale(st->ws_lt[e], c->scale);
                ea->key[m] = x << 8 | f;
                ea->an[m] = st->ws_ln[e] * c->scale;
                ea->at[m] = v3_madd(at, n, -v3_dot(at, n));
                ea->nrm[m] = n;
                if (apply)
                    q = v3_add(q, v3_madd(ea->at[m], n, ea->an[m]));
                m++;
            }
        }
        st->pk[s].p = q;
        st->tr_an[s] = 0;
        st->tr_at[s] = v3(0, 0, 0);
        st->pk_flag[s] = 0;
    }
}

/* The warm start of the grains' pairs, all at once (applied one by one, a pair would meet a
 * neighbour not yet pushed by its own and take its multiplier back): each particle gathers its
 * share of its pairs' multipliers along their normals at the predicted positions into pk_tmp
 * (both ends compute a pair's normal and tangential part from the same inputs), then pk_tmp
 * becomes x*. Free bodies' pairs are warm-started in the rigid pass. */
static inline gr_vec3 warm_impulse(const pbd_state *st, uint32_t k)
{
    const gr_vec3 xab = v3_sub(st->pk[st->pr_a[k]].p, st->pk[st->pr_b[k]].p);
    const double len = v3_len(xab);
    const gr_vec3 n = len > 1e-9 * st->pr_d[k] ? v3_scale(xab, 1.0 / len) : st->up;
    const gr_vec3 lt = st->pr_lt[k];
    return v3_madd(v3_madd(lt, n, -v3_dot(lt, n)), n, st->pr_ln[k]);
}

static void warm_gather_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = (pbd_state *)vctx;
    for (uint32_t s = begin; s < end; s++) {
        gr_vec3 q = st->pk[s].p;
        const pbd_hot *h = &st->hot[s];
        if (!(h->bits & (PBD_HOT_BODY | PBD_HOT_FROZEN))) {
            for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
                if (st->pr_ln[k] > 0 && !st->pr_body[k])
                    q = v3_madd(q, warm_impulse(st, k), st->pr_hit[k] ? h->inv_m : h->w_star);
            for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++) {
                const uint32_t k = st->inc_k[e];
                if (st->pr_ln[k] > 0 && !st->pr_body[k])
                    q = v3_madd(q, warm_impulse(st, k), st->pr_hit[k] ? -h->inv_m : -h->w_star);
            }
        }
        st->pk_tmp[s] = q;
    }
}

static void warm_store_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = (pbd_state *)vctx;
    for (uint32_t s = begin; s < end; s++) {
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
            if (st->pr_ln[k] > 0 && !st->pr_body[k]) { /* keep the tangential part the gather applied */
                const gr_vec3 j = warm_impulse(st, k);
                const gr_vec3 xab = v3_sub(st->pk[s].p, st->pk[st->pr_b[k]].p);
                const double len = v3_len(xab);
                const gr_vec3 n = len > 1e-9 * st->pr_d[k] ? v3_scale(xab, 1.0 / len) : st->up;
                st->pr_lt[k] = v3_madd(j, n, -v3_dot(j, n));
            }
    }
}

static void warm_copy_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = (pbd_state *)vctx;
    for (uint32_t s = begin; s < end; s++)
        st->pk[s].p = st->pk_tmp[s];
}

/* ---- projections --------------------------------------------------------------------------- */

/* The friction multiplier after removing the tangential slip t (a displacement of the first end
 * relative to the second) with inverse mass sum w: all of it while |lambda_t| stays within
 * mu_s lambda_n (sticking), else lambda_t capped at mu_k lambda_n (sliding). (Immovable
 * surfaces call it with w = 1 and displacements for multipliers.) */
static inline gr_vec3 friction_update(gr_vec3 lt, gr_vec3 t, double w, double ln, double mu_s, double mu_k)
{
    const gr_vec3 want = v3_madd(lt, t, -1.0 / w);
    const double l2 = v3_len2(want), cap_s = mu_s * ln;
    if (l2 <= cap_s * cap_s)
        return want;
    return v3_scale(want, mu_k * ln / sqrt(l2));
}

/* Pair k between two particles that are not free bodies' (grains; frozen ones do not move). */
static GR_FORCE_INLINE void project_pair(const gs_ctx *c, pbd_state *st, uint32_t k, double *mx)
{
    const uint32_t a = st->pr_a[k], b = st->pr_b[k];
    pbd_pk *pa = &st->pk[a], *pb = &st->pk[b];
    const bool hit = st->pr_hit[k];
    const double wa = st->hot[a].bits & PBD_HOT_FROZEN ? 0.0 : hit ? st->hot[a].inv_m : st->hot[a].w_star;
    const double wb = st->hot[b].bits & PBD_HOT_FROZEN ? 0.0 : hit ? st->hot[b].inv_m : st->hot[b].w_star;
    const double w = wa + wb;
    double ln = st->pr_ln[k];
    const gr_vec3 xab = v3_sub(pa->p, pb->p);
    const double l2 = v3_len2(xab);
    const double d = st->pr_d[k] - st->pr_s0[k];
    if ((ln == 0.0 && l2 >= d * d) || !(w > 0))
        return; /* apart with nothing to take back: the common case of a listed pair */
    const double len = sqrt(l2);
    const gr_vec3 n = len > 1e-9 * d ? v3_scale(xab, 1.0 / len) : c->up;
    const gr_vec3 lt = st->pr_lt[k];
    double ln_new = ln - c->omega * (len - d) / w;
    ln_new = ln_new > 0 ? ln_new : 0.0;
    const double dl = ln_new - ln;
    pa->p = v3_madd(pa->p, n, wa * dl);
    pb->p = v3_madd(pb->p, n, -wb * dl);
    *mx = GR_MAX(*mx, fabs(dl) * w);
    gr_vec3 lt_new = {0, 0, 0};
    if (ln_new > 0) {
        const gr_vec3 s = v3_sub(v3_sub(pa->p, pa->x), v3_sub(pb->p, pb->x));
        const gr_vec3 t = v3_madd(s, n, -v3_dot(s, n));
        const double *mu = c->mu ? c->mu : pbd_mu(st, st->hot[a].mat, st->hot[b].mat);
        lt_new = friction_update(lt, t, w, ln_new, mu[0], mu[1]);
    }
    const gr_vec3 dt = v3_sub(lt_new, lt);
    pa->p = v3_madd(pa->p, dt, wa);
    pb->p = v3_madd(pb->p, dt, -wb);
    st->pr_ln[k] = ln_new;
    st->pr_lt[k] = lt_new;
}

/* The overlap of each pair at x (after the stabilisation): the solve keeps it from growing but
 * does not push it out (that would turn into velocity: energy from nothing); the stabilisation
 * of the next substeps removes it without velocity. */
static void allowed_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((const init_ctx *)vctx)->st;
    /* without stabilisation nothing else would remove it: then the solve pushes it out (the
     * seed's behaviour) */
    const bool keep = st->par.stabilization_iterations > 0;
    for (uint32_t s = begin; s < end; s++)
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++) {
            const double d = st->pr_d[k], l2 = v3_len2(v3_sub(st->pk[s].x, st->pk[st->pr_b[k]].x));
            st->pr_s0[k] = keep && l2 < d * d ? d - sqrt(l2) : 0.0;
        }
}

/* Stabilisation of pair k: one-sided at x, moving x and x* alike; sleepers keep their place. */
static GR_FORCE_INLINE void stabilize_pair(const gs_ctx *c, pbd_state *st, uint32_t k)
{
    const uint32_t a = st->pr_a[k], b = st->pr_b[k];
    pbd_pk *pa = &st->pk[a], *pb = &st->pk[b];
    const uint32_t still = PBD_HOT_FROZEN | PBD_HOT_ASLEEP;
    const double wa = st->hot[a].bits & still ? 0.0 : st->hot[a].w_star;
    const double wb = st->hot[b].bits & still ? 0.0 : st->hot[b].w_star;
    const double w = wa + wb;
    const gr_vec3 xab = v3_sub(pa->x, pb->x);
    const double l2 = v3_len2(xab), d = st->pr_d[k];
    if (!(w > 0) || l2 >= d * d)
        return;
    const double len = sqrt(l2);
    const gr_vec3 n = len > 1e-9 * d ? v3_scale(xab, 1.0 / len) : c->up;
    const double dl = (d - len) / w;
    const gr_vec3 da = v3_scale(n, wa * dl), db = v3_scale(n, -wb * dl);
    pa->x = v3_add(pa->x, da);
    pa->p = v3_add(pa->p, da);
    pb->x = v3_add(pb->x, db);
    pb->p = v3_add(pb->p, db);
}

/* An immovable surface (unit normal nrm towards the particle, depth delta at q; its own
 * displacement this substep sb) meets a particle at q that started the substep at x: the
 * accumulated push *an >= 0 along nrm and friction push *at (displacements) are updated and
 * the particle moves by their change. Stabilisation: one-sided, nothing kept. */
static inline gr_vec3 boundary_project(const gs_ctx *c, gr_vec3 q, gr_vec3 x, gr_vec3 nrm, double delta, gr_vec3 sb,
                                       const double *mu, double *an, gr_vec3 *at, double *mx)
{
    if (c->stabilize)
        return delta > 0 ? v3_madd(q, nrm, delta) : q;
    /* the depth the surface had at the substep's start is kept, not pushed out (as for pairs):
     * along the normal, the particle's start lies delta0 = delta + (q - x).n - sb.n deep */
    const double delta0 = delta + v3_dot(v3_sub(v3_sub(q, x), sb), nrm);
    if (delta0 > 0 && c->st->par.stabilization_iterations > 0)
        delta -= delta0;
    double an_new = *an + delta;
    an_new = an_new > 0 ? an_new : 0.0;
    q = v3_madd(q, nrm, an_new - *an);
    *mx = GR_MAX(*mx, fabs(an_new - *an));
    *an = an_new;
    gr_vec3 at_new = {0, 0, 0};
    if (an_new > 0) {
        const gr_vec3 slip = v3_sub(v3_sub(q, x), sb);
        at_new = friction_update(*at, v3_madd(slip, nrm, -v3_dot(slip, nrm)), 1.0, an_new, mu[0], mu[1]);
    }
    q = v3_add(q, v3_sub(at_new, *at));
    *at = at_new;
    return q;
}

/* Exact contact of slot m (or a slotless one: scratch accumulators) of feature f of exact body
 * e with the particle at q. */
static inline gr_vec3 exact_contact(const gs_ctx *c, pbd_state *st, uint32_t s, uint32_t e, uint32_t f, gr_vec3 q,
                                    uint32_t m, double *mx)
{
    const pbd_exact *ex = &st->exact[e];
    const gr_body_data *b = &st->env.bodies->data[ex->slot];
    const pbd_hot *hi = &st->hot[s];
    gr_vec3 nrm, pt;
    const double delta = hi->r - gr_body_feature_distance(b, f, q, &nrm, &pt);
    double an = 0;
    gr_vec3 at = {0, 0, 0};
    pbd_exact_acc *ea = &st->ex_acc[s];
    if (m < PBD_EXACT_SLOTS) {
        an = ea->an[m];
        at = ea->at[m];
    } else if (!(delta > 0)) {
        return q;
    }
    const gr_vec3 sb = ex->moving ? v3_scale(gr_body_point_velocity(b, pt), c->h) : v3(0, 0, 0);
    q = boundary_project(c, q, st->pk[s].x, nrm, delta, sb, pbd_mu(st, hi->mat, b->material), &an, &at, mx);
    if (m < PBD_EXACT_SLOTS) {
        ea->an[m] = an;
        ea->at[m] = at;
        ea->nrm[m] = nrm;
    }
    return q;
}

/* Packed particle s's exact surfaces: every feature within reach, then (solve) the slots it
 * pressed on before that are out of reach now (their push is taken back). */
static gr_vec3 exact_surfaces(const gs_ctx *c, pbd_state *st, uint32_t s, gr_vec3 q, double *mx)
{
    const double r = st->hot[s].r;
    pbd_exact_acc *ea = &st->ex_acc[s];
    uint32_t seen = 0;
    for (uint32_t e = 0; e < st->exact_count; e++) {
        const pbd_exact *ex = &st->exact[e];
        if (c->stabilize && ex->moving)
            continue; /* its push must become velocity */
        if (ex->plane ? r - v3_dot(v3_sub(q, ex->centre), ex->normal) <= 0
                      : v3_len2(v3_sub(q, ex->centre)) > (ex->bound + r) * (ex->bound + r))
            continue;
        const gr_body_data *b = &st->env.bodies->data[ex->slot];
        for (uint32_t near = gr_body_features_near(b, q, r); near; near &= near - 1) {
            const uint32_t f = gr_lowest_bit(near), key = e << 8 | f;
            uint32_t m = PBD_EXACT_SLOTS;
            if (!c->stabilize) {
                m = pbd_exact_slot(ea, key, false);
                if (m == PBD_EXACT_SLOTS) {
                    gr_vec3 nrm, pt;
                    if (!(r - gr_body_feature_distance(b, f, q, &nrm, &pt) > 0))
                        continue; /* within reach but apart: no slot for it */
                    m = pbd_exact_slot(ea, key, true);
                }
                if (m < PBD_EXACT_SLOTS)
                    seen |= 1u << m;
            }
            q = exact_contact(c, st, s, e, f, q, m, mx);
        }
    }
    if (!c->stabilize)
        for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++)
            if (ea->key[m] != UINT32_MAX && !(seen & 1u << m) && ea->an[m] > 0)
                q = exact_contact(c, st, s, ea->key[m] >> 8, ea->key[m] & 0xffu, q, m, mx);
    return q;
}

/* Packed particle s against everything immovable: the body it is trapped in, fixed particles,
 * exact surfaces. */
static void boundaries(const gs_ctx *c, pbd_state *st, uint32_t s, double *mx)
{
    const pbd_hot *hi = &st->hot[s];
    pbd_pk *pk = &st->pk[s];
    gr_vec3 q = c->stabilize ? pk->x : pk->p;
    const gr_vec3 q0 = q;
    const uint32_t trapped = st->trap_slot[s];
    const gr_body_store *bs = st->env.bodies;
    if (trapped != GR_INVALID_INDEX && !c->stabilize && st->bodies[st->body_of_slot[trapped]].fixed) {
        /* inside a body: out along its surface normal (Macklin 2014 sec. 5.2, with the body's
         * exact distance instead of a stored SDF) */
        const gr_vec3 nrm = st->trap_normal[s];
        const double delta = st->trap_depth[s] + hi->r - v3_dot(v3_sub(q, st->trap_at[s]), nrm);
        const gr_body_data *b = &bs->data[trapped];
        q = boundary_project(c, q, pk->x, nrm, delta, v3_scale(gr_body_point_velocity(b, q), c->h),
                             pbd_mu(st, hi->mat, b->material), &st->tr_an[s], &st->tr_at[s], mx);
    }
    for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
        const double *e = st->fc_xyzr + 4 * (size_t)k; /* x, radius */
        const gr_vec3 old = v3(e[0], e[1], e[2]);
        const uint32_t u = st->fc_u[k];
        const gr_vec3 now = st->fixed_moving ? st->fx_now[u] : old;
        const gr_vec3 pj = c->stabilize ? old : now;
        const double d = hi->r + e[3];
        const gr_vec3 xij = v3_sub(q, pj);
        const double l2 = v3_len2(xij);
        if (l2 >= d * d && (c->stabilize || st->fc_an[k] == 0.0))
            continue;
        if (trapped == st->fx_slot[u])
            continue; /* the normal above replaces this body's particles */
        const double len = sqrt(l2);
        const gr_vec3 nrm = len > 1e-9 * d ? v3_scale(xij, 1.0 / len) : c->up;
        q = boundary_project(c, q, pk->x, nrm, d - len, v3_sub(now, old), pbd_mu(st, hi->mat, st->fx_mat[u]),
                             &st->fc_an[k], &st->fc_at[k], mx);
    }
    q = exact_surfaces(c, st, s, q, mx);
    if (c->stabilize) {
        if (hi->bits & PBD_HOT_ASLEEP)
            return; /* a sleeping grain keeps its place */
        pk->p = v3_add(pk->p, v3_sub(q, q0));
        pk->x = q;
    } else {
        pk->p = q;
    }
}

/* ---- sweeps -------------------------------------------------------------------------------- */

static GR_FORCE_INLINE void particle_pairs(const gs_ctx *c, pbd_state *st, uint32_t s, double *mx)
{
    const uint32_t k0 = st->pf_start[s], k1 = st->pf_end[s];
    if (!c->reverse) {
        for (uint32_t k = k0; k < k1; k++)
            if (!st->pr_body[k]) {
                if (c->stabilize)
                    stabilize_pair(c, st, k);
                else
                    project_pair(c, st, k, mx);
            }
    } else {
        for (uint32_t k = k1; k-- > k0;)
            if (!st->pr_body[k])
                project_pair(c, st, k, mx);
    }
}

static GR_FORCE_INLINE void particle_step(const gs_ctx *c, pbd_state *st, uint32_t s, double *mx)
{
    /* free bodies' particles meet immovable things in the rigid pass; frozen grains not at all */
    const bool own = !(st->hot[s].bits & (PBD_HOT_BODY | PBD_HOT_FROZEN));
    if (!c->reverse) {
        particle_pairs(c, st, s, mx);
        if (own)
            boundaries(c, st, s, mx);
    } else {
        if (own)
            boundaries(c, st, s, mx);
        particle_pairs(c, st, s, mx);
    }
}

static void blocks_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const gs_ctx *c = (const gs_ctx *)vctx;
    pbd_state *st = c->st;
    const uint32_t base = st->gs_colour_start[c->colour];
    for (uint32_t bi = begin; bi < end; bi++) {
        const uint32_t block = st->gs_blocks[base + bi];
        if (!c->all && st->gs_mark[block] != st->gs_stamp) {
            st->gs_resid[base + bi] = -1.0; /* converged, and so are its neighbours */
            continue;
        }
        uint32_t rb[4], re[4];
        const uint32_t runs = block_runs(&st->grid, block, rb, re);
        double mx = 0;
        if (!c->reverse) {
            for (uint32_t r = 0; r < runs; r++)
                for (uint32_t s = rb[r]; s < re[r]; s++)
                    particle_step(c, st, s, &mx);
        } else {
            for (uint32_t r = runs; r-- > 0;)
                for (uint32_t s = re[r]; s-- > rb[r];)
                    particle_step(c, st, s, &mx);
        }
        st->gs_resid[base + bi] = mx;
    }
}

/* Blocks per claim: about 10 particles each. */
#define GS_BLOCKS_PER_TASK 8u

/* A sweep with at most this many active blocks runs on the calling thread: handing out a few
 * blocks costs more than solving them (a bucket squeezing sand against the floor keeps a small
 * region unconverged for all 64 sweeps). */
#define GS_SERIAL_BLOCKS 256u

static void sweep(pbd_state *st, gs_ctx *c)
{
    const bool serial = !c->all && (uint64_t)st->gs_hot * 27u <= GS_SERIAL_BLOCKS;
    for (uint32_t k = 0; k < 8; k++) {
        c->colour = c->reverse ? 7u - k : k;
        const uint32_t n = st->gs_colour_start[c->colour + 1] - st->gs_colour_start[c->colour];
        if (n && serial)
            blocks_range(c, 0, n, 0);
        else if (n)
            gr_parallel_for(st->env.tasks, n, GS_BLOCKS_PER_TASK, blocks_range, c);
    }
}

static void ctx_init(pbd_state *st, gs_ctx *c, double h)
{
    memset(c, 0, sizeof *c);
    c->st = st;
    c->h = h;
    c->omega = st->par.relaxation;
    c->up = st->up;
    c->mu = st->one_material && st->nm ? pbd_mu(st, st->hot[0].mat, st->hot[0].mat) : NULL;
}

void pbd_solve_begin(pbd_state *st, double h)
{
    if (!st->nm)
        return;
    build_blocks(st);
    /* The warm start for a substep of another length: a multiplier is a positional impulse.
     * A contact that carries a load (a resting stack) needed F h_last^2 and needs F h^2 now:
     * (h / h_last)^2. One that was solved as a collision (PBD_WS_HIT) stopped an impact with
     * J h_last; its impulse is spent, or at most J h again (h / h_last): it gets the smaller of
     * the two rules. Too large a warm start has to be taken back by the sweeps, and where a
     * tall column's 64 sweeps cannot, the excess push becomes velocity: energy from nothing.
     * Issue 37: a grain that fell out of the box kept the substep at 1/1440 s (CFL); when the
     * world removed it the substep went back to 1/120 s, the column's contacts warm-started
     * with 144 x their last multipliers, and 2421 grains gained 2.0 J in that substep (0.4 of
     * sum m g d). Loads keep (h / h_last)^2: with the smaller rule for them too, a 19800-grain
     * silo settling after its pour gained up to 0.55 J a frame (its stack sagged and was
     * lifted back; 2.5e-5 J with loads kept). */
    const double hl = st->ws_h, ratio = hl > 0 ? h / hl : 0.0;
    init_ctx ic = {st, ratio * ratio, GR_MIN(ratio * ratio, ratio), h};
    gr_tasks *tasks = st->env.tasks;
    gr_parallel_for(tasks, st->nm, PBD_BLOCK, init_range, &ic);
    if (st->ws_n) {
        gr_parallel_for(tasks, st->nm, PBD_BLOCK, warm_gather_range, st);
        gr_parallel_for(tasks, st->nm, PBD_BLOCK, warm_store_range, st);
        gr_parallel_for(tasks, st->nm, PBD_BLOCK, warm_copy_range, st);
    }
    /* grains trapped inside free bodies: pushed out in the rigid pass, two-way */
    st->trap_free_n = 0;
    for (uint32_t s = 0; s < st->nm; s++)
        if (st->trap_slot[s] != GR_INVALID_INDEX && !st->bodies[st->body_of_slot[st->trap_slot[s]]].fixed &&
            !(st->hot[s].bits & (PBD_HOT_BODY | PBD_HOT_FROZEN)))
            st->trap_free[st->trap_free_n++] = s;
    gs_ctx c;
    ctx_init(st, &c, h);
    c.stabilize = true;
    c.all = true;
    for (uint32_t it = 0; it < st->par.stabilization_iterations; it++)
        sweep(st, &c);
    gr_parallel_for(tasks, st->nm, PBD_BLOCK, allowed_range, &ic);
}

/* ---- after the sweeps: contact counts, wake flags, forces on bodies -------------------------- */

static void final_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const gs_ctx *c = (const gs_ctx *)vctx;
    pbd_state *st = c->st;
    const gr_body_store *bs = st->env.bodies;
    const double wake2 = c->wake2;
    for (uint32_t s = begin; s < end; s++) {
        const pbd_hot *hi = &st->hot[s];
        if (hi->bits & PBD_HOT_FROZEN) {
            st->pk_touch_next[s] = st->pk_touch[s];
            continue;
        }
        const uint32_t i = st->perm[s];
        const bool asleep = hi->bits & PBD_HOT_ASLEEP;
        bool disturbed = false;
        uint32_t pairs = 0, boundary = 0;
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
            if (st->pr_ln[k] > 0) {
                pairs++;
                disturbed |= asleep && (st->hot[st->pr_b[k]].bits & PBD_HOT_WAKES);
            }
        for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++) {
            const uint32_t k = st->inc_k[e];
            if (st->pr_ln[k] > 0) {
                pairs++;
                disturbed |= asleep && (st->hot[st->pr_a[k]].bits & PBD_HOT_WAKES);
            }
        }
        /* forces on immovable bodies: a push dx of the particle over the substep is a force
         * -m dx / h^2 on the body (free bodies' particles: pbd_rigid.c) */
        const double m_over_h = 1.0 / (hi->inv_m * c->h * c->h);
        const gr_vec3 q = st->pk[s].p;
        if (hi->bits & PBD_HOT_BODY) { /* (its immovable contacts: pbd_rigid.c) */
            st->pk_touch_next[s] = GR_MIN(pairs, 0xffffu);
            st->pk_flag[s] |= (uint8_t)(pairs ? PBD_FLAG_TOUCHED : 0u);
            continue;
        }
        if (st->trap_slot[s] != GR_INVALID_INDEX && st->tr_an[s] > 0 &&
            st->bodies[st->body_of_slot[st->trap_slot[s]]].fixed) { /* (free ones: pbd_rigid.c) */
            const uint32_t slot = st->trap_slot[s];
            boundary++;
            pbd_sense(st, i, slot, v3_scale(v3_madd(st->tr_at[s], st->trap_normal[s], st->tr_an[s]), -m_over_h),
                  v3_sub(q, bs->data[slot].position));
        }
        for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
            if (!(st->fc_an[k] > 0))
                continue;
            const uint32_t u = st->fc_u[k];
            const double *e = st->fc_xyzr + 4 * (size_t)k;
            const gr_vec3 old = v3(e[0], e[1], e[2]), now = st->fixed_moving ? st->fx_now[u] : old;
            const gr_vec3 xij = v3_sub(q, now);
            const double len = v3_len(xij);
            const gr_vec3 nrm = len > 0 ? v3_scale(xij, 1.0 / len) : c->up;
            boundary++;
            disturbed |= asleep && v3_len2(v3_sub(now, old)) > wake2 * c->h * c->h;
            const uint32_t slot = st->fx_slot[u];
            pbd_sense(st, i, slot, v3_scale(v3_madd(st->fc_at[k], nrm, st->fc_an[k]), -m_over_h),
                  v3_sub(now, bs->data[slot].position));
        }
        const pbd_exact_acc *ea = &st->ex_acc[s];
        for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++) {
            if (ea->key[m] == UINT32_MAX || !(ea->an[m] > 0))
                continue;
            const pbd_exact *ex = &st->exact[ea->key[m] >> 8];
            const gr_body_data *b = &bs->data[ex->slot];
            const gr_vec3 pt = v3_madd(q, ea->nrm[m], -hi->r);
            boundary++;
            disturbed |= asleep && ex->moving && v3_len2(gr_body_point_velocity(b, pt)) > wake2;
            pbd_sense(st, i, ex->slot, v3_scale(v3_madd(ea->at[m], ea->nrm[m], ea->an[m]), -m_over_h),
                  v3_sub(pt, b->position));
        }
        st->pk_touch_next[s] = GR_MIN(pairs, 0xffffu) | GR_MIN(boundary, 0xffffu) << 16;
        st->pk_flag[s] |= (uint8_t)((disturbed ? PBD_FLAG_DISTURBED : 0u) | (pairs || boundary ? PBD_FLAG_TOUCHED : 0u));
    }
}

/* ---- the warm start of the next substep ------------------------------------------------------ */

typedef struct save_ctx {
    pbd_state *st;
} save_ctx;

/* Is exact slot m of packed s kept for the next substep? (Features beyond 15 are not.) */
/* Is a contact with these multipliers kept for the warm start? (Pressing, and finite: a grain
 * that blew up starts its next substep cold.) */
static inline bool kept(double ln, gr_vec3 lt)
{
    return ln > 0 && ln < INFINITY && v3_finite(lt);
}

static inline bool exact_kept(const pbd_state *st, uint32_t s, uint32_t m)
{
    const pbd_exact_acc *ea = &st->ex_acc[s];
    return ea->key[m] != UINT32_MAX && kept(ea->an[m], ea->at[m]) && (ea->key[m] & 0xffu) < 16u &&
           st->exact[ea->key[m] >> 8].slot < (1u << 26);
}

static void count_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((const save_ctx *)vctx)->st;
    for (uint32_t s = begin; s < end; s++) {
        uint32_t n = 0;
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
            n += kept(st->pr_ln[k], st->pr_lt[k]);
        for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++)
            n += kept(st->fc_an[k], st->fc_at[k]);
        for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++)
            n += exact_kept(st, s, m);
        st->wn_count[s] = n;
    }
}

static void save_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((const save_ctx *)vctx)->st;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t i = st->perm[s];
        uint32_t at = st->wn_start[s];
        st->ws_start[i] = at;
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
            if (kept(st->pr_ln[k], st->pr_lt[k])) {
                st->wn_other[at] = st->perm[st->pr_b[k]] | (st->pr_hit[k] ? PBD_WS_HIT : 0u);
                st->wn_ln[at] = st->pr_ln[k];
                st->wn_lt[at] = st->pr_lt[k];
                at++;
            }
        for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++)
            if (kept(st->fc_an[k], st->fc_at[k])) {
                st->wn_other[at] = st->fx_j[st->fc_u[k]];
                st->wn_ln[at] = st->fc_an[k];
                st->wn_lt[at] = st->fc_at[k];
                at++;
            }
        const pbd_exact_acc *ea = &st->ex_acc[s];
        for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++)
            if (exact_kept(st, s, m)) {
                st->wn_other[at] = PBD_WS_EXACT | st->exact[ea->key[m] >> 8].slot << 4 | (ea->key[m] & 15u);
                st->wn_ln[at] = ea->an[m];
                st->wn_lt[at] = ea->at[m];
                at++;
            }
        st->ws_end[i] = at;
    }
}

static void keep_warm_start(pbd_state *st, double h)
{
    gr_tasks *tasks = st->env.tasks;
    save_ctx c = {st};
    gr_parallel_for(tasks, st->nm, PBD_BLOCK, count_range, &c);
    uint32_t total = 0;
    for (uint32_t s = 0; s < st->nm; s++) {
        st->wn_start[s] = total;
        total += st->wn_count[s];
    }
    /* particles not packed this substep have no records */
    for (uint32_t i = 0; i < st->n; i++)
        st->ws_start[i] = st->ws_end[i] = 0;
    gr_parallel_for(tasks, st->nm, PBD_BLOCK, save_range, &c);
    /* the new records become the current ones */
    uint32_t *o = st->ws_other;
    double *l = st->ws_ln;
    gr_vec3 *t = st->ws_lt;
    st->ws_other = st->wn_other, st->ws_ln = st->wn_ln, st->ws_lt = st->wn_lt;
    st->wn_other = o, st->wn_ln = l, st->wn_lt = t;
    st->ws_count = total;
    st->ws_n = st->n;
    st->ws_h = h;
}

void pbd_solve_iterate(pbd_state *st, double h)
{
    if (!st->nm) {
        st->ws_n = 0;
        return;
    }
    gs_ctx c;
    ctx_init(st, &c, h);
    /* At least `iterations` sweeps over every block. Then only the active blocks: those that,
     * or whose neighbours, moved a particle by more than the tolerance in the last sweep (a
     * converged region costs nothing), until none is left or PBD_MAX_SWEEPS. */
    st->gs_tol = PBD_SOLVE_TOLERANCE * st->r_min;
    const uint32_t most = GR_MAX(st->par.iterations, st->par.max_iterations ? st->par.max_iterations : PBD_MAX_SWEEPS);
    const uint32_t nblocks = st->gs_colour_start[8];
    uint32_t it = 0;
    c.all = true;
    while (it < most) {
        c.first = it == 0;
        c.reverse = it & 1u;
        sweep(st, &c);
        pbd_marks_next_sweep(st);
        uint32_t swept = 0;
        for (uint32_t b = 0; b < nblocks; b++) {
            swept += st->gs_resid[b] >= 0;
            if (st->gs_resid[b] > st->gs_tol)
                pbd_marks_around(st, st->gs_blocks[b]);
        }
        st->block_sweeps += swept;
        pbd_rigid_sweep(st, h, c.first, c.reverse);
        it++;
        if (it >= st->par.iterations) {
            if (!st->gs_hot)
                break;
            c.all = false;
        }
    }
    st->sweeps += it;
    pbd_rigid_end(st, h);
    const double wake = st->par.sleep_threshold * v3_len((*st->env.gravity)) * h;
    c.wake2 = wake * wake;
    gr_parallel_for(st->env.tasks, st->nm, PBD_BLOCK, final_range, &c);
    uint32_t *t = st->pk_touch;
    st->pk_touch = st->pk_touch_next;
    st->pk_touch_next = t;
    keep_warm_start(st, h);
}

/* ---- sensing storage ------------------------------------------------------------------------- */

gr_status pbd_reserve_sensing(pbd_state *st)
{
    if (st->sense_cap >= st->cap)
        return GR_OK;
    const gr_array_ref arrays[] = {{(void **)&st->sense_slot, 2 * sizeof(uint32_t)},
                                   {(void **)&st->sense_force, 2 * sizeof(gr_vec3)},
                                   {(void **)&st->sense_torque, 2 * sizeof(gr_vec3)}};
    if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->sense_cap, st->cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    st->sense_cap = st->cap;
    for (uint32_t k = 0; k < 2 * st->cap; k++) {
        st->sense_slot[k] = GR_INVALID_INDEX;
        st->sense_force[k] = st->sense_torque[k] = v3(0, 0, 0);
    }
    return GR_OK;
}

void pbd_collect_impulses(pbd_state *st, double h)
{
    for (uint32_t m = 0; m < st->n_mov; m++) { /* only movable particles sense */
        const uint32_t i = st->mov[m];
        if (st->sense_slot[2 * i] == GR_INVALID_INDEX)
            continue; /* (records fill their first place first) */
        for (uint32_t k = 2 * i; k < 2 * i + 2; k++) {
            const uint32_t slot = st->sense_slot[k];
            if (slot == GR_INVALID_INDEX || slot >= st->imp_slots)
                continue;
            st->body_imp[2 * slot] = v3_madd(st->body_imp[2 * slot], st->sense_force[k], h);
            st->body_imp[2 * slot + 1] = v3_madd(st->body_imp[2 * slot + 1], st->sense_torque[k], h);
        }
    }
}
