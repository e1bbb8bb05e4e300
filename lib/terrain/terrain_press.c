/* SPDX-License-Identifier: MIT */
/* For each body over the terrain, each column under its bounding sphere is asked for the
 * lowest point of the body on the column's vertical line below the sand's top (a ray from
 * below, sphere-traced on the body's distance). A column the body reaches into is in contact:
 *   - under a static or kinematic body it goes down to the body's surface (displacement);
 *   - under a dynamic or host-owned body it carries the bearing pressure at the elastic
 *     depth and yields past it (the body sinks until its footprint carries it), and pushes
 *     back with that pressure, damped, and with the friction of the two materials.
 * The displaced height, less the compressed share, goes to the rim: each footprint column
 * knows its distance to the nearest column outside the footprint (a contour map) and hands
 * its height, in decreasing distance, to the neighbours nearer the rim, more to those ahead
 * of the body's motion and fewer behind it (ploughing: 1 + plough cos of the angle to the
 * motion, none below 0, so that a wheel does not fill its own rut). In a hybrid terrain a body moving faster than
 * release_speed sends what reaches the rim to the grains to be released instead. */
#include "terrain_press.h"

#include <math.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/materials.h"
#include "terrain_store.h"


/* The lowest point of body b on the vertical line at (x, z) between y0 and y1, or NAN. */
static double lowest_point(gr_body_data *b, double x, double z, double y0, double y1, double tol)
{
    double y = y0;
    for (int it = 0; it < 64 && y < y1; it++) {
        const double d = gr_body_distance_within(b, v3(x, y, z), y1 - y + tol);
        if (d <= tol)
            return y;
        y += d;
    }
    return NAN;
}

static bool presses(const terrain_state *st, uint32_t slot, const gr_body_data *b)
{
    return slot != st->body && b->shape != GR_SHAPE_PLANE && b->shape != GR_SHAPE_CONTAINER &&
           b->shape != GR_SHAPE_HEIGHTFIELD && isfinite(gr_body_bound_radius(b));
}

/* Hand each footprint column's height to the rim (the contact columns are
 * st->contacts[first, end), their dist[] -1 on entry). */
static void displace(terrain_state *st, uint32_t slot, const gr_body_data *b, uint32_t first, uint32_t end, bool release)
{
    const uint32_t nx = st->field.nx, nz = st->field.nz;
    double *h = st->field.h;
    /* contour map: 1 next to a column outside the footprint, then outwards in */
    int32_t D = 0;
    for (bool grew = true; grew;) {
        grew = false;
        D++;
        for (uint32_t q = first; q < end; q++) {
            const uint32_t c = st->contacts[q], i = c % nx, k = c / nx;
            if (st->dist[c] >= 0)
                continue;
            for (int e = 0; e < 8; e++) {
                int di, dk;
                terrain_neighbour(e, &di, &dk);
                const int64_t a = (int64_t)i + di, bb = (int64_t)k + dk;
                if (a < 0 || bb < 0 || a >= nx || bb >= nz)
                    continue;
                const int32_t o = st->dist[(uint32_t)bb * nx + (uint32_t)a];
                if (o >= 0 && o < D) { /* a column outside, or one ring nearer it */
                    st->dist[c] = D;
                    grew = true;
                    break;
                }
            }
        }
        /* columns given a distance this round must not count in it: they did (o < D) */
    }
    const int32_t dmax = D - 1;
    for (int32_t ring = dmax; ring >= 1; ring--)
        for (uint32_t q = first; q < end; q++) {
            const uint32_t c = st->contacts[q], i = c % nx, k = c / nx;
            if (st->dist[c] != ring || !(st->push[c] > 0))
                continue;
            const gr_vec3 at = v3(st->field.origin.x + i * st->p.d, 0, st->field.origin.z + k * st->p.d);
            gr_vec3 v = gr_body_point_velocity(b, v3(at.x, b->position.y, at.z));
            v.y = 0;
            const double vl = v3_len(v);
            double w[8], sum = 0;
            for (int e = 0; e < 8; e++) {
                w[e] = 0;
                int di, dk;
                terrain_neighbour(e, &di, &dk);
                const int64_t a = (int64_t)i + di, bb = (int64_t)k + dk;
                if (a < 0 || bb < 0 || a >= nx || bb >= nz)
                    continue;
                const int32_t o = st->dist[(uint32_t)bb * nx + (uint32_t)a];
                if (o < 0 || o >= ring)
                    continue;
                const double L = e < 4 ? 1.0 : 1.4142135623730951;
                const double ahead = vl > 1e-9 ? (di * v.x + dk * v.z) / (vl * L) : 0.0;
                const double bias = 1.0 + st->p.plough * ahead; /* none behind a body at plough >= 1 */
                w[e] = bias > 0 ? bias / L : 0.0;
                sum += w[e];
            }
            if (!(sum > 0))
                continue; /* no way out (the footprint covers the field): stays compressed in place */
            const double give = st->push[c];
            st->push[c] = 0;
            for (int e = 0; e < 8; e++) {
                if (w[e] == 0)
                    continue;
                int di, dk;
                terrain_neighbour(e, &di, &dk);
                const uint32_t o = (uint32_t)((int64_t)k + dk) * nx + (uint32_t)((int64_t)i + di);
                const double share = give * (w[e] / sum);
                if (st->dist[o] > 0) {
                    st->push[o] += share;
                } else if (release) {
                    if (!(st->pending[o] > 0))
                        st->pending_list[st->pending_count++] = o;
                    st->pending[o] += share * st->p.area;
                    st->pending_body[o] = slot;
                } else {
                    h[o] += share;
                    terrain_mark_column(st, o);
                }
            }
        }
    /* what could not leave (no path out) goes back where it was */
    for (uint32_t q = first; q < end; q++) {
        const uint32_t c = st->contacts[q];
        if (st->push[c] > 0)
            h[c] += st->push[c];
        st->push[c] = 0;
        st->dist[c] = 0;
    }
}

void terrain_settle_pending(terrain_state *st)
{
    for (uint32_t q = 0; q < st->pending_count; q++) {
        const uint32_t c = st->pending_list[q];
        st->field.h[c] += st->pending[c] / st->p.area;
        st->pending[c] = 0;
        terrain_mark_column(st, c);
    }
    st->pending_count = 0;
}

void terrain_press(terrain_state *st, double h)
{
    gr_body_store *bs = st->env.bodies;
    const uint32_t nx = st->field.nx, nz = st->field.nz;
    const double d = st->p.d, ox = st->field.origin.x, oz = st->field.origin.z, oy = st->field.origin.y;
    /* the last press's contacts, kept to wake the blocks of those that a body left */
    uint32_t *prev = st->contacts, prev_count = st->contact_count;
    st->contacts = st->contacts_prev, st->contacts_prev = prev;
    for (uint32_t q = 0; q < prev_count; q++)
        st->flags[prev[q]] &= (uint8_t)~TERRAIN_CONTACT;
    st->contact_count = 0;
    st->stiffest = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const uint32_t slot = bs->active[a];
        gr_body_data *b = &bs->data[slot];
        const bool carried = b->motion == GR_MOTION_DYNAMIC || b->motion == GR_MOTION_HOST;
        if (carried) {
            b->ext_force = b->ext_torque = v3(0, 0, 0);
            b->ext_active = false;
        }
        if (!presses(st, slot, b))
            continue;
        const double R = gr_body_bound_radius(b);
        const double fx0 = ceil((b->position.x - R - ox) / d), fx1 = floor((b->position.x + R - ox) / d);
        const double fz0 = ceil((b->position.z - R - oz) / d), fz1 = floor((b->position.z + R - oz) / d);
        if (fx1 < 0 || fz1 < 0 || fx0 > nx - 1 || fz0 > nz - 1 || !(fx0 <= fx1) || !(fz0 <= fz1))
            continue;
        const uint32_t i0 = fx0 > 0 ? (uint32_t)fx0 : 0, i1 = fx1 < nx - 1 ? (uint32_t)fx1 : nx - 1;
        const uint32_t k0 = fz0 > 0 ? (uint32_t)fz0 : 0, k1 = fz1 < nz - 1 ? (uint32_t)fz1 : nz - 1;
        const double ylow = b->position.y - R;
        gr_vec3 vb = b->linear_velocity;
        vb.y = 0;
        const bool release = st->p.hybrid && v3_len(vb) + v3_len(b->angular_velocity) * R > st->p.release_speed &&
                             !carried;
        const uint32_t first = st->contact_count;
        double tol = 1e-4 * d;
        /* the footprint and each column's penetration (kept in push until it is displaced) */
        for (uint32_t kz = k0; kz <= k1; kz++)
            for (uint32_t ix = i0; ix <= i1; ix++) {
                const uint32_t c = kz * nx + ix;
                /* touching counts: a body resting on a column keeps it (no sand under it) */
                const double top = oy + st->field.h[c], touch = top + 0.02 * d;
                if (ylow >= touch)
                    continue;
                const double x = ox + ix * d, z = oz + kz * d;
                double y = lowest_point(b, x, z, ylow, touch, tol);
                if (!(y <= touch)) {
                    /* not over its centre, but over part of its cell (a blade thinner than a
                     * column, between two centres): the column is under the body, so that sand
                     * does not slide through it, but keeps its height */
                    bool shadow = false;
                    for (int q = 0; q < 4 && !shadow; q++)
                        shadow = lowest_point(b, x + (q & 1 ? 0.25 : -0.25) * d, z + (q & 2 ? 0.25 : -0.25) * d,
                                              ylow, touch, tol) <= touch;
                    if (!shadow)
                        continue;
                    y = top;
                }
                if (st->flags[c] & TERRAIN_CONTACT)
                    continue; /* already under an earlier body this substep */
                st->flags[c] |= TERRAIN_CONTACT;
                st->contacts[st->contact_count++] = c;
                st->push[c] = top > y ? top - y : 0.0; /* penetration */
                st->dist[c] = -1;
            }
        const uint32_t end = st->contact_count;
        if (first == end)
            continue;
        /* displacement and the columns' push back */
        gr_pair_coeffs pc;
        gr_materials_pair(st->env.materials, st->material, b->material, &pc);
        const double dE = st->p.elastic, kcol = st->p.bearing / dE * st->p.area;
        const double ncol = (double)(end - first);
        const double cdamp = carried && b->mass > 0 ? 2.0 * sqrt(kcol * ncol * b->mass) / ncol : 0.0;
        if (carried && b->mass > 0) {
            const double w = sqrt(kcol * ncol / b->mass);
            st->stiffest = w > st->stiffest ? w : st->stiffest;
        }
        /* the rim's mean height: a footprint below it bears more (Terzaghi's depth term). A
         * moving body's rim is the sand it meets, not the track it leaves behind. */
        double rim = 0;
        uint32_t nrim = 0;
        const double vh = v3_len(vb);
        for (uint32_t q = first; carried && q < end; q++) {
            const uint32_t c = st->contacts[q], ix = c % nx, kz = c / nx;
            for (int e = 0; e < 8; e++) {
                int di, dk;
                terrain_neighbour(e, &di, &dk);
                const int64_t a = (int64_t)ix + di, bb = (int64_t)kz + dk;
                if (a < 0 || bb < 0 || a >= nx || bb >= nz)
                    continue;
                const uint32_t o = (uint32_t)bb * nx + (uint32_t)a;
                if (st->flags[o] & TERRAIN_CONTACT)
                    continue;
                const double ahead = (ox + a * d - b->position.x) * vb.x + (oz + bb * d - b->position.z) * vb.z;
                if (vh > 1e-3 && ahead < 0)
                    continue;
                rim += st->field.h[o], nrim++;
            }
        }
        rim = nrim ? rim / nrim : 0.0;
        gr_vec3 F = v3(0, 0, 0), T = v3(0, 0, 0);
        bool moved = false;
        for (uint32_t q = first; q < end; q++) {
            const uint32_t c = st->contacts[q];
            const double pen = st->push[c];
            if (!(pen > 0))
                continue; /* touching, or under the body's edge only: no push either way */
            /* a carried body's column yields past the depth its bearing pressure holds it at */
            /* how deep the body's surface here lies below the rim (not the column's top: a
             * column it has just reached would yield too far) */
            const double below = nrim && rim > st->field.h[c] - pen ? rim - st->field.h[c] + pen : 0.0;
            const double dB = dE * (1.0 + st->p.bearing_gradient * below / st->p.bearing);
            double yield = carried ? (pen > dB ? pen - dB : 0.0) : pen;
            yield = yield < st->field.h[c] ? yield : st->field.h[c]; /* the base does not yield */
            const double el = carried ? pen - yield : (pen < dE ? pen : dE);
            st->field.h[c] -= yield;
            moved |= yield > 0;
            st->compressed += st->p.compression * yield * st->p.area;
            st->push[c] = (1.0 - st->p.compression) * yield;
            /* the column's push back at the body's surface point */
            const uint32_t ix = c % nx, kz = c / nx;
            const gr_vec3 at = v3(ox + ix * d, oy + st->field.h[c] - (carried ? el : 0.0), oz + kz * d);
            const gr_vec3 v = gr_body_point_velocity(b, at);
            /* a body whose sand becomes grains meets that sand as grains: the columns do not
             * push it as well */
            double fn = release ? 0.0 : kcol * el - (carried ? cdamp * v.y : 0.0);
            fn = fn > 0 ? fn : 0.0;
            gr_vec3 f = v3(0, fn, 0);
            const double vt = sqrt(v.x * v.x + v.z * v.z);
            if (vt > 0 && fn > 0) {
                const double s = pc.friction * fn / (vt > 0.01 ? vt : 0.01);
                f.x -= s * v.x, f.z -= s * v.z;
            }
            F = v3_add(F, f);
            T = v3_add(T, v3_cross(v3_sub(at, b->position), f));
        }
        if (carried) {
            b->ext_force = F, b->ext_torque = T, b->ext_active = true;
        }
        if (slot < st->impulse_cap) {
            st->impulse[2 * (size_t)slot] = v3_add(st->impulse[2 * (size_t)slot], v3_scale(F, h));
            st->impulse[2 * (size_t)slot + 1] = v3_add(st->impulse[2 * (size_t)slot + 1], v3_scale(T, h));
        }
        displace(st, slot, b, first, end, release);
        if (moved) /* a body resting in its print changes nothing: its blocks may sleep */
            terrain_mark_changed(st, i0 ? i0 - 1 : 0, k0 ? k0 - 1 : 0, i1 + 2 < nx ? i1 + 2 : nx,
                                 k1 + 2 < nz ? k1 + 2 : nz);
    }
    /* a column a body left may now slide: its block wakes */
    for (uint32_t q = 0; q < prev_count; q++) {
        const uint32_t c = prev[q];
        if (!(st->flags[c] & TERRAIN_CONTACT))
            st->block_active[(c / nx / TERRAIN_BLOCK) * st->blocks_x + (c % nx) / TERRAIN_BLOCK] = 1;
    }
}
