# SPDX-License-Identifier: MIT
"""Low-level ctypes mirror of the granular C API (``granular.h``, ``gr_types.h``, ``gr_base.h``).

Everything here follows the C headers one to one:

* the structs are :class:`ctypes.Structure` subclasses with the C names (``gr_vec3``,
  ``gr_world_def``...), field for field and in order; C enums are ``ctypes.c_uint32`` fields;
* the enums are :class:`enum.IntEnum` classes with the exact C values (``Status.ERROR_STALE_HANDLE``
  is ``GR_ERROR_STALE_HANDLE`` = 21); every C enumerator is also a module constant with its C
  name (``GR_FIELD_POSITION``). The ``*_FORCE_U32`` sentinels only fix the enums' width and
  are not mirrored;
* every exported function is an attribute of :data:`lib` with ``argtypes``/``restype`` set;
* the header-inline def initialisers are mirrored by ``gr_world_def_init(def_, solver)``,
  ``gr_dem_def_init(def_)``... and by the ``init(**fields)`` class method of each def struct.

Library search order (first that loads wins):

1. the environment variable ``GRANULAR_LIBRARY`` (full path of the shared library; when it is
   set, nothing else is tried);
2. the meson build tree of the source checkout this package lives in:
   ``<repo>/build/lib/``, then ``<repo>/build-*/lib/`` (sorted; sanitizer builds are skipped
   because their runtime must be preloaded -- point ``GRANULAR_LIBRARY`` at one explicitly);
3. :func:`ctypes.util.find_library` ``('granular')`` (an installed library).

At import the module checks that the library's major version is the one this binding was
written for (``BINDING_VERSION``) and that the library agrees with the ctypes mirror on the
size and the default values of every def struct (see :func:`self_check`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import enum
import os
import sys
import warnings
from ctypes import (
    CFUNCTYPE,
    POINTER,
    byref,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
    sizeof,
)
from pathlib import Path

#: The C API version (major, minor, patch) this binding mirrors.
BINDING_VERSION = (0, 1, 0)

# ================================================================================== enums


class Status(enum.IntEnum):
    """``gr_status``: the result of every fallible call."""

    OK = 0
    ERROR_NULL_ARGUMENT = 1
    ERROR_INVALID_ARGUMENT = 2
    ERROR_NOT_FINITE = 3
    ERROR_UNKNOWN_ENUM = 4
    ERROR_STRUCT_SIZE = 5
    ERROR_TOO_MANY = 6
    ERROR_INVALID_HANDLE = 20
    ERROR_STALE_HANDLE = 21
    ERROR_WRONG_WORLD = 22
    ERROR_OUT_OF_MEMORY = 40
    ERROR_UNSUPPORTED = 41
    ERROR_BUSY = 42
    ERROR_IO = 60
    ERROR_CORRUPT_DATA = 61
    ERROR_VERSION = 62
    ERROR_UNSTABLE = 80


class LogLevel(enum.IntEnum):
    """``gr_log_level``."""

    ERROR = 1
    WARNING = 2
    INFO = 3


class SolverKind(enum.IntEnum):
    """``gr_solver_kind``: which solver runs the world."""

    DEFAULT = 0
    DEM = 1
    PBD = 2
    CONTINUUM = 3


class NormalLaw(enum.IntEnum):
    """``gr_normal_law``: DEM normal force law."""

    DEFAULT = 0
    LINEAR = 1
    HERTZ = 2
    NONLINEAR = 3


class TangentialLaw(enum.IntEnum):
    """``gr_tangential_law``: DEM shear force law."""

    DEFAULT = 0
    NONE = 1
    VISCOUS = 2
    COULOMB = 3
    COMBINED = 4
    HISTORY = 5


#: ``GR_MATERIAL_DERIVED``: a solver-specific coefficient of a material left to the library.
MATERIAL_DERIVED = -1.0


class RollingLaw(enum.IntEnum):
    """``gr_rolling_law``: DEM rolling resistance (DEFAULT: EPSD)."""

    DEFAULT = 0
    NONE = 1
    CDT = 2
    EPSD = 3


class Integrator(enum.IntEnum):
    """``gr_integrator``: time integrator."""

    DEFAULT = 0
    VELOCITY_VERLET = 1
    RKF45 = 2


class ShapeType(enum.IntEnum):
    """``gr_shape_type``: shape of a body."""

    NONE = 0
    PLANE = 1
    SPHERE = 2
    BOX = 3
    CONTAINER = 4
    CAPSULE = 5
    MESH = 6
    SDF = 7


class MotionType(enum.IntEnum):
    """``gr_motion_type``: how a body moves."""

    DEFAULT = 0
    STATIC = 1
    KINEMATIC = 2
    DYNAMIC = 3
    HOST = 4


class Face(enum.IntFlag):
    """``GR_FACE_*`` bits for ``gr_body_def.open_faces``."""

    POS_X = 1 << 0
    NEG_X = 1 << 1
    POS_Y = 1 << 2
    NEG_Y = 1 << 3
    POS_Z = 1 << 4
    NEG_Z = 1 << 5


class GrainShape(enum.IntEnum):
    """``gr_grain_shape``: spheres, or rigid clumps of spheres (``radius`` encloses them)."""

    DEFAULT = 0
    SPHERE = 1
    TETRAHEDRON = 2
    CUBE = 3
    PAIR = 4
    CLUMP = 5


class FillPattern(enum.IntEnum):
    """``gr_fill_pattern``: how ``gr_fill_box`` and ``gr_fill_mesh`` place grains."""

    DEFAULT = 0
    LATTICE = 1
    RANDOM = 2
    POISSON = 3


class Field(enum.IntEnum):
    """``gr_field``: per-grain fields for bulk read/write."""

    NONE = 0
    POSITION = 1
    VELOCITY = 2
    ANGULAR_VELOCITY = 3
    ORIENTATION = 4
    RADIUS = 5
    MASS = 6
    FORCE = 7
    HANDLE = 8
    MATERIAL = 9


class ScalarType(enum.IntEnum):
    """``gr_scalar_type``: element type of a caller buffer in bulk calls."""

    NONE = 0
    F64 = 1
    F32 = 2
    U64 = 3


class DefKind(enum.IntEnum):
    """``gr_def_kind``: which def ``gr_def_set_defaults`` fills."""

    NONE = 0
    WORLD = 1
    DEM = 2
    MATERIAL = 3
    GRAIN = 4
    BODY = 5
    FILL = 6
    MATERIAL_PAIR = 7
    CLUMP = 8
    PBD = 9
    CONTINUUM = 10


class MaterialPreset(enum.IntEnum):
    """``gr_material_preset``: measured starting points for common dry materials."""

    DEFAULT = 0
    DRY_SAND = 1
    GRAVEL = 2
    GLASS_BEADS = 3


#: Every mirrored enum and the prefix that turns a member name into its C name.
C_ENUM_PREFIXES = {
    Status: "GR_",
    LogLevel: "GR_LOG_",
    SolverKind: "GR_SOLVER_",
    NormalLaw: "GR_NORMAL_",
    TangentialLaw: "GR_TANGENTIAL_",
    RollingLaw: "GR_ROLLING_",
    Integrator: "GR_INTEGRATOR_",
    ShapeType: "GR_SHAPE_",
    MotionType: "GR_MOTION_",
    Face: "GR_FACE_",
    GrainShape: "GR_GRAIN_",
    FillPattern: "GR_FILL_",
    Field: "GR_FIELD_",
    ScalarType: "GR_TYPE_",
    DefKind: "GR_DEF_",
    MaterialPreset: "GR_MATERIAL_PRESET_",
}


def c_enum_constants() -> dict[str, int]:
    """``{C enumerator name: value}`` for every mirrored enum member."""
    out = {}
    for cls, prefix in C_ENUM_PREFIXES.items():
        for member in cls:
            out[prefix + member.name] = int(member)
    return out


globals().update(c_enum_constants())

# Limits (gr_base.h)
GR_MAX_GRAINS = 100000000
GR_MAX_BODIES = 65536
GR_MAX_MATERIALS = 256
GR_MAX_WORKERS = 64

#: ctypes type of every C enum (32-bit; the enums are forced to 32 bits by *_FORCE_U32).
c_enum = c_uint32

# ================================================================================ structs


class _Struct(ctypes.Structure):
    """Base of the mirrored structs: repr, to_dict, and no silent typos on assignment."""

    _names_: frozenset = frozenset()
    _types_: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        types = {}
        for base in reversed(cls.__mro__):
            for field in base.__dict__.get("_fields_", ()):
                types[field[0]] = field[1]
        cls._types_ = types
        cls._names_ = frozenset(types)

    def __setattr__(self, name, value):
        if name not in self._names_:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        items = ", ".join(f"{f[0]}={_repr_value(getattr(self, f[0]))}" for f in self._fields_)
        return f"{type(self).__name__}({items})"

    def to_dict(self) -> dict:
        """Field values as plain Python objects (nested structs as dicts or tuples)."""
        out = {}
        for field in self._fields_:
            out[field[0]] = _to_python(getattr(self, field[0]))
        return out


def _repr_value(value) -> str:
    if isinstance(value, (ctypes._Pointer, ctypes._CFuncPtr)):
        addr = ctypes.cast(value, c_void_p).value
        return "NULL" if not addr else f"0x{addr:x}"
    return repr(value)


def _to_python(value):
    if isinstance(value, _Vector):
        return tuple(value)
    if isinstance(value, _Handle):
        return value.id
    if isinstance(value, _Struct):
        return value.to_dict()
    if isinstance(value, ctypes._Pointer):
        return ctypes.cast(value, c_void_p).value
    if isinstance(value, ctypes._CFuncPtr):
        return value if ctypes.cast(value, c_void_p).value else None
    return value


class _Vector(_Struct):
    """Vectors iterate, index and compare like tuples."""

    def __iter__(self):
        return (getattr(self, f[0]) for f in self._fields_)

    def __len__(self) -> int:
        return len(self._fields_)

    def __getitem__(self, i):
        return tuple(self)[i]

    def __eq__(self, other):
        try:
            return tuple(self) == tuple(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(tuple(self))


class gr_vec3(_Vector):
    """``gr_vec3``: a 3-vector in SI units."""

    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double)]


class gr_quat(_Vector):
    """``gr_quat``: a unit quaternion (x, y, z vector part, w scalar part)."""

    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double), ("w", c_double)]


class _Handle(_Struct):
    """A handle: ``struct { uint64_t id; }``. Zero is null; compares and hashes by id."""

    _fields_ = [("id", c_uint64)]

    def __int__(self) -> int:
        return self.id

    __index__ = __int__

    def __bool__(self) -> bool:
        return self.id != 0

    def __eq__(self, other):
        if isinstance(other, _Handle):
            return type(self) is type(other) and self.id == other.id
        if isinstance(other, int):
            return self.id == other
        return NotImplemented

    def __hash__(self):
        return hash(self.id)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id=0x{self.id:016x})"


class gr_grain(_Handle):
    """``gr_grain``: grain handle."""


class gr_body(_Handle):
    """``gr_body``: body handle."""


class gr_material(_Handle):
    """``gr_material``: material handle."""


class gr_clump(_Handle):
    """``gr_clump``: clump template (grain shape) handle."""


class gr_world(ctypes.Structure):
    """``gr_world``: opaque; only ever used through ``POINTER(gr_world)``."""


gr_world_p = POINTER(gr_world)

# Callback types (gr_base.h)
gr_alloc_fn = CFUNCTYPE(c_void_p, c_size_t, c_size_t, c_void_p)  # void *(*)(size, align, user)
gr_free_fn = CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)  # void (*)(ptr, size, user)
gr_log_fn = CFUNCTYPE(None, c_enum, c_char_p, c_void_p)  # void (*)(level, message, user)
gr_task_fn = CFUNCTYPE(None, c_void_p)  # void gr_task_fn(void *task_context)
gr_enqueue_fn = CFUNCTYPE(c_void_p, gr_task_fn, c_void_p, c_void_p)  # (task, ctx, user) -> handle
gr_finish_fn = CFUNCTYPE(None, c_void_p, c_void_p)  # (handle, user)
gr_write_fn = CFUNCTYPE(c_size_t, c_void_p, c_void_p, c_size_t)  # (user, data, size) -> size
gr_read_fn = CFUNCTYPE(c_size_t, c_void_p, c_void_p, c_size_t)  # (user, data, size) -> size


class gr_allocator(_Struct):
    """``gr_allocator``: allocator hook (both functions or neither)."""

    _fields_ = [("alloc", gr_alloc_fn), ("free", gr_free_fn), ("user", c_void_p)]


class gr_logger(_Struct):
    """``gr_logger``: log hook."""

    _fields_ = [("func", gr_log_fn), ("user", c_void_p)]


class gr_task_hooks(_Struct):
    """``gr_task_hooks``: host job-system hooks (both functions or neither)."""

    _fields_ = [("enqueue", gr_enqueue_fn), ("finish", gr_finish_fn), ("user", c_void_p)]


class gr_host_body_state(_Struct):
    """``gr_host_body_state``: pose and velocities of a host-owned body."""

    _fields_ = [
        ("position", gr_vec3),
        ("orientation", gr_quat),
        ("linear_velocity", gr_vec3),
        ("angular_velocity", gr_vec3),
    ]


# void (*)(body, body_user_data, state, user)
gr_host_get_state_fn = CFUNCTYPE(None, gr_body, c_void_p, POINTER(gr_host_body_state), c_void_p)
# void (*)(body, body_user_data, impulse, angular_impulse, user)
gr_host_apply_impulse_fn = CFUNCTYPE(None, gr_body, c_void_p, gr_vec3, gr_vec3, c_void_p)


class gr_host_hooks(_Struct):
    """``gr_host_hooks``: host-owned bodies (both functions or neither)."""

    _fields_ = [("get_state", gr_host_get_state_fn), ("apply_impulse", gr_host_apply_impulse_fn), ("user", c_void_p)]


class _Def(_Struct):
    """A def struct: starts with ``uint32_t size``; build it with :meth:`init`."""

    _kind_ = DefKind.NONE

    @classmethod
    def init(cls, **fields):
        """A new def as the header-inline ``gr_*_def_init`` makes it, then ``fields`` set.

        The struct is zeroed, ``size`` set to ``ctypes.sizeof(cls)`` and the library's
        defaults filled by ``gr_def_set_defaults``. Unknown field names raise AttributeError.
        """
        d = cls()
        _def_init(d)
        d.set(**fields)
        return d

    def set(self, **fields):
        """Assign several fields; vectors may be given as any sequence. Returns self."""
        for name, value in fields.items():
            if name == "size":
                raise AttributeError("size is set by init(); do not change it")
            setattr(self, name, _coerce_field(self, name, value))
        return self


def _coerce_field(struct, name, value):
    ftype = struct._types_.get(name)
    if ftype is None:
        raise AttributeError(f"{type(struct).__name__} has no field {name!r}")
    if isinstance(value, ftype):
        return value
    if issubclass(ftype, _Handle):
        return ftype(_handle_id(value))
    if issubclass(ftype, _Vector):
        try:
            values = [float(v) for v in value]
        except TypeError:
            values = None
        if values is None or len(values) != len(ftype._fields_):
            raise ValueError(f"{type(struct).__name__}.{name} needs {len(ftype._fields_)} numbers, got {value!r}")
        return ftype(*values)
    return value


def _handle_id(value) -> int:
    if value is None:
        return 0
    if isinstance(value, _Handle):
        return value.id
    vid = getattr(value, "id", value)
    return int(vid)


class gr_dem_def(_Def):
    """``gr_dem_def``: DEM solver parameters."""

    _kind_ = DefKind.DEM
    _fields_ = [
        ("size", c_uint32),
        ("normal_law", c_enum),
        ("tangential_law", c_enum),
        ("rolling_law", c_enum),
        ("integrator", c_enum),
        ("clamp_normal_force", c_uint32),
        ("linear_stiffness", c_double),
        ("linear_damping", c_double),
        ("contact_time", c_double),
        ("nonlinear_a", c_double),
        ("nonlinear_b", c_double),
        ("nonlinear_stiffness", c_double),
        ("nonlinear_damping", c_double),
        ("tangential_stiffness_ratio", c_double),
        ("shear_damping", c_double),
        ("coulomb_slip_speed", c_double),
        ("rolling_damping", c_double),
        ("skin", c_double),
        ("rayleigh_fraction", c_double),
        ("contact_time_fraction", c_double),
        ("reference_speed", c_double),
        ("rkf_tolerance", c_double),
        ("hr_radius", c_double),
        ("hr_support", c_double),
        ("hr_density", c_double),
        ("hr_substep", c_double),
        ("hr_sample_radius", c_double),
        ("hr_candidates", c_uint32),
        ("reserved0", c_uint32),
    ]


class gr_pbd_def(_Def):
    """``gr_pbd_def``: position-based solver parameters (docs/pbd.md)."""

    _kind_ = DefKind.PBD
    _fields_ = [
        ("size", c_uint32),
        ("iterations", c_uint32),
        ("stabilization_iterations", c_uint32),
        ("reserved0", c_uint32),
        ("relaxation", c_double),
        ("collision_margin", c_double),
        ("mass_scaling", c_double),
        ("sleep_threshold", c_double),
        ("cfl", c_double),
        ("max_substep", c_double),
        ("hr_radius", c_double),
        ("hr_support", c_double),
        ("hr_density", c_double),
        ("hr_substep", c_double),
        ("hr_candidates", c_uint32),
        ("max_iterations", c_uint32),
        ("max_acceleration", c_double),
        ("sleep_time", c_double),
        ("hr_sample_radius", c_double),
    ]


class gr_continuum_def(_Def):
    """``gr_continuum_def``: continuum solver parameters (docs/continuum.md)."""

    _kind_ = DefKind.CONTINUUM
    _fields_ = [
        ("size", c_uint32),
        ("qp_solver", c_uint32),
        ("cell_size", c_double),
        ("particle_radius", c_double),
        ("packing", c_double),
        ("pic_fraction", c_double),
        ("stagger_iterations", c_uint32),
        ("max_iterations", c_uint32),
        ("cfl", c_double),
        ("tolerance", c_double),
        ("friction_sweeps", c_uint32),
        ("density_correction", c_uint32),
        ("render_points", c_uint32),
        ("split_merge", c_uint32),
    ]


class gr_world_def(_Def):
    """``gr_world_def``: world parameters."""

    _kind_ = DefKind.WORLD
    _fields_ = [
        ("size", c_uint32),
        ("solver", c_enum),
        ("gravity", gr_vec3),
        ("substep", c_double),
        ("worker_count", c_uint32),
        ("reserved0", c_uint32),
        ("seed", c_uint64),
        ("allocator", gr_allocator),
        ("logger", gr_logger),
        ("tasks", gr_task_hooks),
        ("dem", POINTER(gr_dem_def)),
        ("user_data", c_void_p),
        ("bounds_min", gr_vec3),
        ("bounds_max", gr_vec3),
        ("host", gr_host_hooks),
        ("pbd", POINTER(gr_pbd_def)),
        ("solver_def", c_void_p),
    ]

    @classmethod
    def init(cls, solver=SolverKind.DEFAULT, **fields):
        """Mirror of ``gr_world_def_init(def, solver)``, then ``fields`` set."""
        d = cls()
        gr_world_def_init(d, solver)
        d.set(**fields)
        return d


class gr_material_def(_Def):
    """``gr_material_def``: material properties (SI)."""

    _kind_ = DefKind.MATERIAL
    _fields_ = [
        ("size", c_uint32),
        ("reserved0", c_uint32),
        ("density", c_double),
        ("youngs_modulus", c_double),
        ("poisson_ratio", c_double),
        ("restitution", c_double),
        ("friction", c_double),
        ("rolling_friction", c_double),
        ("static_friction", c_double),
        ("kinetic_friction", c_double),
        ("continuum_friction", c_double),
    ]


class gr_material_pair_def(_Def):
    """``gr_material_pair_def``: explicit coefficients for one pair of materials."""

    _kind_ = DefKind.MATERIAL_PAIR
    _fields_ = [
        ("size", c_uint32),
        ("reserved0", c_uint32),
        ("restitution", c_double),
        ("friction", c_double),
        ("rolling_friction", c_double),
    ]


class gr_grain_def(_Def):
    """``gr_grain_def``: one grain."""

    _kind_ = DefKind.GRAIN
    _fields_ = [
        ("size", c_uint32),
        ("shape", c_enum),
        ("material", gr_material),
        ("radius", c_double),
        ("position", gr_vec3),
        ("velocity", gr_vec3),
        ("angular_velocity", gr_vec3),
        ("orientation", gr_quat),
        ("clump", gr_clump),
        ("system", c_uint32),
    ]


class gr_clump_def(_Def):
    """``gr_clump_def``: a clump template's spheres (centres and radii, any frame and unit)."""

    _kind_ = DefKind.CLUMP
    _fields_ = [
        ("size", c_uint32),
        ("count", c_uint32),
        ("centres", POINTER(gr_vec3)),
        ("radii", POINTER(c_double)),
    ]


class gr_body_def(_Def):
    """``gr_body_def``: one body (a wall, a container, a kinematic tool...)."""

    _kind_ = DefKind.BODY
    _fields_ = [
        ("size", c_uint32),
        ("shape", c_enum),
        ("motion", c_enum),
        ("open_faces", c_uint32),
        ("material", gr_material),
        ("position", gr_vec3),
        ("orientation", gr_quat),
        ("linear_velocity", gr_vec3),
        ("angular_velocity", gr_vec3),
        ("normal", gr_vec3),
        ("radius", c_double),
        ("half_height", c_double),
        ("half_extents", gr_vec3),
        ("user_data", c_void_p),
        ("particle_radius", c_double),
        ("particle_density", c_double),
        ("particle_offset", c_double),
        ("mesh_vertices", POINTER(gr_vec3)),
        ("mesh_indices", POINTER(c_uint32)),
        ("mesh_vertex_count", c_uint32),
        ("mesh_triangle_count", c_uint32),
        ("mass", c_double),
        ("inertia", gr_vec3),
        ("inertia_rotation", gr_quat),
    ]


class gr_fill_def(_Def):
    """``gr_fill_def``: fill an axis-aligned box region with grains."""

    _kind_ = DefKind.FILL
    _fields_ = [
        ("size", c_uint32),
        ("pattern", c_enum),
        ("material", gr_material),
        ("min", gr_vec3),
        ("max", gr_vec3),
        ("radius", c_double),
        ("radius_max", c_double),
        ("spacing", c_double),
        ("jitter", c_double),
        ("velocity", gr_vec3),
        ("max_count", c_uint32),
        ("attempts", c_uint32),
        ("seed", c_uint64),
        ("avoid_overlap", c_uint32),
        ("system", c_uint32),
        ("shape", c_enum),
        ("reserved1", c_uint32),
        ("clump", gr_clump),
    ]


class gr_grain_state(_Struct):
    """``gr_grain_state``: kinematic state of one grain."""

    _fields_ = [
        ("position", gr_vec3),
        ("velocity", gr_vec3),
        ("angular_velocity", gr_vec3),
        ("orientation", gr_quat),
    ]


class gr_counters(_Struct):
    """``gr_counters``: world counters (set ``size`` before ``gr_world_get_counters``)."""

    _fields_ = [
        ("size", c_uint32),
        ("grain_count", c_uint32),
        ("body_count", c_uint32),
        ("material_count", c_uint32),
        ("contact_count", c_uint64),
        ("body_contact_count", c_uint64),
        ("step_count", c_uint64),
        ("substep_count", c_uint64),
        ("neighbor_rebuilds", c_uint64),
        ("time", c_double),
        ("last_substep", c_double),
        ("bytes_in_use", c_uint64),
        ("bytes_peak", c_uint64),
        ("allocation_count", c_uint64),
        ("grains_removed", c_uint64),
        ("sleeping_count", c_uint32),
        ("frozen_count", c_uint32),
        ("grains_split", c_uint64),
        ("grains_merged", c_uint64),
    ]

    @classmethod
    def init(cls):
        """A zeroed counters struct with ``size = sizeof``."""
        c = cls()
        c.size = sizeof(cls)
        return c


#: Every public struct of the C API, by C name.
STRUCTS = {
    cls.__name__: cls
    for cls in (
        gr_vec3,
        gr_quat,
        gr_grain,
        gr_body,
        gr_material,
        gr_allocator,
        gr_logger,
        gr_task_hooks,
        gr_host_body_state,
        gr_host_hooks,
        gr_dem_def,
        gr_pbd_def,
        gr_continuum_def,
        gr_world_def,
        gr_material_def,
        gr_material_pair_def,
        gr_grain_def,
        gr_body_def,
        gr_fill_def,
        gr_grain_state,
        gr_counters,
    )
}

#: The def structs by their gr_def_kind.
DEF_STRUCTS = {
    DefKind.WORLD: gr_world_def,
    DefKind.DEM: gr_dem_def,
    DefKind.MATERIAL: gr_material_def,
    DefKind.GRAIN: gr_grain_def,
    DefKind.BODY: gr_body_def,
    DefKind.FILL: gr_fill_def,
    DefKind.MATERIAL_PAIR: gr_material_pair_def,
    DefKind.CLUMP: gr_clump_def,
    DefKind.PBD: gr_pbd_def,
    DefKind.CONTINUUM: gr_continuum_def,
}

# ======================================================================== library loading

_SANITIZER_RUNTIMES = (b"libasan.so", b"libtsan.so", b"libhwasan.so", b"liblsan.so", b"libmsan.so")


def _library_names() -> list[str]:
    if sys.platform == "win32":
        return ["granular.dll", "libgranular.dll", "granular-0.dll", "libgranular-0.dll"]
    if sys.platform == "darwin":
        return ["libgranular.dylib"]
    return ["libgranular.so"]


def _needs_sanitizer_runtime(path: Path) -> bool:
    """True for a library built with a sanitizer whose runtime must come first (ASan...):
    dlopen-ing it into a plain Python process aborts the process instead of failing."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return any(name in data for name in _SANITIZER_RUNTIMES)


def candidate_paths() -> list[str]:
    """The library paths tried, in order (see the module docstring)."""
    env = os.environ.get("GRANULAR_LIBRARY")
    if env:
        return [env]
    out = []
    # <repo>/bindings/python/granular/ffi.py -> <repo>, if this is a source checkout
    root = Path(__file__).resolve().parent.parent.parent.parent
    names = _library_names()
    build_dirs = []
    if (root / "meson.build").is_file() and (root / "include" / "granular" / "granular.h").is_file():
        build_dirs = [root / "build"] + sorted(p for p in root.glob("build-*") if p.is_dir())
    for bdir in build_dirs:
        for name in names:
            path = bdir / "lib" / name
            if path.is_file() and not (bdir.name != "build" and _needs_sanitizer_runtime(path)):
                out.append(str(path))
    found = ctypes.util.find_library("granular")
    if found:
        out.append(found)
    return out


def _load() -> tuple[ctypes.CDLL, str]:
    errors = []
    paths = candidate_paths()
    for path in paths:
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            errors.append(f"{path}: {exc}")
    if os.environ.get("GRANULAR_LIBRARY"):
        hint = "GRANULAR_LIBRARY is set but the library there does not load"
    else:
        hint = (
            "build it with `meson setup build && ninja -C build` in the source tree, install it, "
            "or set GRANULAR_LIBRARY to the full path of libgranular"
        )
    detail = "; ".join(errors) if errors else "no candidate found"
    raise ImportError(f"granular: cannot load the shared library ({detail}); {hint}")


lib, library_path = _load()
"""The loaded :class:`ctypes.CDLL` and the path it was loaded from."""

_P = POINTER
_PROTOTYPES = [
    # library
    ("gr_get_version", c_uint32, []),
    ("gr_get_version_string", c_char_p, []),
    ("gr_get_precision", c_uint32, []),
    ("gr_status_string", c_char_p, [c_enum]),
    ("gr_def_set_defaults", c_enum, [c_enum, c_void_p]),
    # world
    ("gr_world_create", c_enum, [_P(gr_world_def), _P(gr_world_p)]),
    ("gr_world_destroy", None, [gr_world_p]),
    ("gr_step", c_enum, [gr_world_p, c_double]),
    ("gr_world_last_error", c_char_p, [gr_world_p]),
    ("gr_world_get_time", c_double, [gr_world_p]),
    ("gr_world_get_substep", c_double, [gr_world_p]),
    ("gr_world_get_counters", c_enum, [gr_world_p, _P(gr_counters)]),
    ("gr_world_get_def", c_enum, [gr_world_p, _P(gr_world_def), _P(gr_dem_def)]),
    ("gr_world_get_pbd_def", c_enum, [gr_world_p, _P(gr_pbd_def)]),
    ("gr_world_get_solver_def", c_enum, [gr_world_p, c_enum, c_void_p]),
    ("gr_world_add_system", c_enum, [gr_world_p, c_enum, c_void_p, _P(c_uint32)]),
    ("gr_world_get_system_count", c_uint32, [gr_world_p]),
    ("gr_world_get_system_solver", c_enum, [gr_world_p, c_uint32, _P(c_enum)]),
    ("gr_world_set_gravity", c_enum, [gr_world_p, gr_vec3]),
    ("gr_world_get_user_data", c_void_p, [gr_world_p]),
    ("gr_world_get_grain_count", c_uint32, [gr_world_p]),
    ("gr_world_get_render_point_count", c_uint32, [gr_world_p]),
    ("gr_world_save", c_enum, [gr_world_p, gr_write_fn, c_void_p]),
    ("gr_world_load", c_enum, [gr_world_p, gr_read_fn, c_void_p]),
    # materials
    ("gr_add_material", c_enum, [gr_world_p, _P(gr_material_def), _P(gr_material)]),
    ("gr_add_clump_template", c_enum, [gr_world_p, _P(gr_clump_def), _P(gr_clump)]),
    ("gr_world_get_default_material", gr_material, [gr_world_p]),
    ("gr_material_get_def", c_enum, [gr_world_p, gr_material, _P(gr_material_def)]),
    ("gr_material_def_set_preset", c_enum, [_P(gr_material_def), c_enum]),
    ("gr_material_def_derive", c_enum, [_P(gr_material_def)]),
    ("gr_set_material_pair", c_enum, [gr_world_p, gr_material, gr_material, _P(gr_material_pair_def)]),
    # grains
    ("gr_add_grain", c_enum, [gr_world_p, _P(gr_grain_def), _P(gr_grain)]),
    ("gr_add_grains", c_enum, [gr_world_p, _P(gr_grain_def), c_uint32, _P(gr_grain)]),
    ("gr_fill_box", c_enum, [gr_world_p, _P(gr_fill_def), _P(c_uint32), _P(gr_grain), c_uint32]),
    ("gr_fill_mesh", c_enum, [gr_world_p, _P(gr_fill_def), _P(gr_vec3), c_uint32, _P(c_uint32), c_uint32, _P(c_uint32),
                              _P(gr_grain), c_uint32]),
    ("gr_remove_grain", c_enum, [gr_world_p, gr_grain]),
    ("gr_remove_grains", c_enum, [gr_world_p, _P(gr_grain), c_uint32]),
    ("gr_grain_is_valid", c_int, [gr_world_p, gr_grain]),
    ("gr_grain_get_state", c_enum, [gr_world_p, gr_grain, _P(gr_grain_state)]),
    ("gr_grain_set_state", c_enum, [gr_world_p, gr_grain, _P(gr_grain_state)]),
    ("gr_grain_get_radius", c_enum, [gr_world_p, gr_grain, _P(c_double)]),
    ("gr_grain_get_material", c_enum, [gr_world_p, gr_grain, _P(gr_material)]),
    ("gr_grain_get_index", c_enum, [gr_world_p, gr_grain, _P(c_uint32)]),
    ("gr_grain_get_system", c_enum, [gr_world_p, gr_grain, _P(c_uint32)]),
    ("gr_read_grains", c_enum, [gr_world_p, c_enum, c_enum, c_uint32, c_uint32, c_void_p, c_size_t]),
    ("gr_write_grains", c_enum, [gr_world_p, c_enum, c_enum, c_uint32, c_uint32, c_void_p, c_size_t]),
    ("gr_read_render_points", c_enum, [gr_world_p, c_uint32, c_uint32, _P(c_float), c_size_t]),
    # bodies
    ("gr_add_body", c_enum, [gr_world_p, _P(gr_body_def), _P(gr_body)]),
    ("gr_remove_body", c_enum, [gr_world_p, gr_body]),
    ("gr_body_is_valid", c_int, [gr_world_p, gr_body]),
    ("gr_body_set_velocity", c_enum, [gr_world_p, gr_body, gr_vec3, gr_vec3]),
    ("gr_body_get_velocity", c_enum, [gr_world_p, gr_body, _P(gr_vec3), _P(gr_vec3)]),
    ("gr_body_set_pose", c_enum, [gr_world_p, gr_body, gr_vec3, gr_quat]),
    ("gr_body_get_pose", c_enum, [gr_world_p, gr_body, _P(gr_vec3), _P(gr_quat)]),
    ("gr_body_get_force", c_enum, [gr_world_p, gr_body, _P(gr_vec3), _P(gr_vec3)]),
    ("gr_body_get_user_data", c_void_p, [gr_world_p, gr_body]),
    ("gr_body_set_user_data", c_enum, [gr_world_p, gr_body, c_void_p]),
    ("gr_world_get_bodies", c_uint32, [gr_world_p, _P(gr_body), c_uint32]),
    ("gr_body_get_mass", c_enum, [gr_world_p, gr_body, _P(c_double)]),
    ("gr_body_set_mass_properties", c_enum, [gr_world_p, gr_body, c_double, gr_vec3, gr_quat]),
    ("gr_body_get_mass_properties", c_enum, [gr_world_p, gr_body, _P(c_double), _P(gr_vec3), _P(gr_quat)]),
    ("gr_body_get_center_of_mass", c_enum, [gr_world_p, gr_body, _P(gr_vec3)]),
    ("gr_body_get_particle_count", c_uint32, [gr_world_p, gr_body]),
    ("gr_read_body_particles", c_enum, [gr_world_p, gr_body, c_uint32, c_uint32, _P(c_float), c_size_t]),
]

#: Names of every exported C function this module binds.
FUNCTIONS = tuple(name for name, _, _ in _PROTOTYPES)


def _bind() -> None:
    missing = []
    for name, restype, argtypes in _PROTOTYPES:
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    if missing:
        raise ImportError(f"granular: {library_path} lacks the symbols {', '.join(missing)}")


_bind()

# ========================================================================= small wrappers


def get_version() -> int:
    """``gr_get_version()``: major*10000 + minor*100 + patch."""
    return lib.gr_get_version()


def get_version_string() -> str:
    """``gr_get_version_string()``: "major.minor.patch"."""
    return lib.gr_get_version_string().decode()


def get_version_tuple() -> tuple[int, int, int]:
    """The library version as (major, minor, patch)."""
    v = lib.gr_get_version()
    return (v // 10000, v // 100 % 100, v % 100)


def get_precision() -> int:
    """``gr_get_precision()``: bytes of the simulation's floating-point type (8 = double)."""
    return lib.gr_get_precision()


def status_string(status: int) -> str:
    """``gr_status_string()``: a short English description of a status code."""
    return lib.gr_status_string(int(status) & 0xFFFFFFFF).decode("utf-8", "replace")


def gr_check_version() -> Status:
    """Mirror of the header-inline ``gr_check_version()`` for this binding's major version."""
    return Status.OK if lib.gr_get_version() // 10000 == BINDING_VERSION[0] else Status.ERROR_VERSION


def _def_init(d: _Def) -> None:
    """The GR__DEF_INIT macro: zero, size = sizeof, gr_def_set_defaults."""
    ctypes.memset(byref(d), 0, sizeof(d))
    d.size = sizeof(d)
    status = lib.gr_def_set_defaults(d._kind_, byref(d))
    if status != Status.OK:
        from .errors import raise_for_status

        raise_for_status(status, f"gr_def_set_defaults({d._kind_.name}) failed")


def gr_world_def_init(d: gr_world_def, solver: int = SolverKind.DEFAULT) -> None:
    """Mirror of the header-inline ``gr_world_def_init``."""
    _def_init(d)
    d.solver = solver


def gr_dem_def_init(d: gr_dem_def) -> None:
    """Mirror of the header-inline ``gr_dem_def_init``."""
    _def_init(d)


def gr_pbd_def_init(d: gr_pbd_def) -> None:
    """Mirror of the header-inline ``gr_pbd_def_init``."""
    _def_init(d)


def gr_continuum_def_init(d: gr_continuum_def) -> None:
    """Mirror of the header-inline ``gr_continuum_def_init``."""
    _def_init(d)


def gr_material_def_init(d: gr_material_def) -> None:
    """Mirror of the header-inline ``gr_material_def_init``."""
    _def_init(d)


def gr_material_pair_def_init(d: gr_material_pair_def) -> None:
    """Mirror of the header-inline ``gr_material_pair_def_init``."""
    _def_init(d)


def gr_grain_def_init(d: gr_grain_def) -> None:
    """Mirror of the header-inline ``gr_grain_def_init``."""
    _def_init(d)


def gr_body_def_init(d: gr_body_def) -> None:
    """Mirror of the header-inline ``gr_body_def_init``."""
    _def_init(d)


def gr_fill_def_init(d: gr_fill_def) -> None:
    """Mirror of the header-inline ``gr_fill_def_init``."""
    _def_init(d)


# ============================================================================= self-check

_PROBE_SIZE = 1024  # larger than any def; below the library's limit on def sizes


def _probe_written(call) -> int | None:
    """Size of the prefix a library call writes into a buffer whose ``size`` field says
    _PROBE_SIZE: run it on two buffers pre-filled with different bytes; the written bytes
    agree, the untouched ones do not. None if the call fails."""
    bufs = []
    for fill in (0xA5, 0x5A):
        buf = (ctypes.c_ubyte * _PROBE_SIZE)()
        ctypes.memset(buf, fill, _PROBE_SIZE)
        c_uint32.from_buffer(buf).value = _PROBE_SIZE
        if call(buf) != Status.OK:
            return None
        bufs.append(bytes(buf))
    a, b = bufs
    n = _PROBE_SIZE
    while n > 4 and a[n - 1] != b[n - 1]:
        n -= 1
    return n


def library_def_size(kind: DefKind) -> int | None:
    """sizeof() of a def struct as the loaded library sees it (None if it cannot tell)."""
    return _probe_written(lambda buf: lib.gr_def_set_defaults(kind, buf))


def library_counters_size(world) -> int | None:
    """sizeof(gr_counters) as the loaded library sees it, probed on a live world pointer."""
    return _probe_written(lambda buf: lib.gr_world_get_counters(world, ctypes.cast(buf, POINTER(gr_counters))))


# Known defaults (gr_types.h), including each def's last field: a shifted field shows here.
_EXPECTED_DEFAULTS = {
    DefKind.WORLD: {
        "solver": SolverKind.DEM,
        "gravity": (0.0, -9.81, 0.0),
        "worker_count": 1,
        "seed": 0x9E3779B97F4A7C15,
        "user_data": None,
        "bounds_min": (0.0, 0.0, 0.0),
        "bounds_max": (0.0, 0.0, 0.0),
    },
    DefKind.DEM: {
        "normal_law": NormalLaw.HERTZ,
        "tangential_law": TangentialLaw.HISTORY,
        "rolling_law": RollingLaw.DEFAULT,
        "integrator": Integrator.VELOCITY_VERLET,
        "contact_time": 1e-3,
        "nonlinear_b": 1.5,
        "tangential_stiffness_ratio": 2.0 / 7.0,
        "rolling_damping": 0.3,
        "rayleigh_fraction": 0.15,
        "reference_speed": 1.0,
        "rkf_tolerance": 1e-3,
    },
    DefKind.MATERIAL: {
        "density": 2500.0,
        "youngs_modulus": 5e6,
        "poisson_ratio": 0.3,
        "static_friction": MATERIAL_DERIVED,
        "kinetic_friction": MATERIAL_DERIVED,
        "continuum_friction": MATERIAL_DERIVED,
    },
    DefKind.MATERIAL_PAIR: {"restitution": 0.5, "friction": 0.5, "rolling_friction": 0.0},
    DefKind.GRAIN: {"shape": GrainShape.SPHERE, "radius": 0.005, "orientation": (0.0, 0.0, 0.0, 1.0), "clump": 0},
    DefKind.BODY: {
        "motion": MotionType.STATIC,
        "orientation": (0.0, 0.0, 0.0, 1.0),
        "normal": (0.0, 1.0, 0.0),
        "radius": 0.5,
        "half_height": 0.5,
        "half_extents": (0.5, 0.5, 0.5),
        "particle_density": 1.0,
        "mesh_triangle_count": 0,
        "inertia_rotation": (0.0, 0.0, 0.0, 1.0),
    },
    DefKind.FILL: {
        "pattern": FillPattern.LATTICE,
        "max": (0.1, 0.1, 0.1),
        "radius": 0.005,
        "jitter": 0.5,
        "attempts": 50,
        "avoid_overlap": 1,
        "system": 0,
        "shape": GrainShape.SPHERE,
        "clump": 0,
    },
    DefKind.CLUMP: {"count": 0},
    DefKind.PBD: {
        "iterations": 4,
        "stabilization_iterations": 1,
        "relaxation": 1.0,
        "collision_margin": 0.25,
        "mass_scaling": 0.25,
        "sleep_threshold": 0.5,
        "cfl": 1.0,
        "max_substep": 1.0 / 120.0,
        "hr_radius": 0.0,
        "hr_support": 2.5,
        "hr_density": 2.0,
        "hr_substep": 1.0 / 30.0,
        "hr_candidates": 20,
        "max_iterations": 0,
        "max_acceleration": 500.0,
        "sleep_time": 0.25,
        "hr_sample_radius": 1.3,
    },
    DefKind.CONTINUUM: {
        "qp_solver": 0,
        "cell_size": 0.02,
        "particle_radius": 0.0,
        "packing": 0.6,
        "pic_fraction": 0.05,
        "stagger_iterations": 2,
        "max_iterations": 1000,
        "cfl": 0.5,
        "tolerance": 1e-5,
        "friction_sweeps": 1,
        "density_correction": 1,
        "render_points": 0,
        "split_merge": 0,
    },
}


def self_check() -> list[str]:
    """Compare the ctypes mirror with the loaded library. Returns a list of warnings and
    raises ImportError on a definite mismatch.

    * the library's major version must be ``BINDING_VERSION[0]`` and its precision 8;
    * each def's size as the library writes it (probed with ``gr_def_set_defaults``) must
      equal ``ctypes.sizeof`` when the library's major.minor is the binding's; a newer minor
      may have grown structs at the end (fine), an older one lacks the newest fields (warning);
    * the documented defaults must land on the mirrored fields.
    """
    problems, notes = [], []
    version = get_version_tuple()
    if version[0] != BINDING_VERSION[0]:
        raise ImportError(
            f"granular: the library {library_path} is version {get_version_string()}, "
            f"this binding needs major version {BINDING_VERSION[0]}"
        )
    if get_precision() != 8:
        problems.append(f"gr_get_precision() is {get_precision()}, the binding mirrors doubles (8)")
    same_minor = version[:2] == BINDING_VERSION[:2]
    for kind, cls in DEF_STRUCTS.items():
        lib_size = library_def_size(kind)
        ours = sizeof(cls)
        if lib_size is None:
            notes.append(f"cannot probe the size of {cls.__name__}")
        elif lib_size != ours:
            newer_lib = version[:2] > BINDING_VERSION[:2]
            if same_minor or (newer_lib and lib_size < ours) or (not newer_lib and lib_size > ours):
                # structs only grow at the end, and only in a later minor version
                problems.append(f"sizeof({cls.__name__}) is {lib_size} in the library, {ours} in the binding")
            elif not newer_lib:
                notes.append(
                    f"{cls.__name__}: the library ({get_version_string()}) knows {lib_size} of its {ours} bytes; "
                    "newer fields are ignored"
                )
        d = cls()
        _def_init(d)  # the library's defaults (gr_world_def_init would then set the solver)
        for name, expected in _EXPECTED_DEFAULTS[kind].items():
            value = _to_python(getattr(d, name))
            if value != expected:
                problems.append(f"{cls.__name__}.{name} default is {value!r}, expected {expected!r}")
    if problems:
        raise ImportError(
            f"granular: the binding does not match the library {library_path} ({get_version_string()}): "
            + "; ".join(problems)
        )
    return notes



def _run_self_check() -> None:
    for note in self_check():
        warnings.warn(f"granular: {note}", RuntimeWarning, stacklevel=3)


_run_self_check()

__all__ = (
    [
        "BINDING_VERSION",
        "C_ENUM_PREFIXES",
        "DEF_STRUCTS",
        "FUNCTIONS",
        "STRUCTS",
        "lib",
        "library_path",
        "candidate_paths",
        "c_enum",
        "c_enum_constants",
        "get_version",
        "get_version_string",
        "get_version_tuple",
        "get_precision",
        "status_string",
        "gr_check_version",
        "self_check",
        "library_def_size",
        "library_counters_size",
        "gr_world_p",
        "gr_alloc_fn",
        "gr_free_fn",
        "gr_log_fn",
        "gr_task_fn",
        "gr_enqueue_fn",
        "gr_finish_fn",
        "gr_write_fn",
        "gr_read_fn",
        "gr_world_def_init",
        "gr_dem_def_init",
        "gr_pbd_def_init",
        "gr_continuum_def_init",
        "gr_material_def_init",
        "gr_material_pair_def_init",
        "gr_grain_def_init",
        "gr_body_def_init",
        "gr_fill_def_init",
        "GR_MAX_GRAINS",
        "GR_MAX_BODIES",
        "GR_MAX_MATERIALS",
        "GR_MAX_WORKERS",
    ]
    + [cls.__name__ for cls in C_ENUM_PREFIXES]
    + list(STRUCTS)
    + ["gr_world"]
    + list(c_enum_constants())
)
