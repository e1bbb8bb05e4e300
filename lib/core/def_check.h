/* SPDX-License-Identifier: MIT */
/* Checks of a def's fields that word their failure without a world: a solver validates its
 * own def with them, and the API layer words the result on the world ("func: message"). One
 * wording for every "must be > 0" of the library. */
#ifndef GR_CORE_DEF_CHECK_H
#define GR_CORE_DEF_CHECK_H

#include <stddef.h>

#include "common.h"

/// Larger size fields are not a def of any version of this library.
#define GR_MAX_DEF_SIZE 4096u

/// Room for any def struct of this library, solvers' defs included: each def asserts that it
/// fits (api_def_layout.c, and each solver's def file).
#define GR_DEF_BUFFER_SIZE 1024u
typedef union gr_def_buffer {
    double align_d;
    void *align_p;
    uint64_t align_u;
    unsigned char bytes[GR_DEF_BUFFER_SIZE];
} gr_def_buffer;

/// Where a def struct's fields begin and end: the start and end offset of each field, in
/// order. A caller's size field must fall on one (an older, shorter header's struct ends
/// there) or be at least the whole struct (a newer header's); api_def_layout.c.
typedef struct gr_def_layout {
    const uint16_t *bounds;
    uint32_t count;
} gr_def_layout;

/// One field's entry of a layout: X(T, f) in a list of T's fields, in order.
#define GR_DEF_FIELD_END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))
#define GR_DEF_FIELD_BOUNDS(T, f) (uint16_t) offsetof(T, f), (uint16_t)GR_DEF_FIELD_END(T, f),
/// Fails to compile when a field is appended to T without being listed (LAST is the last one
/// listed), or when T outgrows gr_def_buffer.
#define GR_DEF_LISTED_TO_END(T, LAST)                                                          \
    _Static_assert(sizeof(T) - GR_DEF_FIELD_END(T, LAST) < 8, #T ": a field is not listed");  \
    _Static_assert(sizeof(T) <= GR_DEF_BUFFER_SIZE, #T ": larger than gr_def_buffer")

/// The first failed check: its status and message (empty while everything passed).
typedef struct gr_def_check {
    gr_status status;
    char message[200];
} gr_def_check;

void gr_def_check_init(gr_def_check *c);
/// Record a failure (the first one stays); returns false, so that a check reads
/// `if (bad) return gr_def_fail(c, ...)`.
bool gr_def_fail(gr_def_check *c, gr_status status, const char *fmt, ...) GR_PRINTF_LIKE(3, 4);
/// Finite and > 0, or >= 0 with allow_zero.
bool gr_def_positive(gr_def_check *c, double v, bool allow_zero, const char *what);
/// Finite and in [lo, hi].
bool gr_def_range(gr_def_check *c, double v, double lo, double hi, const char *what);
/// One of the count values of an enum (0 .. count - 1).
bool gr_def_enum(gr_def_check *c, uint32_t v, uint32_t count, const char *what);
/// A substep limit [s]: finite, >= GR_MIN_SUBSTEP (0 allowed with zero_ok: automatic), so that
/// no def, given or loaded, asks one gr_step for an unbounded number of substeps.
bool gr_def_substep_limit(gr_def_check *c, double v, bool zero_ok, const char *what);

#endif /* GR_CORE_DEF_CHECK_H */
