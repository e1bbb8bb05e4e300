# SPDX-License-Identifier: MIT
"""Exceptions raised by the granular binding.

Every non-OK ``gr_status`` returned by the C library raises a :class:`GranularError`
subclass chosen by the status code. The hierarchy follows the status families of
``gr_base.h``::

    GranularError
    +-- ArgumentError (ValueError)          1..19  the caller's arguments
    |   +-- NullArgumentError, InvalidArgumentError, NotFiniteError,
    |       UnknownEnumError, StructSizeError, TooManyError
    +-- HandleError (LookupError)           20..29 handles
    |   +-- InvalidHandleError, StaleHandleError, WrongWorldError
    +-- ResourceError                       40..59 resources and capabilities
    |   +-- OutOfMemoryError (MemoryError), UnsupportedError, BusyError
    +-- SnapshotError                       60..79 snapshots and streams
    |   +-- SnapshotIOError, CorruptDataError, VersionError
    +-- SimulationError                     80..99 simulation
        +-- UnstableError

Each class is also available without the ``Error`` suffix (``granular.StaleHandle`` is
``granular.StaleHandleError``), matching the status names of the C API.
"""

from __future__ import annotations

from .ffi import Status, status_string

__all__ = [
    "GranularError",
    "ArgumentError",
    "NullArgumentError",
    "InvalidArgumentError",
    "NotFiniteError",
    "UnknownEnumError",
    "StructSizeError",
    "TooManyError",
    "HandleError",
    "InvalidHandleError",
    "StaleHandleError",
    "WrongWorldError",
    "ResourceError",
    "OutOfMemoryError",
    "UnsupportedError",
    "BusyError",
    "SnapshotError",
    "SnapshotIOError",
    "CorruptDataError",
    "VersionError",
    "SimulationError",
    "UnstableError",
    "ClosedWorldError",
    "error_class",
    "raise_for_status",
    # suffix-less aliases
    "NullArgument",
    "InvalidArgument",
    "NotFinite",
    "UnknownEnum",
    "StructSize",
    "TooMany",
    "InvalidHandle",
    "StaleHandle",
    "WrongWorld",
    "OutOfMemory",
    "Unsupported",
    "Busy",
    "CorruptData",
    "Unstable",
]


class GranularError(Exception):
    """A granular call returned a non-OK ``gr_status``.

    Attributes:
        status: the :class:`~granular.Status` (a plain ``int`` for a code this binding does
            not know).
        message: ``gr_world_last_error()`` of the world the call was made on, or the
            library's ``gr_status_string()`` when there is no world message.
    """

    def __init__(self, status: int, message: str | None = None):
        try:
            status = Status(status)
        except ValueError:
            status = int(status)
        if not message:
            message = status_string(status)
        super().__init__(status, message)
        self.status = status
        self.message = message

    def __str__(self) -> str:
        name = self.status.name if isinstance(self.status, Status) else str(self.status)
        return f"{self.message} [GR_{name}]" if name != "OK" else self.message

    def __reduce__(self):
        return (type(self), (int(self.status), self.message))


class ClosedWorldError(GranularError, ValueError):
    """An operation on a :class:`~granular.World` after :meth:`~granular.World.close`.

    Its status is ``Status.ERROR_NULL_ARGUMENT``: the C call would receive a NULL world.
    """

    def __init__(self, status: int = Status.ERROR_NULL_ARGUMENT, message: str | None = None):
        super().__init__(status, message or "the world is closed")


# ---- families -----------------------------------------------------------------------


class ArgumentError(GranularError, ValueError):
    """Status 1..19: an argument of the call was wrong."""


class HandleError(GranularError, LookupError):
    """Status 20..29: a null, unknown, stale or foreign handle."""


class ResourceError(GranularError):
    """Status 40..59: out of memory, unsupported capability, busy world."""


class SnapshotError(GranularError):
    """Status 60..79: snapshot streams and their content."""


class SimulationError(GranularError):
    """Status 80..99: the simulation itself failed."""


# ---- one class per status ----------------------------------------------------------------


class NullArgumentError(ArgumentError):
    """``GR_ERROR_NULL_ARGUMENT``: a required pointer was NULL."""


class InvalidArgumentError(ArgumentError):
    """``GR_ERROR_INVALID_ARGUMENT``: a value out of its documented range."""


class NotFiniteError(ArgumentError):
    """``GR_ERROR_NOT_FINITE``: a NaN or infinite number."""


class UnknownEnumError(ArgumentError):
    """``GR_ERROR_UNKNOWN_ENUM``: an enum value the library does not know."""


class StructSizeError(ArgumentError):
    """``GR_ERROR_STRUCT_SIZE``: a def whose size field is 0 or absurd."""


class TooManyError(ArgumentError):
    """``GR_ERROR_TOO_MANY``: a count beyond the library's limits."""


class InvalidHandleError(HandleError):
    """``GR_ERROR_INVALID_HANDLE``: a null handle, or one this world never issued."""


class StaleHandleError(HandleError):
    """``GR_ERROR_STALE_HANDLE``: the object was removed; the handle is dead."""


class WrongWorldError(HandleError):
    """``GR_ERROR_WRONG_WORLD``: the handle belongs to another world."""


class OutOfMemoryError(ResourceError, MemoryError):
    """``GR_ERROR_OUT_OF_MEMORY``: the allocator returned NULL; nothing was changed."""


class UnsupportedError(ResourceError):
    """``GR_ERROR_UNSUPPORTED``: the solver (or this build) lacks the capability."""


class BusyError(ResourceError):
    """``GR_ERROR_BUSY``: the world is inside ``gr_step`` (a callback called back in)."""


class SnapshotIOError(SnapshotError):
    """``GR_ERROR_IO``: a read or write callback reported failure or short data."""


class CorruptDataError(SnapshotError):
    """``GR_ERROR_CORRUPT_DATA``: bad magic, checksum mismatch, truncated data..."""


class VersionError(SnapshotError):
    """``GR_ERROR_VERSION``: a snapshot format (or library) version this code cannot use."""


class UnstableError(SimulationError):
    """``GR_ERROR_UNSTABLE``: the step produced a non-finite state and was stopped."""


_BY_STATUS = {
    Status.ERROR_NULL_ARGUMENT: NullArgumentError,
    Status.ERROR_INVALID_ARGUMENT: InvalidArgumentError,
    Status.ERROR_NOT_FINITE: NotFiniteError,
    Status.ERROR_UNKNOWN_ENUM: UnknownEnumError,
    Status.ERROR_STRUCT_SIZE: StructSizeError,
    Status.ERROR_TOO_MANY: TooManyError,
    Status.ERROR_INVALID_HANDLE: InvalidHandleError,
    Status.ERROR_STALE_HANDLE: StaleHandleError,
    Status.ERROR_WRONG_WORLD: WrongWorldError,
    Status.ERROR_OUT_OF_MEMORY: OutOfMemoryError,
    Status.ERROR_UNSUPPORTED: UnsupportedError,
    Status.ERROR_BUSY: BusyError,
    Status.ERROR_IO: SnapshotIOError,
    Status.ERROR_CORRUPT_DATA: CorruptDataError,
    Status.ERROR_VERSION: VersionError,
    Status.ERROR_UNSTABLE: UnstableError,
}

# Families by range, for codes added in later minor versions.
_FAMILIES = (
    (1, 19, ArgumentError),
    (20, 29, HandleError),
    (40, 59, ResourceError),
    (60, 79, SnapshotError),
    (80, 99, SimulationError),
)


def error_class(status: int) -> type[GranularError]:
    """The exception class raised for a status code."""
    cls = _BY_STATUS.get(status)
    if cls is not None:
        return cls
    for lo, hi, family in _FAMILIES:
        if lo <= int(status) <= hi:
            return family
    return GranularError


def raise_for_status(status: int, message: str | None = None) -> None:
    """Raise the matching :class:`GranularError` unless ``status`` is ``GR_OK``."""
    if status != Status.OK:
        raise error_class(status)(status, message)


NullArgument = NullArgumentError
InvalidArgument = InvalidArgumentError
NotFinite = NotFiniteError
UnknownEnum = UnknownEnumError
StructSize = StructSizeError
TooMany = TooManyError
InvalidHandle = InvalidHandleError
StaleHandle = StaleHandleError
WrongWorld = WrongWorldError
OutOfMemory = OutOfMemoryError
Unsupported = UnsupportedError
Busy = BusyError
CorruptData = CorruptDataError
Unstable = UnstableError
