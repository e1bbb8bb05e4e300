/* SPDX-License-Identifier: MIT */
/* Free bodies against the other bodies in a continuum world. The DEM and PBD meet a free body's
 * surface particles with walls and other bodies through their grains' contacts; the continuum
 * solver has no particles on bodies (they meet the sand through the grid), so it samples each
 * free body's shape (a box: its 8 corners, 12 edge middles and 6 face centres; a sphere: its
 * centre and radius; a capsule: 5 points on its axis and its radius; a mesh: its vertices) and
 * asks every other body's distance there (gr_body_feature_distance, the queries the particle
 * solvers use). A sample within reach of a surface is a contact, solved at the velocity level
 * before the bodies move (sequential impulses, a fixed number of sweeps in a fixed order,
 * serial): the normal velocity may close the gap within the step but not more (speculative,
 * v_n >= -d / dt; a sample already inside leaves at a fifth of its depth a step), with Coulomb
 * friction (the pair's materials, gr_materials_pair) and no restitution. Free bodies thus rest
 * on static, kinematic and other free bodies instead of passing into them, and the contacts
 * take out energy, never add it (but for the exit of a sample that was inside). The impulses
 * are reported like the sand's. Nothing is allocated: at most CONT_MAX_CONTACTS contacts a
 * step (the first found, bodies in slot order). */
#ifndef GR_CONTINUUM_CONT_CONTACT_H
#define GR_CONTINUUM_CONT_CONTACT_H

#include "../bodies/body_store.h"
#include "../core/materials.h"

/// Most body-body contacts in one step.
#define CONT_MAX_CONTACTS 256
/// Sequential-impulse sweeps over the contacts.
#define CONT_CONTACT_SWEEPS 16

typedef struct cont_contact {
    uint32_t a, b;                ///< slots: a free, b any other
    gr_vec3 p, n, t[2];           ///< point, normal (from b to a), tangents
    double target;                ///< least normal velocity [m/s]
    double wn, wt[2];             ///< inverse effective masses along n, t
    double mu;                    ///< friction coefficient
    double jn, jt[2];             ///< accumulated impulses [N s]
} cont_contact;

typedef struct cont_contacts {
    uint32_t n;
    cont_contact c[CONT_MAX_CONTACTS];
} cont_contacts;

/// Over a step dt, with the free bodies' velocities as they stand (after gravity and the sand):
/// find the contacts and solve them, changing the free bodies' velocities; each body's impulse
/// (and its moment about the body's position) is added to report[2 slot], report[2 slot + 1]
/// for slots below `slots` (static and kinematic bodies too: the force they sense).
void cont_contacts_solve(cont_contacts *cc, gr_body_store *bs, const gr_materials *mats, double dt, gr_vec3 *report,
                         uint32_t slots);

#endif /* GR_CONTINUUM_CONT_CONTACT_H */
