/* SPDX-License-Identifier: MIT */
/* The wording of every status code (public: gr_status_string). */
#include "common.h"

GR_API const char *gr_status_string(gr_status s)
{
    switch (s) {
    case GR_OK: return "ok";
    case GR_ERROR_NULL_ARGUMENT: return "a required pointer is NULL";
    case GR_ERROR_INVALID_ARGUMENT: return "an argument is out of its valid range";
    case GR_ERROR_NOT_FINITE: return "a number is NaN or infinite";
    case GR_ERROR_UNKNOWN_ENUM: return "unknown enum value";
    case GR_ERROR_STRUCT_SIZE: return "def struct not initialised (size field)";
    case GR_ERROR_TOO_MANY: return "count beyond the library's limits";
    case GR_ERROR_INVALID_HANDLE: return "null or unknown handle";
    case GR_ERROR_STALE_HANDLE: return "stale handle (object removed)";
    case GR_ERROR_WRONG_WORLD: return "handle of another world";
    case GR_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GR_ERROR_UNSUPPORTED: return "not supported by this solver or build";
    case GR_ERROR_BUSY: return "world is busy (inside gr_step)";
    case GR_ERROR_IO: return "read or write callback failed";
    case GR_ERROR_CORRUPT_DATA: return "corrupt or truncated data";
    case GR_ERROR_VERSION: return "unsupported version";
    case GR_ERROR_INVARIANT: return "a debug check of an invariant failed";
    case GR_ERROR_UNSTABLE: return "simulation became unstable (non-finite state)";
    default: return "unknown status";
    }
}
