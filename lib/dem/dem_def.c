/* SPDX-License-Identifier: MIT */
/* gr_dem_def, the DEM's own parameters (documented field by field in gr_types.h): defaults,
 * field layout, checks and the snapshot section. The API layer reaches them through the
 * solver table (dem_solver.c). */
#include <stddef.h>

#include "../core/stream.h"
#include "dem_internal.h"
#include "dem_def.h"

void dem_def_defaults(void *def)
{
    gr_dem_def *d = (gr_dem_def *)def;
    d->normal_law = GR_NORMAL_HERTZ;
    d->tangential_law = GR_TANGENTIAL_HISTORY;
    d->rolling_law = GR_ROLLING_DEFAULT; /* EPSD: the material's rolling_friction acts */
    d->integrator = GR_INTEGRATOR_VELOCITY_VERLET;
    d->clamp_normal_force = 0;
    d->linear_stiffness = 0.0;
    d->linear_damping = 0.0;
    d->contact_time = 1e-3;
    d->nonlinear_a = 0.5;
    d->nonlinear_b = 1.5;
    d->nonlinear_stiffness = 0.0;
    d->nonlinear_damping = 0.0;
    d->tangential_stiffness_ratio = 2.0 / 7.0;
    d->shear_damping = 0.0;
    d->coulomb_slip_speed = 1e-6;
    d->rolling_damping = 0.3;
    d->skin = 0.0;
    d->rayleigh_fraction = 0.15;
    d->contact_time_fraction = 0.05;
    d->reference_speed = 1.0;
    d->rkf_tolerance = 1e-3;
    GR_UPSAMPLE_SET_DEFAULTS(d);
    d->reserved0 = 0;
}

/* Each field in order (the assertion fails to compile when one is appended unlisted). */
#define DEM_FIELDS(X)                                                                                          \
    X(gr_dem_def, size) X(gr_dem_def, normal_law) X(gr_dem_def, tangential_law) X(gr_dem_def, rolling_law)     \
    X(gr_dem_def, integrator) X(gr_dem_def, clamp_normal_force) X(gr_dem_def, linear_stiffness)                \
    X(gr_dem_def, linear_damping) X(gr_dem_def, contact_time) X(gr_dem_def, nonlinear_a)                       \
    X(gr_dem_def, nonlinear_b) X(gr_dem_def, nonlinear_stiffness) X(gr_dem_def, nonlinear_damping)             \
    X(gr_dem_def, tangential_stiffness_ratio) X(gr_dem_def, shear_damping) X(gr_dem_def, coulomb_slip_speed)   \
    X(gr_dem_def, rolling_damping) X(gr_dem_def, skin) X(gr_dem_def, rayleigh_fraction)                        \
    X(gr_dem_def, contact_time_fraction) X(gr_dem_def, reference_speed) X(gr_dem_def, rkf_tolerance)          \
    X(gr_dem_def, hr_radius) X(gr_dem_def, hr_support) X(gr_dem_def, hr_density) X(gr_dem_def, hr_substep)     \
    X(gr_dem_def, hr_sample_radius) X(gr_dem_def, hr_candidates) X(gr_dem_def, reserved0)
GR_DEF_LISTED_TO_END(gr_dem_def, reserved0);
static const uint16_t dem_def_bounds[] = {DEM_FIELDS(GR_DEF_FIELD_BOUNDS)};
const gr_def_layout dem_def_layout = {dem_def_bounds, (uint32_t)GR_COUNTOF(dem_def_bounds)};

static bool dem_points_params_check(const gr_dem_def *d, gr_def_check *c)
{
    if (d->reserved0 != 0)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "dem.reserved0 must be 0");
    const gr_upsample_params p = GR_UPSAMPLE_PARAMS_OF(d);
    return gr_upsample_params_check(&p, "dem", c);
}

bool dem_def_validate(const void *def, gr_def_check *c)
{
    const gr_dem_def *d = (const gr_dem_def *)def;
    if (!gr_def_enum(c, (uint32_t)d->normal_law, 4, "dem.normal_law") ||
        !gr_def_enum(c, (uint32_t)d->tangential_law, 6, "dem.tangential_law") ||
        !gr_def_enum(c, (uint32_t)d->rolling_law, 4, "dem.rolling_law") ||
        !gr_def_enum(c, (uint32_t)d->integrator, 3, "dem.integrator") ||
        !gr_def_positive(c, d->rkf_tolerance, false, "dem.rkf_tolerance"))
        return false;
    if (d->clamp_normal_force > 1)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "dem.clamp_normal_force must be 0 or 1");
    if (!gr_def_positive(c, d->linear_stiffness, true, "dem.linear_stiffness") ||
        !gr_def_positive(c, d->linear_damping, true, "dem.linear_damping") ||
        !gr_def_positive(c, d->contact_time, false, "dem.contact_time") ||
        !gr_def_range(c, d->nonlinear_a, 0.0, 4.0, "dem.nonlinear_a") ||
        !gr_def_range(c, d->nonlinear_b, 1.0, 4.0, "dem.nonlinear_b") ||
        !gr_def_positive(c, d->nonlinear_stiffness, true, "dem.nonlinear_stiffness") ||
        !gr_def_positive(c, d->nonlinear_damping, true, "dem.nonlinear_damping"))
        return false;
    if (d->normal_law == GR_NORMAL_NONLINEAR && d->nonlinear_stiffness == 0 && d->nonlinear_b != 1.5)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "dem.nonlinear_stiffness 0 (Hertz) needs dem.nonlinear_b = 1.5 (got %g)",
                           d->nonlinear_b);
    return gr_def_positive(c, d->tangential_stiffness_ratio, true, "dem.tangential_stiffness_ratio") &&
           gr_def_positive(c, d->shear_damping, true, "dem.shear_damping") &&
           gr_def_positive(c, d->coulomb_slip_speed, false, "dem.coulomb_slip_speed") &&
           gr_def_positive(c, d->rolling_damping, true, "dem.rolling_damping") &&
           gr_def_positive(c, d->skin, true, "dem.skin") &&
           gr_def_range(c, d->rayleigh_fraction, 1e-6, 1.0, "dem.rayleigh_fraction") &&
           gr_def_range(c, d->contact_time_fraction, 1e-6, 1.0, "dem.contact_time_fraction") &&
           gr_def_positive(c, d->reference_speed, false, "dem.reference_speed") && dem_points_params_check(d, c);
}

void dem_def_save(const void *def, gr_stream_writer *s)
{
    const gr_dem_def *d = (const gr_dem_def *)def;
    gr_writer_u32(s, (uint32_t)d->normal_law);
    gr_writer_u32(s, (uint32_t)d->tangential_law);
    gr_writer_u32(s, (uint32_t)d->rolling_law);
    gr_writer_u32(s, (uint32_t)d->integrator);
    gr_writer_u32(s, d->clamp_normal_force);
    const double v[] = {d->linear_stiffness, d->linear_damping, d->contact_time, d->nonlinear_a, d->nonlinear_b,
                        d->nonlinear_stiffness, d->nonlinear_damping, d->tangential_stiffness_ratio, d->shear_damping,
                        d->coulomb_slip_speed, d->rolling_damping, d->skin, d->rayleigh_fraction,
                        d->contact_time_fraction, d->reference_speed, d->rkf_tolerance,
                        /* format 8: the render points' */
                        d->hr_radius, d->hr_support, d->hr_density, d->hr_substep, d->hr_sample_radius};
    gr_writer_u32(s, (uint32_t)GR_COUNTOF(v));
    gr_writer_f64s(s, v, GR_COUNTOF(v));
    gr_writer_u32(s, d->hr_candidates);
}

/* Formats 3 to 7 have sixteen numbers; format 8 adds the render points' five and their
 * candidates (older snapshots: no points, the defaults). */
bool dem_def_load(void *def, gr_stream_reader *r)
{
    gr_dem_def *d = (gr_dem_def *)def;
    dem_def_defaults(d);
    d->normal_law = (gr_normal_law)gr_reader_u32(r);
    d->tangential_law = (gr_tangential_law)gr_reader_u32(r);
    d->rolling_law = (gr_rolling_law)gr_reader_u32(r);
    d->integrator = (gr_integrator)gr_reader_u32(r);
    d->clamp_normal_force = gr_reader_u32(r);
    /* before format 11 the default rolling law was none; a loaded world keeps its behaviour */
    if (r->format < 11 && d->rolling_law == GR_ROLLING_DEFAULT)
        d->rolling_law = GR_ROLLING_NONE;
    double v[21];
    const uint32_t count = r->format >= 8 ? 21u : 16u;
    if (gr_reader_u32(r) != count)
        return false;
    gr_reader_f64s(r, v, count);
    d->linear_stiffness = v[0];
    d->linear_damping = v[1];
    d->contact_time = v[2];
    d->nonlinear_a = v[3];
    d->nonlinear_b = v[4];
    d->nonlinear_stiffness = v[5];
    d->nonlinear_damping = v[6];
    d->tangential_stiffness_ratio = v[7];
    d->shear_damping = v[8];
    d->coulomb_slip_speed = v[9];
    d->rolling_damping = v[10];
    d->skin = v[11];
    d->rayleigh_fraction = v[12];
    d->contact_time_fraction = v[13];
    d->reference_speed = v[14];
    d->rkf_tolerance = v[15];
    if (r->format >= 8) {
        d->hr_radius = v[16];
        d->hr_support = v[17];
        d->hr_density = v[18];
        d->hr_substep = v[19];
        d->hr_sample_radius = v[20];
        d->hr_candidates = gr_reader_u32(r);
    }
    return true;
}
