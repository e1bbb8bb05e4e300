/* SPDX-License-Identifier: MIT */
/* Shared by the entry points: the sized structs' kinds and argument checks with clear
 * messages (each api_*.c declares its functions in a header of its own). */
#ifndef GR_API_INTERNAL_H
#define GR_API_INTERNAL_H

#include <math.h>

#include "../core/def_check.h"
#include "../core/vec3.h"
#include "../world/world.h"
#include "../world/world_errors.h"

/// Every struct with a size field: the defs (by gr_def_kind) and the outputs.
typedef enum gr_struct_kind {
    GR_STRUCT_WORLD_DEF = GR_DEF_WORLD,
    GR_STRUCT_DEM_DEF = GR_DEF_DEM,
    GR_STRUCT_MATERIAL_DEF = GR_DEF_MATERIAL,
    GR_STRUCT_GRAIN_DEF = GR_DEF_GRAIN,
    GR_STRUCT_BODY_DEF = GR_DEF_BODY,
    GR_STRUCT_FILL_DEF = GR_DEF_FILL,
    GR_STRUCT_PAIR_DEF = GR_DEF_MATERIAL_PAIR,
    GR_STRUCT_CLUMP_DEF = GR_DEF_CLUMP,
    GR_STRUCT_PBD_DEF = GR_DEF_PBD,
    GR_STRUCT_CONTINUUM_DEF = GR_DEF_CONTINUUM,
    GR_STRUCT_COUNTERS = 100
} gr_struct_kind;

/* Argument checks: each returns the status (and records the message) or GR_OK. */
#define GR_CHECK(expr)                  \
    do {                                \
        gr_status s_ = (expr);          \
        if (s_ != GR_OK)                \
            return s_;                  \
    } while (0)

static inline gr_status gr_check_world(const gr_world *w, const char *func)
{
    (void)func;
    if (!w)
        return GR_ERROR_NULL_ARGUMENT;
    if (w->busy)
        return gr_fail(w, GR_ERROR_BUSY, func, "the world is inside gr_step");
    /* a successful call leaves gr_world_last_error as it is: it tells the last failure */
    return GR_OK;
}

static inline gr_status gr_check_finite(const gr_world *w, double v, const char *func, const char *what)
{
    return isfinite(v) ? GR_OK : gr_fail(w, GR_ERROR_NOT_FINITE, func, "%s is not finite", what);
}

static inline gr_status gr_check_vec(const gr_world *w, gr_vec3 v, const char *func, const char *what)
{
    return v3_finite(v) ? GR_OK
                        : gr_fail(w, GR_ERROR_NOT_FINITE, func, "%s = (%g, %g, %g) is not finite", what, v.x, v.y, v.z);
}

/// A failed def check (core/def_check.h) worded on the world; GR_OK when it passed.
static inline gr_status gr_check_def(const gr_world *w, const gr_def_check *c, const char *func)
{
    return c->status == GR_OK ? GR_OK : gr_fail(w, c->status, func, "%s", c->message);
}

/// Finite and > 0 (strictly) or >= 0.
static inline gr_status gr_check_positive(const gr_world *w, double v, bool allow_zero, const char *func, const char *what)
{
    gr_def_check c;
    gr_def_check_init(&c);
    gr_def_positive(&c, v, allow_zero, what);
    return gr_check_def(w, &c, func);
}

static inline gr_status gr_check_range(const gr_world *w, double v, double lo, double hi, const char *func,
                                       const char *what)
{
    gr_def_check c;
    gr_def_check_init(&c);
    gr_def_range(&c, v, lo, hi, what);
    return gr_check_def(w, &c, func);
}

/// A usable orientation: finite and not (nearly) zero. *out = normalised.
static inline gr_status gr_check_quat(const gr_world *w, gr_quat q, gr_quat *out, const char *func, const char *what)
{
    if (!quat_finite(q))
        return gr_fail(w, GR_ERROR_NOT_FINITE, func, "%s is not finite", what);
    double l2 = quat_len2(q);
    if (!(l2 > 1e-12) || !isfinite(l2))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, func, "%s has length %g: not a rotation", what, sqrt(l2));
    *out = quat_normalize(q);
    return GR_OK;
}

static inline gr_status gr_check_enum(const gr_world *w, uint32_t v, uint32_t count, const char *func, const char *what)
{
    gr_def_check c;
    gr_def_check_init(&c);
    gr_def_enum(&c, v, count, what);
    return gr_check_def(w, &c, func);
}

#endif /* GR_API_INTERNAL_H */
