# SPDX-License-Identifier: MIT
"""Tests of the granular Python bindings (ctypes mirror and Pythonic layer).

They run with and without numpy: set GRANULAR_NO_NUMPY=1 to run the whole file in list
mode (the numpy-only tests skip); the `bulk` fixture also runs the bulk I/O tests in both
modes within one numpy-enabled session.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import gc
import io
import math
import os
import pickle
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import granular
from granular import _world, ffi

HAVE_NUMPY = granular.have_numpy()
if HAVE_NUMPY:
    import numpy as np

needs_numpy = pytest.mark.skipif(not HAVE_NUMPY, reason="numpy not available or disabled")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent


# ================================================================================ helpers


def rows(values):
    """Bulk results as a list of tuples (vector fields) or of numbers, in either mode."""
    if HAVE_NUMPY and isinstance(values, np.ndarray):
        out = values.tolist()
        return [tuple(r) for r in out] if values.ndim == 2 else out
    return list(values)


@pytest.fixture(params=["numpy", "lists"])
def bulk(request, monkeypatch):
    """Run a test with numpy bulk I/O and again with numpy hidden from the binding."""
    if request.param == "numpy":
        if not HAVE_NUMPY:
            pytest.skip("numpy not available or disabled")
    else:
        monkeypatch.setattr(_world, "_np", None)
    return request.param


@pytest.fixture
def world():
    with granular.World() as w:
        yield w


def settled_pile(world, radius=0.002, seconds=0.3):
    """A plane at y = 0 and a small lattice of grains dropped onto it."""
    floor = world.add_plane(position=(0, 0, 0), normal=(0, 1, 0))
    n = world.fill_box((0, 0.01, 0), (0.03, 0.04, 0.03), radius=radius)
    assert n > 100
    world.step(seconds)
    return floor, n


def grain_weight(world):
    return sum(rows(world.read("mass"))) * 9.81


# ================================================================================ library


def test_version():
    v = granular.get_version()
    major, minor, patch = granular.get_version_tuple()
    assert v == major * 10000 + minor * 100 + patch
    assert granular.get_version_string() == f"{major}.{minor}.{patch}"
    assert major == granular.BINDING_VERSION[0] == 0
    assert ffi.gr_check_version() == granular.Status.OK
    assert granular.get_precision() == 8
    assert granular.__version__.split(".")[0] == str(major)


def test_status_strings():
    assert granular.status_string(granular.Status.OK) == "ok"
    assert "stale" in granular.status_string(granular.Status.ERROR_STALE_HANDLE)
    assert granular.status_string(12345) == "unknown status"


def test_library_search_order_honours_env(tmp_path):
    env = dict(os.environ, GRANULAR_LIBRARY=str(tmp_path / "no-such-libgranular.so"))
    code = "import granular"
    res = subprocess.run([sys.executable, "-c", code], env=env, cwd=PACKAGE_ROOT, capture_output=True, text=True)
    assert res.returncode != 0
    assert "GRANULAR_LIBRARY" in res.stderr
    # the env var names the library explicitly and wins
    env["GRANULAR_LIBRARY"] = granular.library_path
    code = "import granular, sys; print(granular.library_path)"
    res = subprocess.run([sys.executable, "-c", code], env=env, cwd=PACKAGE_ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == granular.library_path


def test_candidate_paths_without_env(monkeypatch):
    monkeypatch.delenv("GRANULAR_LIBRARY", raising=False)
    paths = ffi.candidate_paths()
    for p in paths:
        if Path(p).is_file() and str(REPO_ROOT) in str(Path(p).resolve()):
            # sanitizer builds abort a plain interpreter at dlopen: never picked implicitly
            assert Path(p).parent.parent.name == "build" or not ffi._needs_sanitizer_runtime(Path(p))
    default = REPO_ROOT / "build" / "lib" / ffi._library_names()[0]
    if default.is_file():
        assert paths[0] == str(default)
    monkeypatch.setenv("GRANULAR_LIBRARY", "/some/where/libgranular.so")
    assert ffi.candidate_paths() == ["/some/where/libgranular.so"]


def test_self_check_detects_layout_mismatch(monkeypatch):
    class short_world_def(ffi._Def):  # a binding that forgot the last field
        _kind_ = ffi.DefKind.WORLD
        _fields_ = ffi.gr_world_def._fields_[:-1]

    monkeypatch.setitem(ffi.DEF_STRUCTS, ffi.DefKind.WORLD, short_world_def)
    monkeypatch.setitem(ffi._EXPECTED_DEFAULTS, ffi.DefKind.WORLD, {"seed": 0x9E3779B97F4A7C15})
    with pytest.raises(ImportError, match="sizeof"):
        ffi.self_check()

    class shifted_material_def(ffi._Def):  # a binding that lost a field in the middle
        _kind_ = ffi.DefKind.MATERIAL
        _fields_ = [f for f in ffi.gr_material_def._fields_ if f[0] != "poisson_ratio"] + [("pad", ctypes.c_double)]

    monkeypatch.setitem(ffi.DEF_STRUCTS, ffi.DefKind.WORLD, ffi.gr_world_def)
    monkeypatch.setitem(ffi.DEF_STRUCTS, ffi.DefKind.MATERIAL, shifted_material_def)
    monkeypatch.setitem(ffi._EXPECTED_DEFAULTS, ffi.DefKind.MATERIAL, {"density": 2500.0, "restitution": 0.5})
    with pytest.raises(ImportError, match="restitution"):
        ffi.self_check()


def test_struct_sizes_match_library():
    for kind, cls in ffi.DEF_STRUCTS.items():
        assert ffi.library_def_size(kind) == ctypes.sizeof(cls), cls.__name__
    with granular.World() as w:
        assert ffi.library_counters_size(w.ptr) == ctypes.sizeof(ffi.gr_counters)
    assert ffi.self_check() == []


def test_enum_values_spot_check():
    assert granular.Status.ERROR_STALE_HANDLE == 21
    assert granular.Status.ERROR_UNSTABLE == 80
    assert granular.Field.MATERIAL == 9
    assert granular.ShapeType.SDF == 7
    assert granular.Face.NEG_Z == 32
    assert ffi.GR_ERROR_OUT_OF_MEMORY == 40
    assert ffi.GR_TYPE_U64 == 3
    assert ffi.GR_DEF_MATERIAL_PAIR == 7


# =============================================================================== defaults


def test_def_defaults():
    wd = granular.WorldDef.init()
    assert tuple(wd.gravity) == (0.0, -9.81, 0.0)
    assert wd.size == ctypes.sizeof(granular.WorldDef)
    assert wd.solver == granular.SolverKind.DEFAULT  # gr_world_def_init(def, GR_SOLVER_DEFAULT)
    assert wd.worker_count == 1
    assert wd.seed == 0x9E3779B97F4A7C15
    assert not wd.logger.func and not wd.dem
    assert granular.WorldDef.init(granular.SolverKind.DEM).solver == granular.SolverKind.DEM

    md = granular.MaterialDef.init()
    assert md.density == 2500.0
    assert (md.youngs_modulus, md.poisson_ratio, md.restitution, md.friction) == (5e6, 0.3, 0.5, 0.5)
    dem = granular.DemDef.init()
    assert dem.normal_law == granular.NormalLaw.HERTZ
    assert dem.tangential_law == granular.TangentialLaw.HISTORY
    assert dem.contact_time == 1e-3 and dem.reference_speed == 1.0
    gd = granular.GrainDef.init()
    assert gd.radius == 0.005 and tuple(gd.orientation) == (0, 0, 0, 1)
    bd = granular.BodyDef.init()
    assert bd.shape == granular.ShapeType.NONE and bd.motion == granular.MotionType.STATIC
    assert tuple(bd.normal) == (0, 1, 0) and tuple(bd.half_extents) == (0.5, 0.5, 0.5)
    fd = granular.FillDef.init()
    assert tuple(fd.max) == (0.1, 0.1, 0.1) and fd.attempts == 50 and fd.avoid_overlap == 1
    pd = granular.MaterialPairDef.init()
    assert (pd.restitution, pd.friction, pd.rolling_friction) == (0.5, 0.5, 0.0)


def test_def_init_helpers_mirror_header():
    d = ffi.gr_grain_def()
    ffi.gr_grain_def_init(d)
    assert bytes(d) == bytes(ffi.gr_grain_def.init())
    w = ffi.gr_world_def()
    ffi.gr_world_def_init(w, ffi.GR_SOLVER_DEM)
    assert w.solver == 1 and w.size == ctypes.sizeof(w)


def test_def_field_assignment_is_checked():
    with pytest.raises(AttributeError):
        granular.MaterialDef.init(densty=1000)
    md = granular.MaterialDef.init(density=1000)
    with pytest.raises(AttributeError):
        md.densty = 3
    gd = granular.GrainDef.init(position=[1, 2, 3], material=7)
    assert gd.position == (1.0, 2.0, 3.0) and gd.material.id == 7
    assert gd.to_dict()["position"] == (1.0, 2.0, 3.0)


def test_world_defaults(world):
    d, dem = world.get_def()
    assert tuple(d.gravity) == (0.0, -9.81, 0.0)
    assert d.solver == granular.SolverKind.DEM
    assert dem.normal_law == granular.NormalLaw.HERTZ
    assert world.gravity == (0.0, -9.81, 0.0)
    assert world.material_def(world.default_material)["density"] == 2500.0
    assert world.time == 0.0 and world.grain_count == 0 and len(world) == 0


def test_world_options():
    dem = granular.DemDef.init(normal_law=granular.NormalLaw.LINEAR, contact_time=2e-3)
    with granular.World(gravity=(0, 0, -9.81), substep=1e-4, seed=42, dem=dem, user_data="mine") as w:
        d, got = w.get_def()
        assert tuple(d.gravity) == (0, 0, -9.81) and d.substep == 1e-4 and d.seed == 42
        assert got.normal_law == granular.NormalLaw.LINEAR and got.contact_time == 2e-3
        assert w.user_data == "mine"
        w.gravity = (1, 2, 3)
        assert w.gravity == (1.0, 2.0, 3.0)
    with granular.World(dem={"rolling_law": granular.RollingLaw.EPSD}) as w:
        assert w.get_def()[1].rolling_law == granular.RollingLaw.EPSD


# ======================================================================= create / destroy


def test_create_destroy():
    w = granular.World()
    assert not w.closed
    w.close()
    assert w.closed
    w.close()  # idempotent
    with pytest.raises(granular.ClosedWorldError):
        w.step(0.01)
    with pytest.raises(ValueError):  # ClosedWorldError is a ValueError like closed files
        w.read("position")
    assert "closed" in repr(w)


def test_context_manager_and_gc():
    with granular.World() as w:
        w.add_grain((0, 1, 0))
    assert w.closed
    # dropped worlds are destroyed by refcounting (no reference cycle through callbacks)
    for _ in range(50):
        w = granular.World(logger=lambda level, msg: None)
        w.add_grain((0, 1, 0))
        del w
    gc.collect()


# ========================================================================= falling grains


def test_grains_fall_and_settle_above_floor(bulk):
    with granular.World() as w:
        floor, n = settled_pile(w, radius=0.002, seconds=0.6)
        assert w.grain_count == n
        pos = rows(w.read("position"))
        vel = rows(w.read("velocity"))
        assert len(pos) == n
        ys = [p[1] for p in pos]
        assert min(ys) > 0.002 * 0.9  # nothing fell through the floor
        assert max(ys) < 0.01  # the lattice (started at y >= 0.01) collapsed onto it
        assert max(math.sqrt(sum(c * c for c in v)) for v in vel) < 0.5
        # the floor carries the grains' weight
        force, torque = floor.get_force()
        assert force[1] == pytest.approx(-grain_weight(w), rel=0.05)
        assert w.time == pytest.approx(0.6)


# ============================================================================== bulk reads


@needs_numpy
@pytest.mark.parametrize(
    "field,width",
    [
        ("position", 3),
        ("velocity", 3),
        ("angular_velocity", 3),
        ("orientation", 4),
        ("radius", 1),
        ("mass", 1),
        ("force", 3),
        (granular.Field.POSITION, 3),
    ],
)
@pytest.mark.parametrize("dtype,np_dtype", [(None, "float64"), ("float64", "float64"), ("float32", "float32")])
def test_read_shapes_dtypes_numpy(field, width, dtype, np_dtype):
    with granular.World() as w:
        w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
        n = w.grain_count
        a = w.read(field, dtype)
        assert isinstance(a, np.ndarray)
        assert a.dtype == np.dtype(np_dtype)
        assert a.shape == ((n, width) if width > 1 else (n,))
        a64 = w.read(field, np.float64)
        assert np.allclose(a, a64, rtol=1e-6)


@needs_numpy
def test_read_handles_numpy(world):
    hs = world.add_grains(np.array([[0, 0, 0], [0.1, 0, 0], [0.2, 0, 0]]))
    got = world.read("handle")
    assert got.dtype == np.uint64 and got.shape == (3,)
    assert np.array_equal(got, hs)
    mats = world.read(granular.Field.MATERIAL)
    assert mats.dtype == np.uint64 and set(mats.tolist()) == {world.default_material}
    with pytest.raises(granular.InvalidArgumentError):
        world.read("handle", "float64")  # handle fields are uint64 only


def test_read_lists_without_numpy(monkeypatch):
    monkeypatch.setattr(_world, "_np", None)
    assert not granular.have_numpy()
    with granular.World() as w:
        n = w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
        for dtype in (None, "float64", "float32"):
            pos = w.read("position", dtype)
            assert isinstance(pos, list) and len(pos) == n
            assert all(isinstance(p, tuple) and len(p) == 3 for p in pos)
            q = w.read("orientation", dtype)
            assert all(len(p) == 4 for p in q)
            r = w.read("radius", dtype)
            assert all(isinstance(x, float) for x in r)
            assert r[0] == pytest.approx(0.002)
        hs = w.read("handle")
        assert all(isinstance(h, int) for h in hs) and all(w.grain_is_valid(h) for h in hs)
        pts = w.render_points()
        assert isinstance(pts, list) and len(pts) == n and len(pts[0]) == 4
        # into a caller's buffer, without copies
        buf = bytearray(8 * 3 * n)
        assert w.read("position", out=buf) is buf
        first = w.read("position", count=1)[0]
        assert tuple(ctypes.c_double.from_buffer(buf, 8 * i).value for i in range(3)) == first
        with pytest.raises(ValueError):
            w.read("position", out=bytearray(8))  # too small


def test_no_numpy_env_var(tmp_path):
    env = dict(os.environ, GRANULAR_NO_NUMPY="1", GRANULAR_LIBRARY=granular.library_path)
    code = (
        "import granular\n"
        "assert not granular.have_numpy()\n"
        "w = granular.World()\n"
        "w.add_grains([(0, 0, 0), (0.1, 0, 0)], radius=0.01)\n"
        "p = w.read('position')\n"
        "assert p == [(0.0, 0.0, 0.0), (0.1, 0.0, 0.0)], p\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], env=env, cwd=PACKAGE_ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_numpy_and_list_modes_agree(monkeypatch):
    if not HAVE_NUMPY:
        pytest.skip("numpy not available or disabled")
    with granular.World() as w:
        w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
        w.step(0.01)
        a = {f: w.read(f) for f in ("position", "velocity", "orientation", "radius", "handle")}
        pts = w.render_points()
        monkeypatch.setattr(_world, "_np", None)
        for f, arr in a.items():
            assert rows(arr) == w.read(f), f
        assert rows(pts) == w.render_points()


@needs_numpy
def test_read_into_strided_out(world):
    world.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
    n = world.grain_count
    big = np.full((n, 4), -7.0)
    res = world.read("position", out=big[:, :3])
    assert np.shares_memory(res, big)
    assert np.array_equal(big[:, :3], world.read("position"))
    assert (big[:, 3] == -7.0).all()  # the stride skipped the fourth column
    r = np.zeros(2 * n)
    world.read("radius", out=r[::2])
    assert (r[::2] == 0.002).all() and (r[1::2] == 0).all()
    f32 = np.zeros((n, 3), np.float32)
    world.read("position", np.float32, out=f32)
    assert np.allclose(f32, big[:, :3], rtol=1e-6)
    with pytest.raises(ValueError):
        world.read("position", out=np.zeros((n, 3), np.float32))  # dtype mismatch
    with pytest.raises(ValueError):
        world.read("position", out=np.zeros((n + 1, 3)))  # shape mismatch
    with pytest.raises(ValueError):
        world.read("position", out=np.zeros((3, n)).T)  # rows not contiguous


def test_read_ranges(bulk):
    with granular.World() as w:
        hs = w.add_grains([(float(i), 0.0, 0.0) for i in range(10)], radius=0.1)
        part = rows(w.read("position", first=3, count=4))
        assert part == [(float(i), 0.0, 0.0) for i in range(3, 7)]
        assert rows(w.read("handle", first=9)) == [int(hs[9])]
        assert rows(w.read("position", first=10)) == []
        with pytest.raises(granular.InvalidArgumentError):
            w.read("position", first=8, count=5)
        with pytest.raises(ValueError):
            w.read("not_a_field")
        with pytest.raises(granular.UnknownEnumError):
            w.read(99)


# ============================================================================= bulk writes


def test_write_velocities_and_read_back(bulk):
    with granular.World() as w:
        n = w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
        vel = [(0.1 * i, -0.01 * i, 1.0) for i in range(n)]
        w.write("velocity", vel)
        assert rows(w.read("velocity")) == vel
        w.write("velocity", [(5.0, 6.0, 7.0)], first=n - 1)
        assert rows(w.read("velocity", first=n - 1)) == [(5.0, 6.0, 7.0)]
        # float32 values are converted
        w.write("angular_velocity", [(0.5, 0.25, 0.125)] * n, dtype="float32")
        assert rows(w.read("angular_velocity", "float32"))[0] == (0.5, 0.25, 0.125)
        # orientations are normalised
        w.write("orientation", [(0.0, 0.0, 0.0, 2.0)] * n)
        assert rows(w.read("orientation"))[0] == (0.0, 0.0, 0.0, 1.0)


def test_write_is_checked_first(bulk):
    with granular.World() as w:
        w.add_grains([(0, 0, 0), (1, 0, 0)], radius=0.1)
        before = rows(w.read("position"))
        with pytest.raises(granular.NotFiniteError):
            w.write("position", [(2.0, 0.0, 0.0), (float("nan"), 0.0, 0.0)])
        assert rows(w.read("position")) == before  # nothing was written
        with pytest.raises(granular.InvalidArgumentError):
            w.write("orientation", [(0, 0, 0, 0), (0, 0, 0, 1)])  # a zero quaternion
        with pytest.raises(granular.InvalidArgumentError):
            w.write("radius", [(1.0,), (1.0,)])  # a read-only field
        with pytest.raises(granular.InvalidArgumentError):
            w.write("position", [(0, 0, 0)] * 3)  # beyond the grains
        with pytest.raises(ValueError):
            w.write("position", [(0, 0), (0, 0)])  # wrong width


@needs_numpy
def test_write_numpy_strided_and_f32(world):
    n = world.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
    big = np.arange(n * 4, dtype=np.float64).reshape(n, 4)
    world.write("velocity", big[:, 1:])  # strided rows, no copy
    assert np.array_equal(world.read("velocity"), big[:, 1:])
    f32 = (np.arange(n * 3, dtype=np.float32).reshape(n, 3)) / 8
    world.write("position", f32)
    assert np.array_equal(world.read("position", np.float32), f32)
    world.write("position", f32[::-1])  # negative strides are copied first
    assert np.array_equal(world.read("position", np.float32), f32[::-1])


# ================================================================================= grains


def test_add_grain_and_state(world):
    m = world.add_material(density=1000.0)
    g = world.add_grain((0, 1, 0), 0.01, velocity=(1, 0, 0), orientation=(0, 0, 0, 3), material=m)
    s = world.grain_state(g)
    assert s.position == (0.0, 1.0, 0.0) and s.velocity == (1.0, 0.0, 0.0)
    assert s.orientation == (0.0, 0.0, 0.0, 1.0)
    assert world.grain_radius(g) == 0.01
    assert world.grain_material(g) == m
    assert world.grain_index(g) == 0
    world.set_grain_state(g, velocity=(0, 2, 0))
    s2 = world.grain_state(g)
    assert s2.velocity == (0.0, 2.0, 0.0) and s2.position == s.position
    world.set_grain_state(g, s._replace(position=(3, 3, 3)))
    assert world.grain_state(g).position == (3.0, 3.0, 3.0)
    mass = rows(world.read("mass"))[0]
    assert mass == pytest.approx(1000.0 * 4 / 3 * math.pi * 0.01**3)


def test_add_grains_variants(bulk):
    with granular.World() as w:
        m = w.add_material(density=1000.0)
        pos = [(0.1 * i, 0.0, 0.0) for i in range(5)]
        hs = w.add_grains(pos, radius=[0.01, 0.02, 0.03, 0.04, 0.05], material=[m, 0, m, 0, m],
                          velocities=[(1, 2, 3)] * 5, angular_velocities=[(0, 0, 1)] * 5,
                          orientations=[(0, 0, 0, 1)] * 5)
        assert len(hs) == 5 and all(w.grain_is_valid(h) for h in hs)
        assert rows(w.read("radius")) == [0.01, 0.02, 0.03, 0.04, 0.05]
        assert rows(w.read("material")) == [m, w.default_material, m, w.default_material, m]
        assert rows(w.read("velocity")) == [(1.0, 2.0, 3.0)] * 5
        hs2 = w.add_grains([(0.0, 1.0, 0.0)], radius=0.02, material=m)
        assert w.grain_radius(hs2[0]) == 0.02 and w.grain_material(hs2[0]) == m
        assert len(w.add_grains([])) == 0
        # all or nothing
        with pytest.raises(granular.InvalidArgumentError) as exc:
            w.add_grains([(0, 0, 0), (1, 0, 0)], radius=[0.01, -1.0])
        assert "defs[1]" in str(exc.value)
        assert w.grain_count == 6
        with pytest.raises(ValueError):
            w.add_grains([(0, 0, 0), (1, 0, 0)], radius=[0.01, 0.01, 0.01])


def test_fill_box_options(bulk):
    with granular.World() as w:
        hs = w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002, return_handles=True)
        assert len(hs) == w.grain_count > 0
        assert rows(hs) == rows(w.read("handle"))
        added = w.fill_box((0, 0.05, 0), (0.02, 0.07, 0.02), radius=0.001, radius_max=0.002, pattern="random",
                           max_count=20, seed=7, velocity=(0, -1, 0))
        assert added == 20
        hs2 = w.fill_box((0.1, 0, 0), (0.12, 0.02, 0.02), radius=0.002, return_handles=True)
        assert rows(hs2) == rows(w.read("handle", first=len(hs) + 20))
        with pytest.raises(granular.InvalidArgumentError):
            w.fill_box((0, 0, 0), (-1, 1, 1))
        with pytest.raises(ValueError):
            w.fill_box((0, 0, 0), (1, 1, 1), pattern="hexagonal")


def test_remove_grain_makes_handle_stale(bulk):
    with granular.World() as w:
        hs = w.add_grains([(0, 0, 0), (1, 0, 0), (2, 0, 0)], radius=0.1)
        w.remove_grain(hs[0])
        assert not w.grain_is_valid(hs[0])
        assert w.grain_count == 2
        # the last grain took the removed one's index
        assert rows(w.read("handle")) == [int(hs[2]), int(hs[1])]
        with pytest.raises(granular.StaleHandleError) as exc:
            w.grain_state(hs[0])
        err = exc.value
        assert err.status == granular.Status.ERROR_STALE_HANDLE
        assert isinstance(err, granular.HandleError) and isinstance(err, LookupError)
        assert isinstance(err, granular.GranularError) and granular.StaleHandle is granular.StaleHandleError
        assert "stale" in err.message and err.message == w.last_error
        with pytest.raises(granular.StaleHandleError):
            w.remove_grain(hs[0])
        # all or nothing
        with pytest.raises(granular.InvalidArgumentError):
            w.remove_grains([hs[1], hs[1]])
        with pytest.raises(granular.StaleHandleError):
            w.remove_grains([hs[1], hs[0]])
        assert w.grain_count == 2
        w.remove_grains([hs[1], hs[2]])
        assert w.grain_count == 0
        with pytest.raises(granular.InvalidHandleError):
            w.grain_state(0)


def test_handles_of_another_world():
    with granular.World() as a, granular.World() as b:
        ga = a.add_grain((0, 0, 0))
        b.add_grain((0, 0, 0))
        with pytest.raises(granular.WrongWorldError):
            b.grain_state(ga)
        assert not b.grain_is_valid(ga)
        assert not b.grain_is_valid(-1)


def test_bad_inputs_raise_with_status(world):
    with pytest.raises(granular.NotFiniteError) as exc:
        world.add_grain((0, 0, 0), radius=float("nan"))
    assert exc.value.status == granular.Status.ERROR_NOT_FINITE
    assert "def.radius" in exc.value.message
    with pytest.raises(granular.InvalidArgumentError) as exc:
        world.add_grain((0, 0, 0), radius=0.0)
    assert exc.value.status == granular.Status.ERROR_INVALID_ARGUMENT
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, granular.ArgumentError)
    with pytest.raises(granular.NotFiniteError):
        world.add_grain((0, float("inf"), 0))
    with pytest.raises(granular.InvalidArgumentError) as exc:
        granular.World(solver=granular.SolverKind.CONTINUUM, continuum={"cell_size": 0.0})
    assert exc.value.status == granular.Status.ERROR_INVALID_ARGUMENT
    assert "cell_size" in exc.value.message  # the creation message reaches the exception
    with pytest.raises(granular.UnknownEnumError):
        granular.World(solver=17)
    with pytest.raises(granular.TooManyError):
        granular.World(worker_count=granular.GR_MAX_WORKERS + 1)
    with pytest.raises(granular.InvalidArgumentError):
        world.step(0.0)
    with pytest.raises(granular.InvalidArgumentError):
        world.add_material(density=-1)
    with pytest.raises(granular.NullArgumentError):
        world.add_body("mesh")  # no vertices
    with pytest.raises(granular.InvalidArgumentError):
        world.add_body("none")
    with pytest.raises(granular.InvalidHandleError):
        world.add_grain((0, 0, 0), material=world.default_material + 50)  # never issued
    with pytest.raises(granular.InvalidHandleError):
        world.add_grain((0, 0, 0), material=12345)  # no tag bits: not a handle
    with pytest.raises(granular.WrongWorldError):
        world.add_grain((0, 0, 0), material=granular.World().default_material)  # another world's
    with pytest.raises(ValueError):
        world.add_grain((0, 0))
    message = world.last_error  # the last failure's message
    assert message
    world.step(0.001)
    assert world.last_error == message  # kept through successful calls


def test_error_classes():
    assert granular.errors.error_class(21) is granular.StaleHandleError
    assert granular.errors.error_class(23) is granular.HandleError  # a future code of the family
    assert granular.errors.error_class(1000) is granular.GranularError
    e = granular.GranularError(61, "boom")
    assert isinstance(e.status, granular.Status) and str(e) == "boom [GR_ERROR_CORRUPT_DATA]"
    assert granular.GranularError(61).message == granular.status_string(61)
    e2 = pickle.loads(pickle.dumps(granular.StaleHandleError(21, "gone")))
    assert type(e2) is granular.StaleHandleError and e2.message == "gone"


# ============================================================================== snapshots


def test_save_load_bit_identical(bulk):
    with granular.World() as a:
        settled_pile(a, seconds=0.05)
        a.add_body("box", motion="kinematic", position=(0.2, 0.01, 0.0), half_extents=(0.01, 0.01, 0.01),
                   linear_velocity=(-0.1, 0.0, 0.0))
        m = a.add_material(density=1200.0, friction=0.3)
        a.add_grains([(0.015, 0.05, 0.015)], radius=0.003, material=m)
        data = a.save()
        assert isinstance(data, bytes) and data[:8] == b"GRANULAR"
        with granular.World.from_snapshot(data) as b:
            assert b.grain_count == a.grain_count and b.time == a.time
            memory = ("bytes_in_use", "bytes_peak", "allocation_count")  # per world, not state
            ca, cb = a.counters(), b.counters()
            assert {k: v for k, v in ca.items() if k not in memory} == {k: v for k, v in cb.items() if k not in memory}
            for _ in range(5):
                a.step(0.004)
                b.step(0.004)
            pa, pb = a.read("position"), b.read("position")
            if HAVE_NUMPY and bulk == "numpy":
                assert pa.tobytes() == pb.tobytes()
            else:
                assert pa == pb
            assert rows(a.read("velocity")) == rows(b.read("velocity"))
            assert a.save() == b.save()  # the whole state agrees, bit for bit


def test_save_load_streams(world, tmp_path):
    world.add_grains([(0, 0.1, 0), (0.1, 0.1, 0)], radius=0.01)
    buf = io.BytesIO()
    n = world.save(buf)
    assert n == len(buf.getvalue()) == len(world.save())
    path = tmp_path / "snap.bin"
    with open(path, "wb") as f:
        world.save(f)
    with granular.World() as other, open(path, "rb") as f:
        other.load(f)
        assert rows(other.read("position")) == rows(world.read("position"))
    with granular.World() as other:
        other.load(bytearray(buf.getvalue()))
        other.load(memoryview(buf.getvalue()))
        assert other.grain_count == 2


def test_load_errors_leave_world_unchanged(world):
    world.add_grain((0, 0.1, 0), 0.01)
    data = world.save()
    with granular.World() as other:
        g = other.add_grain((1, 1, 1), 0.02)
        with pytest.raises(granular.CorruptDataError):
            other.load(data[: len(data) // 2])
        corrupt = bytearray(data)
        corrupt[len(corrupt) // 2] ^= 0xFF
        with pytest.raises(granular.CorruptDataError):
            other.load(bytes(corrupt))
        with pytest.raises(granular.CorruptDataError):
            other.load(b"not a snapshot at all, definitely not" * 2)
        assert isinstance(granular.CorruptDataError(61), granular.SnapshotError)
        assert other.grain_count == 1 and other.grain_is_valid(g)


def test_stream_callback_errors_are_chained(world):
    world.add_grain((0, 0.1, 0), 0.01)

    class Broken(io.RawIOBase):
        def write(self, b):
            raise OSError("disk full")

        def read(self, n=-1):
            raise OSError("unreadable")

    with pytest.raises(granular.SnapshotIOError) as exc:
        world.save(Broken())
    assert isinstance(exc.value.__cause__, OSError)
    with pytest.raises(granular.CorruptDataError) as exc:
        world.load(Broken())
    assert isinstance(exc.value.__cause__, OSError)


def test_pickle_roundtrip(world):
    world.add_grains([(0, 0.1, 0), (0.1, 0.1, 0)], radius=0.01)
    world.step(0.01)
    clone = pickle.loads(pickle.dumps(world))
    try:
        assert clone.save() == world.save()
    finally:
        clone.close()


# =============================================================================== rendering


def test_render_points(bulk):
    with granular.World() as w:
        n = w.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
        assert w.render_point_count == n
        pts = w.render_points()
        if bulk == "numpy":
            assert pts.shape == (n, 4) and pts.dtype == np.float32
        pts = rows(pts)
        assert len(pts) == n and all(len(p) == 4 for p in pts)
        assert all(p[3] == pytest.approx(0.002) for p in pts)
        pos = rows(w.read("position", "float32"))
        assert [p[:3] for p in pts] == pos
        assert len(rows(w.render_points(first=n - 2))) == 2


@needs_numpy
def test_render_points_into_interleaved_buffer(world):
    n = world.fill_box((0, 0, 0), (0.02, 0.02, 0.02), radius=0.002)
    vertex = np.zeros((n, 8), np.float32)  # e.g. xyzr + colour
    world.render_points(out=vertex[:, :4])
    assert np.array_equal(vertex[:, :4], world.render_points())
    assert (vertex[:, 4:] == 0).all()


# ================================================================================ counters


def test_counters(world):
    c = world.counters()
    assert c["grain_count"] == 0 and c["step_count"] == 0 and c["material_count"] == 1
    world.add_plane()
    world.add_material()
    n = world.fill_box((0, 0.005, 0), (0.02, 0.02, 0.02), radius=0.002)
    world.step(0.01)
    world.step(0.01)
    c = world.counters()
    expected = {f[0] for f in ffi.gr_counters._fields_} - {"size"}
    assert set(c) == expected
    assert c["grain_count"] == n and c["body_count"] == 1 and c["material_count"] == 2
    assert c["step_count"] == 2 and c["substep_count"] >= 2
    assert c["time"] == pytest.approx(0.02) and c["last_substep"] > 0
    assert c["bytes_in_use"] > 0 and c["bytes_peak"] >= c["bytes_in_use"] and c["allocation_count"] > 0
    assert world.substep > 0


def test_world_bounds_remove_escaped_grains(bulk):
    with granular.World(bounds=((-1, -0.5, -1), (1, 2, 1))) as w:
        assert w.bounds == ((-1.0, -0.5, -1.0), (1.0, 2.0, 1.0))
        inside = w.add_grain((0, 1, 0), 0.01)
        falling = w.add_grain((0.5, -0.45, 0), 0.01, velocity=(0, -1, 0))
        w.step(0.1)
        assert w.grain_is_valid(inside) and not w.grain_is_valid(falling)
        assert w.grain_count == 1 and w.counters()["grains_removed"] == 1
        with pytest.raises(granular.StaleHandleError):
            w.grain_state(falling)
        # the bounds are part of the snapshot
        with granular.World.from_snapshot(w.save()) as b:
            assert b.bounds == w.bounds and b.counters()["grains_removed"] == 1
    with granular.World() as w:
        assert w.bounds is None
    with pytest.raises(granular.InvalidArgumentError):
        granular.World(bounds=((0, 0, 0), (1, -1, 1)))
    with pytest.raises(granular.NotFiniteError):
        granular.World(bounds=((0, 0, 0), (1, math.inf, 1)))


# ================================================================================== bodies


def test_kinematic_body_moves_with_its_velocity(world):
    box = world.add_body("box", motion=granular.MotionType.KINEMATIC, position=(0, 1, 0),
                         half_extents=(0.1, 0.1, 0.1), linear_velocity=(0.5, 0, 0))
    assert box.is_valid and box.get_velocity() == ((0.5, 0.0, 0.0), (0.0, 0.0, 0.0))
    world.step(0.2)
    pos, quat = box.get_pose()
    assert pos[0] == pytest.approx(0.1) and pos[1] == pytest.approx(1.0) and pos[2] == 0
    assert quat == pytest.approx((0, 0, 0, 1))
    box.set_velocity((0, -1, 0), (0, 0, 0))
    world.step(0.1)
    assert box.position == pytest.approx((0.1, 0.9, 0.0))
    box.set_velocity(angular=(0, math.pi, 0))
    world.step(0.5)
    _, q = box.get_pose()
    assert abs(q[1]) == pytest.approx(math.sqrt(0.5), rel=1e-3)  # a quarter turn about y
    box.set_pose((1, 2, 3))
    assert box.get_pose() == ((1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 1.0))


def test_body_errors_and_user_data(world):
    floor = world.add_plane(user_data={"name": "floor"})
    assert floor.user_data == {"name": "floor"}
    with pytest.raises(granular.InvalidArgumentError):
        floor.set_velocity((1, 0, 0))  # static bodies take no velocity
    with pytest.raises(granular.InvalidArgumentError):
        world.add_body("sphere", position=(0, 0, 0), linear_velocity=(1, 0, 0))
    with pytest.raises(granular.InvalidArgumentError):
        world.add_body("plane", motion="dynamic")  # no finite mass
    with pytest.raises(granular.InvalidArgumentError):
        world.add_body("box", motion="host")  # the world has no host hooks
    with pytest.raises(granular.UnsupportedError):
        world.add_body("sdf")
    with pytest.raises(ValueError):
        world.add_body("torus")
    same = world.body(floor.id)
    assert same == floor and hash(same) == hash(floor) and same.user_data == {"name": "floor"}
    floor.remove()
    assert not floor.is_valid and floor.user_data is None
    with pytest.raises(granular.StaleHandleError):
        floor.get_pose()


def test_body_shapes_and_container_holds_grains(world):
    world.add_sphere((1, 0, 0), 0.1)
    world.add_capsule((2, 0, 0), 0.1, 0.2)
    world.add_box((3, 0, 0), (0.1, 0.1, 0.1))
    box = world.add_container((0, 0.05, 0), (0.02, 0.05, 0.02), open_faces=granular.Face.POS_Y)
    n = world.fill_box((-0.018, 0.002, -0.018), (0.018, 0.05, 0.018), radius=0.002)
    assert n > 0
    world.step(0.3)
    pos = rows(world.read("position"))
    assert all(abs(p[0]) < 0.02 and abs(p[2]) < 0.02 and p[1] > 0 for p in pos)
    force, _ = box.get_force()
    assert force[1] < 0  # the container carries (part of) the grains' weight
    assert world.counters()["body_count"] == 4


CUBE = (
    [(x, y, z) for z in (-0.05, 0.05) for y in (-0.05, 0.05) for x in (-0.05, 0.05)],
    [(0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5), (0, 1, 5), (0, 5, 4),
     (2, 6, 7), (2, 7, 3), (0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6)],
)


def test_dynamic_mesh_body_rests_on_floor(world):
    world.add_plane()
    cube = world.add_mesh(*CUBE, position=(0, 0.2, 0), motion="dynamic", particle_radius=0.01)
    assert cube.mass == pytest.approx(2500 * 0.001)  # the default material's density
    assert 100 < cube.particle_count < 200
    parts = cube.read_particles()
    assert len(parts) == cube.particle_count and all(p[3] == pytest.approx(0.01) for p in parts)
    world.step(1.0)
    pos, _ = cube.get_pose()
    assert pos[1] == pytest.approx(0.06, abs=0.003)  # on its particles' radius
    force, _ = cube.get_force()
    assert force[1] == pytest.approx(cube.mass * 9.81, rel=0.02)
    with pytest.raises(granular.InvalidArgumentError):
        world.add_mesh(CUBE[0], CUBE[1][:-1])  # not closed


def test_host_owned_body_through_callbacks():
    class Host:
        def __init__(self):
            self.x, self.v, self.mass, self.impulses = [0.0, 0.3, 0.0], [0.0, 0.0, 0.0], None, 0

        def get_state(self, body):
            return tuple(self.x), (0, 0, 0, 1), tuple(self.v), (0, 0, 0)

        def apply_impulse(self, body, impulse, angular):
            dt = 1 / 120
            self.v = [self.v[k] + impulse[k] / self.mass + (-9.81 * dt if k == 1 else 0) for k in range(3)]
            self.x = [self.x[k] + self.v[k] * dt for k in range(3)]
            self.impulses += 1

    host = Host()
    with granular.World(host=host) as w:
        w.add_plane()
        crate = w.add_box((0, 0.3, 0), (0.05, 0.05, 0.05), motion="host", particle_radius=0.01)
        host.mass = crate.mass
        for _ in range(120):
            w.step(1 / 120)
        assert w.host_error is None and host.impulses == 120
        assert host.x[1] == pytest.approx(0.06, abs=0.003)  # resting on the floor
        with pytest.raises(granular.InvalidArgumentError):
            crate.set_pose((0, 1, 0))


def test_rkf45_integrator_free_fall():
    with granular.World(dem={"integrator": granular.Integrator.RKF45, "rkf_tolerance": 1e-4}) as w:
        g = w.add_grain(position=(0, 5, 0), velocity=(1, 0, 0), radius=0.01)
        w.step(1.0)
        s = w.grain_state(g)
        assert s.position[0] == pytest.approx(1.0, abs=1e-12)
        assert s.position[1] == pytest.approx(5 - 0.5 * 9.81, abs=1e-12)


def test_pbd_solver_grain_rests_on_plane():
    pbd = {"iterations": 6, "sleep_threshold": 0.0}
    with granular.World(solver=granular.SolverKind.PBD, pbd=pbd) as w:
        assert w.get_pbd_def().iterations == 6
        assert w.get_solver_def(granular.DefKind.PBD).iterations == 6
        assert w.get_solver_def("dem").contact_time == 1e-3  # another solver's: its defaults
        w.add_plane()
        g = w.add_grain(position=(0, 0.01, 0), radius=0.01)
        w.step(0.5)
        s = w.grain_state(g)
        assert s.position[1] == pytest.approx(0.01, abs=1e-9)
        assert abs(s.velocity[1]) < 1e-9
    with pytest.raises(granular.InvalidArgumentError):
        granular.World(solver=granular.SolverKind.PBD, pbd={"relaxation": 3.0})


def test_pbd_upsampling_render_points():
    with granular.World(solver=granular.SolverKind.PBD, pbd={"hr_radius": 0.003}, gravity=(0, 0, 0)) as w:
        for i in range(3):
            w.add_grain(position=(0.02 * i, 0.0, 0.0), radius=0.01)
        w.step(1e-4)
        n = w.render_point_count
        assert n > 30
        pts = w.render_points()
        assert len(pts) == n


# ================================================================================= materials


def test_materials(world):
    m = world.add_material(density=1000.0, friction=0.2, restitution=0.9)
    d = world.material_def(m)
    assert d["density"] == 1000.0 and d["friction"] == 0.2 and d["restitution"] == 0.9
    world.set_material_pair(m, world.default_material, restitution=0.7, friction=0.1)
    with pytest.raises(granular.InvalidArgumentError):
        world.set_material_pair(m, m, restitution=2.0)
    with pytest.raises(granular.InvalidHandleError):
        world.material_def(m + 1)


def test_material_presets(world):
    sand = world.material_def(world.add_material(preset=granular.MaterialPreset.DRY_SAND))
    beads = world.material_def(world.add_material(preset=granular.MaterialPreset.GLASS_BEADS, density=2400.0))
    # a preset leaves each solver's coefficients to be derived from friction and rolling_friction
    assert sand["static_friction"] == granular.ffi.MATERIAL_DERIVED
    assert sand["rolling_friction"] > beads["rolling_friction"]
    assert beads["density"] == 2400.0 and beads["restitution"] > sand["restitution"]
    with pytest.raises(ValueError):
        world.add_material(preset=99)
    # what the solvers take: derived in order of steepness, given fields kept
    d_sand = granular.World.derive_material(preset=granular.MaterialPreset.DRY_SAND)
    d_beads = granular.World.derive_material(preset=granular.MaterialPreset.GLASS_BEADS)
    assert d_sand["static_friction"] > d_beads["static_friction"] > 0
    assert d_sand["continuum_friction"] > d_beads["continuum_friction"] > 0
    assert granular.World.derive_material(friction=0.5, kinetic_friction=0.4)["kinetic_friction"] == 0.4
    with pytest.raises(granular.GranularError):
        granular.World.derive_material(friction=-1.0)


# ======================================================================= hooks and threads


def test_logger_receives_errors():
    messages = []
    with granular.World(logger=lambda level, msg: messages.append((level, msg))) as w:
        with pytest.raises(granular.InvalidArgumentError):
            w.add_grain((0, 0, 0), radius=-1.0)
    assert messages and messages[-1][0] == granular.LogLevel.ERROR
    assert "def.radius" in messages[-1][1]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_logger_exceptions_do_not_propagate_into_c():
    def bad_logger(level, msg):
        raise RuntimeError("logger bug")

    with granular.World(logger=bad_logger) as w:
        with pytest.raises(granular.InvalidArgumentError):
            w.add_grain((0, 0, 0), radius=-1.0)
        w.add_grain((0, 0, 0))


def test_executor_task_hooks_match_serial_run():
    calls = []

    class CountingExecutor(concurrent.futures.ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            calls.append(threading.get_ident())
            return super().submit(fn, *args, **kwargs)

    with CountingExecutor(max_workers=4) as ex:
        with granular.World(worker_count=4, executor=ex) as wp, granular.World() as ws:
            for w in (wp, ws):
                settled_pile(w, seconds=0.02)
            assert calls, "the library used the executor"
            assert rows(wp.read("position")) == rows(ws.read("position"))


def test_builtin_worker_threads_match_serial_run():
    with granular.World(worker_count=3) as wp, granular.World() as ws:
        for w in (wp, ws):
            settled_pile(w, seconds=0.02)
        assert rows(wp.read("position")) == rows(ws.read("position"))


def test_low_level_calls(world):
    lib = ffi.lib
    assert lib.gr_step(world.ptr, 0.01) == ffi.GR_OK
    d = ffi.gr_grain_def.init(radius=0.01, position=(0, 1, 0))
    g = ffi.gr_grain()
    assert lib.gr_add_grain(world.ptr, ctypes.byref(d), ctypes.byref(g)) == ffi.GR_OK
    assert lib.gr_grain_is_valid(world.ptr, g) == 1
    st = ffi.gr_grain_state()
    assert lib.gr_grain_get_state(world.ptr, g, ctypes.byref(st)) == ffi.GR_OK
    assert st.position == (0.0, 1.0, 0.0)
    assert lib.gr_def_set_defaults(99, ctypes.byref(d)) == ffi.GR_ERROR_UNKNOWN_ENUM
    bad = ffi.gr_grain_def()  # size 0: not initialised
    assert lib.gr_add_grain(world.ptr, ctypes.byref(bad), None) == ffi.GR_ERROR_STRUCT_SIZE
    assert "size" in world.last_error
    assert lib.gr_world_get_grain_count(None) == 0
    assert lib.gr_step(None, 0.1) == ffi.GR_ERROR_NULL_ARGUMENT
    assert set(ffi.FUNCTIONS) <= set(dir(lib)) | set(ffi.FUNCTIONS)


# ========================================================= struct layout against the C headers


def _compiler():
    for cand in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cand and shutil.which(cand.split()[0]):
            return cand.split()
    return None


def _version_header_dir(tmp_path):
    """The directory of the generated gr_version.h (meson passes it; else next to the
    library's build tree; else write one matching the loaded library)."""
    candidates = [os.environ.get("GRANULAR_BUILD_INCLUDE")]
    lib_dir = Path(granular.library_path).resolve().parent
    candidates += [str(lib_dir.parent / "include" / "granular"), str(REPO_ROOT / "build" / "include" / "granular")]
    for c in candidates:
        if c and (Path(c) / "gr_version.h").is_file():
            return c
    major, minor, patch = granular.get_version_tuple()
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "gr_version.h").write_text(
        f"#define GR_VERSION_MAJOR {major}\n#define GR_VERSION_MINOR {minor}\n#define GR_VERSION_PATCH {patch}\n"
        "#define GR_VERSION_NUMBER (GR_VERSION_MAJOR * 10000 + GR_VERSION_MINOR * 100 + GR_VERSION_PATCH)\n"
        f'#define GR_VERSION_STRING "{major}.{minor}.{patch}"\n'
    )
    return str(gen)


def _c_layout_program() -> str:
    lines = [
        "#include <stdio.h>",
        "#include <stddef.h>",
        '#include "granular/granular.h"',
        "#ifdef WITH_LIB",
        "static void dump(const char *name, const void *p, size_t n)",
        "{",
        "    const unsigned char *b = (const unsigned char *)p;",
        '    printf("bytes %s ", name);',
        "    for (size_t i = 0; i < n; i++)",
        '        printf("%02x", b[i]);',
        '    printf("\\n");',
        "}",
        "#endif",
        "int main(void) {",
    ]
    for name, cls in ffi.STRUCTS.items():
        lines.append(f'    printf("sizeof {name} %zu\\n", sizeof({name}));')
        lines.append(f'    printf("alignof {name} %zu\\n", _Alignof({name}));')
        for field in cls._types_:
            lines.append(f'    printf("offsetof {name}.{field} %zu\\n", offsetof({name}, {field}));')
            lines.append(f'    printf("fieldsize {name}.{field} %zu\\n", sizeof((({name} *)0)->{field}));')
    for enum_type in ("gr_status", "gr_log_level", "gr_solver_kind", "gr_normal_law", "gr_tangential_law",
                      "gr_rolling_law", "gr_integrator", "gr_shape_type", "gr_motion_type", "gr_grain_shape",
                      "gr_fill_pattern", "gr_field", "gr_scalar_type", "gr_def_kind"):
        lines.append(f'    printf("sizeof {enum_type} %zu\\n", sizeof({enum_type}));')
    for cname in ffi.c_enum_constants():
        lines.append(f'    printf("const {cname} %lld\\n", (long long){cname});')
    for cname in ("GR_MAX_GRAINS", "GR_MAX_BODIES", "GR_MAX_MATERIALS", "GR_MAX_WORKERS", "GR_VERSION_MAJOR",
                  "GR_VERSION_NUMBER"):
        lines.append(f'    printf("const {cname} %lld\\n", (long long){cname});')
    lines += [
        '#ifdef WITH_LIB',
        "    { gr_world_def d; gr_world_def_init(&d, GR_SOLVER_DEFAULT); dump(\"gr_world_def\", &d, sizeof d); }",
        "    { gr_world_def d; gr_world_def_init(&d, GR_SOLVER_DEM); dump(\"gr_world_def_dem\", &d, sizeof d); }",
        "    { gr_dem_def d; gr_dem_def_init(&d); dump(\"gr_dem_def\", &d, sizeof d); }",
        "    { gr_pbd_def d; gr_pbd_def_init(&d); dump(\"gr_pbd_def\", &d, sizeof d); }",
        "    { gr_continuum_def d; gr_continuum_def_init(&d); dump(\"gr_continuum_def\", &d, sizeof d); }",
        "    { gr_material_def d; gr_material_def_init(&d); dump(\"gr_material_def\", &d, sizeof d); }",
        "    { gr_material_pair_def d; gr_material_pair_def_init(&d); dump(\"gr_material_pair_def\", &d, sizeof d); }",
        "    { gr_grain_def d; gr_grain_def_init(&d); dump(\"gr_grain_def\", &d, sizeof d); }",
        "    { gr_body_def d; gr_body_def_init(&d); dump(\"gr_body_def\", &d, sizeof d); }",
        "    { gr_fill_def d; gr_fill_def_init(&d); dump(\"gr_fill_def\", &d, sizeof d); }",
        "    { gr_clump_def d; gr_clump_def_init(&d); dump(\"gr_clump_def\", &d, sizeof d); }",
        '    printf("const check_version %d\\n", (int)gr_check_version());',
        "#endif",
        "    return 0;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _ctypes_alignment(t):
    return ctypes.alignment(t)


def test_struct_layout_matches_c_headers(tmp_path):
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler found")
    src = tmp_path / "layout.c"
    src.write_text(_c_layout_program())
    exe = tmp_path / "layout"
    incs = ["-I", str(REPO_ROOT / "include"), "-I", str(REPO_ROOT / "include" / "granular"),
            "-I", _version_header_dir(tmp_path)]
    lib_path = Path(granular.library_path).resolve()
    env = dict(os.environ)
    cmd = cc + ["-std=c11", "-Wall", "-Werror", "-DWITH_LIB", *incs, str(src), "-o", str(exe), str(lib_path)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    with_lib = res.returncode == 0
    if not with_lib:  # no linkable library (e.g. another platform): the layout alone
        cmd = cc + ["-std=c11", "-Wall", "-Werror", *incs, str(src), "-o", str(exe)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"compiling the layout probe failed:\n{res.stderr}"
    env["LD_LIBRARY_PATH"] = str(lib_path.parent) + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, check=True).stdout

    c = {}
    dumps = {}
    for line in out.splitlines():
        kind, key, value = line.split(" ", 2)
        if kind == "bytes":
            dumps[key] = bytes.fromhex(value)
        else:
            c[(kind, key)] = int(value)

    for name, cls in ffi.STRUCTS.items():
        assert c[("sizeof", name)] == ctypes.sizeof(cls), name
        assert c[("alignof", name)] == _ctypes_alignment(cls), name
        for field, ftype in cls._types_.items():
            assert c[("offsetof", f"{name}.{field}")] == getattr(cls, field).offset, f"{name}.{field}"
            assert c[("fieldsize", f"{name}.{field}")] == ctypes.sizeof(ftype), f"{name}.{field}"
        # field for field, in order: offsets increase with the _fields_ order
        offsets = [getattr(cls, f[0]).offset for f in cls._fields_]
        assert offsets == sorted(offsets)
    for key, value in c.items():
        if key[0] == "sizeof" and key[1] not in ffi.STRUCTS:
            assert value == 4, f"enum {key[1]} is not 32-bit"
    for cname, value in ffi.c_enum_constants().items():
        assert c[("const", cname)] == value, cname
    assert c[("const", "GR_MAX_GRAINS")] == granular.GR_MAX_GRAINS
    assert c[("const", "GR_MAX_BODIES")] == granular.GR_MAX_BODIES
    assert c[("const", "GR_MAX_MATERIALS")] == granular.GR_MAX_MATERIALS
    assert c[("const", "GR_MAX_WORKERS")] == granular.GR_MAX_WORKERS
    assert c[("const", "GR_VERSION_MAJOR")] == granular.BINDING_VERSION[0]
    assert c[("const", "GR_VERSION_NUMBER")] == granular.get_version()

    if with_lib:
        # the header-inline initialisers and the Python ones give the same bytes
        assert c[("const", "check_version")] == 0
        assert dumps["gr_world_def"] == bytes(ffi.gr_world_def.init())
        assert dumps["gr_world_def_dem"] == bytes(ffi.gr_world_def.init(granular.SolverKind.DEM))
        for kind, cls in ffi.DEF_STRUCTS.items():
            if cls is not ffi.gr_world_def:
                assert dumps[cls.__name__] == bytes(cls.init()), cls.__name__


def test_clump_grains(tmp_path):
    """Tetrahedra from the built-in shapes and a template of our own fall and rest on a floor."""
    with granular.World() as w:
        w.add_plane()
        w.fill_box((-0.02, 0.0, -0.02), (0.02, 0.04, 0.02), radius=0.004, shape="tetrahedron", max_count=40)
        handle = w.add_clump_template([(0, 0, 0), (0.01, 0, 0)], [0.006, 0.004])
        w.add_grain((0.0, 0.08, 0.0), 0.005, clump=handle)
        w.step(1.0)
        assert w.grain_count == 41
        assert w.render_point_count == 40 * 4 + 2
        pos = w.read("position")
        assert min(p[1] for p in pos) > 0.0


# ============================================================================ mesh fills
def _box_mesh(lo, hi):
    v = [(hi[0] if k & 1 else lo[0], hi[1] if k & 2 else lo[1], hi[2] if k & 4 else lo[2]) for k in range(8)]
    t = [(0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5), (0, 1, 5), (0, 5, 4),
         (2, 6, 7), (2, 7, 3), (0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6)]
    return v, t


def test_fill_mesh_poisson(world):
    lo, hi = (0, 0, 0), (0.03, 0.02, 0.02)
    handles = world.fill_mesh(_box_mesh(lo, hi), radius=0.002, pattern="poisson", return_handles=True)
    assert len(handles) > 50
    pos = rows(world.read("position"))
    for p in pos:
        for a in range(3):
            assert lo[a] + 0.002 - 1e-12 <= p[a] <= hi[a] - 0.002 + 1e-12


def test_fill_mesh_refuses_open_mesh(world):
    v, t = _box_mesh((0, 0, 0), (0.02, 0.02, 0.02))
    with pytest.raises(granular.GranularError, match="not closed"):
        world.fill_mesh((v, t[:-1]), radius=0.002)
    with pytest.raises(ValueError):
        world.fill_mesh((v, [(0, 1)]), radius=0.002)
    assert world.grain_count == 0


def test_body_user_data_setter():
    with granular.World() as w:
        b = w.add_plane((0, 0, 0), user_data="floor")
        assert b.user_data == "floor"
        b.user_data = {"name": "ground"}
        assert b.user_data == {"name": "ground"}
        b.user_data = None
        assert b.user_data is None
        b.remove()
        with pytest.raises(granular.StaleHandleError):
            b.user_data = 1


def test_systems_of_a_world():
    with granular.World() as w:
        assert w.system_count == 1
        assert w.system_solver(0) == granular.SolverKind.DEM
        g = w.add_grain(position=(0, 1, 0), radius=0.01)
        assert w.grain_system(g) == 0
        # a second body-moving system, and a pair this build does not couple: refused
        with pytest.raises(granular.UnsupportedError):
            w.add_system(granular.SolverKind.PBD)
        assert w.system_count == 1
        with pytest.raises(granular.InvalidArgumentError):
            w.add_grain(position=(0, 1, 0), radius=0.01, system=1)
        with pytest.raises(granular.InvalidArgumentError):
            w.add_grains([(0, 1, 0), (0, 2, 0)], 0.01, system=1)
        with pytest.raises(granular.InvalidArgumentError):
            w.fill_box((0, 0, 0), (0.05, 0.05, 0.05), 0.005, system=2)
        assert w.grain_count == 1
        with pytest.raises(granular.InvalidArgumentError):
            w.system_solver(1)
