/* SPDX-License-Identifier: MIT */
/* Per-material-pair contact coefficients and the automatic stable substep (docs/dem.md). */
#include <math.h>

#include "dem_internal.h"
#include "dem_params.h"
#include "dem_def.h"
#include "dem_bodies.h"

void dem_law_init(dem_law *law, const gr_dem_def *d)
{
    /* the enums' DEFAULT (0) named as the law it stands for: every switch and test on the laws
     * sees one of the laws (a DEFAULT tangential law took the history branch without its
     * selection pass, a DEFAULT rolling law EPSD's branch without its arrays) */
    law->normal = d->normal_law == GR_NORMAL_DEFAULT ? GR_NORMAL_HERTZ : d->normal_law;
    law->tangential = d->tangential_law == GR_TANGENTIAL_DEFAULT ? GR_TANGENTIAL_HISTORY : d->tangential_law;
    /* DEFAULT is EPSD so that a material's rolling_friction acts on a default world (it holds
     * a static slope; with mu_r = 0 its torque is 0 and the forces are NONE's) */
    law->rolling = d->rolling_law == GR_ROLLING_DEFAULT ? GR_ROLLING_EPSD : d->rolling_law;
    law->clamp = d->clamp_normal_force != 0;
    law->lin_kr = d->linear_stiffness;
    law->lin_kd = d->linear_damping;
    law->nl_a = d->nonlinear_a;
    law->nl_b = d->nonlinear_b;
    law->nl_kr = d->nonlinear_stiffness;
    law->nl_kd = d->nonlinear_damping;
    law->kt_ratio = d->tangential_stiffness_ratio;
    law->shear_damping = d->shear_damping;
    law->coulomb_eps = d->coulomb_slip_speed;
    law->roll_damping = d->rolling_damping;
}

/* (Re)build the pair table when materials changed. Allocates before changing anything. */
gr_status dem_update_pairs(dem_state *st)
{
    const gr_materials *mats = st->env.materials;
    if (st->pairs && st->pairs_revision == mats->revision && st->pair_dim == mats->count)
        return GR_OK;
    uint32_t m = mats->count;
    dem_pair_params *pairs = (dem_pair_params *)gr_mem_alloc(st->mem, sizeof(dem_pair_params) * m * m);
    if (!pairs)
        return GR_ERROR_OUT_OF_MEMORY;
    const double tc = st->def->contact_time;
    for (uint32_t a = 0; a < m; a++)
        for (uint32_t b = 0; b < m; b++) {
            gr_pair_coeffs c;
            gr_materials_pair(mats, a, b, &c);
            dem_pair_params *p = &pairs[a * m + b];
            double e = c.restitution;
            double ln_e = log(e);
            double beta = ln_e / sqrt(ln_e * ln_e + GR_PI * GR_PI);
            p->mu = c.friction;
            p->mu_roll = c.rolling_friction;
            p->kn_coef = 4.0 / 3.0 * c.e_star;
            p->st_coef = 8.0 * c.g_star;
            p->gn_coef = -2.0 * sqrt(5.0 / 6.0) * beta * sqrt(2.0 * c.e_star);
            p->gt_coef = -2.0 * sqrt(5.0 / 6.0) * beta * sqrt(8.0 * c.g_star);
            p->kr_per_m = (ln_e * ln_e + GR_PI * GR_PI) / (tc * tc);
            p->kd_per_m = -2.0 * ln_e / tc;
            p->hertz_kr = 4.0 / 3.0 * c.e_star;
        }
    gr_mem_free(st->mem, st->pairs, sizeof(dem_pair_params) * st->pair_dim * st->pair_dim);
    st->pairs = pairs;
    st->pair_dim = m;
    st->pairs_revision = mats->revision;
    /* EPSD with mu_r 0 everywhere applies no torque and keeps its springs at 0: the forces run
     * the rolling-free kernel then (the same bits, less work); springs left from materials that
     * had rolling friction are cleared as EPSD at mu_r 0 would clear them */
    bool roll = false;
    for (uint32_t k = 0; k < m * m; k++)
        roll = roll || pairs[k].mu_roll > 0;
    if (!roll && st->pairs_roll) {
        if (st->nb_roll)
            memset(st->nb_roll, 0, sizeof(gr_vec3) * st->nb_count);
        if (st->bc_roll)
            memset(st->bc_roll, 0, sizeof(gr_vec3) * st->bc_count);
    }
    st->pairs_roll = roll;
    return GR_OK;
}

/* Rayleigh time of a sphere of radius r (the shear wave crossing time, docs/dem.md). */
static double rayleigh_time(const gr_material_def *mat, double r)
{
    double g = mat->youngs_modulus / (2.0 * (1.0 + mat->poisson_ratio));
    return GR_PI * r * sqrt(mat->density / g) / (0.1631 * mat->poisson_ratio + 0.8766);
}

/* Stable substep for spheres of radius r of one material. */
static double material_substep(const dem_state *st, uint32_t k, double r)
{
    const gr_dem_def *d = st->def;
    const gr_material_def *mat = &st->env.materials->defs[k];
    {
        double mass = mat->density * 4.0 / 3.0 * GR_PI * r * r * r;
        double meff = 0.5 * mass; /* smallest reduced mass: two of the smallest grains */
        double h;
        switch (d->normal_law) {
        case GR_NORMAL_LINEAR:
            if (d->linear_stiffness > 0) {
                double wn2 = d->linear_stiffness / meff;
                double z = d->linear_damping / (2.0 * meff);
                double wd2 = wn2 - z * z;
                /* overdamped: the relaxation time is the shortest time scale */
                double t = wd2 > 0 ? GR_PI / sqrt(wd2) : meff / d->linear_damping;
                h = d->contact_time_fraction * t;
            } else {
                h = d->contact_time_fraction * d->contact_time;
            }
            break;
        case GR_NORMAL_NONLINEAR: {
            if (d->nonlinear_stiffness > 0 || d->nonlinear_b != 1.5) {
                double kr = d->nonlinear_stiffness > 0 ? d->nonlinear_stiffness
                                                       : 4.0 / 3.0 * mat->youngs_modulus * sqrt(0.5 * r);
                double b = d->nonlinear_b, v = d->reference_speed;
                /* overlap where the elastic energy takes the impact energy, then the linear
                 * contact time of the secant stiffness there */
                double dmax = pow((b + 1.0) * meff * v * v / (2.0 * kr), 1.0 / (b + 1.0));
                double keff = kr * pow(dmax, b - 1.0);
                h = d->contact_time_fraction * GR_PI * sqrt(meff / keff);
                break;
            }
            h = d->rayleigh_fraction * rayleigh_time(mat, r);
            break;
        }
        default:
            h = d->rayleigh_fraction * rayleigh_time(mat, r);
            break;
        }
        return h;
    }
}

double dem_stable_substep(void *state)
{
    dem_state *st = (dem_state *)state;
    double best = INFINITY;
    for (uint32_t k = 0; k < st->mat_rmin_cap && k < st->env.materials->count; k++) {
        const double r = st->mat_rmin[k];
        if (r > 0 && isfinite(r))
            best = GR_MIN(best, material_substep(st, k, r));
    }
    if (isfinite(best))
        return best;
    /* No grains: dynamic bodies alone (on the floor, on each other) are limited by their
     * particles as if they were grains of the body's material: conservative. With grains the
     * grains' step rules, since a body's contacts have the larger reduced mass. */
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const gr_body_data *b = &bodies->data[bodies->active[a]];
        if (!dem_body_is_fixed(b) && b->particles)
            best = GR_MIN(best, material_substep(st, b->material, b->particle_radius));
    }
    return best;
}
