/* SPDX-License-Identifier: MIT */
/* Clump templates: grain shapes made of spheres. */
#include "../world/world_errors.h"
#include "api_internal.h"
#include "api_defaults.h"

GR_API gr_status gr_add_clump_template(gr_world *w, const gr_clump_def *user, gr_clump *out)
{
    static const char f[] = "gr_add_clump_template";
    GR_CHECK(gr_check_world(w, f));
    gr_clump_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_CLUMP, user, &def, f, "def"));
    if (def.count == 0 || def.count > GR_MAX_CLUMP_SPHERES)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.count must be in [1, %u] (got %u)", GR_MAX_CLUMP_SPHERES,
                       def.count);
    if (!def.centres || !def.radii)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "def.centres and def.radii must not be NULL");
    if (w->clumps.count >= GR_MAX_CLUMP_TEMPLATES)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u clump templates", GR_MAX_CLUMP_TEMPLATES);
    double rmax = 0;
    for (uint32_t k = 0; k < def.count; k++) {
        if (!v3_finite(def.centres[k]))
            return gr_fail(w, GR_ERROR_NOT_FINITE, f, "def.centres[%u] is not finite", k);
        if (!isfinite(def.radii[k]))
            return gr_fail(w, GR_ERROR_NOT_FINITE, f, "def.radii[%u] is not finite", k);
        if (!(def.radii[k] > 0))
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.radii[%u] must be > 0 (got %g)", k, def.radii[k]);
        rmax = GR_MAX(rmax, def.radii[k]);
    }
    /* spheres far apart relative to their size make a shape the mass integration cannot
     * resolve (and a grain no simulation would want) */
    for (uint32_t k = 0; k < def.count; k++)
        if (v3_len(def.centres[k]) > 1e4 * rmax || def.radii[k] < 1e-4 * rmax)
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                           "def sphere %u: sizes and distances span more than 4 orders of magnitude", k);
    gr_status s = gr_clump_store_add(&w->clumps, &w->mem, def.centres, def.radii, def.count);
    if (s != GR_OK)
        return gr_fail(w, s, f, "allocating the template failed");
    if (out)
        out->id = gr_handle_make(w->tag, 1, w->clumps.count - 1);
    return GR_OK;
}
