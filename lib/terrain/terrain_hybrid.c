/* SPDX-License-Identifier: MIT */
/* Volume is exact both ways: a column holds bulk volume (height x spacing^2), a grain its own
 * volume V, and the two exchange at the packing fraction phi (V of grain = phi x bulk). A
 * release turns whole grains only and leaves the remainder as height; an absorption adds V /
 * phi. */
#include "terrain_hybrid.h"

#include <math.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/rng.h"
#include "../geom/heightfield.h"
#include "terrain_store.h"

void terrain_tops_clear(terrain_state *st)
{
    for (uint32_t q = 0; q < st->top_count; q++)
        st->grain_top[st->top_list[q]] = 0;
    st->top_count = 0;
}

/* The columns whose cells (spacing wide, centred on the column) a sphere's footprint overlaps. */
static bool footprint(const terrain_state *st, gr_vec3 x, double r, uint32_t *i0, uint32_t *k0, uint32_t *i1,
                      uint32_t *k1)
{
    const double d = st->p.d;
    const double a0 = floor((x.x - r - st->field.origin.x) / d + 0.5), a1 = floor((x.x + r - st->field.origin.x) / d + 0.5);
    const double b0 = floor((x.z - r - st->field.origin.z) / d + 0.5), b1 = floor((x.z + r - st->field.origin.z) / d + 0.5);
    if (!(a1 >= 0 && b1 >= 0 && a0 <= st->field.nx - 1 && b0 <= st->field.nz - 1))
        return false;
    *i0 = a0 > 0 ? (uint32_t)a0 : 0, *k0 = b0 > 0 ? (uint32_t)b0 : 0;
    *i1 = a1 < st->field.nx - 1 ? (uint32_t)a1 : st->field.nx - 1;
    *k1 = b1 < st->field.nz - 1 ? (uint32_t)b1 : st->field.nz - 1;
    return true;
}

void terrain_tops_note(terrain_state *st, gr_vec3 x, double r)
{
    uint32_t i0, k0, i1, k1;
    if (!footprint(st, x, r, &i0, &k0, &i1, &k1))
        return;
    const double top = x.y + r - st->field.origin.y; /* above the base, like the heights */
    for (uint32_t k = k0; k <= k1; k++)
        for (uint32_t i = i0; i <= i1; i++) {
            const uint32_t c = k * st->field.nx + i;
            if (st->grain_top[c] == 0)
                st->top_list[st->top_count++] = c;
            st->grain_top[c] = top > st->grain_top[c] ? top : st->grain_top[c];
            if (st->grain_top[c] == 0)
                st->grain_top[c] = 1e-300; /* noted, at the base */
        }
}

bool terrain_supports(const terrain_state *st, gr_vec3 x, double r)
{
    if (!gr_hf_covers(&st->field, x.x, x.z))
        return false;
    uint32_t i0, k0, i1, k1;
    if (!footprint(st, x, r, &i0, &k0, &i1, &k1))
        return false;
    for (uint32_t k = k0; k <= k1; k++)
        for (uint32_t i = i0; i <= i1; i++) {
            const uint32_t c = k * st->field.nx + i;
            if ((st->flags[c] & TERRAIN_CONTACT) || st->pending[c] > 0)
                return false;
        }
    /* nor one of the four columns its volume would go to (terrain_absorb) */
    uint32_t i, k;
    double fu, fw;
    gr_hf_cell(&st->field, x.x, x.z, &i, &k, &fu, &fw);
    for (uint32_t e = 0; e < 4; e++) {
        const uint32_t c = (k + e / 2) * st->field.nx + i + e % 2;
        if ((st->flags[c] & TERRAIN_CONTACT) || st->pending[c] > 0)
            return false;
    }
    gr_vec3 n, p;
    const double gap = gr_hf_distance(&st->field, x, &n, &p) - r;
    return gap < 0.25 * r;
}

void terrain_absorb(terrain_state *st, gr_vec3 x, double r)
{
    const double bulk = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r / st->p.packing;
    uint32_t i, k;
    double fu, fw;
    gr_hf_cell(&st->field, x.x, x.z, &i, &k, &fu, &fw);
    const double dh = bulk / st->p.area;
    const uint32_t c = k * st->field.nx + i;
    /* the four shares sum to dh (the last takes the rest, so that round-off does not leak) */
    const double s00 = dh * (1 - fu) * (1 - fw), s10 = dh * fu * (1 - fw), s01 = dh * (1 - fu) * fw;
    st->field.h[c] += s00;
    st->field.h[c + 1] += s10;
    st->field.h[c + st->field.nx] += s01;
    st->field.h[c + st->field.nx + 1] += dh - s00 - s10 - s01;
    terrain_mark_changed(st, i, k, i + 2, k + 2);
    st->absorbed++;
}

uint32_t terrain_release_column(terrain_state *st, uint32_t c, gr_grain_init *out, uint32_t max)
{
    const double V = st->p.grain_volume, r = st->p.grain_radius, d = st->p.d;
    const double bulk = st->pending[c];
    const double whole = floor(bulk * st->p.packing / V);
    const uint32_t count = whole < (double)max ? (uint32_t)whole : max;
    st->pending[c] = 0;
    if (whole > (double)max) {
        st->pending[c] = bulk - count * V / st->p.packing; /* more whole grains: the next call */
    } else {
        st->field.h[c] += (bulk - count * V / st->p.packing) / st->p.area; /* less than a grain */
        terrain_mark_column(st, c);
    }
    if (!count)
        return 0;
    const uint32_t nx = st->field.nx, nz = st->field.nz, i = c % nx, k = c / nx;
    /* grains per row: >= 1 by the def's bound (clamped against round-off), <= 2100 */
    const double mf = floor(d / (2.1 * r) * (1.0 + 1e-12));
    const uint32_t m = mf < 1.0 ? 1u : (mf > 2100.0 ? 2100u : (uint32_t)mf);
    const double s = d / m;
    const gr_body_store *bs = st->env.bodies;
    const uint32_t body = st->pending_body[c];
    const gr_body_data *by = body < bs->slot_count && bs->alive[body] ? &bs->data[body] : NULL;
    gr_rng rng = {st->rng};
    for (uint32_t q0 = 0; q0 < count; q0 += m * m) {
        /* each layer of m x m grains where the sand stands lowest: this column or a neighbour
         * not under a body (a mound, not a tower that topples over the body), above the
         * highest column around it and the grains over it */
        uint32_t cell = c;
        double base = INFINITY;
        for (int e = -1; e < 8; e++) { /* the column itself first, then its neighbours */
            int di = 0, dk = 0;
            if (e >= 0)
                terrain_neighbour(e, &di, &dk);
            const int64_t ca = (int64_t)i + di, cb = (int64_t)k + dk;
            if (ca < 0 || cb < 0 || ca >= nx || cb >= nz)
                continue;
            const uint32_t cc = (uint32_t)cb * nx + (uint32_t)ca;
            if (e >= 0 && (st->flags[cc] & TERRAIN_CONTACT))
                continue;
            double top = st->field.h[cc];
            for (int64_t z2 = cb - 1; z2 <= cb + 1; z2++)
                for (int64_t x2 = ca - 1; x2 <= ca + 1; x2++)
                    if (x2 >= 0 && z2 >= 0 && x2 < nx && z2 < nz && st->field.h[z2 * nx + x2] > top)
                        top = st->field.h[z2 * nx + x2];
            top = st->grain_top[cc] > top ? st->grain_top[cc] : top;
            if (top < base)
                base = top, cell = cc;
        }
        const uint32_t ci = cell % nx, ck = cell / nx;
        const gr_vec3 centre = v3(st->field.origin.x + ci * d, st->field.origin.y + base, st->field.origin.z + ck * d);
        const gr_vec3 v = by ? gr_body_point_velocity(by, centre) : v3(0, 0, 0);
        for (uint32_t q = q0; q < count && q < q0 + m * m; q++) {
            const uint32_t a = (q - q0) % m, b = (q - q0) / m;
            const double jx = (gr_rng_uniform(&rng) - 0.5) * 0.04 * r, jz = (gr_rng_uniform(&rng) - 0.5) * 0.04 * r;
            const double jy = (gr_rng_uniform(&rng) - 0.5) * 0.04 * r;
            gr_vec3 x = v3(centre.x - 0.5 * d + s * (a + 0.5) + jx, centre.y + 1.05 * r + jy,
                           centre.z - 0.5 * d + s * (b + 0.5) + jz);
            /* clear of the body that displaced it (a grain born inside a blade is thrown anywhere) */
            for (uint32_t f = 0; by && f < gr_body_feature_count(by); f++) {
                if (!gr_body_feature_enabled(by, f))
                    continue;
                gr_vec3 n, pt;
                const double gap = gr_body_feature_distance(by, f, x, &n, &pt);
                if (gap < 1.05 * r)
                    x = v3_madd(x, n, 1.05 * r - gap);
            }
            out[q] = (gr_grain_init){
                .radius = r,
                .material = st->mat[c],
                .slot = GR_INVALID_INDEX,
                .clump = GR_INVALID_INDEX,
                .position = x,
                .velocity = v,
                .angular_velocity = v3(0, 0, 0),
                .orientation = {0, 0, 0, 1},
            };
        }
        if (st->grain_top[cell] == 0)
            st->top_list[st->top_count++] = cell;
        st->grain_top[cell] = base + 2.1 * r;
    }
    st->rng = rng.state;
    st->released += count;
    return count;
}

bool terrain_disturb(terrain_state *st, gr_vec3 x, double r, double speed, double dt)
{
    if (!(st->p.disturb_speed > 0) || !(speed > st->p.disturb_speed) || !gr_hf_covers(&st->field, x.x, x.z))
        return false;
    gr_vec3 n, p;
    if (!(gr_hf_distance(&st->field, x, &n, &p) - r < 0.25 * r + speed * dt))
        return false; /* it did not reach the surface in the step (a strike lasts less than a frame) */
    const uint32_t i = (uint32_t)lround((x.x - st->field.origin.x) / st->p.d);
    const uint32_t k = (uint32_t)lround((x.z - st->field.origin.z) / st->p.d);
    const uint32_t c = k * st->field.nx + i;
    if ((st->flags[c] & TERRAIN_CONTACT) || st->pending[c] > 0)
        return false;
    const double layer = 2.0 * st->p.grain_radius < st->field.h[c] ? 2.0 * st->p.grain_radius : st->field.h[c];
    if (!(layer > 0))
        return false;
    st->field.h[c] -= layer;
    st->pending[c] = layer * st->p.area;
    st->pending_body[c] = GR_INVALID_INDEX; /* released at rest */
    st->pending_list[st->pending_count++] = c;
    terrain_mark_column(st, c);
    return true;
}

void terrain_unrelease(terrain_state *st, uint32_t c, uint32_t count)
{
    st->field.h[c] += count * st->p.grain_volume / st->p.packing / st->p.area;
    st->released -= count;
    terrain_mark_column(st, c);
}

double terrain_bulk_volume(const terrain_state *st)
{
    double s = terrain_volume(st);
    for (uint32_t q = 0; q < st->pending_count; q++)
        s += st->pending[st->pending_list[q]];
    return s;
}
