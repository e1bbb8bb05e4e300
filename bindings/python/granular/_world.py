# SPDX-License-Identifier: MIT
"""The Pythonic layer: :class:`World` and :class:`Body` over the ctypes mirror in ``ffi``.

Handles: grains and materials are plain ``int`` values (the C handle's ``uint64_t id``; a
bulk call returns a ``numpy.uint64`` array of them, or a list without numpy). Bodies are
:class:`Body` objects (world + id) with the per-body calls as methods. Everywhere a handle
is expected, an ``int``, the ffi handle struct or an object with an ``id`` attribute works.

numpy is optional: when it is importable (and the environment variable ``GRANULAR_NO_NUMPY``
is not set to a true value) bulk calls take and return numpy arrays; otherwise they take
sequences and return lists of tuples.
"""

from __future__ import annotations

import ctypes
import os
import threading
import weakref
from collections import namedtuple
from ctypes import POINTER, byref, c_double, c_float, c_uint32, c_uint64, sizeof

from . import ffi
from .errors import ClosedWorldError, GranularError, error_class, raise_for_status
from .ffi import (
    Field,
    FillPattern,
    LogLevel,
    MotionType,
    ScalarType,
    ShapeType,
    SolverKind,
    Status,
    lib,
)


def _numpy_disabled() -> bool:
    return os.environ.get("GRANULAR_NO_NUMPY", "").strip().lower() not in ("", "0", "false", "no", "off")


if _numpy_disabled():
    _np = None
else:
    try:
        import numpy as _np
    except ImportError:  # numpy is optional
        _np = None


def have_numpy() -> bool:
    """True when bulk calls use numpy arrays (numpy importable and not disabled)."""
    return _np is not None


#: State of one grain, as returned by :meth:`World.grain_state`: tuples of floats.
GrainState = namedtuple("GrainState", ["position", "velocity", "angular_velocity", "orientation"])

_WIDTH = {
    Field.POSITION: 3,
    Field.VELOCITY: 3,
    Field.ANGULAR_VELOCITY: 3,
    Field.ORIENTATION: 4,
    Field.RADIUS: 1,
    Field.MASS: 1,
    Field.FORCE: 3,
    Field.HANDLE: 1,
    Field.MATERIAL: 1,
}
_HANDLE_FIELDS = (Field.HANDLE, Field.MATERIAL)
_CTYPE = {ScalarType.F64: c_double, ScalarType.F32: c_float, ScalarType.U64: c_uint64}
_NP_NAME = {ScalarType.F64: "float64", ScalarType.F32: "float32", ScalarType.U64: "uint64"}
_TYPE_NAMES = {
    "f64": ScalarType.F64,
    "float64": ScalarType.F64,
    "f8": ScalarType.F64,
    "<f8": ScalarType.F64,
    "=f8": ScalarType.F64,
    "d": ScalarType.F64,
    "f32": ScalarType.F32,
    "float32": ScalarType.F32,
    "f4": ScalarType.F32,
    "<f4": ScalarType.F32,
    "=f4": ScalarType.F32,
    "f": ScalarType.F32,
    "u64": ScalarType.U64,
    "uint64": ScalarType.U64,
    "u8": ScalarType.U64,
    "<u8": ScalarType.U64,
    "=u8": ScalarType.U64,
    "Q": ScalarType.U64,
}

# ================================================================================ helpers


def _enum(cls, value, what: str):
    """An enum member from a member, an int or a case-insensitive member name."""
    if isinstance(value, str):
        try:
            return cls[value.strip().upper()]
        except KeyError:
            names = ", ".join(m.name.lower() for m in cls)
            raise ValueError(f"{what} {value!r} is not one of: {names}") from None
    return int(value)  # an unknown int is passed on: the library reports GR_ERROR_UNKNOWN_ENUM


def _field(field) -> int:
    return _enum(Field, field, "field")


def _scalar_type(dtype, field: int) -> int:
    if dtype is None:
        return ScalarType.U64 if field in _HANDLE_FIELDS else ScalarType.F64
    if isinstance(dtype, ScalarType):
        return dtype
    if dtype is float:
        return ScalarType.F64
    if isinstance(dtype, str) and dtype.strip().lower() in _TYPE_NAMES:
        return _TYPE_NAMES[dtype.strip().lower()]
    if isinstance(dtype, str) and dtype.strip() in _TYPE_NAMES:
        return _TYPE_NAMES[dtype.strip()]
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    if _np is not None:
        try:
            dt = _np.dtype(dtype)
        except TypeError:
            dt = None
        if dt is not None and dt.isnative:
            for st, name in _NP_NAME.items():
                if dt == _np.dtype(name):
                    return st
    raise ValueError(f"dtype {dtype!r} is not float64, float32 or (handle fields) uint64")


def _u64(value, what: str) -> int:
    v = getattr(value, "id", value)
    v = int(v)
    if not 0 <= v < 1 << 64:
        raise ValueError(f"{what} {value!r} is not a 64-bit handle id")
    return v


def _grain(g) -> ffi.gr_grain:
    return ffi.gr_grain(_u64(g, "grain"))


def _material(m) -> ffi.gr_material:
    return ffi.gr_material(0 if m is None else _u64(m, "material"))


def _vec3(v, what: str) -> ffi.gr_vec3:
    try:
        x, y, z = v
        return ffi.gr_vec3(float(x), float(y), float(z))
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be 3 numbers, got {v!r}") from None


def _quat(q, what: str) -> ffi.gr_quat:
    try:
        x, y, z, w = q
        return ffi.gr_quat(float(x), float(y), float(z), float(w))
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be 4 numbers (x, y, z, w), got {q!r}") from None


def _kwargs(**kw) -> dict:
    return {k: v for k, v in kw.items() if v is not None}


_counters_checked = False


class _Hooks:
    """The world's C callbacks (logger, task hooks) and their state. Referenced by the
    World until it is destroyed; refers to nothing of the World."""

    def __init__(self, logger, executor, host=None):
        self.logger = logger
        self.executor = executor
        self.host = host
        self.world = None  # weak reference, set by the world (no cycle)
        self.host_error = None
        self.get_state_cb = ffi.gr_host_get_state_fn(self.on_get_state)
        self.apply_impulse_cb = ffi.gr_host_apply_impulse_fn(self.on_apply_impulse)
        self.last_logged_error = None
        self.futures = {}
        self.lock = threading.Lock()
        self.next_key = 0
        self.log_cb = ffi.gr_log_fn(self.on_log)
        self.enqueue_cb = ffi.gr_enqueue_fn(self.on_enqueue)
        self.finish_cb = ffi.gr_finish_fn(self.on_finish)

    def on_log(self, level, message, user):
        text = message.decode("utf-8", "replace") if message else ""
        if level == LogLevel.ERROR:
            self.last_logged_error = text
        if self.logger is not None:
            try:
                level = LogLevel(level)
            except ValueError:
                pass
            self.logger(level, text)  # an exception here is reported by ctypes, not raised

    def _body(self, body):
        world = self.world() if self.world is not None else None
        return Body(world, body.id) if world is not None else None

    def on_get_state(self, body, body_user, state, user):
        try:
            pos, quat, lin, ang = self.host.get_state(self._body(body))
            s = state.contents
            s.position = _vec3(pos, "position")
            s.orientation = _quat(quat, "orientation")
            s.linear_velocity = _vec3(lin, "linear_velocity")
            s.angular_velocity = _vec3(ang, "angular_velocity")
        except Exception as e:  # reported by the step: the state stays NaN and is refused
            self.host_error = e
            nan = float("nan")
            state.contents.position = ffi.gr_vec3(nan, nan, nan)

    def on_apply_impulse(self, body, body_user, impulse, angular, user):
        try:
            self.host.apply_impulse(self._body(body), tuple(impulse), tuple(angular))
        except Exception as e:
            self.host_error = e

    def on_enqueue(self, task, context, user):
        try:
            future = self.executor.submit(task, context)
        except Exception:
            task(context)  # the executor refused (shut down?): run inline and return NULL
            return None
        with self.lock:
            self.next_key += 1
            key = self.next_key
            self.futures[key] = future
        return key

    def on_finish(self, handle, user):
        with self.lock:
            future = self.futures.pop(handle, None)
        if future is not None:
            future.result()


# ================================================================================== World



def _mesh_buffers(mesh):
    """(vertices, triangles) -> (vertex pointer, count, index pointer, triangle count); the
    pointers keep their buffers alive."""
    try:
        vertices, triangles = mesh
        vertices = [_vec3(v, "mesh vertex") for v in vertices]
        flat = [int(i) for t in triangles for i in t]
    except (TypeError, ValueError):
        raise ValueError("mesh must be (vertices, triangles): 3-vectors and index triples") from None
    if len(flat) % 3:
        raise ValueError("mesh triangles must be index triples")
    if any(i < 0 for i in flat):
        raise ValueError("mesh indices must be >= 0")
    vbuf = (ffi.gr_vec3 * max(len(vertices), 1))(*vertices)
    ibuf = (ctypes.c_uint32 * max(len(flat), 1))(*flat)
    vptr = ctypes.cast(vbuf, POINTER(ffi.gr_vec3))
    iptr = ctypes.cast(ibuf, POINTER(ctypes.c_uint32))
    vptr._keep = vbuf  # the cast pointer keeps its buffer alive
    iptr._keep = ibuf
    return vptr, len(vertices), iptr, len(flat) // 3

def _material_def(preset, fields):
    """A ``gr_material_def``: the defaults, a :class:`MaterialPreset` over them if given, then fields."""
    d = ffi.gr_material_def.init()
    if preset is not None:
        status = lib.gr_material_def_set_preset(byref(d), int(ffi.MaterialPreset(preset)))
        if status != 0:
            raise_for_status(status, "gr_material_def_set_preset failed")
    d.set(**fields)
    return d


class World:
    """A granular world (``gr_world``): create, fill, step, read back.

    Use it as a context manager, or call :meth:`close`; a world that is garbage collected
    is closed too. All keyword arguments are optional (defaults of ``gr_world_def_init``):

    Args:
        solver: :class:`SolverKind` (or its name). Only ``DEM`` is built.
        gravity: (x, y, z) [m/s^2], default (0, -9.81, 0).
        substep: largest substep [s]; 0 = automatic.
        worker_count: threads (or executor tasks) per parallel phase; 0/1 = calling thread.
        seed: random seed for fills.
        bounds: (min, max) corners of the world box [m]: grains whose centre leaves it are
            removed at the end of each step (counted in ``counters()["grains_removed"]``).
            Default: unbounded.
        dem: DEM parameters: a ``gr_dem_def`` (``granular.DemDef.init(...)``) or a dict of
            its fields.
        pbd: position-based solver parameters (``solver=SolverKind.PBD``): a ``gr_pbd_def``
            (``granular.PbdDef.init(...)``) or a dict of its fields.
        continuum: continuum solver parameters (``solver=SolverKind.CONTINUUM``): a
            ``gr_continuum_def`` (``granular.ContinuumDef.init(...)``) or a dict of its fields.
        logger: ``callable(level: LogLevel, message: str)`` receiving the library's log
            messages (errors are raised as :class:`GranularError` anyway).
        executor: a :class:`concurrent.futures.Executor` that runs the library's parallel
            tasks (``gr_task_hooks``); without one the library's own thread pool is used
            when ``worker_count > 1``.
        user_data: any Python object, kept as :attr:`user_data`.

    A world is used by one thread at a time (as the C API requires); distinct worlds are
    independent. :meth:`step` releases the GIL while the library runs.
    """

    def __init__(
        self,
        *,
        solver=SolverKind.DEFAULT,
        gravity=None,
        substep=None,
        worker_count=None,
        seed=None,
        bounds=None,
        dem=None,
        pbd=None,
        continuum=None,
        logger=None,
        executor=None,
        user_data=None,
        host=None,
    ):
        self._ptr = None
        # the callbacks live in _Hooks, which refers back to the world only weakly: no
        # reference cycle, so a dropped world is destroyed at once, not at the next GC pass
        self._hooks = _Hooks(logger, executor, host)
        self._hooks.world = weakref.ref(self)
        self._body_user_data = {}  # key (the C user_data pointer value) -> Python object
        self._next_key = 1
        self.user_data = user_data

        d = ffi.gr_world_def.init(_enum(SolverKind, solver, "solver"))
        d.set(**_kwargs(substep=substep, worker_count=worker_count, seed=seed))
        if gravity is not None:
            d.gravity = _vec3(gravity, "gravity")
        if bounds is not None:
            try:
                lo, hi = bounds
            except (TypeError, ValueError):
                raise ValueError(f"bounds must be a (min, max) pair of 3-vectors, got {bounds!r}") from None
            d.bounds_min = _vec3(lo, "bounds min")
            d.bounds_max = _vec3(hi, "bounds max")
        if dem is not None:
            if isinstance(dem, dict):
                dem = ffi.gr_dem_def.init(**dem)
            elif not isinstance(dem, ffi.gr_dem_def):
                raise TypeError("dem must be a gr_dem_def or a dict of its fields")
            self._dem = dem
            d.dem = ctypes.pointer(dem)
        if pbd is not None:
            if isinstance(pbd, dict):
                pbd = ffi.gr_pbd_def.init(**pbd)
            elif not isinstance(pbd, ffi.gr_pbd_def):
                raise TypeError("pbd must be a gr_pbd_def or a dict of its fields")
            self._pbd = pbd
            d.pbd = ctypes.pointer(pbd)
        if continuum is not None:
            if isinstance(continuum, dict):
                continuum = ffi.gr_continuum_def.init(**continuum)
            elif not isinstance(continuum, ffi.gr_continuum_def):
                raise TypeError("continuum must be a gr_continuum_def or a dict of its fields")
            self._continuum = continuum
            d.solver_def = ctypes.cast(ctypes.pointer(continuum), ctypes.c_void_p)

        d.logger.func = self._hooks.log_cb
        if host is not None:
            d.host.get_state = self._hooks.get_state_cb
            d.host.apply_impulse = self._hooks.apply_impulse_cb
        if executor is not None:
            d.tasks.enqueue = self._hooks.enqueue_cb
            d.tasks.finish = self._hooks.finish_cb

        ptr = ffi.gr_world_p()
        status = lib.gr_world_create(byref(d), byref(ptr))
        if status != Status.OK:
            raise error_class(status)(status, self._hooks.last_logged_error)
        self._ptr = ptr

    # ---- lifetime ---------------------------------------------------------------------

    def close(self, _destroy=lib.gr_world_destroy) -> None:
        """Destroy the world (``gr_world_destroy``). Idempotent."""
        ptr, self._ptr = self._ptr, None
        if ptr:
            _destroy(ptr)
        # the callbacks may be released only now that the library cannot call them any more
        self._hooks = None
        self._body_user_data = {}

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return not self._ptr

    @property
    def ptr(self):
        """The ``POINTER(gr_world)`` for calls through ``granular.ffi.lib``."""
        ptr = self._ptr
        if not ptr:
            raise ClosedWorldError()
        return ptr

    def __repr__(self) -> str:
        if not self._ptr:
            return "<granular.World (closed)>"
        return f"<granular.World grains={self.grain_count} time={self.time:g}s>"

    def __reduce__(self):
        # pickle / copy.deepcopy through a snapshot (the hooks are not part of it)
        d, _ = self.get_def()
        return (_restore_world, (int(d.solver), int(d.worker_count), self.save()))

    # ---- errors -----------------------------------------------------------------------

    def _check(self, status: int) -> None:
        if status != Status.OK:
            raise error_class(status)(status, self.last_error)

    @property
    def last_error(self) -> str:
        """``gr_world_last_error()``: message of the last failed call ("" if none)."""
        msg = lib.gr_world_last_error(self.ptr)
        return msg.decode("utf-8", "replace") if msg else ""

    # ---- world ------------------------------------------------------------------------

    def step(self, dt: float, count: int = 1) -> None:
        """Advance by ``dt`` seconds, ``count`` times (``gr_step``). Releases the GIL."""
        ptr = self.ptr
        for _ in range(count):
            self._check(lib.gr_step(ptr, dt))

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return lib.gr_world_get_time(self.ptr)

    @property
    def substep(self) -> float:
        """The substep [s] the next step uses at most (resolved when automatic)."""
        return lib.gr_world_get_substep(self.ptr)

    @property
    def grain_count(self) -> int:
        """Number of live grains; bulk calls index them 0 .. grain_count - 1."""
        return lib.gr_world_get_grain_count(self.ptr)

    def __len__(self) -> int:
        return self.grain_count

    @property
    def render_point_count(self) -> int:
        """Number of render points (DEM: one per sphere; PBD: the grains, or the
        high-resolution points when upsampling)."""
        return lib.gr_world_get_render_point_count(self.ptr)

    @property
    def gravity(self) -> tuple:
        """Gravity [m/s^2]; assign to change it between steps (``gr_world_set_gravity``)."""
        return tuple(self.get_def()[0].gravity)

    @gravity.setter
    def gravity(self, value) -> None:
        self._check(lib.gr_world_set_gravity(self.ptr, _vec3(value, "gravity")))

    @property
    def bounds(self):
        """The world bounds as ((min), (max)), or None when unbounded."""
        d = self.get_def()[0]
        lo, hi = tuple(d.bounds_min), tuple(d.bounds_max)
        return None if lo == hi else (lo, hi)

    def get_def(self):
        """``gr_world_get_def``: (``gr_world_def``, ``gr_dem_def``) as resolved at creation."""
        d = ffi.gr_world_def()
        d.size = sizeof(d)
        dem = ffi.gr_dem_def()
        dem.size = sizeof(dem)
        self._check(lib.gr_world_get_def(self.ptr, byref(d), byref(dem)))
        d.dem = None  # it pointed at our local struct
        return d, dem

    def get_pbd_def(self):
        """``gr_world_get_pbd_def``: the position-based solver's parameters as resolved."""
        d = ffi.gr_pbd_def()
        d.size = sizeof(d)
        self._check(lib.gr_world_get_pbd_def(self.ptr, byref(d)))
        return d

    def get_solver_def(self, kind):
        """``gr_world_get_solver_def``: any solver's parameters (``DefKind.DEM``, ``DefKind.PBD``)
        as this world resolved them: its own solver's def, another solver's defaults."""
        k = _enum(ffi.DefKind, kind, "kind")
        struct = ffi.DEF_STRUCTS.get(k)
        if struct is None:
            raise ValueError(f"kind {kind!r} is not a def struct")
        d = struct()
        d.size = sizeof(d)
        self._check(lib.gr_world_get_solver_def(self.ptr, int(k), byref(d)))
        return d

    def add_system(self, solver, solver_def=None) -> int:
        """``gr_world_add_system``: another solver with grains of its own, beside the world's
        (system 0). ``solver_def`` is that solver's def struct or None (defaults). Returns the
        system's index, for ``add_grain(..., system=i)`` and fills."""
        k = _enum(ffi.SolverKind, solver, "solver")
        out = c_uint32()
        self._check(lib.gr_world_add_system(self.ptr, int(k), None if solver_def is None else byref(solver_def),
                                            byref(out)))
        return out.value

    @property
    def system_count(self) -> int:
        """``gr_world_get_system_count``."""
        return int(lib.gr_world_get_system_count(self.ptr))

    def system_solver(self, system: int):
        """``gr_world_get_system_solver``: the solver kind of a system."""
        out = ffi.c_enum()
        self._check(lib.gr_world_get_system_solver(self.ptr, system, byref(out)))
        return ffi.SolverKind(out.value)

    def counters(self) -> dict:
        """``gr_world_get_counters`` as a dict (every field but ``size``)."""
        ptr = self.ptr
        _check_counters_layout(ptr)
        c = ffi.gr_counters.init()
        self._check(lib.gr_world_get_counters(ptr, byref(c)))
        out = c.to_dict()
        del out["size"]
        return out

    # ---- snapshots -------------------------------------------------------------------

    def save(self, stream=None):
        """Snapshot the simulation state (``gr_world_save``).

        Without ``stream`` returns the snapshot as ``bytes``; with a binary file-like
        ``stream`` writes to it and returns the number of bytes written.
        """
        ptr = self.ptr
        chunks = []
        failure = []
        total = [0]

        def write(user, data, size):
            try:
                block = ctypes.string_at(data, size)
                if stream is None:
                    chunks.append(block)
                else:
                    n = stream.write(block)
                    if n is not None and n != size:
                        return 0
                total[0] += size
                return size
            except BaseException as exc:  # reported after the call, never across C frames
                failure.append(exc)
                return 0

        cb = ffi.gr_write_fn(write)
        status = lib.gr_world_save(ptr, cb, None)
        self._raise_stream(status, failure)
        return b"".join(chunks) if stream is None else total[0]

    def load(self, source) -> None:
        """Replace the simulation state by a snapshot (``gr_world_load``).

        ``source`` is a bytes-like object or a binary file-like object with ``read``. On any
        error the world is unchanged. Hooks (logger, executor) stay those of this world.
        """
        ptr = self.ptr
        failure = []
        if hasattr(source, "read"):

            def read(user, dst, size):
                try:
                    got = 0
                    while got < size:
                        block = source.read(size - got)
                        if not block:
                            break
                        ctypes.memmove(dst + got, bytes(block), len(block))
                        got += len(block)
                    return got
                except BaseException as exc:
                    failure.append(exc)
                    return 0

        else:
            view = memoryview(source).cast("B")
            n = view.nbytes
            buf = (ctypes.c_char * max(n, 1)).from_buffer_copy(view) if n else (ctypes.c_char * 1)()
            base = ctypes.addressof(buf)
            pos = [0]

            def read(user, dst, size):
                k = min(size, n - pos[0])
                if k > 0:
                    ctypes.memmove(dst, base + pos[0], k)
                    pos[0] += k
                return k

        cb = ffi.gr_read_fn(read)
        status = lib.gr_world_load(ptr, cb, None)
        self._raise_stream(status, failure)

    def _raise_stream(self, status, failure) -> None:
        if status == Status.OK:
            return
        err = error_class(status)(status, self.last_error)
        if failure:
            raise err from failure[0]
        raise err

    @classmethod
    def from_snapshot(cls, source, **kwargs) -> World:
        """A new world (``kwargs`` as for the constructor) loaded from a snapshot."""
        world = cls(**kwargs)
        try:
            world.load(source)
        except BaseException:
            world.close()
            raise
        return world

    # ---- materials -------------------------------------------------------------------

    def add_material(self, preset=None, **fields) -> int:
        """Add a material (``gr_add_material``); fields of ``gr_material_def``
        (density, youngs_modulus, poisson_ratio, restitution, friction, rolling_friction,
        static_friction, kinetic_friction, continuum_friction: the last three derived from
        friction and rolling_friction unless given), over a :class:`MaterialPreset` if one is
        given (``gr_material_def_set_preset``). Returns the material handle."""
        d = _material_def(preset, fields)
        out = ffi.gr_material()
        self._check(lib.gr_add_material(self.ptr, byref(d), byref(out)))
        return out.id

    @staticmethod
    def derive_material(preset=None, **fields) -> dict:
        """``gr_material_def_derive``: the material's fields with the coefficients each solver
        derives (static_friction, kinetic_friction, continuum_friction) filled in."""
        d = _material_def(preset, fields)
        status = lib.gr_material_def_derive(byref(d))
        if status != 0:
            raise_for_status(status, "gr_material_def_derive failed")
        out = d.to_dict()
        del out["size"], out["reserved0"]
        return out

    @property
    def default_material(self) -> int:
        """Handle of the world's default material."""
        return lib.gr_world_get_default_material(self.ptr).id

    def material_def(self, material) -> dict:
        """``gr_material_get_def`` as a dict of the material's properties."""
        d = ffi.gr_material_def()
        d.size = sizeof(d)
        self._check(lib.gr_material_get_def(self.ptr, _material(material), byref(d)))
        out = d.to_dict()
        del out["size"], out["reserved0"]
        return out

    def set_material_pair(self, a, b, **fields) -> None:
        """Override the mixing rule for a pair (``gr_set_material_pair``); fields of
        ``gr_material_pair_def`` (restitution, friction, rolling_friction)."""
        d = ffi.gr_material_pair_def.init(**fields)
        self._check(lib.gr_set_material_pair(self.ptr, _material(a), _material(b), byref(d)))

    # ---- grains ------------------------------------------------------------------------

    def add_clump_template(self, centres, radii) -> int:
        """Register a grain shape made of spheres (``gr_add_clump_template``); returns its handle.

        ``centres``: (n, 3) sphere centres, ``radii``: n radii, in any frame and unit.
        """
        centres = [_vec3(c, f"centres[{i}]") for i, c in enumerate(centres)]
        radii = [float(r) for r in radii]
        if len(centres) != len(radii):
            raise ValueError(f"{len(centres)} centres for {len(radii)} radii")
        n = len(centres)
        c_arr = (ffi.gr_vec3 * max(n, 1))(*centres)
        r_arr = (ctypes.c_double * max(n, 1))(*radii)
        d = ffi.gr_clump_def.init()
        d.count = n
        d.centres = ctypes.cast(c_arr, POINTER(ffi.gr_vec3))
        d.radii = ctypes.cast(r_arr, POINTER(ctypes.c_double))
        out = ffi.gr_clump()
        self._check(lib.gr_add_clump_template(self.ptr, byref(d), byref(out)))
        return out.id

    def add_grain(
        self, position=(0.0, 0.0, 0.0), radius=None, *, velocity=None, angular_velocity=None, orientation=None,
        material=None, shape=None, clump=None, system=0,
    ) -> int:
        """Add one grain (``gr_add_grain``); returns its handle. ``shape``: a GrainShape (or its
        name); with ``clump`` (a template handle) the shape is GR_GRAIN_CLUMP. ``system``: the
        system that gets it (0, the world's own; see :meth:`add_system`)."""
        d = ffi.gr_grain_def.init(
            **_kwargs(
                position=position, radius=radius, velocity=velocity, angular_velocity=angular_velocity,
                orientation=orientation, material=material,
            )
        )
        if shape is not None:
            d.shape = _enum(ffi.GrainShape, shape, "shape")
        if clump is not None:
            d.clump = ffi.gr_clump(_u64(clump, "clump"))
            if shape is None:
                d.shape = ffi.GrainShape.CLUMP
        d.system = system
        out = ffi.gr_grain()
        self._check(lib.gr_add_grain(self.ptr, byref(d), byref(out)))
        return out.id

    def add_grains(
        self, positions, radius=None, *, velocities=None, angular_velocities=None, orientations=None, material=None,
        system=0,
    ):
        """Add many grains at once, all or nothing (``gr_add_grains``).

        Args:
            positions: (n, 3) array-like.
            radius: a scalar or n radii (default 0.005 m).
            velocities, angular_velocities: (n, 3) array-likes (default 0).
            orientations: (n, 4) quaternions (x, y, z, w) (default identity).
            material: one material handle or n of them (default: the default material).
            system: the system that gets them (default 0, the world's own).

        Returns:
            the n handles: a ``numpy.uint64`` array, or a list of ints without numpy.
        """
        ptr = self.ptr
        if _np is not None:
            return self._add_grains_numpy(
                ptr, positions, radius, velocities, angular_velocities, orientations, material, system
            )
        positions = [tuple(p) for p in positions]
        n = len(positions)
        if n == 0:
            return []
        if n >= 1 << 32:
            raise ValueError("too many grains for one call")
        defs = (ffi.gr_grain_def * n)()
        template = ffi.gr_grain_def.init()
        template.system = system

        def column(values, what):
            if values is None:
                return None
            values = list(values)
            if len(values) != n:
                raise ValueError(f"{what} has {len(values)} entries for {n} positions")
            return values

        radii = column(None if radius is None or not _iterable(radius) else radius, "radius")
        mats = column(None if material is None or not _iterable(material) else material, "material")
        vels = column(velocities, "velocities")
        avels = column(angular_velocities, "angular_velocities")
        quats = column(orientations, "orientations")
        for i in range(n):
            defs[i] = template
            d = defs[i]
            d.position = _vec3(positions[i], f"positions[{i}]")
            if radii is not None:
                d.radius = radii[i]
            elif radius is not None:
                d.radius = radius
            if mats is not None:
                d.material = _material(mats[i])
            elif material is not None:
                d.material = _material(material)
            if vels is not None:
                d.velocity = _vec3(vels[i], f"velocities[{i}]")
            if avels is not None:
                d.angular_velocity = _vec3(avels[i], f"angular_velocities[{i}]")
            if quats is not None:
                d.orientation = _quat(quats[i], f"orientations[{i}]")
        out = (ffi.gr_grain * n)()
        self._check(lib.gr_add_grains(ptr, defs, n, out))
        return [h.id for h in out]

    def _add_grains_numpy(self, ptr, positions, radius, velocities, angular_velocities, orientations, material, system):
        np = _np
        pos = np.asarray(positions, dtype=np.float64)
        if pos.size == 0:
            return np.empty(0, dtype=np.uint64)
        if pos.ndim != 2 or pos.shape[1] != 3:
            raise ValueError(f"positions must have shape (n, 3), got {pos.shape}")
        n = pos.shape[0]
        if n >= 1 << 32:
            raise ValueError("too many grains for one call")
        dt = _grain_def_dtype()
        defs = np.empty(n, dtype=dt)
        proto = ffi.gr_grain_def.init()
        proto.system = system
        template = np.frombuffer(bytes(proto), dtype=np.uint8)
        defs.view(np.uint8).reshape(n, dt.itemsize)[:] = template
        defs["position"] = pos

        def put(name, values, width, dtype=np.float64):
            if values is None:
                return
            arr = np.asarray(values, dtype=dtype)
            expected = (n, width) if width > 1 else (n,)
            if arr.shape != expected and not (width == 1 and arr.ndim == 0):
                raise ValueError(f"{name} must have shape {expected} (or be a scalar), got {arr.shape}")
            defs[name] = arr

        put("radius", radius, 1)
        put("velocity", velocities, 3)
        put("angular_velocity", angular_velocities, 3)
        put("orientation", orientations, 4)
        if material is not None:
            if _iterable(material):
                put("material", [_u64(m, "material") for m in material], 1, np.uint64)
            else:
                defs["material"] = _u64(material, "material")
        out = np.empty(n, dtype=np.uint64)
        self._check(
            lib.gr_add_grains(
                ptr, defs.ctypes.data_as(POINTER(ffi.gr_grain_def)), n, out.ctypes.data_as(POINTER(ffi.gr_grain))
            )
        )
        return out

    def fill_box(self, lo, hi, radius=None, **options):
        """Fill the axis-aligned box [lo, hi] with grains (``gr_fill_box``).

        Keyword arguments are the ``gr_fill_def`` fields (``pattern`` also as a name:
        "lattice", "random", "poisson"). Returns the number of grains added, or with
        ``return_handles=True`` their handles (numpy ``uint64`` array, or a list).
        """
        return self._fill(None, lo, hi, radius, **options)

    def fill_mesh(self, mesh, radius=None, **options):
        """Fill the inside of a closed mesh with grains (``gr_fill_mesh``): ``mesh`` is a
        (vertices, triangles) pair as for :meth:`add_body`, in world coordinates; the other
        arguments are those of :meth:`fill_box`."""
        return self._fill(_mesh_buffers(mesh), None, None, radius, **options)

    def _fill(
        self, mesh, lo, hi, radius=None, *, pattern=None, radius_max=None, spacing=None, jitter=None, velocity=None,
        max_count=None, attempts=None, seed=None, avoid_overlap=None, material=None, return_handles=False, system=0,
        shape=None, clump=None,
    ):
        ptr = self.ptr
        d = ffi.gr_fill_def.init(
            **_kwargs(
                min=lo, max=hi, radius=radius, radius_max=radius_max, spacing=spacing, jitter=jitter,
                velocity=velocity, max_count=max_count, attempts=attempts, seed=seed, material=material,
            )
        )
        if pattern is not None:
            d.pattern = _enum(FillPattern, pattern, "pattern")
        if shape is not None:
            d.shape = _enum(ffi.GrainShape, shape, "shape")
        if clump is not None:
            d.clump = ffi.gr_clump(_u64(clump, "clump"))
            if shape is None:
                d.shape = ffi.GrainShape.CLUMP
        if avoid_overlap is not None:
            d.avoid_overlap = 1 if avoid_overlap else 0
        d.system = system
        before = lib.gr_world_get_grain_count(ptr)
        added = c_uint32()
        first = ffi.gr_grain()
        if mesh is None:
            self._check(lib.gr_fill_box(ptr, byref(d), byref(added), byref(first), 1))
        else:
            vbuf, nv, ibuf, nt = mesh
            self._check(lib.gr_fill_mesh(ptr, byref(d), vbuf, nv, ibuf, nt, byref(added), byref(first), 1))
        if not return_handles:
            return added.value
        # the new grains follow the existing ones in bulk order; the first handle the call
        # returned confirms it
        handles = self.read(Field.HANDLE, first=before, count=added.value)
        if added.value and int(handles[0]) != first.id:
            raise RuntimeError("fill: the new grains are not at the end of the bulk order")
        return handles

    def remove_grain(self, grain) -> None:
        """Remove a grain (``gr_remove_grain``): its handle becomes stale and the last
        grain in bulk order takes its index."""
        self._check(lib.gr_remove_grain(self.ptr, _grain(grain)))

    def remove_grains(self, grains) -> None:
        """Remove several grains, all or nothing (``gr_remove_grains``)."""
        ptr = self.ptr
        if _np is not None:
            ids = _np.ascontiguousarray(
                [_u64(g, "grain") for g in grains] if not isinstance(grains, _np.ndarray) else grains,
                dtype=_np.uint64,
            ).reshape(-1)
            n = ids.shape[0]
            arg = ids.ctypes.data_as(POINTER(ffi.gr_grain))
        else:
            ids = [_u64(g, "grain") for g in grains]
            n = len(ids)
            arg = (ffi.gr_grain * max(n, 1))(*[ffi.gr_grain(i) for i in ids])
        if n >= 1 << 32:
            raise ValueError("too many grains for one call")
        self._check(lib.gr_remove_grains(ptr, arg, n))

    def grain_is_valid(self, grain) -> bool:
        """True if the handle names a live grain of this world (``gr_grain_is_valid``)."""
        try:
            g = _grain(grain)
        except ValueError:
            return False
        return bool(lib.gr_grain_is_valid(self.ptr, g))

    def grain_state(self, grain) -> GrainState:
        """``gr_grain_get_state`` as a :class:`GrainState` of tuples."""
        s = ffi.gr_grain_state()
        self._check(lib.gr_grain_get_state(self.ptr, _grain(grain), byref(s)))
        return GrainState(tuple(s.position), tuple(s.velocity), tuple(s.angular_velocity), tuple(s.orientation))

    def set_grain_state(
        self, grain, state=None, *, position=None, velocity=None, angular_velocity=None, orientation=None
    ) -> None:
        """Teleport / re-velocity one grain (``gr_grain_set_state``).

        Pass a whole :class:`GrainState`, or some of the keyword fields (the others keep
        their current values).
        """
        g = _grain(grain)
        if state is None:
            state = self.grain_state(g)
        state = GrainState(*state)._replace(
            **_kwargs(position=position, velocity=velocity, angular_velocity=angular_velocity, orientation=orientation)
        )
        s = ffi.gr_grain_state(
            _vec3(state.position, "position"),
            _vec3(state.velocity, "velocity"),
            _vec3(state.angular_velocity, "angular_velocity"),
            _quat(state.orientation, "orientation"),
        )
        self._check(lib.gr_grain_set_state(self.ptr, g, byref(s)))

    def grain_radius(self, grain) -> float:
        """``gr_grain_get_radius`` [m]."""
        out = c_double()
        self._check(lib.gr_grain_get_radius(self.ptr, _grain(grain), byref(out)))
        return out.value

    def grain_material(self, grain) -> int:
        """``gr_grain_get_material``: the grain's material handle."""
        out = ffi.gr_material()
        self._check(lib.gr_grain_get_material(self.ptr, _grain(grain), byref(out)))
        return out.id

    def grain_index(self, grain) -> int:
        """``gr_grain_get_index``: the grain's index in bulk order (until the next add/remove)."""
        out = c_uint32()
        self._check(lib.gr_grain_get_index(self.ptr, _grain(grain), byref(out)))
        return out.value

    def grain_system(self, grain) -> int:
        """``gr_grain_get_system``: the system that owns the grain."""
        out = c_uint32()
        self._check(lib.gr_grain_get_system(self.ptr, _grain(grain), byref(out)))
        return out.value

    # ---- bulk --------------------------------------------------------------------------

    def read(self, field, dtype=None, *, first=0, count=None, out=None):
        """Read one field of grains [first, first + count) in bulk order (``gr_read_grains``).

        Args:
            field: a :class:`Field` or its name ("position", "velocity", "angular_velocity",
                "orientation", "radius", "mass", "force", "handle", "material").
            dtype: float64 (default) or float32; handle fields are always uint64.
            count: default: up to the last grain.
            out: optional destination written in place (zero copy): a numpy array of shape
                (count, width) -- rows may be strided (e.g. ``a[:, :3]`` of an (n, 4) array)
                but each row must be contiguous -- or (count,) for scalar fields; without
                numpy, any writable packed buffer (``bytearray``, ctypes array...).

        Returns:
            ``out`` if given; else a numpy array of shape (count, 3), (count, 4) or (count,);
            without numpy a list of tuples (vector fields) or of numbers.
        """
        ptr = self.ptr
        f = _field(field)
        st = _scalar_type(dtype, f)
        width = _WIDTH.get(f, 1)
        if count is None:
            count = max(lib.gr_world_get_grain_count(ptr) - first, 0)
        if _np is not None and (out is None or isinstance(out, _np.ndarray)):
            arr, stride = self._bulk_dest(out, count, width, st, f)
            self._check(lib.gr_read_grains(ptr, f, st, first, count, arr.ctypes.data, stride))
            return arr
        ctype = _CTYPE.get(st, c_double)
        if out is not None:
            view = memoryview(out)
            if view.readonly or not view.contiguous or view.nbytes < count * width * sizeof(ctype):
                raise ValueError(f"out must be a writable contiguous buffer of at least {count * width * sizeof(ctype)} bytes")
            buf = (ctypes.c_char * view.nbytes).from_buffer(view.cast("B"))
            self._check(lib.gr_read_grains(ptr, f, st, first, count, ctypes.addressof(buf), 0))
            return out
        buf = (ctype * max(count * width, 1))()
        self._check(lib.gr_read_grains(ptr, f, st, first, count, buf, 0))
        values = buf[: count * width]
        if width == 1:
            return values
        return [tuple(values[i : i + width]) for i in range(0, count * width, width)]

    @staticmethod
    def _bulk_dest(out, count, width, st, field):
        np = _np
        dtype = np.dtype(_NP_NAME.get(st, "float64"))
        shape = (count, width) if width > 1 else (count,)
        if out is None:
            return np.empty(shape, dtype=dtype), 0
        if out.dtype != dtype:
            raise ValueError(f"out has dtype {out.dtype}, field {Field(field).name.lower()} needs {dtype}")
        if out.shape != shape:
            raise ValueError(f"out has shape {out.shape}, expected {shape}")
        if not out.flags.writeable:
            raise ValueError("out is read-only")
        if width > 1 and count > 0 and out.strides[1] != dtype.itemsize:
            raise ValueError("out's rows must be contiguous (strides[1] == itemsize)")
        stride = out.strides[0] if count > 1 else 0
        if count > 1 and stride < width * dtype.itemsize:
            raise ValueError(f"out's row stride {stride} is smaller than a row ({width * dtype.itemsize} bytes)")
        return out, stride

    def write(self, field, values, *, first=0, dtype=None) -> None:
        """Write position, velocity, angular_velocity or orientation of grains
        [first, first + len(values)) (``gr_write_grains``). All values are checked before
        anything is written.

        ``values`` is an (n, 3) (orientation: (n, 4)) array-like. A float32 numpy array is
        passed as is (GR_TYPE_F32); anything else as float64 unless ``dtype`` says
        otherwise. Strided rows are passed without a copy.
        """
        ptr = self.ptr
        f = _field(field)
        width = _WIDTH.get(f, 3)
        if _np is not None:
            np = _np
            if dtype is None and isinstance(values, np.ndarray) and values.dtype == np.float32:
                st = ScalarType.F32
            else:
                st = _scalar_type(dtype, f)
            arr = np.asarray(values, dtype=_NP_NAME.get(st, "float64"))
            if arr.ndim != 2 or arr.shape[1] != width:
                raise ValueError(f"values must have shape (n, {width}), got {arr.shape}")
            n = arr.shape[0]
            if n > 1 and (arr.strides[1] != arr.itemsize or arr.strides[0] < width * arr.itemsize):
                arr = np.ascontiguousarray(arr)
            stride = arr.strides[0] if n > 1 else 0
            self._check(lib.gr_write_grains(ptr, f, st, first, n, arr.ctypes.data, stride))
            return
        st = _scalar_type(dtype, f)
        rows = [tuple(v) for v in values]
        for i, row in enumerate(rows):
            if len(row) != width:
                raise ValueError(f"values[{i}] has {len(row)} components, field needs {width}")
        n = len(rows)
        flat = [float(x) for row in rows for x in row]
        buf = (_CTYPE.get(st, c_double) * max(len(flat), 1))(*flat)
        self._check(lib.gr_write_grains(ptr, f, st, first, n, buf, 0))

    def render_points(self, *, first=0, count=None, out=None):
        """Render points (x, y, z, radius) as float32 (``gr_read_render_points``).

        Returns an (n, 4) float32 numpy array (``out`` if given, which may have strided
        rows), or a list of 4-tuples without numpy.
        """
        ptr = self.ptr
        if count is None:
            count = max(lib.gr_world_get_render_point_count(ptr) - first, 0)
        if _np is not None and (out is None or isinstance(out, _np.ndarray)):
            arr, stride = self._bulk_dest(out, count, 4, ScalarType.F32, Field.POSITION)
            dst = arr.ctypes.data_as(POINTER(c_float))
            self._check(lib.gr_read_render_points(ptr, first, count, dst, stride))
            return arr
        buf = (c_float * max(4 * count, 1))()
        self._check(lib.gr_read_render_points(ptr, first, count, buf, 0))
        values = buf[: 4 * count]
        return [tuple(values[i : i + 4]) for i in range(0, 4 * count, 4)]

    # ---- bodies ------------------------------------------------------------------------

    def add_body(
        self, shape, *, motion=None, position=None, orientation=None, linear_velocity=None, angular_velocity=None,
        normal=None, radius=None, half_height=None, half_extents=None, open_faces=None, material=None,
        user_data=None, particle_radius=None, particle_density=None, particle_offset=None, mesh=None,
    ) -> Body:
        """Add a body (``gr_add_body``). ``shape`` and ``motion`` take a
        :class:`ShapeType` / :class:`MotionType` or a name ("plane", "kinematic"...);
        ``open_faces`` takes :class:`Face` bits; ``user_data`` any Python object.
        ``mesh`` is a (vertices, triangles) pair for ``ShapeType.MESH``: 3-vectors and
        index triples (counter-clockwise seen from outside; the library copies them)."""
        d = ffi.gr_body_def.init(
            **_kwargs(
                position=position, orientation=orientation, linear_velocity=linear_velocity,
                angular_velocity=angular_velocity, normal=normal, radius=radius, half_height=half_height,
                half_extents=half_extents, material=material, particle_radius=particle_radius,
                particle_density=particle_density, particle_offset=particle_offset,
            )
        )
        if mesh is not None:
            d.mesh_vertices, d.mesh_vertex_count, d.mesh_indices, d.mesh_triangle_count = _mesh_buffers(mesh)
        d.shape = _enum(ShapeType, shape, "shape")
        if motion is not None:
            d.motion = _enum(MotionType, motion, "motion")
        if open_faces is not None:
            d.open_faces = int(open_faces)
        key = None
        if user_data is not None:
            key = self._next_key
            d.user_data = key
        out = ffi.gr_body()
        self._check(lib.gr_add_body(self.ptr, byref(d), byref(out)))
        if key is not None:
            self._next_key += 1
            self._body_user_data[key] = user_data
        return Body(self, out.id)

    def add_plane(self, position=(0.0, 0.0, 0.0), normal=(0.0, 1.0, 0.0), **kwargs) -> Body:
        """A half-space below the plane through ``position`` with outward ``normal``."""
        return self.add_body(ShapeType.PLANE, position=position, normal=normal, **kwargs)

    def add_sphere(self, position, radius, **kwargs) -> Body:
        """A solid ball."""
        return self.add_body(ShapeType.SPHERE, position=position, radius=radius, **kwargs)

    def add_box(self, position, half_extents, **kwargs) -> Body:
        """A solid box."""
        return self.add_body(ShapeType.BOX, position=position, half_extents=half_extents, **kwargs)

    def add_container(self, position, half_extents, open_faces=0, **kwargs) -> Body:
        """A hollow box with walls on its faces except ``open_faces``; grains go inside."""
        return self.add_body(
            ShapeType.CONTAINER, position=position, half_extents=half_extents, open_faces=open_faces, **kwargs
        )

    def add_capsule(self, position, radius, half_height, **kwargs) -> Body:
        """A segment from -half_height to +half_height on local Y swept by ``radius``."""
        return self.add_body(ShapeType.CAPSULE, position=position, radius=radius, half_height=half_height, **kwargs)

    def add_mesh(self, vertices, triangles, position=(0.0, 0.0, 0.0), **kwargs) -> Body:
        """A closed triangle mesh, covered with particles (static unless ``motion`` says)."""
        return self.add_body(ShapeType.MESH, position=position, mesh=(vertices, triangles), **kwargs)

    @property
    def host_error(self):
        """The last exception raised by a ``host`` callback (then cleared), or None."""
        e, self._hooks.host_error = self._hooks.host_error, None
        return e

    def body(self, body_id) -> Body:
        """A :class:`Body` for a body handle id."""
        return Body(self, _u64(body_id, "body"))


def _iterable(value) -> bool:
    if isinstance(value, (str, bytes)):
        return False
    if _np is not None and isinstance(value, _np.ndarray):
        return value.ndim > 0
    try:
        iter(value)
    except TypeError:
        return False
    return True


_grain_dtype = None


def _grain_def_dtype():
    """A numpy structured dtype laid over gr_grain_def (offsets from ctypes)."""
    global _grain_dtype
    if _grain_dtype is None:
        np = _np
        g = ffi.gr_grain_def
        fields = [
            ("size", "u4"),
            ("shape", "u4"),
            ("material", "u8"),
            ("radius", "f8"),
            ("position", ("f8", (3,))),
            ("velocity", ("f8", (3,))),
            ("angular_velocity", ("f8", (3,))),
            ("orientation", ("f8", (4,))),
        ]
        _grain_dtype = np.dtype(
            {
                "names": [n for n, _ in fields],
                "formats": [f for _, f in fields],
                "offsets": [getattr(g, n).offset for n, _ in fields],
                "itemsize": sizeof(g),
            }
        )
    return _grain_dtype


def _check_counters_layout(ptr) -> None:
    """Once per process: sizeof(gr_counters) as the library writes it equals ours (or the
    library is a newer minor version whose counters grew at the end)."""
    global _counters_checked
    if _counters_checked:
        return
    size = ffi.library_counters_size(ptr)
    ours = sizeof(ffi.gr_counters)
    if size is not None and size != ours:
        newer = ffi.get_version_tuple()[:2] > ffi.BINDING_VERSION[:2]
        if not (newer and size > ours):
            raise GranularError(
                Status.ERROR_STRUCT_SIZE,
                f"sizeof(gr_counters) is {size} in the library, {ours} in the binding",
            )
    _counters_checked = True


def _restore_world(solver, worker_count, snapshot):
    return World.from_snapshot(snapshot, solver=solver, worker_count=worker_count)


# =================================================================================== Body


class Body:
    """A body of a :class:`World` (``gr_body`` handle + its world).

    Compares and hashes by (world, id). Methods raise :class:`StaleHandleError` once the
    body was removed.
    """

    __slots__ = ("world", "id")

    def __init__(self, world: World, body_id: int):
        self.world = world
        self.id = body_id

    @property
    def handle(self) -> ffi.gr_body:
        """The ``gr_body`` struct for ffi calls."""
        return ffi.gr_body(self.id)

    def __int__(self) -> int:
        return self.id

    def __eq__(self, other):
        if isinstance(other, Body):
            return self.world is other.world and self.id == other.id
        return NotImplemented

    def __hash__(self):
        return hash((id(self.world), self.id))

    def __repr__(self) -> str:
        return f"<granular.Body 0x{self.id:016x}>"

    @property
    def is_valid(self) -> bool:
        """``gr_body_is_valid``."""
        return not self.world.closed and bool(lib.gr_body_is_valid(self.world.ptr, self.handle))

    def remove(self) -> None:
        """``gr_remove_body``: the handle becomes stale."""
        w = self.world
        key = lib.gr_body_get_user_data(w.ptr, self.handle)
        w._check(lib.gr_remove_body(w.ptr, self.handle))
        if key:
            w._body_user_data.pop(key, None)

    def set_velocity(self, linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)) -> None:
        """``gr_body_set_velocity`` (kinematic bodies): [m/s] and [rad/s] about the position."""
        w = self.world
        w._check(lib.gr_body_set_velocity(w.ptr, self.handle, _vec3(linear, "linear"), _vec3(angular, "angular")))

    def get_velocity(self) -> tuple:
        """``gr_body_get_velocity``: (linear, angular)."""
        w = self.world
        lin, ang = ffi.gr_vec3(), ffi.gr_vec3()
        w._check(lib.gr_body_get_velocity(w.ptr, self.handle, byref(lin), byref(ang)))
        return tuple(lin), tuple(ang)

    def set_pose(self, position, orientation=(0.0, 0.0, 0.0, 1.0)) -> None:
        """``gr_body_set_pose``: teleport (grains are pushed out at the next step)."""
        w = self.world
        w._check(
            lib.gr_body_set_pose(w.ptr, self.handle, _vec3(position, "position"), _quat(orientation, "orientation"))
        )

    def get_pose(self) -> tuple:
        """``gr_body_get_pose``: (position, orientation)."""
        w = self.world
        pos, quat = ffi.gr_vec3(), ffi.gr_quat()
        w._check(lib.gr_body_get_pose(w.ptr, self.handle, byref(pos), byref(quat)))
        return tuple(pos), tuple(quat)

    @property
    def position(self) -> tuple:
        """The body's position [m]."""
        return self.get_pose()[0]

    def get_force(self) -> tuple:
        """``gr_body_get_force``: (force [N], torque [N m]) from the grains, averaged over
        the last step."""
        w = self.world
        force, torque = ffi.gr_vec3(), ffi.gr_vec3()
        w._check(lib.gr_body_get_force(w.ptr, self.handle, byref(force), byref(torque)))
        return tuple(force), tuple(torque)

    @property
    def mass(self) -> float:
        """``gr_body_get_mass``: [kg] of a dynamic or host-owned body, 0 for others."""
        w = self.world
        m = ctypes.c_double()
        w._check(lib.gr_body_get_mass(w.ptr, self.handle, byref(m)))
        return m.value

    @property
    def particle_count(self) -> int:
        """``gr_body_get_particle_count``: surface particles (0 for analytic bodies)."""
        return int(lib.gr_body_get_particle_count(self.world.ptr, self.handle))

    def read_particles(self) -> list:
        """``gr_read_body_particles``: [(x, y, z, radius)] in world coordinates."""
        w = self.world
        n = self.particle_count
        buf = (ctypes.c_float * max(4 * n, 1))()
        w._check(lib.gr_read_body_particles(w.ptr, self.handle, 0, n, buf, 0))
        return [tuple(buf[i : i + 4]) for i in range(0, 4 * n, 4)]

    @property
    def user_data(self):
        """The ``user_data`` object given to :meth:`World.add_body` or set here (None if none
        or stale; None after loading another world's snapshot until set again)."""
        w = self.world
        key = lib.gr_body_get_user_data(w.ptr, self.handle)
        return w._body_user_data.get(key) if key else None

    @user_data.setter
    def user_data(self, value) -> None:
        """``gr_body_set_user_data``: any Python object (None clears it)."""
        w = self.world
        old = lib.gr_body_get_user_data(w.ptr, self.handle)
        key = None
        if value is not None:
            key = w._next_key
        w._check(lib.gr_body_set_user_data(w.ptr, self.handle, key))
        if old:
            w._body_user_data.pop(old, None)
        if key is not None:
            w._next_key += 1
            w._body_user_data[key] = value
