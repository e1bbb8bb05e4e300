/* SPDX-License-Identifier: MIT */
/* The public headers compile as C99 with -Wall -Wextra -Wpedantic -Werror, and work. */
#include <granular/granular.h>

#include <stdio.h>

int main(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    gr_material_def mat;
    gr_material_def_init(&mat);
    gr_grain_def grain;
    gr_grain_def_init(&grain);
    gr_body_def body;
    gr_body_def_init(&body);
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    gr_material_pair_def pair;
    gr_material_pair_def_init(&pair);
    def.dem = &dem;
    gr_world *w = NULL;
    if (gr_check_version() != GR_OK || gr_world_create(&def, &w) != GR_OK)
        return 1;
    gr_grain g = {0};
    int ok = gr_add_grain(w, &grain, &g) == GR_OK && gr_step(w, 0.01) == GR_OK && gr_grain_is_valid(w, g);
    gr_world_destroy(w);
    printf("C99 client: %s, library %s\n", ok ? "ok" : "FAILED", gr_get_version_string());
    return ok ? 0 : 1;
}
