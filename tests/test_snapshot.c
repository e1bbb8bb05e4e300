/* SPDX-License-Identifier: MIT */
/* Snapshots: save, load, step is bit-identical to stepping on; truncated, corrupted, crafted
 * or mismatched snapshots are errors that leave the world unchanged; never a crash. */
#include <granular/granular.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"roundtrip_bit_identical", test_roundtrip_bit_identical},
        {"truncated_and_corrupt", test_truncated_and_corrupt},
        {"crafted_content_never_crashes", test_crafted_content_never_crashes},
        {"version_solver_and_io_errors", test_version_solver_and_io_errors},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
