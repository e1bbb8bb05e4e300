/* SPDX-License-Identifier: MIT */
/* A client built against an older header: gr_world_def without the world bounds and
 * gr_counters without grains_removed (the layouts before those fields were appended). It
 * includes no header of this tree: the declarations below are that older header's. The
 * library must take the defaults for the missing fields and never write past the sizes the
 * client declares. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the "older header" ---------------------------------------------------------------- */
typedef struct gr_vec3 { double x, y, z; } gr_vec3;
typedef struct gr_quat { double x, y, z, w; } gr_quat;
typedef struct gr_world gr_world;
typedef struct gr_grain { uint64_t id; } gr_grain;
typedef struct gr_material { uint64_t id; } gr_material;
typedef struct gr_allocator { void *(*alloc)(size_t, size_t, void *); void (*free)(void *, size_t, void *); void *user; } gr_allocator;
typedef struct gr_logger { void (*func)(int, const char *, void *); void *user; } gr_logger;
typedef void gr_task_fn(void *);
typedef struct gr_task_hooks { void *(*enqueue)(gr_task_fn *, void *, void *); void (*finish)(void *, void *); void *user; } gr_task_hooks;
typedef struct old_dem_def gr_dem_def; /* only passed by pointer, NULL here */
typedef struct gr_world_def {
    uint32_t size;
    uint32_t solver;
    gr_vec3 gravity;
    double substep;
    uint32_t worker_count;
    uint32_t reserved0;
    uint64_t seed;
    gr_allocator allocator;
    gr_logger logger;
    gr_task_hooks tasks;
    const gr_dem_def *dem;
    void *user_data;
} gr_world_def;
typedef struct gr_grain_def {
    uint32_t size;
    uint32_t shape;
    gr_material material;
    double radius;
    gr_vec3 position, velocity, angular_velocity;
    gr_quat orientation;
} gr_grain_def;
typedef struct gr_counters {
    uint32_t size, grain_count, body_count, material_count;
    uint64_t contact_count, body_contact_count, step_count, substep_count, neighbor_rebuilds;
    double time, last_substep;
    uint64_t bytes_in_use, bytes_peak, allocation_count;
} gr_counters;
int gr_def_set_defaults(int kind, void *def);
int gr_world_create(const gr_world_def *def, gr_world **out);
void gr_world_destroy(gr_world *w);
int gr_add_grain(gr_world *w, const gr_grain_def *def, gr_grain *out);
int gr_step(gr_world *w, double dt);
int gr_world_get_counters(const gr_world *w, gr_counters *out);
int gr_world_get_def(const gr_world *w, gr_world_def *out, gr_dem_def *dem_out);
enum { GR_DEF_WORLD = 1, GR_DEF_GRAIN = 4 };
static inline void gr_world_def_init(gr_world_def *d, uint32_t solver)
{
    memset(d, 0, sizeof *d);
    d->size = (uint32_t)sizeof *d;
    gr_def_set_defaults(GR_DEF_WORLD, d);
    d->solver = solver;
}
/* ---- end of the older header -------------------------------------------------------------- */

#define CANARY 0xA5u

int main(void)
{
    int failures = 0;
    /* the defaults fill exactly the fields the old struct has, not a byte more */
    struct { gr_world_def def; unsigned char after[64]; } wd;
    memset(wd.after, CANARY, sizeof wd.after);
    gr_world_def_init(&wd.def, 1);
    for (size_t i = 0; i < sizeof wd.after; i++)
        failures += wd.after[i] != CANARY;
    failures += wd.def.gravity.y != -9.81 || wd.def.worker_count != 1;

    gr_world *w = NULL;
    if (gr_world_create(&wd.def, &w) != 0) {
        printf("gr_world_create refused the older def\n");
        return 1;
    }
    gr_grain_def g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    gr_def_set_defaults(GR_DEF_GRAIN, &g);
    g.position.y = 1.0;
    g.position.x = 1e6; /* far away: without bounds (the new fields' default) it is kept */
    gr_grain handle;
    failures += gr_add_grain(w, &g, &handle) != 0;
    failures += gr_step(w, 0.05) != 0;

    struct { gr_counters c; unsigned char after[64]; } cs;
    memset(&cs, 0, sizeof cs);
    memset(cs.after, CANARY, sizeof cs.after);
    cs.c.size = sizeof cs.c;
    failures += gr_world_get_counters(w, &cs.c) != 0;
    for (size_t i = 0; i < sizeof cs.after; i++)
        failures += cs.after[i] != CANARY;
    failures += cs.c.grain_count != 1 || cs.c.step_count != 1;

    struct { gr_world_def d; unsigned char after[64]; } back;
    memset(back.after, CANARY, sizeof back.after);
    back.d.size = sizeof back.d;
    failures += gr_world_get_def(w, &back.d, NULL) != 0;
    for (size_t i = 0; i < sizeof back.after; i++)
        failures += back.after[i] != CANARY;
    failures += back.d.size != sizeof back.d || back.d.gravity.y != -9.81;
    gr_world_destroy(w);
    printf("older client: %s (%d problems)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
