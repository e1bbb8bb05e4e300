/* SPDX-License-Identifier: MIT */
#include "cont_def.h"

#include "../core/stream.h"

void cont_def_defaults(void *def)
{
    gr_continuum_def *d = (gr_continuum_def *)def;
    d->qp_solver = 0;
    d->cell_size = 0.02;
    d->particle_radius = 0.0;
    d->packing = 0.6;
    d->pic_fraction = 0.05;
    d->stagger_iterations = 2;
    d->max_iterations = 1000;
    d->cfl = 0.5;
    d->tolerance = 1e-5;
    d->friction_sweeps = 1;
    d->density_correction = 1;
    d->render_points = 0;
    d->split_merge = 0;
}

GR_DEF_LISTED_TO_END(gr_continuum_def, split_merge);
static const uint16_t bounds[] = {
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, size) GR_DEF_FIELD_BOUNDS(gr_continuum_def, qp_solver)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, cell_size) GR_DEF_FIELD_BOUNDS(gr_continuum_def, particle_radius)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, packing) GR_DEF_FIELD_BOUNDS(gr_continuum_def, pic_fraction)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, stagger_iterations) GR_DEF_FIELD_BOUNDS(gr_continuum_def, max_iterations)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, cfl) GR_DEF_FIELD_BOUNDS(gr_continuum_def, tolerance)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, friction_sweeps) GR_DEF_FIELD_BOUNDS(gr_continuum_def, density_correction)
    GR_DEF_FIELD_BOUNDS(gr_continuum_def, render_points) GR_DEF_FIELD_BOUNDS(gr_continuum_def, split_merge)};
const gr_def_layout cont_def_layout = {bounds, (uint32_t)GR_COUNTOF(bounds)};

bool cont_def_validate(const void *def, gr_def_check *c)
{
    const gr_continuum_def *d = (const gr_continuum_def *)def;
    return gr_def_enum(c, d->qp_solver, 2, "continuum.qp_solver") &&
           gr_def_range(c, d->cell_size, 1e-6, 1e3, "continuum.cell_size") &&
           gr_def_range(c, d->particle_radius, 0.0, d->cell_size, "continuum.particle_radius") &&
           gr_def_range(c, d->packing, 1e-3, 1.0, "continuum.packing") &&
           gr_def_range(c, d->pic_fraction, 0.0, 1.0, "continuum.pic_fraction") &&
           gr_def_range(c, d->stagger_iterations, 1, 50, "continuum.stagger_iterations") &&
           gr_def_range(c, d->max_iterations, 1, 1e6, "continuum.max_iterations") &&
           gr_def_range(c, d->cfl, 1e-3, 2.0, "continuum.cfl") &&
           gr_def_range(c, d->tolerance, 1e-14, 0.1, "continuum.tolerance") &&
           gr_def_range(c, d->friction_sweeps, 0, 20, "continuum.friction_sweeps") &&
           gr_def_enum(c, d->density_correction, 2, "continuum.density_correction") &&
           gr_def_range(c, d->render_points, 0, CONT_MAX_POINTS, "continuum.render_points") &&
           gr_def_enum(c, d->split_merge, 2, "continuum.split_merge");
}

void cont_def_save(const void *def, gr_stream_writer *w)
{
    const gr_continuum_def *d = (const gr_continuum_def *)def;
    gr_writer_u32(w, d->qp_solver);
    gr_writer_u32(w, d->stagger_iterations);
    gr_writer_u32(w, d->max_iterations);
    gr_writer_u32(w, d->friction_sweeps);
    gr_writer_u32(w, d->density_correction);
    gr_writer_u32(w, d->render_points);
    gr_writer_u32(w, d->split_merge);
    const double v[] = {d->cell_size, d->particle_radius, d->packing, d->pic_fraction, d->cfl, d->tolerance};
    gr_writer_f64s(w, v, GR_COUNTOF(v));
}

bool cont_def_load(void *def, gr_stream_reader *r)
{
    gr_continuum_def *d = (gr_continuum_def *)def;
    d->qp_solver = gr_reader_u32(r);
    d->stagger_iterations = gr_reader_u32(r);
    d->max_iterations = gr_reader_u32(r);
    d->friction_sweeps = gr_reader_u32(r);
    d->density_correction = gr_reader_u32(r);
    d->render_points = gr_reader_u32(r);
    d->split_merge = gr_reader_u32(r);
    double v[6];
    gr_reader_f64s(r, v, 6);
    d->cell_size = v[0], d->particle_radius = v[1], d->packing = v[2], d->pic_fraction = v[3], d->cfl = v[4];
    d->tolerance = v[5];
    gr_def_check c;
    gr_def_check_init(&c);
    return !r->bad && cont_def_validate(d, &c);
}

cont_params cont_def_params(const gr_continuum_def *d)
{
    return (cont_params){
        .cell = d->cell_size,
        .radius = d->particle_radius > 0 ? d->particle_radius : 0.25 * d->cell_size,
        .packing = d->packing,
        .pic = d->pic_fraction,
        .stagger = d->stagger_iterations,
        .cfl = d->cfl,
        .tolerance = d->tolerance,
        .max_iterations = d->max_iterations,
        .pgs = d->qp_solver == 1,
        .friction_sweeps = d->friction_sweeps,
        .density_correction = d->density_correction != 0,
        .points = d->render_points,
        .split_merge = d->split_merge != 0,
    };
}
