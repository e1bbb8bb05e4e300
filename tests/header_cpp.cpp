// SPDX-License-Identifier: MIT
// The public headers compile as C++ with -Wall -Wextra -pedantic -Werror, and work.
#include <granular/granular.h>

#include <cstdio>

int main()
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    gr_grain_def grain;
    gr_grain_def_init(&grain);
    gr_world *w = nullptr;
    if (gr_check_version() != GR_OK || gr_world_create(&def, &w) != GR_OK)
        return 1;
    gr_grain g = {};
    bool ok = gr_add_grain(w, &grain, &g) == GR_OK && gr_step(w, 0.01) == GR_OK && gr_grain_is_valid(w, g);
    gr_counters c;
    c.size = sizeof c;
    ok = ok && gr_world_get_counters(w, &c) == GR_OK && c.grain_count == 1;
    gr_world_destroy(w);
    std::printf("C++ client: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
