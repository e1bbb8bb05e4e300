/* SPDX-License-Identifier: MIT */
/* Materials and the rules that combine two of them in a contact (docs/guide.md "Materials"). */
#ifndef GR_CORE_MATERIALS_H
#define GR_CORE_MATERIALS_H

#include "alloc.h"

/// Coefficients of one contact between materials a and b.
typedef struct gr_pair_coeffs {
    double e_star;           ///< 1/E* = (1-nu_a^2)/E_a + (1-nu_b^2)/E_b        [Pa]
    double g_star;           ///< 1/G* = 2(2-nu_a)(1+nu_a)/E_a + same for b      [Pa]
    double restitution;      ///< sqrt(e_a e_b) unless overridden
    double friction;         ///< sqrt(mu_a mu_b) unless overridden
    double rolling_friction; ///< sqrt(mur_a mur_b) unless overridden
    double static_friction;  ///< sqrt(.) (position-based solver)
    double kinetic_friction; ///< sqrt(.) (position-based solver)
} gr_pair_coeffs;

typedef struct gr_material_override {
    uint32_t a, b; ///< a <= b
    gr_material_pair_def def;
} gr_material_override;

typedef struct gr_materials {
    uint32_t count;
    uint32_t cap;
    gr_material_def *defs;
    uint32_t override_count;
    uint32_t override_cap;
    gr_material_override *overrides;
    uint32_t revision; ///< bumped on every change: solvers rebuild derived tables
} gr_materials;

void gr_materials_init(gr_materials *m);
void gr_materials_free(gr_materials *m, gr_mem *mem);
/// Append a (validated, complete) material. False on out of memory (nothing changed).
bool gr_materials_add(gr_materials *m, gr_mem *mem, const gr_material_def *def);
/// Set or replace the override of pair (a, b). False on out of memory (nothing changed).
bool gr_materials_set_pair(gr_materials *m, gr_mem *mem, uint32_t a, uint32_t b, const gr_material_pair_def *def);
void gr_materials_pair(const gr_materials *m, uint32_t a, uint32_t b, gr_pair_coeffs *out);

#endif /* GR_CORE_MATERIALS_H */
