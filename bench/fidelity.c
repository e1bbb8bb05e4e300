/* SPDX-License-Identifier: MIT */
/* bench/run fidelity --scene column|silo|pile|cluster|spawn|heap|all --solver dem|pbd|both
 *                    [--workers W] [--size N] [--orifice D] [--fill lattice|pour|both] [--mu M] [--mu-s M] [--mu-r M] [--e E]
 *                    [--preset sand|gravel|glass] [--verbose F]
 * Issue 20's fidelity scenes (examples/common/fidelity_scenes.c) on either solver, same geometry
 * and material (2 cm spheres, density 2500, mu 0.5, e 0.5; PBD at its defaults, DEM at its
 * automatic substep; frames of 1/60 s). One line per scene and solver, key=value:
 *   fidelity scene=column solver=pbd grains=... height_d=... packing=... overlap_mean=... ...
 * Ratios and overlaps are fractions (overlap of a diameter); heights in diameters d.
 * --size: column height H in d (default 100); silo width in d (default 12; orifices 5, 6, 7 d
 * unless --orifice); pile block edge in grains (10); cluster grains (about 200); spawn lattice
 * edge (10); heap grains (3000). The silo's lattice fill stands 4.5 widths; a poured fill takes
 * the grains of 7 widths of lattice (about 4.5 widths poured). --fill: the column and the silo filled at once, poured layer by
 * layer, or both (default; two lines or sets). --verbose F: a line on stderr every F frames.
 * Wall times measured on one core of a 2-vCPU Xeon (bench/results-fidelity.md), PBD / DEM:
 *   column (H 100, 2430 grains, lattice and poured)  ~ 8 s   / ~ 32 s
 *   silo   (12 d, 4900 grains, orifices 5, 6, 7 d)   ~ 20 s  / ~ 1.5 min
 *   pile   (1000 grains, 4 s)                        < 1 s   / ~ 4 s
 *   cluster (203 grains, 2 s, no gravity)            < 1 s   / < 1 s
 *   spawn  (1000 grains, 3 s)                        < 1 s   / ~ 4 s
 *   heap   (3000 grains, ~4.5 s)                     ~ 4 s   / ~ 20 s */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/common/fidelity_scenes.h"

static int run_column_one(const fid_params *p, unsigned size, int pour)
{
    fid_column_result r;
    gr_status st = fid_run_column(p, size ? size : 100, pour, &r);
    if (st != GR_OK)
        return 1;
    printf("fidelity scene=column solver=%s fill=%s workers=%u grains=%u pour_s=%.1f fill_d=%.1f height_d=%.2f "
           "height_min_d=%.2f "
           "height_max_late_d=%.2f packing=%.3f overlap_mean=%.4f overlap_p99=%.4f overlap_max=%.4f coordination=%.2f "
           "e_first=%.2f e_max=%.2f e_last=%.2f e_rise_max=%.4g e_rise_rel=%.4g e_rise_t=%.3f vmax=%.2f v_free_fall=%.2f "
           "left_box=%u left_box_max=%u still_disp_d=%.4f still=%d seconds=%.1f ms_per_frame=%.1f "
           "substeps_per_frame=%.1f\n",
           fid_solver_name(p->solver), pour ? "pour" : "lattice", p->workers, r.grains, r.pour_seconds, r.fill_height_d,
           r.height_d, r.height_min_d,
           r.height_max_late_d, r.packing, r.overlap.mean, r.overlap.p99, r.overlap.max, r.overlap.coordination,
           r.energy.first, r.energy.max, r.energy.last, r.energy.rise_max, r.e_rise_rel, r.energy.rise_time, r.vmax,
           r.v_free_fall, r.left_box, r.left_box_max, r.still_disp_d, r.still_disp_d < 0.02, r.seconds,
           r.ms_per_frame, r.substeps_per_frame);
    fflush(stdout);
    return 0;
}

static int run_column(const fid_params *p, unsigned size, const char *fill)
{
    int rc = 0;
    for (int pour = 0; pour < 2; pour++)
        if (!strcmp(fill, "both") || !strcmp(fill, pour ? "pour" : "lattice"))
            rc |= run_column_one(p, size, pour);
    return rc;
}

static int run_silo_one(const fid_params *p, unsigned size, double orifice, int pour)
{
    const double sizes[3] = {5, 6, 7};
    double rates[3];
    int nd = orifice > 0 ? 1 : 3;
    for (int i = 0; i < nd; i++) {
        const double D = orifice > 0 ? orifice : sizes[i];
        fid_silo_result r;
        if (fid_run_silo(p, size ? size : 12, D, pour ? 7.0 : 4.5, pour, &r) != GR_OK)
            return 1;
        rates[i] = r.rate_all;
        char series[16 * 12] = "";
        size_t len = 0;
        for (int k = 0; k < r.rate_count && len < sizeof series - 12; k++)
            len += (size_t)snprintf(series + len, sizeof series - len, "%s%.0f", k ? "," : "", r.rates[k]);
        printf("fidelity scene=silo solver=%s preset=%s fill=%s workers=%u grains=%u width_d=%.0f orifice_d=%.1f fill0_w=%.2f "
               "packing=%.3f overlap_mean=%.4f overlap_max=%.4f settle_e_rise_max=%.4g rate_hi=%.1f rate_lo=%.1f "
               "ratio_hi_lo=%.3f rate_all=%.1f rate_half1=%.1f rate_half2=%.1f half_drop=%.3f rates_per_s=%s discharged=%.0f "
               "seconds_open=%.1f jammed=%d ms_per_frame=%.1f substeps_per_frame=%.1f\n",
               fid_solver_name(p->solver), fid_preset_name(p->preset), pour ? "pour" : "lattice", p->workers, r.grains,
               r.width_d, r.orifice_d, r.fill0_w, r.packing,
               r.overlap.mean, r.overlap.max, r.energy.rise_max, r.rate_hi, r.rate_lo, r.ratio, r.rate_all, r.rate_half1,
               r.rate_half2, r.rate_half1 > 0 ? 1 - r.rate_half2 / r.rate_half1 : NAN, series, r.discharged,
               r.seconds_open, r.jammed, r.ms_per_frame, r.substeps_per_frame);
        fflush(stdout);
    }
    if (nd == 3) {
        /* Beverloo: W ~ (D - k d)^2.5; the exponent fitted with k = 1.5 between the extremes, on
         * the rate over the whole discharge (rate_all) */
        const double a = log(rates[2] / rates[0]) / log((sizes[2] - 1.5) / (sizes[0] - 1.5));
        printf("fidelity scene=silo-beverloo solver=%s fill=%s orifices_d=5,6,7 rates=%.1f,%.1f,%.1f exponent_k1.5=%.2f\n",
               fid_solver_name(p->solver), pour ? "pour" : "lattice", rates[0], rates[1], rates[2], a);
    }
    return 0;
}

static int run_silo(const fid_params *p, unsigned size, double orifice, const char *fill)
{
    int rc = 0;
    for (int pour = 0; pour < 2; pour++)
        if (!strcmp(fill, "both") || !strcmp(fill, pour ? "pour" : "lattice"))
            rc |= run_silo_one(p, size, orifice, pour);
    return rc;
}

static int run_pile(const fid_params *p, unsigned size)
{
    fid_pile_result r;
    if (fid_run_pile(p, size ? size : 10, &r) != GR_OK)
        return 1;
    printf("fidelity scene=pile solver=%s workers=%u grains=%u e_first=%.3f e_max=%.3f e_last=%.3f e_rise_max=%.4g "
           "e_rise_rel=%.4g e_rise_t=%.3f overlap_mean=%.4f overlap_p99=%.4f overlap_max=%.4f rest_time=%.2f "
           "vmax_end=%.4f still_disp_d=%.4f ms_per_frame=%.1f substeps_per_frame=%.1f\n",
           fid_solver_name(p->solver), p->workers, r.grains, r.energy.first, r.energy.max, r.energy.last,
           r.energy.rise_max, r.e_rise_rel, r.energy.rise_time, r.overlap.mean, r.overlap.p99, r.overlap.max,
           r.rest_time, r.vmax_end, r.still_disp_d, r.ms_per_frame, r.substeps_per_frame);
    return 0;
}

static int run_cluster(const fid_params *p, unsigned size)
{
    fid_cluster_result r;
    if (fid_run_cluster(p, size ? size : 200, &r) != GR_OK)
        return 1;
    printf("fidelity scene=cluster solver=%s workers=%u grains=%u p_drift=%.4g p_drift_rel=%.4g ke_first=%.4f "
           "ke_max=%.4f ke_last=%.4f ke_rise_max=%.4g ke_rise_rel=%.4g ms_per_frame=%.1f substeps_per_frame=%.1f\n",
           fid_solver_name(p->solver), p->workers, r.grains, r.p_drift, r.p_drift_rel, r.ke_first, r.ke_max, r.ke_last,
           r.ke_rise_max, r.ke_rise_rel, r.ms_per_frame, r.substeps_per_frame);
    return 0;
}

static int run_spawn(const fid_params *p, unsigned size)
{
    fid_spawn_result r;
    if (fid_run_spawn(p, size ? size : 10, &r) != GR_OK)
        return 1;
    printf("fidelity scene=spawn solver=%s workers=%u grains=%u e_first=%.3f e_max=%.3f e_last=%.3f e_rise_rel=%.4g "
           "e_rise_max=%.4g ke_max=%.4f ke_max_rel=%.4g vmax=%.2f left_box=%u overlap_mean=%.4f overlap_max=%.4f "
           "ms_per_frame=%.1f substeps_per_frame=%.1f\n",
           fid_solver_name(p->solver), p->workers, r.grains, r.energy.first, r.energy.max, r.energy.last, r.e_rise_rel,
           r.energy.rise_max, r.energy.kinetic_max, r.ke_max_per_grain_rel, r.vmax, r.left_box, r.overlap.mean,
           r.overlap.max, r.ms_per_frame, r.substeps_per_frame);
    return 0;
}

static int run_heap(const fid_params *p, unsigned size)
{
    fid_heap_result r;
    if (fid_run_heap(p, size ? size : 3000, &r) != GR_OK)
        return 1;
    const double d = 2 * p->radius;
    printf("fidelity scene=heap solver=%s preset=%s workers=%u grains=%u mu=%.2f mu_r=%.2f e=%.2f mu_s=%.2f angle_fit=%.1f angle_hr=%.1f "
           "rings=%d height_d=%.1f foot_d=%.1f settle_e_rise_max=%.4g still_disp_d=%.4f ms_per_frame=%.1f "
           "substeps_per_frame=%.1f\n",
           fid_solver_name(p->solver), fid_preset_name(p->preset), p->workers, r.grains, p->mu, p->mu_r, p->restitution,
           p->mu_s > 0 ? p->mu_s : 1.2 * p->mu,
           r.heap.angle_fit, r.heap.angle_hr, r.heap.rings, r.heap.height / d, r.heap.foot / d, r.energy.rise_max,
           r.still_disp_d, r.ms_per_frame, r.substeps_per_frame);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_fidelity --scene column|silo|pile|cluster|spawn|heap|all --solver dem|pbd|both "
                    "[--workers W] [--size N] [--orifice D] [--fill lattice|pour|both] [--mu M] [--mu-s M] [--mu-r M] [--e E] "
                    "[--preset sand|gravel|glass] [--verbose F]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *scene = "all", *solver = "both", *fill = "both";
    unsigned workers = 1, size = 0;
    double mu = 0.5, mu_s = 0, mu_r = 0, e = 0.5, orifice = 0;
    int verbose = 0, preset = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--scene")) scene = v;
        else if (!strcmp(a, "--solver")) solver = v;
        else if (!strcmp(a, "--workers")) workers = (unsigned)atoi(v);
        else if (!strcmp(a, "--size")) size = (unsigned)atoi(v);
        else if (!strcmp(a, "--orifice")) orifice = atof(v);
        else if (!strcmp(a, "--fill")) fill = v;
        else if (!strcmp(a, "--mu")) mu = atof(v);
        else if (!strcmp(a, "--mu-s")) mu_s = atof(v);
        else if (!strcmp(a, "--mu-r")) mu_r = atof(v);
        else if (!strcmp(a, "--e")) e = atof(v);
        else if (!strcmp(a, "--verbose")) verbose = atoi(v);
        else if (!strcmp(a, "--preset") && (preset = fid_preset_from_name(v)) > 0) {}
        else usage();
        i++;
    }
    gr_solver_kind solvers[2];
    int ns = 0;
    if (!strcmp(solver, "dem") || !strcmp(solver, "both")) solvers[ns++] = GR_SOLVER_DEM;
    if (!strcmp(solver, "pbd") || !strcmp(solver, "both")) solvers[ns++] = GR_SOLVER_PBD;
    if (ns == 0)
        usage();
    static const char *const scenes[] = {"column", "silo", "pile", "cluster", "spawn", "heap"};
    int matched = 0, failed = 0;
    for (int s = 0; s < 6; s++) {
        if (strcmp(scene, "all") && strcmp(scene, scenes[s]))
            continue;
        matched = 1;
        for (int k = 0; k < ns; k++) {
            fid_params p = fid_default_params(solvers[k], workers);
            p.mu = mu;
            p.mu_s = mu_s;
            p.mu_r = mu_r;
            p.restitution = e;
            p.verbose = verbose;
            p.preset = preset;
            int rc = 0;
            switch (s) {
            case 0: rc = run_column(&p, size, fill); break;
            case 1: rc = run_silo(&p, size, orifice, fill); break;
            case 2: rc = run_pile(&p, size); break;
            case 3: rc = run_cluster(&p, size); break;
            case 4: rc = run_spawn(&p, size); break;
            default: rc = run_heap(&p, size); break;
            }
            if (rc)
                fprintf(stderr, "fidelity: scene %s on %s failed\n", scenes[s], fid_solver_name(p.solver));
            failed |= rc;
            fflush(stdout);
        }
    }
    if (!matched)
        usage();
    return failed;
}
