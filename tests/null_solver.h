/* SPDX-License-Identifier: MIT */
/* The test build's null solver (null_solver.c): its kind, its def kind and its def struct, as
 * a real solver's would be in gr_types.h. */
#ifndef GR_TESTS_NULL_SOLVER_H
#define GR_TESTS_NULL_SOLVER_H

#include "../lib/core/solver.h"

#define GR_SOLVER_NULL_TEST ((gr_solver_kind)0x7e57)
#define GR_DEF_NULL_TEST ((gr_def_kind)0x7e57)

/// The null solver's parameters.
typedef struct gr_null_def {
    uint32_t size;      ///< sizeof(gr_null_def)
    uint32_t reserved0; ///< must be 0
    double drag;        ///< linear drag rate k [1/s]: dv/dt = g - k v. In [0, 1e3], default 0
} gr_null_def;

extern const gr_solver_vtable gr_null_solver;

#endif /* GR_TESTS_NULL_SOLVER_H */
