/* SPDX-License-Identifier: MIT */
#include "terrain_def.h"

#include <math.h>

#include "../core/stream.h"

void terrain_def_defaults(void *def)
{
    gr_terrain_def *d = (gr_terrain_def *)def;
    d->columns_x = 64;
    d->columns_z = 64;
    d->tile_size = 64;
    d->spacing = 0.04;
    d->origin = (gr_vec3){0, 0, 0};
    d->height = 0.1;
    d->material = (gr_material){0};
    d->stop_angle = GR_MATERIAL_DERIVED;
    d->start_angle = GR_MATERIAL_DERIVED;
    d->moving_fraction = 0.25;
    d->erosion_sweeps = 8;
    d->hybrid = 1;
    d->erosion_interval = 1.0 / 60.0;
    d->compression = 0.0;
    d->bearing_pressure = 40e3;
    d->bearing_gradient = 2.5e5;
    d->elastic_depth = 0.0;
    d->plough = 1.5;
    d->packing = 0.6;
    d->grain_radius = 0.0;
    d->release_speed = 0.05;
    d->rest_speed = 0.05;
    d->rest_steps = 30;
    d->disturb_speed = 0.0;
    d->debug_volume = 0;
}

GR_DEF_LISTED_TO_END(gr_terrain_def, debug_volume);
static const uint16_t bounds[] = {
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, size) GR_DEF_FIELD_BOUNDS(gr_terrain_def, columns_x)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, columns_z) GR_DEF_FIELD_BOUNDS(gr_terrain_def, tile_size)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, spacing) GR_DEF_FIELD_BOUNDS(gr_terrain_def, origin)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, height) GR_DEF_FIELD_BOUNDS(gr_terrain_def, material)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, stop_angle) GR_DEF_FIELD_BOUNDS(gr_terrain_def, start_angle)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, moving_fraction) GR_DEF_FIELD_BOUNDS(gr_terrain_def, erosion_sweeps)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, hybrid) GR_DEF_FIELD_BOUNDS(gr_terrain_def, erosion_interval)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, compression) GR_DEF_FIELD_BOUNDS(gr_terrain_def, bearing_pressure)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, bearing_gradient) GR_DEF_FIELD_BOUNDS(gr_terrain_def, elastic_depth) GR_DEF_FIELD_BOUNDS(gr_terrain_def, plough)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, packing) GR_DEF_FIELD_BOUNDS(gr_terrain_def, grain_radius)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, release_speed) GR_DEF_FIELD_BOUNDS(gr_terrain_def, rest_speed)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, rest_steps) GR_DEF_FIELD_BOUNDS(gr_terrain_def, disturb_speed)
    GR_DEF_FIELD_BOUNDS(gr_terrain_def, debug_volume)};
const gr_def_layout terrain_def_layout = {bounds, (uint32_t)GR_COUNTOF(bounds)};

static bool angle_ok(gr_def_check *c, double v, double lo, const char *what)
{
    return v == GR_MATERIAL_DERIVED || gr_def_range(c, v, lo, 89.0, what);
}

bool terrain_def_validate(const void *def, gr_def_check *c)
{
    const gr_terrain_def *d = (const gr_terrain_def *)def;
    if (!(gr_def_range(c, d->columns_x, 2, 16384, "terrain.columns_x") &&
          gr_def_range(c, d->columns_z, 2, 16384, "terrain.columns_z") &&
          gr_def_range(c, d->tile_size, 4, 4096, "terrain.tile_size") &&
          gr_def_range(c, d->spacing, 1e-4, 1e3, "terrain.spacing") &&
          gr_def_range(c, d->origin.x, -1e9, 1e9, "terrain.origin.x") &&
          gr_def_range(c, d->origin.y, -1e9, 1e9, "terrain.origin.y") &&
          gr_def_range(c, d->origin.z, -1e9, 1e9, "terrain.origin.z") &&
          gr_def_range(c, d->height, 0, 1e4, "terrain.height") && angle_ok(c, d->stop_angle, 1.0, "terrain.stop_angle") &&
          angle_ok(c, d->start_angle, 1.0, "terrain.start_angle") &&
          gr_def_range(c, d->moving_fraction, 0.01, 0.5, "terrain.moving_fraction") &&
          gr_def_range(c, d->erosion_sweeps, 0, 1000, "terrain.erosion_sweeps") &&
          gr_def_enum(c, d->hybrid, 2, "terrain.hybrid") &&
          gr_def_range(c, d->erosion_interval, 0, 10, "terrain.erosion_interval") &&
          gr_def_range(c, d->compression, 0, 1, "terrain.compression") &&
          gr_def_range(c, d->bearing_pressure, 1, 1e9, "terrain.bearing_pressure") &&
          gr_def_range(c, d->bearing_gradient, 0, 1e12, "terrain.bearing_gradient") &&
          gr_def_range(c, d->elastic_depth, 0, 1e3, "terrain.elastic_depth") &&
          gr_def_range(c, d->plough, 0, 10, "terrain.plough") && gr_def_range(c, d->packing, 0.05, 1, "terrain.packing") &&
          (d->grain_radius == 0 || gr_def_range(c, d->grain_radius, 1e-3 * d->spacing, d->spacing / 2.1,
                                                   "terrain.grain_radius")) &&
          gr_def_range(c, d->release_speed, 0, 1e3, "terrain.release_speed") &&
          gr_def_range(c, d->rest_speed, 0, 1e3, "terrain.rest_speed") &&
          gr_def_range(c, d->rest_steps, 1, 65535, "terrain.rest_steps") &&
          gr_def_range(c, d->disturb_speed, 0, 1e3, "terrain.disturb_speed") &&
          gr_def_enum(c, d->debug_volume, 2, "terrain.debug_volume")))
        return false;
    if ((uint64_t)d->columns_x * d->columns_z > (1u << 26))
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT,
                           "terrain.columns_x x columns_z = %llu: at most 67108864 columns",
                           (unsigned long long)d->columns_x * d->columns_z);
    if (d->stop_angle != GR_MATERIAL_DERIVED && d->start_angle != GR_MATERIAL_DERIVED && d->start_angle < d->stop_angle)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "terrain.start_angle = %g must be >= stop_angle = %g",
                           d->start_angle, d->stop_angle);
    return true;
}

void terrain_def_save(const void *def, gr_stream_writer *w)
{
    const gr_terrain_def *d = (const gr_terrain_def *)def;
    const uint32_t u[] = {d->columns_x, d->columns_z, d->tile_size, d->erosion_sweeps,
                          d->hybrid,    d->rest_steps, d->debug_volume};
    for (uint32_t k = 0; k < GR_COUNTOF(u); k++)
        gr_writer_u32(w, u[k]);
    gr_writer_u64(w, d->material.id);
    const double v[] = {d->spacing,         d->origin.x,         d->origin.y,       d->origin.z,         d->height,
                        d->stop_angle,      d->start_angle,      d->moving_fraction, d->erosion_interval, d->compression,
                        d->bearing_pressure, d->elastic_depth,   d->plough,          d->packing,          d->grain_radius,
                        d->release_speed,   d->rest_speed,       d->bearing_gradient, d->disturb_speed};
    gr_writer_f64s(w, v, GR_COUNTOF(v));
}

bool terrain_def_load(void *def, gr_stream_reader *r)
{
    gr_terrain_def *d = (gr_terrain_def *)def;
    uint32_t u[7];
    for (uint32_t k = 0; k < 7; k++)
        u[k] = gr_reader_u32(r);
    d->columns_x = u[0], d->columns_z = u[1], d->tile_size = u[2], d->erosion_sweeps = u[3];
    d->hybrid = u[4], d->rest_steps = u[5], d->debug_volume = u[6];
    d->material.id = gr_reader_u64(r);
    double v[19];
    gr_reader_f64s(r, v, 19);
    d->spacing = v[0], d->origin = (gr_vec3){v[1], v[2], v[3]}, d->height = v[4];
    d->stop_angle = v[5], d->start_angle = v[6], d->moving_fraction = v[7], d->erosion_interval = v[8];
    d->compression = v[9], d->bearing_pressure = v[10], d->elastic_depth = v[11], d->plough = v[12];
    d->packing = v[13], d->grain_radius = v[14], d->release_speed = v[15], d->rest_speed = v[16];
    d->bearing_gradient = v[17], d->disturb_speed = v[18];
    gr_def_check c;
    gr_def_check_init(&c);
    return !r->bad && terrain_def_validate(d, &c);
}

bool terrain_def_apply_preset(gr_terrain_def *d, uint32_t preset)
{
    switch (preset) {
    case GR_TERRAIN_SAND: /* the material's own angles; firm, does not pack */
        d->stop_angle = d->start_angle = GR_MATERIAL_DERIVED;
        d->compression = 0.0, d->bearing_pressure = 40e3, d->bearing_gradient = 2.5e5, d->moving_fraction = 0.25;
        return true;
    case GR_TERRAIN_MUD: /* flows far, soft, displaced (incompressible) */
        d->stop_angle = 10.0, d->start_angle = 14.0;
        d->compression = 0.0, d->bearing_pressure = 12e3, d->bearing_gradient = 2e4, d->moving_fraction = 0.15;
        return true;
    case GR_TERRAIN_SNOW: /* stands steep, soft, packs down */
        d->stop_angle = 45.0, d->start_angle = 55.0;
        d->compression = 0.7, d->bearing_pressure = 8e3, d->bearing_gradient = 1e5, d->moving_fraction = 0.25;
        return true;
    default: return false;
    }
}

terrain_params terrain_def_params(const gr_terrain_def *d)
{
    const double r = d->grain_radius > 0 ? d->grain_radius : 0.25 * d->spacing;
    return (terrain_params){
        .d = d->spacing,
        .area = d->spacing * d->spacing,
        .sigma = d->moving_fraction,
        .compression = d->compression,
        .bearing = d->bearing_pressure,
        .bearing_gradient = d->bearing_gradient,
        .elastic = d->elastic_depth > 0 ? d->elastic_depth : 0.25 * d->spacing,
        .plough = d->plough,
        .packing = d->packing,
        .grain_radius = r,
        .grain_volume = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r,
        .release_speed = d->release_speed,
        .rest_speed = d->rest_speed,
        .disturb_speed = d->disturb_speed,
        .erosion_interval = d->erosion_interval,
        .sweeps = d->erosion_sweeps,
        .rest_steps = d->rest_steps,
        .hybrid = d->hybrid != 0,
        .debug_volume = d->debug_volume != 0,
    };
}
