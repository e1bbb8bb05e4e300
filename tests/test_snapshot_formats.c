/* SPDX-License-Identifier: MIT */
/* Older snapshot formats: those that differ from the current one only by fields with defaults
 * are read (DEM formats 3 to 6, PBD formats 5 and 6), the rest refused with GR_ERROR_VERSION naming
 * the format. The fixtures in tests/data were written by the libraries of those formats
 * (tests/data/make_format_fixtures.c). A fixture is read correctly when saving the loaded
 * world gives back its bytes, the fields the old format lacked inserted with their defaults. */
#include <granular/granular.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define PBD_DEF_AT 328u /* the PBD settings: after the header, the world fields and the DEM settings
                         * (format 7 and older; format 8's DEM settings are DEM_DEF_GROWTH longer) */
#define DEM_COUNT_AT 196u /* the count of the DEM settings' numbers: 16, format 8: 21 */
#define DEM_DEF_GROWTH 44u /* format 8: five numbers of the render points and their candidates */

static int read_fixture(const char *name, tu_stream *s)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TU_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    tu_stream_init(s);
    unsigned char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        tu_stream_write(s, buf, n);
    fclose(f);
    s->pos = 0;
    return 1;
}

static void put_f64(unsigned char *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    tu_put32(p, (uint32_t)u);
    tu_put32(p + 4, (uint32_t)(u >> 32));
}

/* The current writer's bytes of an old DEM fixture: a world keeps its own solver's settings
 * only, so its PBD section is written with today's PBD defaults (the old section's length
 * depends on the format: six numbers and no hr_candidates in format 3, twelve in 4, thirteen
 * in 5; max_iterations from format 7). */
static void upgrade_pbd_settings(const tu_stream *old, uint32_t format, tu_stream *out)
{
    gr_pbd_def d;
    gr_pbd_def_init(&d);
    const double defaults[13] = {d.relaxation, d.collision_margin, d.mass_scaling, d.sleep_threshold, d.cfl,
                                 d.max_substep, d.hr_radius, d.hr_support, d.hr_density, d.hr_substep,
                                 d.max_acceleration, d.sleep_time, d.hr_sample_radius};
    unsigned char settings[5 * 4 + 13 * 8];
    const unsigned char *p = old->data + PBD_DEF_AT;
    const size_t at = format >= 4 ? 12 : 8; /* iterations, stabilization_iterations (, hr_candidates) */
    const uint32_t count = tu_get32(p + at);
    CHECK(count == (format == 5 ? 13u : format == 4 ? 12u : 6u));
    tu_put32(settings, d.iterations);
    tu_put32(settings + 4, d.stabilization_iterations);
    tu_put32(settings + 8, d.hr_candidates);
    tu_put32(settings + 12, d.max_iterations);
    tu_put32(settings + 16, 13);
    for (uint32_t k = 0; k < 13; k++)
        put_f64(settings + 20 + 8 * k, defaults[k]);
    const size_t old_len = at + 4 + 8 * (size_t)count;
    tu_stream_init(out);
    tu_stream_write(out, old->data, PBD_DEF_AT);
    tu_stream_write(out, settings, sizeof settings);
    tu_stream_write(out, old->data + PBD_DEF_AT + old_len, old->size - PBD_DEF_AT - old_len);
}

/* Format 8's DEM settings (with the render points' five numbers and candidates) as older
 * formats had them: 16 numbers. */
static void dem_settings_as_format7(const tu_stream *now, tu_stream *out)
{
    CHECK(tu_get32(now->data + DEM_COUNT_AT) == 21u);
    unsigned char count[4];
    tu_put32(count, 16u);
    tu_stream_init(out);
    tu_stream_write(out, now->data, DEM_COUNT_AT);
    tu_stream_write(out, count, 4);
    tu_stream_write(out, now->data + DEM_COUNT_AT + 4, 16 * 8);
    const size_t rest = DEM_COUNT_AT + 4 + 16 * 8 + DEM_DEF_GROWTH;
    tu_stream_write(out, now->data + rest, now->size - rest);
}

/* An older DEM fixture as format 8 writes it: the render points' settings with their defaults
 * after the DEM settings, and at the end of the DEM section a flag per sphere (none sampled)
 * and no points (passes 0, count 0). */
static void upgrade_to_format8(const tu_stream *old, tu_stream *out)
{
    gr_dem_def d;
    gr_dem_def_init(&d);
    unsigned char grown[4 + 5 * 8 + 4];
    tu_put32(grown, 21u);
    const double v[5] = {d.hr_radius, d.hr_support, d.hr_density, d.hr_substep, d.hr_sample_radius};
    for (int k = 0; k < 5; k++)
        put_f64(grown + 4 + 8 * k, v[k]);
    tu_put32(grown + 44, d.hr_candidates);
    CHECK(tu_get32(old->data + DEM_COUNT_AT) == 16u);
    tu_snap_map m;
    CHECK(tu_snap_walk(old->data, old->size, GR_SOLVER_DEM, &m));
    tu_stream_init(out);
    tu_stream_write(out, old->data, DEM_COUNT_AT);
    tu_stream_write(out, grown, 4);
    tu_stream_write(out, old->data + DEM_COUNT_AT + 4, 16 * 8);
    tu_stream_write(out, grown + 4, sizeof grown - 4);
    tu_stream_write(out, old->data + DEM_COUNT_AT + 4 + 16 * 8, old->size - (DEM_COUNT_AT + 4 + 16 * 8));
    unsigned char *tail = (unsigned char *)calloc(1, (size_t)m.n + 12);
    tu_stream_write(out, tail, (size_t)m.n + 12);
    free(tail);
}

/* An older snapshot's bytes with format 9's system count (one system) after the grain table. */
static void add_system_count(const tu_stream *old, tu_stream *out)
{
    tu_snap_map m;
    CHECK(tu_get32(old->data + 8) < 9u);
    CHECK(tu_snap_walk(old->data, old->size, GR_SOLVER_DEM, &m) || tu_snap_walk(old->data, old->size, GR_SOLVER_PBD, &m));
    unsigned char one[4];
    tu_put32(one, 1u);
    tu_stream_init(out);
    tu_stream_write(out, old->data, m.systems);
    tu_stream_write(out, one, 4);
    tu_stream_write(out, old->data + m.systems, old->size - m.systems);
}

/* An older snapshot's bytes with format 11's continuum_friction after each material's eight
 * numbers: the material's friction, what the continuum took before format 11. */
static void add_continuum_friction(const tu_stream *old, tu_stream *out)
{
    tu_snap_map m;
    CHECK(tu_get32(old->data + 8) < 11u);
    (void)tu_snap_walk(old->data, old->size, GR_SOLVER_DEM, &m); /* (the materials come before the solver) */
    CHECK(m.materials > 0);
    tu_stream_init(out);
    size_t at = m.materials + 4;
    tu_stream_write(out, old->data, at);
    for (uint32_t i = 0; i < m.mats; i++, at += 64) {
        tu_stream_write(out, old->data + at, 64);
        tu_stream_write(out, old->data + at + 4 * 8, 8); /* friction */
    }
    tu_stream_write(out, old->data + at, old->size - at);
}

/* Saving the loaded world gives the expected bytes (the world tag aside: it is the loading
 * world's business), and the world steps on. */
static void check_resave(gr_world *w, const tu_stream *expected)
{
    tu_stream again;
    tu_stream_init(&again);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &again));
    CHECK(again.size == expected->size);
    if (again.size == expected->size) {
        CHECK(tu_get32(again.data + 8) == 12u);
        CHECK(memcmp(again.data + 36, expected->data + 36, again.size - 36) == 0);
    }
    tu_stream_free(&again);
    for (int i = 0; i < 6; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 120));
}

static void test_dem_older_formats_read(void)
{
    static const char *names[] = {"dem_format3.snap", "dem_format4.snap", "dem_format5.snap"};
    for (uint32_t format = 3; format <= 5; format++) {
        tu_stream s;
        CHECK(read_fixture(names[format - 3], &s));
        CHECK(tu_get32(s.data + 8) == format);
        gr_world *w;
        CHECK_OK(NULL, tu_world(&w, 1, NULL));
        const gr_status st = gr_world_load(w, tu_stream_read, &s);
        printf("  format %u: %s %s\n", format, gr_status_string(st), gr_world_last_error(w));
        CHECK(st == GR_OK);
        CHECK(gr_world_get_grain_count(w) == 12);
        tu_stream pbd_done, format8, format9, expected;
        upgrade_pbd_settings(&s, format, &pbd_done);
        upgrade_to_format8(&pbd_done, &format8);
        add_system_count(&format8, &format9);
        add_continuum_friction(&format9, &expected);
        /* before format 11 the default rolling law was none: the loaded world says so */
        if (tu_get32(expected.data + DEM_COUNT_AT - 12) == GR_ROLLING_DEFAULT)
            tu_put32(expected.data + DEM_COUNT_AT - 12, GR_ROLLING_NONE);
        check_resave(w, &expected);
        tu_stream_free(&pbd_done);
        tu_stream_free(&format8);
        tu_stream_free(&format9);
        tu_stream_free(&expected);
        gr_world_destroy(w);
        tu_stream_free(&s);
    }
}

static void test_pbd_format5_read(void)
{
    tu_stream s;
    CHECK(read_fixture("pbd_format5.snap", &s));
    CHECK(tu_get32(s.data + 8) == 5u);
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    CHECK_OK(w, gr_world_load(w, tu_stream_read, &s));
    CHECK(gr_world_get_grain_count(w) == 12);
    CHECK(gr_world_get_render_point_count(w) > 12);
    /* format 6 adds a stir byte per particle (0), a thaw flag (1) and no force records, format 7
     * the warm start */
    tu_stream now11, now8, now;
    tu_stream_init(&now11);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &now11));
    CHECK(tu_get32(now11.data + 8) == 12u);
    CHECK(tu_snap_drop_continuum_friction(&now11, GR_SOLVER_PBD, &now8) == 2); /* (format 11 added a number to each material) */
    tu_stream_free(&now11);
    dem_settings_as_format7(&now8, &now); /* (format 8 changed only the DEM settings here) */
    tu_stream_free(&now8);
    tu_snap_map m;
    CHECK(tu_snap_walk(now.data, now.size, GR_SOLVER_PBD, &m));
    const size_t stir = m.solver + 12 + (size_t)m.n * (4 * 24 + 8);
    int zero = 1;
    for (size_t k = 0; k < m.n; k++)
        zero &= now.data[stir + k] == 0;
    CHECK(zero);
    CHECK(tu_get32(now.data + m.p_records - 4) == 1 && tu_get32(now.data + m.p_records) == 0);
    tu_stream expected;
    tu_stream_init(&expected);
    /* (and format 7 max_iterations after hr_candidates: 0, the library's) */
    CHECK(tu_get32(now.data + PBD_DEF_AT + 12) == 0);
    tu_stream_write(&expected, now.data, PBD_DEF_AT + 12);
    /* (format 9 adds the system count, 1, after the grain table) */
    CHECK(tu_get32(now.data + m.systems) == 1u);
    tu_stream_write(&expected, now.data + PBD_DEF_AT + 16, m.systems - (PBD_DEF_AT + 16));
    tu_stream_write(&expected, now.data + m.systems + 4, stir - (m.systems + 4));
    tu_stream_write(&expected, now.data + stir + m.n, m.p_records - 4 - (stir + m.n));
    /* format 7 adds the warm start at the end: none (h 0, no particles, no records), and the
     * gravity the grains slept under (the world's: compared with it below) */
    const size_t tail = 16 + 24;
    CHECK(now.size >= m.p_records + 4 + tail);
    int cold = 1;
    for (size_t k = now.size - tail; k < now.size - 24; k++)
        cold &= now.data[k] == 0;
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_PBD);
    CHECK_OK(w, gr_world_get_def(w, &wd, NULL));
    gr_vec3 seen;
    memcpy(&seen, now.data + now.size - 24, 24);
    cold &= seen.x == wd.gravity.x && seen.y == wd.gravity.y && seen.z == wd.gravity.z;
    CHECK(cold);
    tu_stream_write(&expected, now.data + m.p_records + 4, now.size - tail - m.p_records - 4);
    CHECK(expected.size == s.size);
    /* the bodies' own momentum and spin are no longer kept (free bodies are rigid bodies whose
     * velocity is the body's): those 6 numbers of each record are written as 0 */
    for (uint32_t b = 0; b < m.nb && expected.size == s.size; b++)
        memset(s.data + m.p_bodies - m.n - 4 - 4 + 128 * (size_t)b + 80, 0, 48); /* (less stir, system count) */
    /* the DEM settings of a PBD world are its own (the snapshot's are checked, not kept): their
     * rolling law, NONE when the fixture was written, is now the default one */
    CHECK(tu_get32(s.data + DEM_COUNT_AT - 12) == GR_ROLLING_NONE);
    tu_put32(s.data + DEM_COUNT_AT - 12, GR_ROLLING_DEFAULT);
    if (expected.size == s.size) {
        size_t at = 36;
        while (at < s.size && expected.data[at] == s.data[at])
            at++;
        if (at < s.size)
            printf("  first differing byte at %zu of %zu (bodies at %zu, %u of them): %u, expected %u\n", at, s.size,
                   m.p_bodies, m.nb, s.data[at], expected.data[at]);
        CHECK(at == s.size);
    }
    for (int i = 0; i < 6; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 120));
    tu_stream_free(&expected);
    tu_stream_free(&now);
    tu_stream_free(&s);
    gr_world_destroy(w);
}

/* Formats that cannot be read with defaults are refused by name. */
static void test_unreadable_formats_named(void)
{
    tu_stream s;
    CHECK(read_fixture("pbd_format3.snap", &s));
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    CHECK_STATUS(GR_ERROR_VERSION, gr_world_load(w, tu_stream_read, &s));
    printf("  %s\n", gr_world_last_error(w));
    CHECK(strstr(gr_world_last_error(w), "format 3") != NULL);
    gr_world_destroy(w);
    tu_stream_free(&s);
    /* a DEM snapshot relabelled format 2 (clumps had no separate frame then) */
    CHECK(read_fixture("dem_format5.snap", &s));
    tu_put32(s.data + 8, 2);
    tu_reseal(&s);
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    CHECK_STATUS(GR_ERROR_VERSION, gr_world_load(w, tu_stream_read, &s));
    printf("  %s\n", gr_world_last_error(w));
    CHECK(strstr(gr_world_last_error(w), "format 2") != NULL);
    gr_world_destroy(w);
    tu_stream_free(&s);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"dem_older_formats_read", test_dem_older_formats_read},
        {"pbd_format5_read", test_pbd_format5_read},
        {"unreadable_formats_named", test_unreadable_formats_named},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
