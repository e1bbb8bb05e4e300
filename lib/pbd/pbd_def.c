/* SPDX-License-Identifier: MIT */
/* gr_pbd_def, the PBD solver's own parameters (documented field by field in gr_types.h):
 * defaults, field layout, checks and the snapshot section. The API layer reaches them through
 * the solver table (pbd_solver.c). */
#include <stddef.h>
#include <string.h>

#include "../core/stream.h"
#include "pbd_internal.h"
#include "pbd_def.h"

void pbd_def_defaults(void *def)
{
    gr_pbd_def *d = (gr_pbd_def *)def;
    d->iterations = 4;
    d->stabilization_iterations = 1;
    d->reserved0 = 0;
    d->relaxation = 1.0;
    d->collision_margin = 0.25;
    d->mass_scaling = 0.25;
    d->sleep_threshold = 0.5;
    d->cfl = 1.0;
    d->max_substep = 1.0 / 120.0;
    GR_UPSAMPLE_SET_DEFAULTS(d);
    d->max_iterations = 0;
    d->max_acceleration = 500.0;
    d->sleep_time = 0.25;
}

/* Each field in order (the assertion fails to compile when one is appended unlisted). */
#define PBD_FIELDS(X)                                                                                          \
    X(gr_pbd_def, size) X(gr_pbd_def, iterations) X(gr_pbd_def, stabilization_iterations)                      \
    X(gr_pbd_def, reserved0) X(gr_pbd_def, relaxation) X(gr_pbd_def, collision_margin)                         \
    X(gr_pbd_def, mass_scaling) X(gr_pbd_def, sleep_threshold) X(gr_pbd_def, cfl) X(gr_pbd_def, max_substep)   \
    X(gr_pbd_def, hr_radius) X(gr_pbd_def, hr_support) X(gr_pbd_def, hr_density) X(gr_pbd_def, hr_substep)     \
    X(gr_pbd_def, hr_candidates) X(gr_pbd_def, max_iterations) X(gr_pbd_def, max_acceleration)                 \
    X(gr_pbd_def, sleep_time) X(gr_pbd_def, hr_sample_radius)
GR_DEF_LISTED_TO_END(gr_pbd_def, hr_sample_radius);
static const uint16_t pbd_def_bounds[] = {PBD_FIELDS(GR_DEF_FIELD_BOUNDS)};
const gr_def_layout pbd_def_layout = {pbd_def_bounds, (uint32_t)GR_COUNTOF(pbd_def_bounds)};

bool pbd_def_validate(const void *def, gr_def_check *c)
{
    const gr_pbd_def *d = (const gr_pbd_def *)def;
    if (d->iterations < 1 || d->iterations > 1000)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "pbd.iterations = %u: must be in [1, 1000]", d->iterations);
    if (d->stabilization_iterations > 1000)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "pbd.stabilization_iterations = %u: at most 1000",
                           d->stabilization_iterations);
    if (d->reserved0 != 0)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "pbd.reserved0 must be 0");
    if (!gr_def_positive(c, d->relaxation, false, "pbd.relaxation"))
        return false;
    if (!(d->relaxation < 2.0))
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT,
                           "pbd.relaxation = %g: must be below 2 (over-relaxation beyond that diverges)", d->relaxation);
    if (!gr_def_range(c, d->collision_margin, 0.0, 10.0, "pbd.collision_margin") ||
        !gr_def_range(c, d->mass_scaling, 0.0, 50.0, "pbd.mass_scaling") ||
        !gr_def_range(c, d->sleep_threshold, 0.0, 1.0, "pbd.sleep_threshold") ||
        !gr_def_range(c, d->cfl, 1e-6, 10.0, "pbd.cfl") ||
        !gr_def_substep_limit(c, d->max_substep, false, "pbd.max_substep"))
        return false;
    const gr_upsample_params points = GR_UPSAMPLE_PARAMS_OF(d);
    if (!gr_upsample_params_check(&points, "pbd", c))
        return false;
    if (d->max_iterations > 1000)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT,
                           "pbd.max_iterations = %u: must be 0 (the library's) or in [1, 1000]", d->max_iterations);
    return gr_def_positive(c, d->max_acceleration, false, "pbd.max_acceleration") &&
           gr_def_range(c, d->sleep_time, 0.0, 1e6, "pbd.sleep_time");
}

void pbd_def_save(const void *def, gr_stream_writer *s)
{
    const gr_pbd_def *d = (const gr_pbd_def *)def;
    gr_writer_u32(s, d->iterations);
    gr_writer_u32(s, d->stabilization_iterations);
    gr_writer_u32(s, d->hr_candidates);
    gr_writer_u32(s, d->max_iterations);
    const double v[] = {d->relaxation, d->collision_margin, d->mass_scaling, d->sleep_threshold, d->cfl, d->max_substep,
                        d->hr_radius,  d->hr_support,       d->hr_density,   d->hr_substep, d->max_acceleration,
                        d->sleep_time, d->hr_sample_radius};
    gr_writer_u32(s, (uint32_t)GR_COUNTOF(v));
    gr_writer_f64s(s, v, GR_COUNTOF(v));
}

/* Formats 3 and 4 saved fewer settings (the later ones take their defaults, as a def from an
 * older header would): format 3 six numbers and no hr_candidates, format 4 twelve; before
 * format 7 no max_iterations. */
bool pbd_def_load(void *def, gr_stream_reader *r)
{
    gr_pbd_def *d = (gr_pbd_def *)def;
    pbd_def_defaults(d);
    d->iterations = gr_reader_u32(r);
    d->stabilization_iterations = gr_reader_u32(r);
    if (r->format >= 4)
        d->hr_candidates = gr_reader_u32(r);
    if (r->format >= 7)
        d->max_iterations = gr_reader_u32(r);
    double v[13];
    const uint32_t count = r->format >= 5 ? 13u : r->format == 4 ? 12u : 6u;
    if (gr_reader_u32(r) != count)
        return false;
    memcpy(v, (const double[13]){d->relaxation, d->collision_margin, d->mass_scaling, d->sleep_threshold, d->cfl,
                                 d->max_substep, d->hr_radius, d->hr_support, d->hr_density, d->hr_substep,
                                 d->max_acceleration, d->sleep_time, d->hr_sample_radius},
           sizeof v);
    gr_reader_f64s(r, v, count);
    d->relaxation = v[0];
    d->collision_margin = v[1];
    d->mass_scaling = v[2];
    d->sleep_threshold = v[3];
    d->cfl = v[4];
    d->max_substep = v[5];
    d->hr_radius = v[6];
    d->hr_support = v[7];
    d->hr_density = v[8];
    d->hr_substep = v[9];
    d->max_acceleration = v[10];
    d->sleep_time = v[11];
    d->hr_sample_radius = v[12];
    return true;
}
