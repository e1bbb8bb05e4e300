/* SPDX-License-Identifier: MIT */
/* Snapshots: header (magic, format version, solver, payload size and CRC-32, header CRC),
 * then the world payload (physics settings, materials, bodies, grain handles) and the solver
 * payload. Loading reads and checks everything before it replaces the world's state. */
#include <stdio.h>

#include "../bodies/body_cover.h"
#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/hash.h"
#include "../core/stream.h"
#include "../world/world_env.h"
#include "../world/world_errors.h"
#include "../world/world_systems.h"
#include "api_internal.h"
#include "api_defaults.h"
#include "api_world.h"

#define SNAPSHOT_MAGIC "GRANULAR"
#define SNAPSHOT_VERSION 12u
#define HEADER_SIZE 32u
/* Snapshots beyond this size are refused as corrupt before any allocation. */
#define SNAPSHOT_MAX ((uint64_t)1 << 40)
/* The payload buffer starts at this size and doubles as data arrives: a header declaring more
 * than the stream holds costs at most twice what was actually read. */
#define SNAPSHOT_FIRST_CHUNK ((size_t)1 << 16)

static void put_vec(gr_stream_writer *s, gr_vec3 v)
{
    gr_writer_f64(s, v.x);
    gr_writer_f64(s, v.y);
    gr_writer_f64(s, v.z);
}
static void put_quat(gr_stream_writer *s, gr_quat q)
{
    gr_writer_f64(s, q.x);
    gr_writer_f64(s, q.y);
    gr_writer_f64(s, q.z);
    gr_writer_f64(s, q.w);
}
static gr_vec3 get_vec(gr_stream_reader *r)
{
    gr_vec3 v;
    v.x = gr_reader_f64(r);
    v.y = gr_reader_f64(r);
    v.z = gr_reader_f64(r);
    return v;
}
static gr_quat get_quat(gr_stream_reader *r)
{
    gr_quat q;
    q.x = gr_reader_f64(r);
    q.y = gr_reader_f64(r);
    q.z = gr_reader_f64(r);
    q.w = gr_reader_f64(r);
    return q;
}

/* Format 7's world part carries one def section per solver of this list, each written by its
 * solver: the world's own solver's def, the others' defaults. (A later format should carry the
 * world's solver's section only.) */
static const gr_def_kind format_solver_defs[] = {GR_DEF_DEM, GR_DEF_PBD};
#define FORMAT_SOLVER_DEFS ((uint32_t)GR_COUNTOF(format_solver_defs))

/* The format's solver sections need every solver it lists built (a build may drop one). */
static bool format_solvers_built(void)
{
    for (uint32_t k = 0; k < FORMAT_SOLVER_DEFS; k++)
        if (!gr_solver_find_def(format_solver_defs[k]))
            return false;
    return true;
}

static bool in_format(const gr_solver_vtable *sv)
{
    for (uint32_t k = 0; k < FORMAT_SOLVER_DEFS; k++)
        if (format_solver_defs[k] == sv->def_kind)
            return true;
    return false;
}

static void put_solver_defs(gr_stream_writer *s, const gr_world *w)
{
    const gr_system *own = &w->systems[0];
    for (uint32_t k = 0; k < FORMAT_SOLVER_DEFS; k++) {
        const gr_solver_vtable *sv = gr_solver_find_def(format_solver_defs[k]);
        gr_def_buffer def;
        if (sv == own->solver)
            memcpy(&def, own->def, sv->def_size);
        else
            gr_def_defaults_full(sv->def_kind, &def);
        sv->def_save(&def, s);
    }
    if (!in_format(own->solver))
        own->solver->def_save(own->def, s); /* a solver the format does not list: its own section */
}

static void put_material(gr_stream_writer *s, const gr_material_def *m)
{
    const double v[] = {m->density,          m->youngs_modulus,   m->poisson_ratio,    m->restitution,
                        m->friction,         m->rolling_friction, m->static_friction,  m->kinetic_friction,
                        m->continuum_friction};
    gr_writer_f64s(s, v, GR_COUNTOF(v));
}

static void get_material(gr_stream_reader *r, gr_material_def *m)
{
    gr_def_defaults_full(GR_DEF_MATERIAL, m);
    /* format 11 added continuum_friction; before it the continuum took alpha = friction */
    const uint32_t count = r->format >= 11 ? 9u : 8u;
    double v[9];
    gr_reader_f64s(r, v, count);
    m->density = v[0];
    m->youngs_modulus = v[1];
    m->poisson_ratio = v[2];
    m->restitution = v[3];
    m->friction = v[4];
    m->rolling_friction = v[5];
    m->static_friction = v[6];
    m->kinetic_friction = v[7];
    m->continuum_friction = count == 9 ? v[8] : v[4];
}

static void write_payload(const gr_world *w, gr_stream_writer *s)
{
    /* world */
    /* formerly the saving world's tag; a loading world keeps its own, so this is a constant
     * (any value in 1 .. 0xffff is accepted by every reader of this format) */
    gr_writer_u32(s, 1u);
    put_vec(s, w->def.gravity);
    gr_writer_f64(s, w->def.substep);
    gr_writer_u64(s, w->def.seed);
    gr_writer_f64(s, w->time);
    gr_writer_f64(s, w->last_substep);
    gr_writer_u64(s, w->step_count);
    gr_writer_u64(s, w->substep_count);
    gr_writer_u64(s, w->fill_count);
    gr_writer_u64(s, w->grains_removed);
    put_vec(s, w->def.bounds_min);
    put_vec(s, w->def.bounds_max);
    gr_writer_u32(s, w->default_material);
    put_solver_defs(s, w);
    /* materials */
    gr_writer_u32(s, w->materials.count);
    for (uint32_t i = 0; i < w->materials.count; i++)
        put_material(s, &w->materials.defs[i]);
    gr_writer_u32(s, w->materials.override_count);
    for (uint32_t i = 0; i < w->materials.override_count; i++) {
        const gr_material_override *o = &w->materials.overrides[i];
        gr_writer_u32(s, o->a);
        gr_writer_u32(s, o->b);
        gr_writer_f64(s, o->def.restitution);
        gr_writer_f64(s, o->def.friction);
        gr_writer_f64(s, o->def.rolling_friction);
    }
    gr_writer_u32(s, w->materials.revision);
    /* clump templates (the built-ins too: handles index them) */
    const gr_clump_store *cs = &w->clumps;
    gr_writer_u32(s, cs->count);
    gr_writer_u32(s, cs->sphere_count);
    for (uint32_t i = 0; i < cs->count; i++) {
        const gr_clump_template *t = &cs->templates[i];
        gr_writer_u32(s, t->first);
        gr_writer_u32(s, t->count);
        gr_writer_f64(s, t->unit_volume);
        put_vec(s, t->unit_inertia);
        gr_writer_f64(s, t->min_radius);
        put_quat(s, t->principal);
    }
    gr_writer_f64s(s, (const double *)cs->offsets, (size_t)cs->sphere_count * 3);
    gr_writer_f64s(s, cs->radii, cs->sphere_count);
    /* bodies */
    const gr_body_store *bs = &w->bodies;
    gr_writer_u32(s, bs->slot_count);
    gr_writer_u32(s, bs->revision);
    for (uint32_t i = 0; i < bs->slot_count; i++) {
        const gr_body_data *b = &bs->data[i];
        gr_writer_u32(s, bs->gen[i]);
        gr_writer_u32(s, bs->alive[i]);
        if (!bs->alive[i])
            continue;
        gr_writer_u32(s, (uint32_t)b->shape);
        gr_writer_u32(s, (uint32_t)b->motion);
        gr_writer_u32(s, b->open_faces);
        gr_writer_u32(s, b->material);
        put_vec(s, b->position);
        put_quat(s, b->orientation);
        put_vec(s, b->linear_velocity);
        put_vec(s, b->angular_velocity);
        put_vec(s, b->normal_local);
        gr_writer_f64(s, b->radius);
        gr_writer_f64(s, b->half_height);
        put_vec(s, b->half_extents);
        put_vec(s, b->force);
        put_vec(s, b->torque);
        /* particle-covered bodies */
        gr_writer_f64(s, b->particle_radius);
        gr_writer_f64(s, b->particle_density);
        gr_writer_f64(s, b->particle_offset);
        gr_writer_f64(s, b->mass);
        put_vec(s, b->inertia);
        put_vec(s, b->com);
        put_quat(s, b->principal);
        gr_writer_f64(s, b->mesh_bound);
        gr_writer_u32(s, b->particle_count);
        gr_writer_u32(s, b->mesh_vertex_count);
        gr_writer_u32(s, b->mesh_triangle_count);
        gr_writer_f64s(s, (const double *)b->particles, (size_t)b->particle_count * 3);
        gr_writer_f64s(s, (const double *)b->mesh_vertices, (size_t)b->mesh_vertex_count * 3);
        gr_writer_u32s(s, b->mesh_indices, (size_t)b->mesh_triangle_count * 3);
    }
    /* grain handles */
    const gr_grain_table *t = &w->grains;
    gr_writer_u32(s, t->slot_count);
    gr_writer_u32(s, t->count);
    gr_writer_u32(s, t->free_head);
    gr_writer_u16s(s, t->gen, t->slot_count);
    gr_writer_bytes(s, t->alive, t->slot_count);
    gr_writer_u32s(s, t->pos, t->slot_count);
    gr_writer_u32s(s, t->list, t->count);
    /* systems (format 9): how many; each added one's solver and def; with several, the system
     * of every grain slot */
    gr_writer_u32(s, w->system_count);
    for (uint32_t i = 1; i < w->system_count; i++) {
        gr_writer_u32(s, (uint32_t)w->systems[i].solver->kind);
        w->systems[i].solver->def_save(w->systems[i].def, s);
    }
    if (w->system_count > 1)
        gr_writer_bytes(s, t->system, t->slot_count);
    /* the solvers, in system order */
    for (uint32_t i = 0; i < w->system_count; i++)
        w->systems[i].solver->save(w->systems[i].state, s);
}

GR_API gr_status gr_world_save(gr_world *w, gr_write_fn *write, void *user)
{
    static const char f[] = "gr_world_save";
    GR_CHECK(gr_check_world(w, f));
    if (!write)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "write is NULL");
    if (!format_solvers_built())
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "the snapshot format needs the DEM and PBD solvers built");
    /* pass 1: size and checksum; pass 2: the bytes */
    gr_stream_writer *s = (gr_stream_writer *)gr_mem_alloc(&w->mem, sizeof(gr_stream_writer));
    if (!s)
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the stream buffer failed");
    gr_writer_init(s, NULL, NULL);
    write_payload(w, s);
    gr_writer_finish(s);
    uint64_t size = s->size;
    uint32_t crc = s->crc;

    unsigned char hdr[HEADER_SIZE];
    memcpy(hdr, SNAPSHOT_MAGIC, 8);
    for (int i = 0; i < 4; i++) hdr[8 + i] = (unsigned char)(SNAPSHOT_VERSION >> (8 * i));
    for (int i = 0; i < 4; i++) hdr[12 + i] = (unsigned char)((uint32_t)w->def.solver >> (8 * i));
    for (int i = 0; i < 8; i++) hdr[16 + i] = (unsigned char)(size >> (8 * i));
    for (int i = 0; i < 4; i++) hdr[24 + i] = (unsigned char)(crc >> (8 * i));
    uint32_t hcrc = gr_crc32(0, hdr, 28);
    for (int i = 0; i < 4; i++) hdr[28 + i] = (unsigned char)(hcrc >> (8 * i));

    gr_status st = GR_OK;
    if (write(user, hdr, HEADER_SIZE) != HEADER_SIZE) {
        st = gr_fail(w, GR_ERROR_IO, f, "the write callback failed on the header");
    } else {
        gr_writer_init(s, write, user);
        write_payload(w, s);
        if (!gr_writer_finish(s))
            st = gr_fail(w, GR_ERROR_IO, f, "the write callback failed");
        else if (s->crc != crc || s->size != size)
            st = gr_fail(w, GR_ERROR_IO, f, "the state changed while saving");
    }
    gr_mem_free(&w->mem, s, sizeof(gr_stream_writer));
    return st;
}

/* ---- load ----------------------------------------------------------------------------------- */

typedef struct world_parts {
    gr_def_buffer solver_def; /* the world's solver's, checked */
    gr_def_buffer system_defs[GR_MAX_SYSTEMS]; /* the added systems' (from 1), checked */
    gr_vec3 gravity;
    double substep;
    uint64_t seed;
    double time, last_substep;
    uint64_t step_count, substep_count, fill_count, grains_removed;
    gr_vec3 bounds_min, bounds_max;
    uint32_t default_material;
    gr_materials materials;
    gr_clump_store clumps;
    gr_body_store bodies;
    gr_grain_table grains;
    char detail[256]; /* a validator's own words, quoted in the error message */
} world_parts;

static void parts_free(world_parts *p, gr_mem *mem)
{
    gr_materials_free(&p->materials, mem);
    gr_clump_store_free(&p->clumps, mem);
    gr_body_store_free(&p->bodies, mem);
    gr_grain_table_free(&p->grains, mem);
}

#define RCHECK(cond, what) GR_LOAD_CHECK(r, cond, what)

/* A validator of the entry points failed on restored settings: quote its message. */
static gr_status refuse_settings(gr_stream_reader *r, world_parts *p, const gr_world *probe)
{
    snprintf(p->detail, sizeof p->detail, "%s", probe->last_error);
    gr_reader_fail(r, p->detail);
    return GR_ERROR_CORRUPT_DATA;
}

/* The systems (format 9; one before): the loading world must hold the same solvers in the same
 * order (gr_world_add_system before gr_world_load), and takes their defs from the snapshot. */
static gr_status read_systems(gr_world *w, gr_stream_reader *r, world_parts *p)
{
    gr_grain_table *t = &p->grains;
    const uint32_t n = r->format >= 9 ? gr_reader_u32(r) : 1;
    RCHECK(n >= 1 && n <= GR_MAX_SYSTEMS, "the system count is out of range");
    if (n != w->system_count) {
        snprintf(p->detail, sizeof p->detail,
                 "the snapshot holds %u system(s), this world %u: load it into a world with the same systems "
                 "(gr_world_add_system)", n, w->system_count);
        gr_reader_fail(r, p->detail);
        return GR_ERROR_INVALID_ARGUMENT;
    }
    gr_world probe;
    memset(&probe, 0, sizeof probe);
    for (uint32_t i = 1; i < n; i++) {
        const gr_solver_vtable *sv = w->systems[i].solver;
        const uint32_t kind = gr_reader_u32(r);
        RCHECK(true, "");
        if (kind != (uint32_t)sv->kind) {
            snprintf(p->detail, sizeof p->detail, "the snapshot's system %u is of solver %u, this world's runs %s", i,
                     kind, sv->name);
            gr_reader_fail(r, p->detail);
            return GR_ERROR_INVALID_ARGUMENT;
        }
        gr_def_defaults_full(sv->def_kind, &p->system_defs[i]);
        RCHECK(sv->def_load(&p->system_defs[i], r), "a system's settings are not of this format");
        if (gr_validate_solver_def(&probe, sv, &p->system_defs[i], "a system's settings fail its solver's checks") !=
            GR_OK)
            return refuse_settings(r, p, &probe);
    }
    if (n > 1) {
        RCHECK(gr_reader_left(r) >= t->slot_count, "the systems of the grains are cut short");
        gr_reader_bytes(r, t->system, t->slot_count);
        for (uint32_t i = 0; i < t->slot_count; i++)
            RCHECK(!t->alive[i] || t->system[i] < n, "a grain belongs to no system");
    } else if (t->slot_count) {
        memset(t->system, 0, t->slot_count);
    }
    return GR_OK;
}

static gr_status read_world_parts(gr_world *w, gr_stream_reader *r, world_parts *p)
{
    (void)gr_reader_u32(r); /* the saving world's tag: not adopted, the loading world keeps its own */
    p->gravity = get_vec(r);
    p->substep = gr_reader_f64(r);
    p->seed = gr_reader_u64(r);
    p->time = gr_reader_f64(r);
    p->last_substep = gr_reader_f64(r);
    p->step_count = gr_reader_u64(r);
    p->substep_count = gr_reader_u64(r);
    p->fill_count = gr_reader_u64(r);
    p->grains_removed = gr_reader_u64(r);
    p->bounds_min = get_vec(r);
    p->bounds_max = get_vec(r);
    p->default_material = gr_reader_u32(r);
    gr_def_buffer defs[FORMAT_SOLVER_DEFS];
    for (uint32_t k = 0; k < FORMAT_SOLVER_DEFS; k++) {
        const gr_solver_vtable *sv = gr_solver_find_def(format_solver_defs[k]);
        gr_def_defaults_full(sv->def_kind, &defs[k]);
        RCHECK(sv->def_load(&defs[k], r), "a solver's settings are not of this format");
    }
    gr_def_buffer extra; /* the world's solver's own section, when the format does not list it */
    const gr_solver_vtable *own = w->systems[0].solver;
    if (!in_format(own)) {
        gr_def_defaults_full(own->def_kind, &extra);
        RCHECK(own->def_load(&extra, r), "the solver's settings are not of this format");
    }
    RCHECK(isfinite(p->time) && isfinite(p->last_substep) && p->last_substep >= 0,
           "the world time or last substep is not finite");
    /* the settings pass exactly the checks of gr_world_create (a refusal is corrupt data here):
     * the snapshot's physics settings over this world's own hooks, allocator and workers */
    gr_world probe;
    memset(&probe, 0, sizeof probe);
    {
        gr_world_def d = w->def;
        d.gravity = p->gravity;
        d.substep = p->substep;
        d.seed = p->seed;
        d.bounds_min = p->bounds_min;
        d.bounds_max = p->bounds_max;
        d.solver_def = in_format(own) ? NULL : (const void *)&extra;
        for (uint32_t k = 0; k < FORMAT_SOLVER_DEFS; k++) {
            if (format_solver_defs[k] == GR_DEF_DEM)
                d.dem = (const gr_dem_def *)&defs[k];
            if (format_solver_defs[k] == GR_DEF_PBD)
                d.pbd = (const gr_pbd_def *)&defs[k];
        }
        if (gr_validate_world_def(&probe, &d, "its settings fail the checks of gr_world_create", &p->solver_def) != GR_OK)
            return refuse_settings(r, p, &probe);
    }

    uint32_t mcount = gr_reader_u32(r);
    RCHECK(mcount >= 1 && mcount <= GR_MAX_MATERIALS, "the material count is out of range");
    RCHECK(p->default_material < mcount, "the default material is not one of its materials");
    for (uint32_t i = 0; i < mcount; i++) {
        gr_material_def m;
        get_material(r, &m);
        RCHECK(true, "");
        if (gr_validate_material_def(&probe, &m, "a material fails the checks of gr_add_material") != GR_OK)
            return refuse_settings(r, p, &probe);
        if (!gr_materials_add(&p->materials, &w->mem, &m))
            return GR_ERROR_OUT_OF_MEMORY;
    }
    uint32_t ocount = gr_reader_u32(r);
    RCHECK(ocount <= mcount * mcount, "it has more material pair overrides than material pairs");
    for (uint32_t i = 0; i < ocount; i++) {
        gr_material_pair_def d;
        gr_def_defaults_full(GR_DEF_MATERIAL_PAIR, &d);
        uint32_t a = gr_reader_u32(r), b = gr_reader_u32(r);
        d.restitution = gr_reader_f64(r);
        d.friction = gr_reader_f64(r);
        d.rolling_friction = gr_reader_f64(r);
        RCHECK(a < mcount && b < mcount, "a material pair override names a material it does not have");
        /* the ranges of gr_set_material_pair */
        RCHECK(d.restitution >= 1e-6 && d.restitution <= 1 && d.friction >= 0 && d.friction <= 1e3 &&
                   d.rolling_friction >= 0 && d.rolling_friction <= 1e3,
               "a material pair override is out of the ranges gr_set_material_pair accepts");
        if (!gr_materials_set_pair(&p->materials, &w->mem, a, b, &d))
            return GR_ERROR_OUT_OF_MEMORY;
    }
    p->materials.revision = gr_reader_u32(r);

    const uint32_t ntemplates = gr_reader_u32(r), nspheres = gr_reader_u32(r);
    RCHECK(ntemplates >= GR_CLUMP_BUILTIN_COUNT && ntemplates <= GR_MAX_CLUMP_TEMPLATES &&
               gr_reader_left(r) / 48 >= ntemplates && gr_reader_left(r) / 32 >= nspheres,
           "the grain shape counts are out of range or beyond its size");
    gr_clump_store *cs = &p->clumps;
    {
        gr_array_ref a = {(void **)&cs->templates, sizeof(gr_clump_template)};
        gr_array_ref b[2] = {{(void **)&cs->offsets, sizeof(gr_vec3)}, {(void **)&cs->radii, sizeof(double)}};
        if (!gr_mem_grow_arrays(&w->mem, &a, 1, 0, ntemplates, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        cs->cap = ntemplates;
        if (nspheres && !gr_mem_grow_arrays(&w->mem, b, 2, 0, nspheres, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        cs->sphere_cap = nspheres;
    }
    for (uint32_t i = 0; i < ntemplates; i++) {
        gr_clump_template *t = &cs->templates[i];
        t->first = gr_reader_u32(r);
        t->count = gr_reader_u32(r);
        t->unit_volume = gr_reader_f64(r);
        t->unit_inertia = get_vec(r);
        t->min_radius = gr_reader_f64(r);
        t->principal = get_quat(r);
        RCHECK(t->count >= 1 && t->count <= GR_MAX_CLUMP_SPHERES && t->first <= nspheres &&
                   t->count <= nspheres - t->first,
               "a grain shape's sphere range lies outside its spheres");
        RCHECK(t->unit_volume > 0 && isfinite(t->unit_volume) && v3_finite(t->unit_inertia) && t->unit_inertia.x > 0 &&
                   t->unit_inertia.y > 0 && t->unit_inertia.z > 0 && t->min_radius > 0 && t->min_radius <= 1 &&
                   quat_finite(t->principal) && fabs(quat_len2(t->principal) - 1) < 1e-6,
               "a grain shape's mass properties are invalid");
        cs->count = i + 1;
    }
    gr_reader_f64s(r, (double *)cs->offsets, (size_t)nspheres * 3);
    gr_reader_f64s(r, cs->radii, nspheres);
    cs->sphere_count = nspheres;
    for (uint32_t k = 0; k < nspheres; k++)
        RCHECK(v3_finite(cs->offsets[k]) && v3_len(cs->offsets[k]) <= 1 && cs->radii[k] > 0 && cs->radii[k] <= 1,
               "a grain shape's sphere is outside its unit bound");

    uint32_t bslots = gr_reader_u32(r);
    uint32_t brev = gr_reader_u32(r);
    RCHECK(bslots <= GR_MAX_BODIES && gr_reader_left(r) / 8 >= bslots, "the body slot count is out of range");
    if (bslots && !gr_body_store_reserve_slots(&p->bodies, &w->mem, bslots))
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < bslots; i++) {
        uint32_t gen = gr_reader_u32(r), alive = gr_reader_u32(r);
        RCHECK(gen <= 0xffffu && alive <= 1 && (gen > 0 || !alive), "a body slot's generation or state is invalid");
        gr_body_data b;
        memset(&b, 0, sizeof b);
        if (alive) {
            b.shape = (gr_shape_type)gr_reader_u32(r);
            b.motion = (gr_motion_type)gr_reader_u32(r);
            b.open_faces = gr_reader_u32(r);
            b.material = gr_reader_u32(r);
            b.position = get_vec(r);
            b.orientation = get_quat(r);
            b.linear_velocity = get_vec(r);
            b.angular_velocity = get_vec(r);
            b.normal_local = get_vec(r);
            b.radius = gr_reader_f64(r);
            b.half_height = gr_reader_f64(r);
            b.half_extents = get_vec(r);
            b.force = get_vec(r);
            b.torque = get_vec(r);
            /* what gr_add_body accepts */
            RCHECK(b.shape >= GR_SHAPE_PLANE && b.motion >= GR_MOTION_STATIC && b.motion <= GR_MOTION_HOST &&
                       (b.shape <= GR_SHAPE_MESH || (b.shape == GR_SHAPE_HEIGHTFIELD && b.motion == GR_MOTION_STATIC &&
                                                     r->format >= 12)),
                   "a body's shape or motion is unknown");
            RCHECK(!(b.motion == GR_MOTION_DYNAMIC || b.motion == GR_MOTION_HOST) ||
                       (b.shape != GR_SHAPE_PLANE && b.shape != GR_SHAPE_CONTAINER),
                   "a plane or container body is dynamic or host-owned");
            RCHECK(b.open_faces < 0x3fu, "a body's open faces are invalid");
            RCHECK(b.material < mcount, "a body's material is not one of its materials");
            RCHECK(v3_finite(b.position) && quat_finite(b.orientation) && fabs(quat_len2(b.orientation) - 1) < 1e-6 &&
                       v3_finite(b.linear_velocity) && v3_finite(b.angular_velocity) && v3_finite(b.force) &&
                       v3_finite(b.torque),
                   "a body's pose, velocity or force is not finite or not normalised");
            RCHECK(b.motion != GR_MOTION_STATIC || (v3_len2(b.linear_velocity) == 0 && v3_len2(b.angular_velocity) == 0),
                   "a static body has a velocity");
            RCHECK(v3_finite(b.normal_local) && (b.shape != GR_SHAPE_PLANE || fabs(v3_len2(b.normal_local) - 1) < 1e-6) &&
                       isfinite(b.radius) && b.radius > 0 && isfinite(b.half_height) && b.half_height >= 0 &&
                       v3_finite(b.half_extents) && b.half_extents.x > 0 && b.half_extents.y > 0 &&
                       b.half_extents.z > 0,
                   "a body's dimensions are invalid");
            if (b.motion == GR_MOTION_HOST && !w->def.host.get_state) {
                /* not corrupt: this world cannot own such a body (as gr_add_body says) */
                gr_reader_fail(r, "the snapshot has a host-owned body (GR_MOTION_HOST) and this world has no host "
                                  "hooks (gr_world_def.host): load it into a world created with them");
                return GR_ERROR_INVALID_ARGUMENT;
            }
            b.particle_radius = gr_reader_f64(r);
            b.particle_density = gr_reader_f64(r);
            b.particle_offset = gr_reader_f64(r);
            b.mass = gr_reader_f64(r);
            b.inertia = get_vec(r);
            b.com = get_vec(r);
            b.principal = get_quat(r);
            b.mesh_bound = gr_reader_f64(r);
            const uint32_t np = gr_reader_u32(r), nv = gr_reader_u32(r), nt = gr_reader_u32(r);
            const bool covered = gr_world_body_particles(w) && gr_body_needs_particles(&b),
                       mesh = b.shape == GR_SHAPE_MESH;
            RCHECK(np <= GR_MAX_BODY_PARTICLES && nv <= GR_MAX_MESH_ELEMENTS && nt <= GR_MAX_MESH_ELEMENTS &&
                       (np > 0) == covered && (mesh ? nv >= 4 && nt >= 4 : nv == 0 && nt == 0) &&
                       gr_reader_left(r) / 24 >= (uint64_t)np + nv + nt / 2,
                   "a body's particle or mesh counts do not fit its shape and motion");
            /* a body with mass properties (dynamic, host-owned, mesh), covered or not */
            RCHECK(!gr_body_needs_particles(&b) ||
                       ((!covered || (b.particle_radius > 0 && isfinite(b.particle_radius))) &&
                        b.particle_density > 0 && isfinite(b.particle_density) && isfinite(b.particle_offset) &&
                        b.mass > 0 && isfinite(b.mass) && v3_finite(b.inertia) && b.inertia.x > 0 &&
                        b.inertia.y > 0 && b.inertia.z > 0 && v3_finite(b.com) && quat_finite(b.principal) &&
                        fabs(quat_len2(b.principal) - 1) < 1e-6 && isfinite(b.mesh_bound)),
                   "a body's mass properties are invalid");
            /* arrays: owned by the parts from here on, so a later failure frees them */
            b.particle_count = np;
            b.mesh_vertex_count = nv;
            b.mesh_triangle_count = nt;
            b.particles = np ? (gr_vec3 *)gr_mem_alloc(&w->mem, sizeof(gr_vec3) * np) : NULL;
            b.mesh_vertices = nv ? (gr_vec3 *)gr_mem_alloc(&w->mem, sizeof(gr_vec3) * nv) : NULL;
            b.mesh_indices = nt ? (uint32_t *)gr_mem_alloc(&w->mem, sizeof(uint32_t) * 3 * nt) : NULL;
            p->bodies.data[i] = b;
            p->bodies.gen[i] = (uint16_t)gen;
            p->bodies.alive[i] = 1;
            p->bodies.slot_count = i + 1;
            if ((np && !b.particles) || (nv && !b.mesh_vertices) || (nt && !b.mesh_indices))
                return GR_ERROR_OUT_OF_MEMORY;
            gr_reader_f64s(r, (double *)b.particles, (size_t)np * 3);
            gr_reader_f64s(r, (double *)b.mesh_vertices, (size_t)nv * 3);
            gr_reader_u32s(r, b.mesh_indices, (size_t)nt * 3);
            RCHECK(true, "");
            for (uint32_t k = 0; k < np; k++)
                RCHECK(v3_finite(b.particles[k]), "a body particle is not finite");
            for (uint32_t k = 0; k < nv; k++)
                RCHECK(v3_finite(b.mesh_vertices[k]), "a mesh vertex is not finite");
            for (size_t k = 0; k < (size_t)nt * 3; k++)
                RCHECK(b.mesh_indices[k] < nv, "a mesh triangle names a vertex it does not have");
            const gr_status q = gr_body_build_mesh_query(&b, &w->mem);
            p->bodies.data[i] = b; /* owns the query from here on */
            if (q == GR_ERROR_OUT_OF_MEMORY)
                return q;
            RCHECK(q == GR_OK, "a body mesh cannot be binned");
        }
        /* user data is a pointer of this process: kept from the body now in the same slot */
        if (alive && i < w->bodies.slot_count && w->bodies.alive[i] && w->bodies.gen[i] == gen)
            b.user_data = w->bodies.data[i].user_data;
        b.host_state = (gr_host_body_state){b.position, b.orientation, b.linear_velocity, b.angular_velocity};
        /* place the slot exactly as saved */
        if (alive)
            gr_body_update_frame(&b);
        p->bodies.data[i] = b;
        p->bodies.gen[i] = (uint16_t)gen;
        p->bodies.alive[i] = (uint8_t)alive;
        p->bodies.slot_count = i + 1;
    }
    gr_body_store_rebuild_active(&p->bodies);
    p->bodies.revision = brev;

    gr_grain_table *t = &p->grains;
    uint32_t slots = gr_reader_u32(r), count = gr_reader_u32(r), free_head = gr_reader_u32(r);
    RCHECK(slots <= GR_MAX_GRAINS && count <= slots && gr_reader_left(r) / 11 >= slots,
           "the grain slot counts are out of range");
    if (slots && !gr_grain_table_reserve(t, &w->mem, slots))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_u16s(r, t->gen, slots);
    gr_reader_bytes(r, t->alive, slots);
    gr_reader_u32s(r, t->pos, slots);
    RCHECK(gr_reader_left(r) / 4 >= count, "");
    gr_reader_u32s(r, t->list, count);
    RCHECK(true, "");
    t->slot_count = slots;
    t->count = count;
    t->free_head = free_head;
    /* list and pos agree, alive slots are exactly the listed ones, the free chain is sound */
    uint32_t alive = 0;
    for (uint32_t i = 0; i < slots; i++) {
        RCHECK(t->alive[i] <= 1 && t->gen[i] != 0, "a grain slot's generation or state is invalid");
        t->dense[i] = GR_INVALID_INDEX;
        alive += t->alive[i];
    }
    RCHECK(alive == count, "the grain count differs from its live grain slots");
    for (uint32_t k = 0; k < count; k++)
        RCHECK(t->list[k] < slots && t->alive[t->list[k]] && t->pos[t->list[k]] == k,
               "the grain list and the grain slots disagree");
    /* every dead slot is on the free chain (marked through dense) or retired */
    uint32_t chain = 0;
    for (uint32_t s = free_head; s != GR_INVALID_INDEX; s = t->pos[s]) {
        RCHECK(s < slots && !t->alive[s] && t->dense[s] == GR_INVALID_INDEX && ++chain <= slots,
               "the chain of free grain slots is broken");
        t->dense[s] = 0;
    }
    t->retired = 0;
    for (uint32_t i = 0; i < slots; i++) {
        if (!t->alive[i] && t->dense[i] == GR_INVALID_INDEX) {
            RCHECK(gr_slot_retired(t->gen[i], 0), "a dead grain slot is neither free nor retired");
            t->pos[i] = GR_INVALID_INDEX;
            t->retired++;
        }
        t->dense[i] = GR_INVALID_INDEX;
    }
    RCHECK(chain + t->retired == slots - count && (uint64_t)count + t->retired <= GR_MAX_GRAINS,
           "the chain of free grain slots misses some");
    return read_systems(w, r, p);
}

/* The payload, read in chunks into a buffer that doubles as data arrives (never more than
 * twice what the stream delivered, whatever size the header declares). */
static gr_status read_payload(gr_world *w, gr_read_fn *read, void *user, uint64_t size, unsigned char **out,
                              size_t *out_cap, size_t *got_out)
{
    size_t cap = (size_t)GR_MIN(size, (uint64_t)SNAPSHOT_FIRST_CHUNK), got = 0;
    *got_out = 0;
    unsigned char *data = (unsigned char *)gr_mem_alloc(&w->mem, cap);
    if (!data)
        return GR_ERROR_OUT_OF_MEMORY;
    for (;;) {
        if (got == cap) {
            if (got == size)
                break;
            const size_t next = (size_t)GR_MIN(size, (uint64_t)cap * 2);
            unsigned char *grown = (unsigned char *)gr_mem_alloc(&w->mem, next);
            if (!grown) {
                *got_out = got;
                gr_mem_free(&w->mem, data, cap);
                return GR_ERROR_OUT_OF_MEMORY;
            }
            memcpy(grown, data, got);
            gr_mem_free(&w->mem, data, cap);
            data = grown;
            cap = next;
        }
        const size_t want = cap - got;
        size_t n = read(user, data + got, want);
        if (n > want)
            n = 0; /* a misbehaving callback: treat as end of data */
        got += n;
        if (n < want)
            break;
    }
    *out = data;
    *out_cap = cap;
    *got_out = got;
    return GR_OK;
}

/* Formats read: the current one, and older ones whose differences take defaults, back to the
 * solver's oldest (DEM: formats 3 to 6 differ only in the PBD settings they carry and in the PBD
 * section; PBD: format 5 lacks the deep-sleep state, formats 5 and 6 the warm start). */
static bool format_readable(uint32_t version, const gr_solver_vtable *solver)
{
    return version <= SNAPSHOT_VERSION && version >= solver->oldest_format;
}

GR_API gr_status gr_world_load(gr_world *w, gr_read_fn *read, void *user)
{
    static const char f[] = "gr_world_load";
    GR_CHECK(gr_check_world(w, f));
    if (!read)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "read is NULL");
    if (!format_solvers_built())
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "the snapshot format needs the DEM and PBD solvers built");
    unsigned char hdr[HEADER_SIZE];
    if (read(user, hdr, HEADER_SIZE) != HEADER_SIZE)
        return gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "the snapshot is truncated (no complete header)");
    if (memcmp(hdr, SNAPSHOT_MAGIC, 8) != 0)
        return gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "not a granular snapshot (bad magic)");
    uint32_t hcrc = (uint32_t)hdr[28] | (uint32_t)hdr[29] << 8 | (uint32_t)hdr[30] << 16 | (uint32_t)hdr[31] << 24;
    if (gr_crc32(0, hdr, 28) != hcrc)
        return gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "the snapshot header is corrupt (checksum)");
    uint32_t version = (uint32_t)hdr[8] | (uint32_t)hdr[9] << 8 | (uint32_t)hdr[10] << 16 | (uint32_t)hdr[11] << 24;
    uint32_t solver = (uint32_t)hdr[12] | (uint32_t)hdr[13] << 8 | (uint32_t)hdr[14] << 16 | (uint32_t)hdr[15] << 24;
    if (version > SNAPSHOT_VERSION)
        return gr_fail(w, GR_ERROR_VERSION, f, "snapshot format %u is newer than this library's (format %u)", version,
                       SNAPSHOT_VERSION);
    if (solver != (uint32_t)w->def.solver)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "the snapshot is of solver %u, this world runs solver %u", solver,
                       (unsigned)w->def.solver);
    for (uint32_t i = 0; i < w->system_count; i++) {
        const gr_solver_vtable *sv = w->systems[i].solver;
        if (!format_readable(version, sv))
            return gr_fail(w, GR_ERROR_VERSION, f,
                           "snapshot format %u (%s) is no longer read: this library reads %s snapshots of formats %u "
                           "to %u",
                           version, sv->name, sv->name, sv->oldest_format, SNAPSHOT_VERSION);
    }
    uint64_t size = 0;
    for (int i = 7; i >= 0; i--)
        size = size << 8 | hdr[16 + i];
    uint32_t crc = (uint32_t)hdr[24] | (uint32_t)hdr[25] << 8 | (uint32_t)hdr[26] << 16 | (uint32_t)hdr[27] << 24;
    if (size == 0 || size > SNAPSHOT_MAX || size > (uint64_t)SIZE_MAX / 2)
        return gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "the snapshot declares an impossible size (%llu bytes)",
                       (unsigned long long)size);
    unsigned char *data;
    size_t cap, got;
    gr_status st = read_payload(w, read, user, size, &data, &cap, &got);
    if (st != GR_OK)
        return gr_fail(w, st, f, "out of memory after reading %zu bytes of the snapshot", got);
    if (got != size)
        st = gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "the snapshot is truncated (%zu of %llu bytes)", got,
                     (unsigned long long)size);
    else if (gr_crc32(0, data, (size_t)size) != crc)
        st = gr_fail(w, GR_ERROR_CORRUPT_DATA, f, "the snapshot is corrupt (checksum mismatch)");
    if (st != GR_OK) {
        gr_mem_free(&w->mem, data, cap);
        return st;
    }

    /* Parse into new parts; the world's own parts are swapped in only on success. */
    gr_stream_reader r;
    gr_reader_init(&r, data, (size_t)size);
    r.format = version;
    world_parts p;
    memset(&p, 0, sizeof p);
    gr_materials_init(&p.materials);
    gr_clump_store_init(&p.clumps);
    gr_body_store_init(&p.bodies);
    gr_grain_table_init(&p.grains);
    st = read_world_parts(w, &r, &p);

    /* swap in the parts (the solver reads them through the world), keeping the old ones */
    gr_materials old_mat = w->materials;
    gr_clump_store old_clumps = w->clumps;
    gr_body_store old_bodies = w->bodies;
    gr_grain_table old_grains = w->grains;
    /* the systems' defs (in their own blocks, where the solvers point) and states: the old ones
     * kept until the new ones are loaded */
    const uint32_t ns = w->system_count;
    gr_def_buffer old_defs[GR_MAX_SYSTEMS];
    void *old_states[GR_MAX_SYSTEMS], *new_states[GR_MAX_SYSTEMS] = {NULL};
    for (uint32_t i = 0; i < ns; i++) {
        memcpy(&old_defs[i], w->systems[i].def, w->systems[i].solver->def_size);
        old_states[i] = w->systems[i].state;
    }
    if (st == GR_OK) {
        w->materials = p.materials;
        w->clumps = p.clumps;
        w->bodies = p.bodies;
        w->grains = p.grains;
        for (uint32_t i = 0; i < ns && st == GR_OK; i++) {
            const gr_solver_vtable *sv = w->systems[i].solver;
            memcpy(w->systems[i].def, i == 0 ? &p.solver_def : &p.system_defs[i], sv->def_size);
            const gr_solver_env env = gr_world_solver_env(w, i, w->systems[i].def);
            st = sv->create(&env, &new_states[i]);
            if (st == GR_OK)
                st = sv->load(new_states[i], &r);
        }
        if (st == GR_OK && r.pos != r.size) {
            gr_reader_fail(&r, "it carries bytes after its content");
            st = GR_ERROR_CORRUPT_DATA;
        }
        p.materials = w->materials;
        p.clumps = w->clumps;
        p.bodies = w->bodies;
        p.grains = w->grains;
    }
    if (st != GR_OK) {
        for (uint32_t i = 0; i < ns; i++) {
            if (new_states[i])
                w->systems[i].solver->destroy(new_states[i]);
            memcpy(w->systems[i].def, &old_defs[i], w->systems[i].solver->def_size);
        }
        w->materials = old_mat;
        w->clumps = old_clumps;
        w->bodies = old_bodies;
        w->grains = old_grains;
        parts_free(&p, &w->mem);
        gr_mem_free(&w->mem, data, cap);
        if (st == GR_ERROR_OUT_OF_MEMORY)
            return gr_fail(w, st, f, "out of memory while loading; the world is unchanged");
        const char *why = r.fail_what ? r.fail_what : "it is inconsistent";
        if (st == GR_ERROR_CORRUPT_DATA)
            return gr_fail(w, st, f, "the snapshot is refused: %s; the world is unchanged", why);
        return gr_fail(w, st, f, "%s; the world is unchanged", why);
    }
    /* commit */
    for (uint32_t i = 0; i < ns; i++) {
        w->systems[i].solver->destroy(old_states[i]);
        w->systems[i].state = new_states[i];
    }
    gr_materials_free(&old_mat, &w->mem);
    gr_clump_store_free(&old_clumps, &w->mem);
    gr_body_store_free(&old_bodies, &w->mem);
    gr_grain_table_free(&old_grains, &w->mem);
    w->def.gravity = p.gravity;
    w->def.substep = p.substep;
    w->def.seed = p.seed;
    w->time = p.time;
    w->last_substep = p.last_substep;
    w->step_count = p.step_count;
    w->substep_count = p.substep_count;
    w->fill_count = p.fill_count;
    w->grains_removed = p.grains_removed;
    w->def.bounds_min = p.bounds_min;
    w->def.bounds_max = p.bounds_max;
    w->default_material = p.default_material;
    gr_mem_free(&w->mem, data, cap);
    return GR_OK;
}
