/* SPDX-License-Identifier: MIT */
/* One DEM contact: normal law, shear law, rolling resistance (docs/dem.md, Bell 2005 eq. 1-19).
 * Shared by grain-grain and grain-body contacts (a body is a sphere of infinite radius and
 * mass: R* = r_i, m* = m_i). Inline: it is the innermost loop body. */
#ifndef GR_DEM_CONTACT_H
#define GR_DEM_CONTACT_H

#include <math.h>

#include "../simd/contact_law.h"

#include "../core/vec3.h"
#include "dem_internal.h"

typedef struct dem_contact_in {
    gr_vec3 n;     ///< unit normal from j (or the body) towards i
    double delta;  ///< overlap x > 0 (eq. 1)
    gr_vec3 vrel;  ///< velocity of i's contact point minus j's (eq. 3, with rotation)
    gr_vec3 wrel;  ///< omega_i - omega_j (rolling)
    double reff;   ///< R* (eq. 13)
    double meff;   ///< m* (eq. 11)
    double iroll;  ///< rolling inertia (EPSD dashpot)
    double h;      ///< substep
} dem_contact_in;

typedef struct dem_contact_out {
    gr_vec3 f;    ///< force on i (on j: -f)
    gr_vec3 nxft; ///< n x F_t: torque on i is -r_i nxft, on j -r_j nxft
    gr_vec3 mroll;///< rolling moment: torque on i -mroll, on j +mroll
} dem_contact_out;

/* x^p for the exponents of eq. 7 that matter, without pow() when possible. */
static inline double dem_pow(double x, double p)
{
    if (p == 1.0) return x;
    if (p == 1.5) return x * sqrt(x);
    if (p == 0.5) return sqrt(x);
    if (p == 0.0) return 1.0;
    if (p == 0.25) return sqrt(sqrt(x));
    if (p == 2.0) return x * x;
    return pow(x, p);
}

/* The normal laws besides Hertz (eqs. 7-15), written once for both scalar paths (dem_contact_laws
 * here, the batch loop of dem_forces.c); Hertz is simd/contact_law.h's. c1, c2: the pair's
 * coefficients (dem_forces.c, pair_coeffs); vn: the normal relative velocity (< 0 approaching). */
typedef struct dem_normal {
    double kn, gamma_n, fn, kt, gamma_t;
} dem_normal;

static GR_FORCE_INLINE dem_normal dem_normal_linear(const dem_law *law, double c1, double c2, double delta, double meff,
                                                    double vn)
{
    const double kr = law->lin_kr > 0 ? law->lin_kr : c1 * meff;
    const double kd = law->lin_kr > 0 ? law->lin_kd : c2 * meff;
    return (dem_normal){.kn = kr, .gamma_n = kd, .fn = kr * delta - kd * vn, .kt = law->kt_ratio * kr, .gamma_t = kd};
}

static GR_FORCE_INLINE dem_normal dem_normal_nonlinear(const dem_law *law, double c1, double delta, double reff, double vn)
{
    const double kr = law->nl_kr > 0 ? law->nl_kr : c1 * sqrt(reff);
    const double xb = dem_pow(delta, law->nl_b), xa = dem_pow(delta, law->nl_a);
    const double kn = kr * xb / delta; /* secant stiffness */
    const double gamma_n = law->nl_kd * xa;
    return (dem_normal){.kn = kn, .gamma_n = gamma_n, .fn = kr * xb - gamma_n * vn, .kt = law->kt_ratio * kn,
                        .gamma_t = gamma_n};
}

/* The law enums are passed separately so that specialised callers (constants) let the compiler
 * drop every branch of the laws they do not use. */
static GR_FORCE_INLINE void dem_contact_laws(const dem_law *law, gr_normal_law normal, gr_tangential_law tangential,
                                             gr_rolling_law rolling, const dem_pair_params *pp, const dem_contact_in *c,
                                             gr_vec3 *hist, gr_vec3 *roll, dem_contact_out *out)
{
    const gr_vec3 n = c->n;
    const double delta = c->delta;
    const double vn = v3_dot(c->vrel, n);

    /* ---- normal force (eq. 7-15) ---- */
    double kn, fn, gamma_n, kt, gamma_t;
    switch (normal) {
    case GR_NORMAL_LINEAR: {
        const dem_normal o = dem_normal_linear(law, pp->kr_per_m, pp->kd_per_m, delta, c->meff, vn);
        kn = o.kn, gamma_n = o.gamma_n, fn = o.fn, kt = o.kt, gamma_t = o.gamma_t;
        break;
    }
    case GR_NORMAL_NONLINEAR: {
        const dem_normal o = dem_normal_nonlinear(law, pp->hertz_kr, delta, c->reff, vn);
        kn = o.kn, gamma_n = o.gamma_n, fn = o.fn, kt = o.kt, gamma_t = o.gamma_t;
        break;
    }
    default: { /* Hertz-Mindlin with Tsuji-type damping from e (LIGGGHTS "hertz"): the vector kernels' law */
        const double reff = c->reff, meff = c->meff;
        GR_CONTACT_HERTZ(double, sqrt, pp->kn_coef, pp->gn_coef, pp->st_coef, pp->gt_coef, kn, gamma_n, fn, kt, gamma_t);
        break;
    }
    }
    if (law->clamp && fn < 0)
        fn = 0;
    const double fn_abs = fabs(fn);

    /* ---- shear force (eq. 16-19) ---- */
    gr_vec3 vt = v3_madd(c->vrel, n, -vn);
    gr_vec3 ft;
    switch (tangential) {
    case GR_TANGENTIAL_NONE:
        ft = v3(0, 0, 0);
        break;
    case GR_TANGENTIAL_VISCOUS: {
        double k = law->shear_damping > 0 ? law->shear_damping : gamma_n;
        ft = v3_scale(vt, -k);
        break;
    }
    case GR_TANGENTIAL_COULOMB: {
        double s = v3_len(vt);
        ft = v3_scale(vt, -pp->mu * fn_abs / (s > law->coulomb_eps ? s : law->coulomb_eps));
        break;
    }
    case GR_TANGENTIAL_COMBINED: {
        double s = v3_len(vt);
        double k = law->shear_damping > 0 ? law->shear_damping : gamma_n;
        double mag = GR_MIN(pp->mu * fn_abs, k * s);
        ft = s > 0 ? v3_scale(vt, -mag / s) : v3(0, 0, 0);
        break;
    }
    default: { /* history spring, projected into the tangent plane, Coulomb-truncated */
        gr_vec3 xi = v3_madd(*hist, vt, c->h);
        xi = v3_madd(xi, n, -v3_dot(xi, n));
        ft = v3_scale(xi, -kt);
        double ft2 = v3_len2(ft);
        double fmax = pp->mu * fn_abs;
        if (ft2 > fmax * fmax) {
            ft = v3_scale(ft, fmax / sqrt(ft2));
            xi = kt > 0 ? v3_scale(ft, -1.0 / kt) : v3(0, 0, 0);
        } else if (c->h > 0) {
            /* sticking: the dashpot too. Not at h = 0 (forces re-evaluated after the host
             * changed the world): no slip is taken there, so a contact that was sliding sits at
             * the cap and would take this branch, its dashpot lifting friction far past
             * Coulomb's bound (a kinematic floor set every frame held a sliding raft) */
            ft = v3_madd(ft, vt, -gamma_t);
        }
        *hist = xi;
        break;
    }
    }

    out->f = v3_madd(ft, n, fn);
    out->nxft = v3_cross(n, ft);

    /* ---- rolling resistance ---- */
    if (rolling == GR_ROLLING_CDT) {
        gr_vec3 wr = v3_madd(c->wrel, n, -v3_dot(c->wrel, n));
        double s = v3_len(wr);
        out->mroll = s > 1e-12 ? v3_scale(wr, pp->mu_roll * kn * delta * c->reff / s) : v3(0, 0, 0);
    } else if (rolling == GR_ROLLING_EPSD) {
        gr_vec3 wr = v3_madd(c->wrel, n, -v3_dot(c->wrel, n));
        double kr = 2.25 * kn * pp->mu_roll * pp->mu_roll * c->reff * c->reff;
        gr_vec3 mk = v3_madd(*roll, wr, kr * c->h);
        mk = v3_madd(mk, n, -v3_dot(mk, n));
        double mmax = pp->mu_roll * c->reff * fn_abs;
        double m2 = v3_len2(mk);
        if (m2 > mmax * mmax) {
            mk = v3_scale(mk, mmax / sqrt(m2));
            *roll = mk;
            out->mroll = mk;
        } else {
            *roll = mk;
            /* (no dashpot at h = 0, as for the shear spring above) */
            out->mroll = c->h > 0 ? v3_madd(mk, wr, law->roll_damping * 2.0 * sqrt(c->iroll * kr)) : mk;
        }
    } else {
        out->mroll = v3(0, 0, 0);
    }
}

#endif /* GR_DEM_CONTACT_H */
