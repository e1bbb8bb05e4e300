/* SPDX-License-Identifier: MIT */
/* Snapshots: save, load, step is bit-identical to stepping on; truncated, corrupted, crafted
 * or mismatched snapshots are errors that leave the world unchanged; never a crash. */
#include <granular/granular.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"



static gr_world *scene(unsigned workers, gr_body *bodies)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_EPSD;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    def.dem = &dem;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return NULL;
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.7;
    md.rolling_friction = 0.1;
    gr_material m;
    gr_add_material(w, &md, &m);
    tu_pile(w, 0.025, 0.0015, 900, &bodies[0]);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CAPSULE;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.radius = 0.004;
    bd.half_height = 0.01;
    bd.position = (gr_vec3){-0.015, 0.01, 0};
    bd.linear_velocity = (gr_vec3){0.05, 0, 0};
    bd.angular_velocity = (gr_vec3){0, 0, 3};
    bd.material = m;
    gr_add_body(w, &bd, &bodies[1]);
    /* clump grains as well */
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.025, 0.07, -0.025};
    fd.max = (gr_vec3){0.025, 0.09, 0.025};
    fd.radius = 0.0025;
    fd.shape = GR_GRAIN_CUBE;
    fd.material = m;
    fd.max_count = 60;
    gr_fill_box(w, &fd, NULL, NULL, 0);
    return w;
}

static void test_roundtrip_bit_identical(void)
{
    gr_body ba[2], bb[2];
    gr_world *a = scene(2, ba);
    CHECK(a);
    CHECK_OK(a, gr_step(a, 0.05));
    /* a removal pending compaction and fresh grains without neighbour lists are saved too */
    gr_grain g;
    uint64_t ids[3];
    CHECK_OK(a, gr_read_grains(a, GR_FIELD_HANDLE, GR_TYPE_U64, 10, 3, ids, 0));
    g.id = ids[1];
    CHECK_OK(a, gr_remove_grain(a, g));
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.radius = 0.002;
    gd.position = (gr_vec3){0, 0.09, 0};
    gr_grain fresh;
    CHECK_OK(a, gr_add_grain(a, &gd, &fresh));
    uint64_t cube;
    CHECK_OK(a, gr_read_grains(a, GR_FIELD_HANDLE, GR_TYPE_U64, gr_world_get_grain_count(a) - 5, 1, &cube, 0));
    CHECK_OK(a, gr_remove_grain(a, (gr_grain){cube})); /* a clump, removed before saving */

    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    /* load into a different world (other worker count, other contents) */
    gr_world *b = scene(3, bb);
    CHECK(b);
    CHECK_OK(b, gr_step(b, 0.01));
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    CHECK(gr_world_get_time(b) == gr_world_get_time(a));
    /* b keeps its own tag: a's handles are foreign to it; b's handle of the same grain (read
     * by bulk index) has a's slot and generation */
    CHECK(!gr_grain_is_valid(b, fresh) && !gr_grain_is_valid(b, g));
    uint32_t fresh_index;
    uint64_t fresh_b;
    CHECK_OK(a, gr_grain_get_index(a, fresh, &fresh_index));
    CHECK_OK(b, gr_read_grains(b, GR_FIELD_HANDLE, GR_TYPE_U64, fresh_index, 1, &fresh_b, 0));
    CHECK(gr_grain_is_valid(b, (gr_grain){fresh_b}) && (fresh_b & 0x7ffffffffffull) == (fresh.id & 0x7ffffffffffull));
    /* b's bodies were made in the order of a's: its own handles name the restored ones */
    CHECK(tu_state_hash(a, ba, 2) == tu_state_hash(b, bb, 2));
    for (int k = 0; k < 4; k++) {
        CHECK_OK(a, gr_step(a, 0.02));
        CHECK_OK(b, gr_step(b, 0.02));
        CHECK(tu_state_hash(a, ba, 2) == tu_state_hash(b, bb, 2));
    }
    gr_counters ca, cb;
    ca.size = cb.size = sizeof ca;
    gr_world_get_counters(a, &ca);
    gr_world_get_counters(b, &cb);
    CHECK(ca.contact_count == cb.contact_count && ca.neighbor_rebuilds == cb.neighbor_rebuilds);
    CHECK(ca.contact_count > 0);
    /* saving twice gives the same bytes */
    tu_stream s2, s3;
    tu_stream_init(&s2);
    tu_stream_init(&s3);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s2));
    CHECK_OK(b, gr_world_save(b, tu_stream_write, &s3));
    CHECK(s2.size == s3.size && memcmp(s2.data + 32, s3.data + 32, s2.size - 32) == 0);
    tu_stream_free(&s);
    tu_stream_free(&s2);
    tu_stream_free(&s3);
    gr_world_destroy(a);
    gr_world_destroy(b);
}

/* Load must fail cleanly for every truncation, every corrupted byte we try, and leave the world. */
static void test_truncated_and_corrupt(void)
{
    gr_body ba[2];
    gr_world *a = scene(1, ba);
    CHECK(a);
    CHECK_OK(a, gr_step(a, 0.02));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    const uint64_t h = tu_state_hash(a, ba, 2);
    int bad = 0;
    /* truncations: every length in the header, then a spread through the payload */
    for (size_t len = 0; len < s.size; len += (len < 64 ? 1 : s.size / 97 + 1)) {
        tu_stream t = s;
        t.size = len;
        t.pos = 0;
        gr_status st = gr_world_load(a, tu_stream_read, &t);
        if (st != GR_ERROR_CORRUPT_DATA || tu_state_hash(a, ba, 2) != h)
            bad++;
    }
    /* one flipped byte anywhere: the checksums catch it */
    for (size_t pos = 0; pos < s.size; pos += s.size / 211 + 1) {
        s.data[pos] ^= 0x5a;
        s.pos = 0;
        gr_status st = gr_world_load(a, tu_stream_read, &s);
        s.data[pos] ^= 0x5a;
        if ((st != GR_ERROR_CORRUPT_DATA && st != GR_ERROR_VERSION && st != GR_ERROR_INVALID_ARGUMENT) ||
            tu_state_hash(a, ba, 2) != h)
            bad++;
    }
    CHECK(bad == 0);
    s.pos = 0;
    CHECK_OK(a, gr_world_load(a, tu_stream_read, &s)); /* the intact one still loads */
    CHECK(tu_state_hash(a, ba, 2) == h);
    tu_stream_free(&s);
    gr_world_destroy(a);
}

/* Valid checksums over edited content: validation, not luck, must stop every bad index. */
static void test_crafted_content_never_crashes(void)
{
    gr_body ba[2];
    gr_world *a = scene(1, ba);
    CHECK(a);
    CHECK_OK(a, gr_step(a, 0.02));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    unsigned char *orig = (unsigned char *)malloc(s.size);
    memcpy(orig, s.data, s.size);
    const uint64_t h = tu_state_hash(a, ba, 2);
    unsigned long long rng = 88172645463325252ull;
    int loaded = 0, refused = 0, other = 0;
    for (int trial = 0; trial < 400; trial++) {
        memcpy(s.data, orig, s.size);
        int edits = 1 + trial % 4;
        for (int e = 0; e < edits; e++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            size_t pos = 32 + (size_t)(rng % (s.size - 32));
            unsigned char v = (unsigned char)(rng >> 40);
            s.data[pos] = (trial & 1) ? v : (unsigned char)(s.data[pos] ^ (1u << (rng % 8)));
        }
        tu_reseal(&s);
        s.pos = 0;
        gr_status st = gr_world_load(a, tu_stream_read, &s);
        if (st == GR_OK) {
            loaded++;
            /* whatever was accepted must be steppable */
            gr_status ss = gr_step(a, 0.002);
            if (ss != GR_OK && ss != GR_ERROR_UNSTABLE)
                other++;
            memcpy(s.data, orig, s.size);
            s.pos = 0;
            CHECK_OK(a, gr_world_load(a, tu_stream_read, &s));
        } else if (st == GR_ERROR_CORRUPT_DATA) {
            refused++;
            if (tu_state_hash(a, ba, 2) != h)
                other++;
        } else {
            other++;
        }
    }
    printf("  %d accepted (edits of values), %d refused\n", loaded, refused);
    CHECK(other == 0);
    CHECK(refused > 0);
    free(orig);
    tu_stream_free(&s);
    gr_world_destroy(a);
}

static void test_version_solver_and_io_errors(void)
{
    gr_body ba[2];
    gr_world *a = scene(1, ba);
    CHECK(a);
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    const uint64_t h = tu_state_hash(a, ba, 2);
    /* a future format version */
    uint32_t version;
    memcpy(&version, s.data + 8, 4); /* little-endian hosts */
    tu_put32(s.data + 8, 99);
    tu_reseal(&s);
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_VERSION, gr_world_load(a, tu_stream_read, &s));
    tu_put32(s.data + 8, version);
    /* another solver's snapshot */
    tu_put32(s.data + 12, (uint32_t)GR_SOLVER_PBD);
    tu_reseal(&s);
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(a, tu_stream_read, &s));
    CHECK(tu_state_hash(a, ba, 2) == h);
    /* an impossible declared size */
    tu_put32(s.data + 12, (uint32_t)GR_SOLVER_DEM);
    tu_put32(s.data + 20, 0x7fffffffu);
    tu_put32(s.data + 28, tu_crc32(s.data, 28));
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_CORRUPT_DATA, gr_world_load(a, tu_stream_read, &s));
    /* a write callback that fails part-way */
    for (size_t limit = 0; limit < s.size; limit += s.size / 7 + 1) {
        tu_stream f;
        tu_stream_init(&f);
        f.fail_after = limit;
        CHECK_STATUS(GR_ERROR_IO, gr_world_save(a, tu_stream_write, &f));
        tu_stream_free(&f);
    }
    CHECK(tu_state_hash(a, ba, 2) == h);
    tu_stream_free(&s);
    gr_world_destroy(a);
}

/* ---- crafted indices and ranges ------------------------------------------------------------ */

/* A floor, a dynamic box (a particle clump), spheres and tetrahedra resting on them, with
 * neighbour lists and contact histories: every index the DEM loader restores. */
static gr_world *clump_scene(const gr_world_def *base, gr_body *bodies)
{
    gr_world_def def;
    if (base)
        def = *base;
    else
        gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, -9.81, 0};
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return NULL;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.normal = (gr_vec3){0, 1, 0};
    if (gr_add_body(w, &bd, &bodies[0]) != GR_OK)
        return NULL;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.02, 0.02, 0.02};
    bd.position = (gr_vec3){0.06, 0.021, 0};
    bd.particle_radius = 0.01;
    if (gr_add_body(w, &bd, &bodies[1]) != GR_OK)
        return NULL;
    for (int k = 0; k < 24; k++) {
        gr_grain_def g;
        gr_grain_def_init(&g);
        g.radius = 0.004;
        g.shape = k % 3 == 0 ? GR_GRAIN_TETRAHEDRON : GR_GRAIN_SPHERE;
        g.position = (gr_vec3){-0.03 + 0.011 * (k % 6), 0.006 + 0.011 * (k / 6), 0.002 * (k % 3)};
        if (gr_add_grain(w, &g, NULL) != GR_OK)
            return NULL;
    }
    for (int i = 0; i < 10; i++)
        if (gr_step(w, 1.0 / 120) != GR_OK)
            return NULL;
    return w;
}

/* Load an edited copy: refused as corrupt, the world unchanged, the message in words. */
static void expect_refused(gr_world *w, const gr_body *bodies, const tu_stream *orig, size_t at, uint32_t value,
                           const char *what)
{
    tu_stream s = *orig;
    s.data = (unsigned char *)malloc(orig->size);
    memcpy(s.data, orig->data, orig->size);
    s.cap = orig->size;
    tu_put32(s.data + at, value);
    tu_reseal(&s);
    s.pos = 0;
    const uint64_t h = tu_state_hash(w, bodies, 2);
    const gr_status st = gr_world_load(w, tu_stream_read, &s);
    const char *msg = gr_world_last_error(w);
    if (st != GR_ERROR_CORRUPT_DATA)
        printf("  %s: loaded with %s (%s)\n", what, gr_status_string(st), msg);
    else
        printf("  %s: %s\n", what, msg);
    CHECK(st == GR_ERROR_CORRUPT_DATA);
    CHECK(tu_state_hash(w, bodies, 2) == h);
    CHECK(strstr(msg, ".c:") == NULL && strstr(msg, "(check") == NULL);
    if (st == GR_OK) /* put it back for the next case */
        CHECK_OK(w, gr_world_load(w, tu_stream_read, &(tu_stream){orig->data, orig->size, orig->size, 0, SIZE_MAX}));
    free(s.data);
}

/* The audit's crash (a tetrahedron's member count 4 -> 2 with checksums recomputed loaded, and
 * the first step crashed sorting the clumps) and its kin: every index and range the DEM loader
 * restores, broken one at a time, is refused. */
static void test_crafted_ranges_refused(void)
{
    gr_body b[2];
    gr_world *w = clump_scene(NULL, b);
    CHECK(w);
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    tu_snap_map m;
    CHECK(tu_snap_walk(s.data, s.size, GR_SOLVER_DEM, &m));
    CHECK(m.nc >= 9 && m.nb > 0 && m.built && tu_get32(s.data + m.built) == 1);
    /* a tetrahedron clump (grain clumps come first; the body's clump has other counts) */
    uint32_t c = 0;
    while (c < m.nc && !(tu_get32(s.data + m.c_count + 4 * c) == 4 && tu_get32(s.data + m.c_body + 4 * c) == 0xffffffffu))
        c++;
    CHECK(c < m.nc);
    const uint32_t first = tu_get32(s.data + m.c_first + 4 * c);
    expect_refused(w, b, &s, m.c_count + 4 * c, 2, "a tetrahedron's member count 4 -> 2");
    expect_refused(w, b, &s, m.c_first + 4 * c, first + 1, "its first member record moved by one");
    /* a member record and its sphere */
    const uint32_t sphere = tu_get32(s.data + m.m_sphere + 4 * first);
    const uint32_t other = tu_get32(s.data + m.m_sphere + 4 * (first + 1));
    expect_refused(w, b, &s, m.m_sphere + 4 * first, other, "two member records of one sphere");
    expect_refused(w, b, &s, m.member + 4 * sphere, first + 1, "a sphere naming its neighbour's record");
    expect_refused(w, b, &s, m.member + 4 * sphere, 0xffffffffu, "a clump's sphere claiming to be free");
    expect_refused(w, b, &s, m.slot + 4 * sphere, 0xffffffffu, "a live clump's sphere removed");
    /* the body's clump */
    uint32_t bc = 0;
    while (bc < m.nc && tu_get32(s.data + m.c_body + 4 * bc) == 0xffffffffu)
        bc++;
    CHECK(bc < m.nc);
    expect_refused(w, b, &s, m.c_body + 4 * bc, 7, "a body clump naming no body");
    expect_refused(w, b, &s, m.c_slot + 4 * bc, 0xffffffffu, "a live body's clump removed");
    /* the lists */
    const uint32_t nbc = tu_get32(s.data + m.nb_count), bcc = tu_get32(s.data + m.bc_count);
    CHECK(nbc > 0 && bcc > 0);
    expect_refused(w, b, &s, m.nb_j, m.nb, "a neighbour entry beyond the listed grains");
    expect_refused(w, b, &s, m.nb_start + 4 * (m.nb / 2), nbc + 1, "a neighbour range beyond the list");
    expect_refused(w, b, &s, m.nb_hist + 4, 0x7ff80000u, "a contact history NaN");
    expect_refused(w, b, &s, m.bc_id, (99u << 3) | 0u, "a body contact naming no body");
    expect_refused(w, b, &s, m.bc_id, (tu_get32(s.data + m.bc_id) & ~7u) | 3u, "a plane's fourth feature");
    expect_refused(w, b, &s, m.bc_id, (1u << 3) | 0u, "a body contact with a particle-covered body");
    expect_refused(w, b, &s, m.slab_start + 4, m.nb + 1, "a slab beyond the listed grains");
    expect_refused(w, b, &s, m.nslabs, 0x7fffffffu, "two billion slabs");
    expect_refused(w, b, &s, m.mat_rmin + 4, 0x40240000u, "the material's smallest radius 10 m");
    expect_refused(w, b, &s, m.grains + 8, 12345, "a broken free chain");
    /* the settings pass gr_world_create's checks */
    expect_refused(w, b, &s, m.pbd_max_substep + 4, 0xbff00000u, "pbd.max_substep = -1");
    expect_refused(w, b, &s, m.pbd_def, 0, "pbd.iterations = 0");
    expect_refused(w, b, &s, m.pbd_def + 12, 1001, "pbd.max_iterations = 1001");
    /* the audit's 4.5e-22 s substep: below GR_MIN_SUBSTEP (high word of about 2^-71) */
    expect_refused(w, b, &s, m.pbd_max_substep + 4, 0x3b800000u, "pbd.max_substep = 4e-22 s");
    /* and the original still loads and steps */
    s.pos = 0;
    CHECK_OK(w, gr_world_load(w, tu_stream_read, &s));
    CHECK_OK(w, gr_step(w, 1.0 / 60));
    tu_stream_free(&s);
    gr_world_destroy(w);
}

static void host_get_state(gr_body body, void *ud, gr_host_body_state *state, void *user)
{
    (void)body, (void)ud, (void)state, (void)user; /* the body stays where it is */
}
static void host_apply_impulse(gr_body body, void *ud, gr_vec3 j, gr_vec3 aj, void *user)
{
    (void)body, (void)ud, (void)j, (void)aj, (void)user;
}

/* A host-owned body needs host hooks: a world without them says so (not "corrupt"). */
static void test_host_body_needs_hooks(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.host.get_state = host_get_state;
    def.host.apply_impulse = host_apply_impulse;
    gr_body b[2];
    gr_world *with = clump_scene(&def, b);
    CHECK(with);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_SPHERE;
    bd.motion = GR_MOTION_HOST;
    bd.radius = 0.02;
    bd.particle_radius = 0.01;
    bd.position = (gr_vec3){-0.08, 0.05, 0};
    CHECK_OK(with, gr_add_body(with, &bd, NULL));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(with, gr_world_save(with, tu_stream_write, &s));
    gr_body c[2];
    gr_world *without = clump_scene(NULL, c);
    CHECK(without);
    const uint64_t h = tu_state_hash(without, c, 2);
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(without, tu_stream_read, &s));
    const char *msg = gr_world_last_error(without);
    printf("  %s\n", msg);
    CHECK(strstr(msg, "host hooks") != NULL && strstr(msg, ".c:") == NULL);
    CHECK(tu_state_hash(without, c, 2) == h);
    s.pos = 0;
    CHECK_OK(with, gr_world_load(with, tu_stream_read, &s));
    tu_stream_free(&s);
    gr_world_destroy(with);
    gr_world_destroy(without);
}

/* A small stream whose header declares up to 2^40 bytes: the loader allocates as the bytes
 * arrive, so the largest request stays small, and the snapshot is refused as truncated. */
static void test_declared_size_beyond_stream(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.allocator = tu_allocator(&a);
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    printf("  %zu-byte stream\n", s.size);
    CHECK(s.size < 4096);
    const int shifts[] = {31, 32, 36, 40};
    for (int k = 0; k < 4; k++) {
        const uint64_t size = (uint64_t)1 << shifts[k];
        tu_put32(s.data + 16, (uint32_t)size);
        tu_put32(s.data + 20, (uint32_t)(size >> 32));
        tu_put32(s.data + 28, tu_crc32(s.data, 28));
        s.pos = 0;
        a.max_request = 0;
        const gr_status st = gr_world_load(w, tu_stream_read, &s);
        printf("  declared 2^%d bytes: %s, largest request %lld bytes (%s)\n", shifts[k], gr_status_string(st),
               a.max_request, gr_world_last_error(w));
        CHECK(st == GR_ERROR_CORRUPT_DATA);
        CHECK(a.max_request <= (1 << 17));
    }
    tu_stream_free(&s);
    gr_world_destroy(w);
    CHECK(a.live == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"roundtrip_bit_identical", test_roundtrip_bit_identical},
        {"truncated_and_corrupt", test_truncated_and_corrupt},
        {"crafted_content_never_crashes", test_crafted_content_never_crashes},
        {"version_solver_and_io_errors", test_version_solver_and_io_errors},
        {"crafted_ranges_refused", test_crafted_ranges_refused},
        {"host_body_needs_hooks", test_host_body_needs_hooks},
        {"declared_size_beyond_stream", test_declared_size_beyond_stream},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
