# SPDX-License-Identifier: MIT
"""Python bindings of granular, a C library for granular-material simulation (DEM).

Two layers:

* :mod:`granular.ffi` -- the ctypes mirror of the whole C API: structs (``gr_world_def``...),
  enums, ``ffi.lib.gr_*`` functions, the def initialisers. Use it for anything the Pythonic
  layer does not cover (custom allocators, raw pointers).
* this package -- :class:`World` and :class:`Body`, numpy-friendly bulk I/O, exceptions.

Example::

    import granular

    with granular.World(gravity=(0, -9.81, 0)) as world:
        world.add_plane(position=(0, 0, 0), normal=(0, 1, 0))
        world.fill_box((0, 0.01, 0), (0.05, 0.06, 0.05), radius=0.002)
        world.step(0.5)
        positions = world.read("position")  # (n, 3) float64 array

The shared library is found through ``GRANULAR_LIBRARY``, the meson build tree of the
checkout, or the system library path (see :mod:`granular.ffi`). numpy is optional; set
``GRANULAR_NO_NUMPY=1`` to make the bulk calls use lists even when numpy is installed.
"""

from . import ffi
from ._world import Body, GrainState, World, have_numpy
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _errors_all
from .ffi import (  # noqa: F401
    BINDING_VERSION,
    GR_MAX_BODIES,
    GR_MAX_GRAINS,
    GR_MAX_MATERIALS,
    GR_MAX_WORKERS,
    DefKind,
    MaterialPreset,
    Face,
    Field,
    FillPattern,
    GrainShape,
    Integrator,
    LogLevel,
    MotionType,
    NormalLaw,
    RollingLaw,
    ScalarType,
    ShapeType,
    SolverKind,
    Status,
    TangentialLaw,
    get_precision,
    get_version,
    get_version_string,
    get_version_tuple,
    library_path,
    status_string,
)

# CamelCase names of the def structs, for World(dem=DemDef.init(...)) and raw ffi calls.
Vec3 = ffi.gr_vec3
Quat = ffi.gr_quat
WorldDef = ffi.gr_world_def
DemDef = ffi.gr_dem_def
PbdDef = ffi.gr_pbd_def
ContinuumDef = ffi.gr_continuum_def
MaterialDef = ffi.gr_material_def
MaterialPairDef = ffi.gr_material_pair_def
GrainDef = ffi.gr_grain_def
BodyDef = ffi.gr_body_def
FillDef = ffi.gr_fill_def

#: Version of this Python package (follows the C API version it mirrors).
__version__ = ".".join(str(v) for v in BINDING_VERSION)

__all__ = [
    "ffi",
    "World",
    "Body",
    "GrainState",
    "have_numpy",
    "Vec3",
    "Quat",
    "WorldDef",
    "DemDef",
    "PbdDef",
    "ContinuumDef",
    "MaterialDef",
    "MaterialPairDef",
    "GrainDef",
    "BodyDef",
    "FillDef",
    "BINDING_VERSION",
    "GR_MAX_BODIES",
    "GR_MAX_GRAINS",
    "GR_MAX_MATERIALS",
    "GR_MAX_WORKERS",
    "DefKind",
    "MaterialPreset",
    "Face",
    "Field",
    "FillPattern",
    "GrainShape",
    "Integrator",
    "LogLevel",
    "MotionType",
    "NormalLaw",
    "RollingLaw",
    "ScalarType",
    "ShapeType",
    "SolverKind",
    "Status",
    "TangentialLaw",
    "get_precision",
    "get_version",
    "get_version_string",
    "get_version_tuple",
    "library_path",
    "status_string",
] + list(_errors_all)
