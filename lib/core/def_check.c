/* SPDX-License-Identifier: MIT */
#include "def_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void gr_def_check_init(gr_def_check *c)
{
    c->status = GR_OK;
    c->message[0] = '\0';
}

bool gr_def_fail(gr_def_check *c, gr_status status, const char *fmt, ...)
{
    if (c->status != GR_OK)
        return false;
    c->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    return false;
}

bool gr_def_positive(gr_def_check *c, double v, bool allow_zero, const char *what)
{
    if (!isfinite(v))
        return gr_def_fail(c, GR_ERROR_NOT_FINITE, "%s is not finite", what);
    if (allow_zero ? v < 0 : v <= 0)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "%s must be %s 0 (got %g)", what, allow_zero ? ">=" : ">", v);
    return true;
}

bool gr_def_range(gr_def_check *c, double v, double lo, double hi, const char *what)
{
    if (!isfinite(v))
        return gr_def_fail(c, GR_ERROR_NOT_FINITE, "%s is not finite", what);
    if (v < lo || v > hi)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "%s must be in [%g, %g] (got %g)", what, lo, hi, v);
    return true;
}

bool gr_def_enum(gr_def_check *c, uint32_t v, uint32_t count, const char *what)
{
    return v < count || gr_def_fail(c, GR_ERROR_UNKNOWN_ENUM, "%s = %u is not a known value", what, v);
}

bool gr_def_substep_limit(gr_def_check *c, double v, bool zero_ok, const char *what)
{
    if (!gr_def_positive(c, v, zero_ok, what))
        return false;
    if (v != 0 && !(v >= GR_MIN_SUBSTEP))
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "%s = %g s is below GR_MIN_SUBSTEP (%g s)", what, v,
                           GR_MIN_SUBSTEP);
    return true;
}
