/* SPDX-License-Identifier: MIT */
#include "collapse_scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

collapse_def collapse_default(void)
{
    collapse_def d;
    memset(&d, 0, sizeof d);
    d.solver = GR_SOLVER_CONTINUUM;
    d.workers = 1;
    d.cell = 0.01;
    d.half_width = 0.03;
    d.height = 0.12;
    d.mu = 0.5;
    return d;
}

static gr_status add_material(gr_world *w, const collapse_def *d, gr_material *out)
{
    gr_material_def md;
    gr_material_def_init(&md);
    if (d->preset > 0) {
        gr_status st = gr_material_def_set_preset(&md, (gr_material_preset)d->preset);
        if (st != GR_OK)
            return st;
    } else {
        md.friction = d->mu;
        md.kinetic_friction = d->mu;
        md.static_friction = 1.2 * d->mu; /* the library's default ratio 0.6 / 0.5 */
        md.continuum_friction = d->mu;    /* alpha = mu: the continuum model's own coefficient */
    }
    return gr_add_material(w, &md, out);
}

gr_status collapse_create(const collapse_def *def, collapse_scene *s)
{
    memset(s, 0, sizeof *s);
    s->def = *def;
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = def->cell;
    gr_dem_def dd;
    gr_dem_def_init(&dd);
    dd.rolling_law = GR_ROLLING_EPSD; /* spheres need rolling resistance to pile like sand */
    gr_world_def wd;
    gr_world_def_init(&wd, def->solver);
    wd.worker_count = def->workers;
    if (def->solver == GR_SOLVER_CONTINUUM)
        wd.solver_def = &cd;
    else if (def->solver == GR_SOLVER_DEM)
        wd.solver_def = &dd;
    /* what flies off the scene is removed, not followed */
    wd.bounds_min = (gr_vec3){def->cx - 1, -0.1, -1};
    wd.bounds_max = (gr_vec3){def->cx + 1, 1, 1};
    gr_status st = gr_world_create(&wd, &s->w);
    if (st != GR_OK)
        return st;
    gr_material mat;
    st = add_material(s->w, def, &mat);
    gr_body_def floor;
    gr_body_def_init(&floor);
    floor.shape = GR_SHAPE_PLANE;
    floor.material = mat;
    if (st == GR_OK)
        st = gr_add_body(s->w, &floor, NULL);
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = mat;
    f.spacing = 0.5 * def->cell;
    f.radius = 0.5 * f.spacing / (1 + def->gap);
    f.jitter = 0.5;
    s->grain_radius = f.radius;
    f.min = (gr_vec3){def->cx - def->half_width, 0, -def->half_width};
    f.max = (gr_vec3){def->cx + def->half_width, def->height, def->half_width};
    if (st == GR_OK)
        st = gr_fill_box(s->w, &f, &s->grains, NULL, 0);
    if (st == GR_OK && fid_grains_read(s->w, &s->g) != GR_OK)
        st = GR_ERROR_OUT_OF_MEMORY;
    if (st != GR_OK) {
        fprintf(stderr, "collapse: %s\n", gr_world_last_error(s->w));
        collapse_destroy(s);
        return st;
    }
    fid_energy_track_add(&s->energy, fid_energy_of(&s->g, (gr_vec3){0, -9.81, 0}), 0);
    return GR_OK;
}

gr_status collapse_step(collapse_scene *s, double dt)
{
    gr_status st = gr_step(s->w, dt);
    if (st != GR_OK)
        return st;
    s->time += dt;
    st = fid_grains_read(s->w, &s->g);
    if (st != GR_OK)
        return st;
    fid_energy_track_add(&s->energy, fid_energy_of(&s->g, (gr_vec3){0, -9.81, 0}), s->time);
    return GR_OK;
}

void collapse_destroy(collapse_scene *s)
{
    fid_grains_free(&s->g);
    if (s->w)
        gr_world_destroy(s->w);
    s->w = NULL;
}

void collapse_measure(const collapse_scene *s, double bin, collapse_pile *out)
{
    memset(out, 0, sizeof *out);
    fid_heap heap;
    fid_repose_angle(&s->g, s->def.cx, 0, bin > 0 ? bin : 0.5 * s->def.cell, &heap);
    out->foot = heap.foot;
    out->height = heap.height;
    out->angle = heap.angle_fit;
    out->angle_hr = heap.angle_hr;
    out->rings = heap.rings;
    out->max_speed = fid_max_speed(&s->g);
    for (uint32_t i = 0; i < s->g.n; i++) {
        const double *v = s->g.v + 3 * i;
        out->mean_speed += sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / s->g.n;
    }
}

double collapse_mean_height(const collapse_scene *s)
{
    double y = 0;
    for (uint32_t i = 0; i < s->g.n; i++)
        y += s->g.x[3 * i + 1] / s->g.n;
    return y;
}
