/* SPDX-License-Identifier: MIT */
/* Bodies in the continuum's grid and their two-way coupling (Narain et al. sec. 2.4, eq. 21-27).
 *
 * Every body fills a fraction phi_s of each cell (from its signed distance or inside test);
 * the sand may fill only what is left, phi + phi_s <= 1 (eq. 24). A body of generalized
 * velocity V = (v, w) (at its centre of mass c) moves solid through the faces: the flux on the
 * face f, normal e_f, at x_f, is phi_s,f e_f . (v + w x (x_f - c)) = g_f . V with
 *     g_f = phi_s,f [e_f ; (x_f - c) x e_f],
 * so the solid fraction after the step is phi_s - dt D (G V). With J = dt D G (cells x 6):
 * - the sand's pressure p gives the body the impulse h^3 J^T p (= -h^3 dt sum_f g_f (D1 p)_f:
 *   force and moment about c; eq. 21, 23), and its friction stress h^3 dt sum_f g_f (D2 s)_f
 *   (eq. 22), the share phi_s of the faces' stress that the sand does not take (eq. 27);
 * - a free body (dynamic, host-owned) answers V = V* + M^-1 h^3 J^T p, so eliminating V adds
 *   h^3 J M^-1 J^T (rank <= 6 a body, applied matrix-free, never formed) to A1 and J V* to b1
 *   (eq. 25); V* its velocity after gravity;
 * - a kinematic body's prescribed velocity enters b1 alone (M^-1 = 0), a static one nothing.
 * - the friction QP adds the body's kinetic energy (eq. 26): a free body answers
 *   V = V_p + M^-1 h^3 dt G^T D2 s (V_p: V* with the pressure's impulse), which adds
 *   dt D2^T (G V_p) to b2 and h^3 dt^2 D2^T G M^-1 G^T D2 to A2 (cont_body_friction.h); a
 *   kinematic body's velocity enters b2 alone. Each solve of the staggered rounds sees the
 *   body moved by the other's last answer (cont_bodies_seen), as it sees the sand. */
#ifndef GR_CONTINUUM_CONT_BODIES_H
#define GR_CONTINUUM_CONT_BODIES_H

#include "../bodies/body_store.h"
#include "cont_ops.h"
#include "cont_static.h"

/// One face a body fills part of: cell's low face normal to axis, nb the cell below it.
typedef struct cont_body_face {
    uint32_t cell, nb, axis;
    double g[6]; ///< phi_s,f [e_f ; (x_f - c) x e_f]
    /// The friction's g is fk g (cont_bodies_shares; 1 until then): the body takes what the sand
    /// does not of the face's stress, so that the two sum to the whole where the face holds
    /// less sand than its open share (none, or a sliver whose density counts as more).
    double fk;
} cont_body_face;

/// One body as the step sees it.
typedef struct cont_body {
    uint32_t slot;
    gr_motion_type motion;
    uint32_t first, count; ///< its faces
    bool free;             ///< dynamic or host-owned: its velocity is an unknown of the solve
    gr_vec3 com;           ///< centre of mass, world
    double v[6];           ///< V*: velocity of the centre of mass (after gravity when free), angular
    double u[6];           ///< the velocity the next solve sees: V* + M^-1 (the other solve's impulse)
    double imp[6];         ///< this step's impulse from the sand [N s], moment about com [N m s]
    double jx[6];          ///< scratch of the matvec: M^-1 h^3 J^T x
    double inv_m;          ///< 1 / mass (free bodies)
    gr_quat principal;     ///< world orientation of the principal axes (free bodies)
    gr_vec3 inv_inertia;   ///< 1 / principal moments (free bodies)
} cont_body;

typedef struct cont_bodies {
    uint32_t n, cap;
    cont_body *b;
    uint32_t faces, face_cap;
    cont_body_face *f;
    uint32_t cell_cap;
    double *frac;   ///< [cells] one body's fractions (scratch)
    double *fixed;  ///< [cells] the fraction inside static and kinematic bodies (the most of any one)
    double *at_rest; ///< [cells] the same of the free bodies at rest (cont_bodies_build)
    double *jrow;   ///< [6 cells] rows of J for the diagonal (scratch, kept zero)
    uint8_t *touch; ///< [cells] a free body's J has a row here
    uint32_t *chunk_faces; ///< [chunk_cap] one body's faces by chunk of cells (scratch)
    uint32_t chunk_cap;
    gr_tasks *tasks; ///< cont_bodies_build runs its passes over cells on these (NULL: here)
    uint32_t free_count;
    cont_static_cache stat; ///< the static bodies' fractions across steps (cont_static.h)
    /// a test's reference: every body measured in every cell, no cache (kept by cont_bodies_free)
    bool uncached;
} cont_bodies;

void cont_bodies_free(cont_bodies *cb, gr_mem *mem);

/// The bodies over this grid: solid[c] the fraction of cell c inside any body (the most of
/// any one), fixed[] the same of static and kinematic bodies, and each body's faces and velocity
/// V* (free bodies: gravity over dt added). Static bodies' fractions come from the cache where
/// the last grid had the block, others' are measured only in the blocks their bound reaches (the
/// same bits as measuring every cell). Fails only on allocation (GR_ERROR_OUT_OF_MEMORY); the
/// bodies are not changed.
gr_status cont_bodies_build(cont_bodies *cb, gr_mem *mem, const gr_sparse_grid *g, const gr_body_store *bs,
                            gr_vec3 gravity, double dt, double *solid);

/// The most over-packing next to a free body undone in one step (a volume fraction). While the
/// body moves, by the pressure: at most CONT_BODY_OVERLAP h / dt of speed, so an overlap does not
/// fling the body. Once the body is slower than that speed (every point of it; "at rest"), by the
/// density correction's displacement as for a fixed solid (cont_bodies_correction_solid): no
/// velocity is left, where the pressure's kicks rocked a box resting on sand at cm/s (a step is a
/// whole frame at rest: 0.05 h / dt = 6 cm/s at 2 cm cells and 60 Hz).
#define CONT_BODY_OVERLAP 0.05
/// b1 += J u (dt D (G u)) for every moving body (u: V*, or as cont_bodies_seen set it); where a free body reaches, the
/// over-packing 1 - phi_s - phi < 0 in b1 counts at most CONT_BODY_OVERLAP.
void cont_bodies_rhs(const cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *phi,
                     const double *solid, double *q);
/// y += h^3 J M^-1 J^T x over the free bodies.
void cont_bodies_apply(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *x, double *y);
/// (h^3 J M^-1 J^T x)_c: one row (projected Gauss-Seidel; O(faces of the bodies at c)).
double cont_bodies_row(const cont_bodies *cb, const gr_sparse_grid *g, double dt, uint32_t c, const double *x);
/// diag[c] += (h^3 J M^-1 J^T)_cc where fixed[c] is false (lo < hi).
void cont_bodies_diag(cont_bodies *cb, const gr_sparse_grid *g, double dt, double *diag);

/// After cont_pressure_weights (inv_rho: (1 - phi_s) / rho on the faces) and cont_bodies_build
/// with the same solid fractions: each body face's friction weight fk. The sand takes
/// sigma = mass inv_rho / h^3 of a face's stress divergence (cont_friction_apply), a body
/// phi_s,f fk of it: fk = (1 - sigma) / phi_s,f (phi_s,f the face's total solid fraction), so
/// that the two sum to the whole and the friction's impulses on sand and bodies sum to 0 (the
/// stress's divergence sums to 0 over the faces). fk = 1 where the face holds its open share
/// (1 - phi_s,f, sigma's most); it is larger where the face holds no sand or a sliver.
void cont_bodies_shares(cont_bodies *cb, const gr_sparse_grid *g, const cont_faces *mass, const cont_faces *inv_rho,
                        const double *solid);

/// r <- M^-1 r for a free body (6: linear, angular about the centre of mass).
void cont_body_inverse_mass(const cont_body *b, double r[6]);

/// imp = h^3 dt sum_f g_f ((D^T p)_f + fk_f (D2 s)_f): the impulse of the step's pressure and
/// friction (p or s NULL: none of it).
void cont_bodies_impulse(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *p, const cont_stress *s);

/// u = V* + M^-1 (the impulse of p and s, as cont_bodies_impulse) for free bodies (others keep
/// u = V*): the velocity the next solve of a staggered round sees, moved by the other solve's
/// current answer (p for the friction, s for the pressure). imp is not touched.
void cont_bodies_seen(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *p, const cont_stress *s);

/// The free bodies take the velocity V* + M^-1 imp (cont_bodies_move then moves them: symplectic
/// Euler); each body's impulse (and its moment about the body's position) is added to
/// report[2 slot], report[2 slot + 1] for slots below `slots`.
void cont_bodies_finish(const cont_bodies *cb, gr_body_store *bs, gr_vec3 *report, uint32_t slots);
/// Move every kinematic and free body over dt with its velocity.
void cont_bodies_move(gr_body_store *bs, double dt);

/// The solid fraction the density correction sees (cont_density.h; cb's scratch, or fixed):
/// static and kinematic bodies' and those of free bodies at rest (at_rest), except that where a
/// body at rest over-packs a cell, it counts CONT_BODY_OVERLAP of the over-packing at most: the
/// correction moves the sand out of it by at most that a step.
const double *cont_bodies_correction_solid(const cont_bodies *cb, uint32_t cells, const double *phi);

/// After the particles moved (and the bodies): a particle inside a moving body is put on its
/// surface, and its velocity into the body taken out; a free body takes the reaction (the
/// grid's faces inside a body carry no pressure, so sand that got in would stay in), reported
/// as the other impulses.
void cont_bodies_push_out(const cont_bodies *cb, gr_body_store *bs, uint32_t n, gr_vec3 *x, gr_vec3 *v,
                          const double *m, gr_vec3 *report, uint32_t slots);

/// The free bodies' velocities gain gravity over dt (a step without sand).
void cont_bodies_fall(gr_body_store *bs, gr_vec3 gravity, double dt);

/// A dynamic or host-owned body: its velocity answers the sand (and other bodies).
static inline bool cont_motion_is_free(gr_motion_type m) { return m == GR_MOTION_DYNAMIC || m == GR_MOTION_HOST; }

/// Whether any body is not static (kinematic, dynamic or host-owned).
bool cont_bodies_any_moving(const gr_body_store *bs);

/// The fastest point of a moving body near the grid [m/s] (bodies of infinite extent: their
/// linear speed).
double cont_bodies_max_speed(const gr_body_store *bs);

#endif /* GR_CONTINUUM_CONT_BODIES_H */
