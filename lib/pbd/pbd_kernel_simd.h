/* SPDX-License-Identifier: MIT */
/* Body of the PBD pair kernel (pbd_kernel.h), written once with GCC/Clang vector extensions.
 * The including file first includes ../core/lanes_v2.h or lanes_avx2.h (VW, vd, vm, VSQRT
 * and the lane helpers) and defines the function's name KERNEL_NAME. */
#include "pbd_kernel.h"

void KERNEL_NAME(pbd_pair_batch *b, const pbd_kernel_consts *c)
{
    const vd one = vsplat(1.0), zero = vsplat(0.0), tiny = vsplat(1e-9);
    const vd upx = vsplat(c->up[0]), upy = vsplat(c->up[1]), upz = vsplat(c->up[2]);
    const int uniform = c->uniform;
    const vd u_mus = vsplat(c->mu_s), u_muk = vsplat(c->mu_k);
    for (uint32_t k = 0; k < b->n; k += VW) {
        const vd dx = vload(b->dx + k), dy = vload(b->dy + k), dz = vload(b->dz + k);
        const vd d = vload(b->d + k);
        const vd l2 = dx * dx + dy * dy + dz * dz;
        const vm act = (vm)(l2 < d * d);
        const vd len = VSQRT(l2);
        /* coincident centres: apart along "up", the first end above */
        const vm apart = (vm)(len > tiny * d);
        const vd inv = one / vsel(apart, len, one);
        const vd nx = vsel(apart, dx * inv, upx), ny = vsel(apart, dy * inv, upy), nz = vsel(apart, dz * inv, upz);
        const vd delta = d - len;
        vd ux = nx * delta, uy = ny * delta, uz = nz * delta;
        if (c->friction) {
            const vd sx = vload(b->sx + k), sy = vload(b->sy + k), sz = vload(b->sz + k);
            const vd sn = sx * nx + sy * ny + sz * nz;
            const vd tx = sx - sn * nx, ty = sy - sn * ny, tz = sz - sn * nz;
            const vd mus = uniform ? u_mus : vload(b->mus + k), muk = uniform ? u_muk : vload(b->muk + k);
            const vd lt = VSQRT(tx * tx + ty * ty + tz * tz);
            const vd kin = muk * delta;
            const vm cut = (vm)(lt > kin);
            const vd kept = vsel(cut, kin / vsel(cut, lt, one), one);
            const vd scale = vsel((vm)(lt < mus * delta), one, kept);
            const vd fx = tx * scale, fy = ty * scale, fz = tz * scale;
            ux = ux - fx;
            uy = uy - fy;
            uz = uz - fz;
        }
        vstore(b->ux + k, vsel(act, ux, zero));
        vstore(b->uy + k, vsel(act, uy, zero));
        vstore(b->uz + k, vsel(act, uz, zero));
        vstore(b->act + k, vsel(act, one, zero));
    }
}
