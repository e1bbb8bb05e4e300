/* SPDX-License-Identifier: MIT */
/* bench/run three-solvers --scene heap|collapse|silo|all --material sand|gravel|glass|mu=X
 *                         [--workers W] [--size N] [--solvers dem,pbd,continuum] [--aspect A] [--orifice D]
 *                         [--settle S] [--verbose F]
 * Issue 37 "one sand on every solver": the same scene with the same material on the DEM, PBD
 * and continuum solvers, each world at its solver's DEFAULT defs (gr_world_def_init(&def, kind)
 * and nothing solver-specific: what a new user gets), the material as a user gives it: a
 * preset (gr_material_def_set_preset alone) or, for mu=X, gr_material_def_init with
 * friction = X (PBD's and the continuum's coefficients GR_MATERIAL_DERIVED). Grains of 2 cm
 * (radius 0.01 m), frames of 1/60 s (examples/common/fidelity_scenes.c, user_defaults = 1).
 * Floors are the fidelity scenes' rough slab (friction 1, static and kinetic 1 for PBD, the
 * grains' restitution default 0.5, its continuum_friction derived); walls take the grains'
 * material.
 *
 * One line per solver (and per aspect ratio or orifice), key=value, then one comparison line:
 *   three-solvers scene=heap material=M solver=S grains=N lost=N angle=deg angle_hr=deg height_d=
 *       foot_d= rings= still_disp_d= still_disp_p99_d= ms_per_frame= substeps_per_frame=
 *     (still_disp_d: the largest displacement over the last second of settling, p99: its 99th
 *      percentile, in d: the bulk's creep)
 *   three-solvers scene=heap material=M dpbd_deg=+x dcont_deg=+x dpbd_hr_deg=+x dcont_hr_deg=+x
 *       map_target_deg= map_pbd_mu_s= map_pbd_mu_k= map_alpha= mu= mu_r= e=
 *     (angle: the flank's fit between 20 % and 80 % of the height; angle_hr: atan(height / foot);
 *      d*_deg: that solver's angle minus the DEM's; map_*: the angle lib/core/material_map.c
 *      aims at for the material's mu and mu_r, and the PBD and continuum coefficients it derives)
 *   three-solvers scene=collapse material=M solver=S a=A a_settled= grains= L0_d= width_d= H0_d=
 *       front_d= front_max_d= H_inf_d= runout= runout_fit= settled= hit_end= lost= seconds=
 *       ms_per_frame= substeps_per_frame=
 *   three-solvers scene=collapse material=M a=A pbd_over_dem= cont_over_dem= fit_over_dem=
 *     (runout = (L_inf - L0) / L0, L_inf the deposit's front; runout_fit: Lajeunesse et al.
 *      2005 / Lube et al. 2005, planar: 1.2 a for a < 2.3, 1.9 a^(2/3) above, at a_settled)
 *   three-solvers scene=silo material=M solver=S orifice_d=D grains= width_d= fill0_w= rate_kg_s=
 *       rate_grains_s= half1_kg_s= half2_kg_s= half_drop= jammed= discharged= seconds_open=
 *       ms_per_frame= substeps_per_frame=
 *   three-solvers scene=silo-beverloo material=M solver=S orifices_d=.. rates_kg_s=.. b_k1.5= b_D=
 *   three-solvers scene=silo material=M orifice_d=D pbd_over_dem= cont_over_dem=
 *     (rate over the discharge from 0.5 s after opening down to a fill of 0.75 widths; half_drop
 *      = 1 - half2 / half1; b_k1.5: least-squares exponent of W against D - 1.5 d (Beverloo:
 *      2.5), b_D: of W against D)
 * --settle: the heap's settling after the pour [s] (default 2; the last second gives still_disp).
 * --size: heap grains (default 3000); collapse column length L0 in d (12; the channel 5 d
 * wide); silo width in d (12). Defaults: aspects 0.5, 2, 5; orifices 5, 6.5, 8 d; all three
 * solvers. A scene that fails on a solver prints solver=S status=<error> and the run goes on.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/common/fidelity_scenes.h"
#include "../lib/core/material_map.h" /* the map's target angle and derived coefficients, printed */

static const gr_solver_kind solvers_all[3] = {GR_SOLVER_DEM, GR_SOLVER_PBD, GR_SOLVER_CONTINUUM};

typedef struct opts {
    const char *scene, *material;
    unsigned workers, size;
    int use[3];             /* dem, pbd, continuum */
    double aspect, orifice; /* 0: the default sets */
    int verbose;
    double settle;          /* heap: settling seconds (0: 2) */
    fid_params base;        /* material fields (preset or mu), user_defaults */
} opts;

static void print_diff(const char *key, double v, double ref)
{
    if (isfinite(v) && isfinite(ref))
        printf(" %s=%+.1f", key, v - ref);
    else
        printf(" %s=nan", key);
}

static void print_ratio(const char *key, double v, double ref)
{
    if (isfinite(v) && isfinite(ref) && ref != 0)
        printf(" %s=%.2f", key, v / ref);
    else
        printf(" %s=nan", key);
}

static fid_params params_for(const opts *o, int k)
{
    fid_params p = o->base;
    p.solver = solvers_all[k];
    p.workers = o->workers;
    p.verbose = o->verbose;
    p.heap_settle = o->settle;
    return p;
}

/* ---- heap ------------------------------------------------------------------------------ */

static int run_heap(const opts *o)
{
    double fit[3] = {NAN, NAN, NAN}, hr[3] = {NAN, NAN, NAN};
    int rc = 0;
    for (int k = 0; k < 3; k++) {
        if (!o->use[k])
            continue;
        const fid_params p = params_for(o, k);
        fid_heap_result r;
        gr_status st = fid_run_heap(&p, o->size ? o->size : 3000, &r);
        if (st != GR_OK) {
            printf("three-solvers scene=heap material=%s solver=%s status=%s\n", o->material, fid_solver_name(p.solver),
                   gr_status_string(st));
            rc = 1;
            continue;
        }
        const double d = 2 * p.radius;
        fit[k] = r.heap.angle_fit;
        hr[k] = r.heap.angle_hr;
        printf("three-solvers scene=heap material=%s solver=%s grains=%u lost=%u angle=%.1f angle_hr=%.1f "
               "height_d=%.2f foot_d=%.2f rings=%d still_disp_d=%.4f still_disp_p99_d=%.4f ms_per_frame=%.1f substeps_per_frame=%.1f\n",
               o->material, fid_solver_name(p.solver), r.grains, r.lost, r.heap.angle_fit, r.heap.angle_hr,
               r.heap.height / d, r.heap.foot / d, r.heap.rings, r.still_disp_d, r.still_disp_p99_d, r.ms_per_frame, r.substeps_per_frame);
        fflush(stdout);
    }
    printf("three-solvers scene=heap material=%s", o->material);
    print_diff("dpbd_deg", fit[1], fit[0]);
    print_diff("dcont_deg", fit[2], fit[0]);
    print_diff("dpbd_hr_deg", hr[1], hr[0]);
    print_diff("dcont_hr_deg", hr[2], hr[0]);
    /* what the library's map aimed at for this material (lib/core/material_map.c) */
    gr_material_def md;
    gr_material_def_init(&md);
    if (o->base.preset > 0)
        (void)gr_material_def_set_preset(&md, (gr_material_preset)o->base.preset);
    else
        md.friction = o->base.mu;
    if (o->base.cont_alpha > 0)
        md.continuum_friction = o->base.cont_alpha;
    const double target = gr_material_repose_angle(md.friction, md.rolling_friction);
    double mu_s, mu_k;
    gr_material_pbd_resolve(&md, &mu_s, &mu_k);
    printf(" map_target_deg=%.1f map_pbd_mu_s=%.3f map_pbd_mu_k=%.3f map_alpha=%.3f mu=%.2f mu_r=%.2f e=%.2f", target,
           mu_s, mu_k, md.continuum_friction > 0 ? md.continuum_friction : gr_material_continuum_friction(target), md.friction, md.rolling_friction, md.restitution);
    printf("\n");
    fflush(stdout);
    return rc;
}

/* ---- collapse ------------------------------------------------------------------------------ */

static int run_collapse(const opts *o)
{
    const double aspects[3] = {0.5, 2, 5};
    const int na = o->aspect > 0 ? 1 : 3;
    int rc = 0;
    for (int ia = 0; ia < na; ia++) {
        const double a = o->aspect > 0 ? o->aspect : aspects[ia];
        double run[3] = {NAN, NAN, NAN}, fitv = NAN;
        for (int k = 0; k < 3; k++) {
            if (!o->use[k])
                continue;
            const fid_params p = params_for(o, k);
            fid_collapse_result r;
            gr_status st = fid_run_collapse(&p, a, o->size ? o->size : 12, 5, &r);
            if (st != GR_OK) {
                printf("three-solvers scene=collapse material=%s solver=%s a=%.1f status=%s\n", o->material,
                       fid_solver_name(p.solver), a, gr_status_string(st));
                rc = 1;
                continue;
            }
            run[k] = r.runout;
            if (k == 0 || !isfinite(fitv))
                fitv = r.runout_fit;
            printf("three-solvers scene=collapse material=%s solver=%s a=%.1f a_settled=%.2f grains=%u L0_d=%.0f "
                   "width_d=%.0f channel_d=%.0f H0_d=%.1f front_d=%.1f front_max_d=%.1f H_inf_d=%.1f runout=%.2f "
                   "runout_fit=%.2f settled=%d hit_end=%d lost=%u seconds=%.2f ms_per_frame=%.1f "
                   "substeps_per_frame=%.1f\n",
                   o->material, fid_solver_name(p.solver), a, r.aspect_settled, r.grains, r.L0_d, r.width_d,
                   r.channel_d, r.H0_d, r.front_d, r.front_max_d, r.H_inf_d, r.runout, r.runout_fit, r.settled,
                   r.hit_end, r.lost, r.seconds, r.ms_per_frame, r.substeps_per_frame);
            fflush(stdout);
        }
        printf("three-solvers scene=collapse material=%s a=%.1f", o->material, a);
        print_ratio("pbd_over_dem", run[1], run[0]);
        print_ratio("cont_over_dem", run[2], run[0]);
        print_ratio("fit_over_dem", fitv, run[0]);
        printf("\n");
        fflush(stdout);
    }
    return rc;
}

/* ---- silo ---------------------------------------------------------------------------------- */

/* Least-squares slope of log y over log x (n points with y > 0 and x > 0); NAN below 2. */
static double loglog_slope(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0 && y[i] > 0))
            continue;
        const double lx = log(x[i]), ly = log(y[i]);
        sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly;
        k++;
    }
    if (k < 2)
        return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

static int run_silo(const opts *o)
{
    const double sizes[3] = {5, 6.5, 8};
    const int nd = o->orifice > 0 ? 1 : 3;
    double rate[3][3]; /* [solver][orifice] kg/s */
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            rate[k][i] = NAN;
    int rc = 0;
    for (int i = 0; i < nd; i++) {
        const double D = o->orifice > 0 ? o->orifice : sizes[i];
        for (int k = 0; k < 3; k++) {
            if (!o->use[k])
                continue;
            const fid_params p = params_for(o, k);
            fid_silo_result r;
            gr_status st = fid_run_silo(&p, o->size ? o->size : 12, D, 4.5, 0, &r);
            if (st != GR_OK) {
                printf("three-solvers scene=silo material=%s solver=%s orifice_d=%.1f status=%s\n", o->material,
                       fid_solver_name(p.solver), D, gr_status_string(st));
                rc = 1;
                continue;
            }
            const double m = r.grain_mass;
            rate[k][i] = r.rate_all * m;
            printf("three-solvers scene=silo material=%s solver=%s orifice_d=%.1f grains=%u width_d=%.0f fill0_w=%.2f "
                   "packing=%.3f rate_kg_s=%.4f rate_grains_s=%.1f half1_kg_s=%.4f half2_kg_s=%.4f half_drop=%.3f "
                   "jammed=%d discharged=%.0f seconds_open=%.1f ms_per_frame=%.1f substeps_per_frame=%.1f\n",
                   o->material, fid_solver_name(p.solver), D, r.grains, r.width_d, r.fill0_w, r.packing,
                   r.rate_all * m, r.rate_all, r.rate_half1 * m, r.rate_half2 * m,
                   r.rate_half1 > 0 ? 1 - r.rate_half2 / r.rate_half1 : NAN, r.jammed, r.discharged, r.seconds_open,
                   r.ms_per_frame, r.substeps_per_frame);
            fflush(stdout);
        }
        printf("three-solvers scene=silo material=%s orifice_d=%.1f", o->material, D);
        print_ratio("pbd_over_dem", rate[1][i], rate[0][i]);
        print_ratio("cont_over_dem", rate[2][i], rate[0][i]);
        printf("\n");
        fflush(stdout);
    }
    if (nd == 3)
        for (int k = 0; k < 3; k++) {
            if (!o->use[k])
                continue;
            double dk[3];
            for (int i = 0; i < 3; i++)
                dk[i] = sizes[i] - 1.5;
            printf("three-solvers scene=silo-beverloo material=%s solver=%s orifices_d=5,6.5,8 "
                   "rates_kg_s=%.4f,%.4f,%.4f b_k1.5=%.2f b_D=%.2f\n",
                   o->material, fid_solver_name(solvers_all[k]), rate[k][0], rate[k][1], rate[k][2],
                   loglog_slope(dk, rate[k], 3), loglog_slope(sizes, rate[k], 3));
        }
    return rc;
}

/* ---- arguments --------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: three_solvers --scene heap|collapse|silo|all --material sand|gravel|glass|mu=X|alpha=X "
                    "[--workers W] [--size N] [--solvers dem,pbd,continuum] [--aspect A] [--orifice D] "
                    "[--verbose F]\n");
    return 2;
}

int main(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    o.scene = "all";
    o.material = "sand";
    o.workers = 1;
    o.use[0] = o.use[1] = o.use[2] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (!strcmp(a, "--scene")) o.scene = v;
        else if (!strcmp(a, "--material")) o.material = v;
        else if (!strcmp(a, "--workers")) o.workers = (unsigned)atoi(v);
        else if (!strcmp(a, "--size")) o.size = (unsigned)atoi(v);
        else if (!strcmp(a, "--aspect")) o.aspect = atof(v);
        else if (!strcmp(a, "--orifice")) o.orifice = atof(v);
        else if (!strcmp(a, "--verbose")) o.verbose = atoi(v);
        else if (!strcmp(a, "--settle")) o.settle = atof(v);
        else if (!strcmp(a, "--solvers")) {
            o.use[0] = strstr(v, "dem") != NULL;
            o.use[1] = strstr(v, "pbd") != NULL;
            o.use[2] = strstr(v, "cont") != NULL;
        } else
            return usage();
        i++;
    }
    o.base = fid_default_params(GR_SOLVER_DEM, o.workers);
    o.base.user_defaults = 1;
    if (!strncmp(o.material, "mu=", 3)) {
        char *end;
        o.base.mu = strtod(o.material + 3, &end);
        if (*end || !(o.base.mu >= 0))
            return usage();
    } else if (!strncmp(o.material, "alpha=", 6)) {
        char *end;
        o.base.cont_alpha = strtod(o.material + 6, &end);
        if (*end || !(o.base.cont_alpha > 0))
            return usage();
    } else if (!(o.base.preset = fid_preset_from_name(o.material)))
        return usage();
    const int all = !strcmp(o.scene, "all");
    if (!all && strcmp(o.scene, "heap") && strcmp(o.scene, "collapse") && strcmp(o.scene, "silo"))
        return usage();
    int rc = 0;
    if (all || !strcmp(o.scene, "heap")) rc |= run_heap(&o);
    if (all || !strcmp(o.scene, "collapse")) rc |= run_collapse(&o);
    if (all || !strcmp(o.scene, "silo")) rc |= run_silo(&o);
    return rc;
}
