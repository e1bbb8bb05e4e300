/* SPDX-License-Identifier: MIT */
#include "qp_box.h"

#include <stdint.h>

#define QP_VECTORS 6u /* x0, g, p, ap, w, v */
#define QP_MIC_VECTORS 2u /* mic, mic_upper: their own allocation (gr_qp_workspace_reserve_mic) */

gr_qp_settings gr_qp_settings_default(void)
{
    gr_qp_settings s;
    memset(&s, 0, sizeof s);
    s.rel_tol = 1e-6;
    s.abs_tol = 0.0;
    s.max_iter = 1000;
    s.gamma = 1.0;
    s.alpha_bar = 0.0; /* estimated */
    s.jacobi = false;
    s.sgs = false;
    s.omega = 1.0;
    return s;
}

static void point_vectors(gr_qp_workspace *ws)
{
    double *b = ws->block;
    const size_t c = ws->cap;
    ws->x0 = b;
    ws->g = b ? b + c : NULL;
    ws->p = b ? b + 2 * c : NULL;
    ws->ap = b ? b + 3 * c : NULL;
    ws->w = b ? b + 4 * c : NULL;
    ws->v = b ? b + 5 * c : NULL;
    ws->sums = b ? b + 6 * c : NULL;
}

/* The chunk sums after the vectors: a chunk's GR_QP_CHUNK_SUMS for every GR_QP_CHUNK entries. */
static size_t sums_of(uint32_t cap) { return ((size_t)cap + GR_QP_CHUNK - 1) / GR_QP_CHUNK * GR_QP_CHUNK_SUMS; }
static size_t block_bytes(uint32_t cap) { return ((size_t)cap * QP_VECTORS + sums_of(cap)) * sizeof(double); }

/* multiples of 8 doubles keep every vector on a cache line of its own */
static uint64_t cap_of(uint32_t n) { return ((uint64_t)n + 7u) & ~(uint64_t)7u; }

gr_status gr_qp_workspace_reserve(gr_qp_workspace *ws, gr_mem *mem, uint32_t n)
{
    if (!ws || !mem)
        return GR_ERROR_NULL_ARGUMENT;
    if (n <= ws->cap)
        return GR_OK;
    const uint64_t cap = cap_of(n);
    if (cap > UINT32_MAX || cap > SIZE_MAX / ((QP_VECTORS + 1) * sizeof(double)))
        return GR_ERROR_OUT_OF_MEMORY;
    double *fresh = (double *)gr_mem_alloc(mem, block_bytes((uint32_t)cap));
    if (!fresh)
        return GR_ERROR_OUT_OF_MEMORY;
    gr_mem_free(mem, ws->block, block_bytes(ws->cap));
    ws->block = fresh;
    ws->cap = (uint32_t)cap;
    point_vectors(ws);
    return GR_OK;
}

static size_t mic_bytes(uint32_t cap) { return (size_t)cap * QP_MIC_VECTORS * sizeof(double); }

gr_status gr_qp_workspace_reserve_mic(gr_qp_workspace *ws, gr_mem *mem, uint32_t n)
{
    if (!ws || !mem)
        return GR_ERROR_NULL_ARGUMENT;
    if (n <= ws->mic_cap)
        return GR_OK;
    const uint64_t cap = cap_of(n);
    if (cap > UINT32_MAX || cap > SIZE_MAX / (QP_MIC_VECTORS * sizeof(double)))
        return GR_ERROR_OUT_OF_MEMORY;
    double *fresh = (double *)gr_mem_alloc(mem, mic_bytes((uint32_t)cap));
    if (!fresh)
        return GR_ERROR_OUT_OF_MEMORY;
    gr_mem_free(mem, ws->mic, mic_bytes(ws->mic_cap));
    ws->mic = fresh;
    ws->mic_upper = fresh + cap;
    ws->mic_cap = (uint32_t)cap;
    return GR_OK;
}

void gr_qp_workspace_free(gr_qp_workspace *ws, gr_mem *mem)
{
    if (!ws)
        return;
    if (ws->block && mem)
        gr_mem_free(mem, ws->block, block_bytes(ws->cap));
    if (ws->mic && mem)
        gr_mem_free(mem, ws->mic, mic_bytes(ws->mic_cap));
    ws->block = NULL;
    ws->cap = 0;
    point_vectors(ws);
    ws->mic = ws->mic_upper = NULL;
    ws->mic_cap = 0;
}

static gr_status check_settings(const gr_qp_settings *in, gr_qp_settings *out)
{
    const gr_qp_settings d = gr_qp_settings_default();
    *out = in ? *in : d;
    if (isnan(out->rel_tol) || isnan(out->abs_tol) || isnan(out->gamma) || isnan(out->alpha_bar) || isnan(out->omega))
        return GR_ERROR_NOT_FINITE;
    if (!(out->rel_tol >= 0 && out->abs_tol >= 0 && out->gamma >= 0 && out->alpha_bar >= 0 && out->omega >= 0))
        return GR_ERROR_INVALID_ARGUMENT;
    if (!isfinite(out->rel_tol) || !isfinite(out->abs_tol) || !isfinite(out->gamma) || !isfinite(out->alpha_bar))
        return GR_ERROR_NOT_FINITE;
    if ((unsigned)out->expansion > GR_QP_EXPANSION_PROJECTED_CG)
        return GR_ERROR_UNKNOWN_ENUM;
    if (out->rel_tol == 0 && out->abs_tol == 0)
        out->rel_tol = d.rel_tol;
    if (out->max_iter == 0)
        out->max_iter = d.max_iter;
    if (out->gamma == 0)
        out->gamma = d.gamma;
    if (out->omega == 0)
        out->omega = d.omega;
    if (out->expansion == GR_QP_EXPANSION_DEFAULT)
        out->expansion = GR_QP_EXPANSION_PROJECTED_CG;
    return out->omega < 2.0 ? GR_OK : GR_ERROR_INVALID_ARGUMENT;
}

gr_status gr_qp_check_input(const gr_qp_problem *prob, const gr_qp_settings *settings, const gr_qp_workspace *ws,
                            const double *x, bool need_diag, gr_qp_settings *out)
{
    if (!prob || !ws || !out)
        return GR_ERROR_NULL_ARGUMENT;
    gr_status s = check_settings(settings, out);
    if (s != GR_OK)
        return s;
    const uint32_t n = prob->n;
    if (n == 0)
        return GR_OK;
    if (!x || (need_diag && !prob->diag))
        return GR_ERROR_NULL_ARGUMENT;
    if (ws->cap < n || !ws->block || out->color_split > n)
        return GR_ERROR_INVALID_ARGUMENT;
    /* invalid (a value out of range) wins over not finite when both occur: one pass, two flags */
    bool invalid = false, not_finite = false;
    for (uint32_t i = 0; i < n; i++) {
        const double lo = gr_qp_lo(prob, i), hi = gr_qp_hi(prob, i);
        if (isnan(lo) || isnan(hi))
            not_finite = true;
        else if (lo > hi || lo == INFINITY || hi == -INFINITY)
            invalid = true;
        if (!isfinite(x[i]) || (prob->q && !isfinite(prob->q[i])))
            not_finite = true;
        if (need_diag && lo != hi) {
            if (isnan(prob->diag[i]) || prob->diag[i] == INFINITY)
                not_finite = true;
            else if (!(prob->diag[i] > 0))
                invalid = true;
        }
    }
    return invalid ? GR_ERROR_INVALID_ARGUMENT : not_finite ? GR_ERROR_NOT_FINITE : GR_OK;
}
