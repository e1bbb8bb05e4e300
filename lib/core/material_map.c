/* SPDX-License-Identifier: MIT */
/* The calibrated maps from a material's shared fields to each solver's coefficients
 * (material_map.h; docs/materials.md "One material, three solvers"). Every figure below is a
 * measured heap: 3000 spheres of 2 cm poured from 8 diameters above their top onto a rough
 * floor, settled 2 s, the flank fitted between 20 % and 80 % of the height (bench/run fidelity
 * --scene heap; bench/results-materials.md has the runs). */
#include "material_map.h"

#include <math.h>

/* Linear interpolation in a table of increasing x, clamped at its ends. */
static double table_at(const double *x, const double *y, int n, double at)
{
    if (at <= x[0])
        return y[0];
    for (int i = 1; i < n; i++)
        if (at <= x[i]) {
            const double t = (at - x[i - 1]) / (x[i] - x[i - 1]);
            return y[i - 1] + t * (y[i] - y[i - 1]);
        }
    return y[n - 1];
}

/* ---- the DEM's angle over (mu, mu_r): rows mu, columns mu_r ---------------------------- */

/* Measured (EPSD rolling, e 0.5; bench/results-materials.md), then made non-decreasing in both
 * mu and mu_r (the largest of the neighbours below: the pour's scatter is about +-2 deg). Past mu
 * 0.7 the table holds (the heaps of mu 1 stood 3-4 deg lower than mu 0.7's at mu_r 0.25 and 0.5:
 * sphere heaps saturate); frictionless spheres hold no slope (row 0, not measured). */
enum { DEM_MU = 5, DEM_MUR = 5 };
static const double dem_mu[DEM_MU] = {0.0, 0.1, 0.3, 0.5, 0.7};
static const double dem_mur[DEM_MUR] = {0.0, 0.1, 0.25, 0.5, 1.0};
static const double dem_angle[DEM_MU][DEM_MUR] = {
    {0, 0, 0, 0, 0},
    {15.0, 21.1, 24.1, 24.1, 24.1}, /* measured 23.7 at mu_r 1 */
    {17.2, 28.1, 31.6, 34.0, 38.9},
    {23.9, 28.3, 33.0, 36.0, 39.7},
    {23.9, 30.4, 35.3, 36.1, 41.6}, /* measured 22.8 at mu_r 0 */
};

double gr_material_repose_angle(double mu, double mu_r)
{
    /* bilinear in the table; past its last column or row the last (the angle saturates) */
    double col[DEM_MU];
    for (int i = 0; i < DEM_MU; i++)
        col[i] = table_at(dem_mur, dem_angle[i], DEM_MUR, mu_r);
    return table_at(dem_mu, col, DEM_MU, mu);
}

/* ---- PBD: the angle over mu_s (mu_k = mu_s / 1.2) ------------------------------------- */

enum { PBD_N = 13 };
static const double pbd_mus[PBD_N] = {0, 0.02, 0.04, 0.06, 0.085, 0.12, 0.18, 0.24, 0.30, 0.36, 0.42, 0.54, 0.70};
static const double pbd_angle[PBD_N] = {9.3, 18.5, 20.1, 22.1, 23.7, 27.1, 31.1, 33.9, 38.3, 39.0, 46.7, 51.8, 62.1};

void gr_material_pbd_friction(double angle_deg, double *mu_s, double *mu_k)
{
    /* the inverse of the (increasing) measured curve */
    *mu_s = table_at(pbd_angle, pbd_mus, PBD_N, angle_deg);
    *mu_k = *mu_s / 1.2;
}

/* ---- the continuum: the angle over alpha ----------------------------------------------- */

/* The same poured heap in the continuum at its defaults (2 cm cells), the material's
 * continuum_friction = alpha, read after 2 s of settling as the DEM's (bench/results-materials.md:
 * 11.4 deg at 0.3, 26.0 at 0.6, 29.5 at 1, 35.5 at 1.5, 35.2 at 2, 43.9 at 3; the points at 1.5
 * and 2 are taken as one, 35.35 at 1.75, so the curve rises). The continuum's heap still creeps
 * then (1-4 d in the last second), so these are the angles of a heap that is still settling. */
enum { CONT_N = 6 };
static const double cont_alpha[CONT_N] = {0, 0.3, 0.6, 1.0, 1.75, 3.0};
static const double cont_angle[CONT_N] = {0, 11.4, 26.0, 29.5, 35.35, 43.9};

double gr_material_continuum_friction(double angle_deg)
{
    return table_at(cont_angle, cont_alpha, CONT_N, angle_deg);
}

void gr_material_pbd_resolve(const gr_material_def *m, double *mu_s, double *mu_k)
{
    const bool s_given = m->static_friction != GR_MATERIAL_DERIVED;
    const bool k_given = m->kinetic_friction != GR_MATERIAL_DERIVED;
    if (s_given && k_given) {
        *mu_s = m->static_friction;
        *mu_k = m->kinetic_friction;
    } else if (s_given) {
        *mu_s = m->static_friction;
        *mu_k = m->static_friction / 1.2;
    } else if (k_given) {
        *mu_k = m->kinetic_friction;
        *mu_s = m->kinetic_friction * 1.2;
    } else {
        gr_material_pbd_friction(gr_material_repose_angle(m->friction, m->rolling_friction), mu_s, mu_k);
    }
}

double gr_material_continuum_resolve(const gr_material_def *m)
{
    return m->continuum_friction != GR_MATERIAL_DERIVED
               ? m->continuum_friction
               : gr_material_continuum_friction(gr_material_repose_angle(m->friction, m->rolling_friction));
}
