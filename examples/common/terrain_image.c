/* SPDX-License-Identifier: MIT */
#include "terrain_image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_write.h"

int ex_canvas_init(ex_canvas *c, int width, int height)
{
    c->width = width, c->height = height;
    c->rgb = (unsigned char *)calloc((size_t)width * height * 3, 1);
    if (!c->rgb)
        return -1;
    memset(c->rgb, 40, (size_t)width * height * 3);
    return 0;
}

void ex_canvas_free(ex_canvas *c)
{
    free(c->rgb);
    c->rgb = NULL;
}

static void put(ex_canvas *c, int x, int y, const unsigned char rgb[3])
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height)
        return;
    memcpy(c->rgb + 3 * ((size_t)y * c->width + x), rgb, 3);
}

void ex_canvas_terrain(ex_canvas *c, const gr_world *w, uint32_t system, int x0, int y0, int scale,
                       const unsigned char tint[3], double ref_height, int grains)
{
    gr_terrain_info info = {.size = sizeof info};
    if (gr_terrain_get_info(w, system, &info) != GR_OK)
        return;
    const uint32_t nx = info.columns_x, nz = info.columns_z;
    float *h = (float *)malloc(sizeof(float) * nx * nz);
    if (!h || gr_terrain_read_heights(w, system, 0, 0, nx, nz, h) != GR_OK) {
        free(h);
        return;
    }
    const double d = info.spacing, L[3] = {-0.5, 0.75, -0.43};
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t i = 0; i < nx; i++) {
            const uint32_t a = i ? i - 1 : i, b = i + 1 < nx ? i + 1 : i, e = k ? k - 1 : k, f = k + 1 < nz ? k + 1 : k;
            const double gx = (h[k * nx + b] - h[k * nx + a]) / ((b - a) * d);
            const double gz = (h[f * nx + i] - h[e * nx + i]) / ((f - e) * d);
            const double n[3] = {-gx, 1.0, -gz}, len = sqrt(n[0] * n[0] + 1.0 + n[2] * n[2]);
            double lit = (n[0] * L[0] + n[1] * L[1] + n[2] * L[2]) / len;
            lit = 0.35 + 0.65 * (lit > 0 ? lit : 0);
            const double dh = h[k * nx + i] - ref_height; /* hollows darker, heaps lighter */
            double tone = 1.0 + 4.0 * dh;
            tone = tone < 0.5 ? 0.5 : (tone > 1.3 ? 1.3 : tone);
            unsigned char rgb[3];
            for (int q = 0; q < 3; q++) {
                const double v = tint[q] * lit * tone;
                rgb[q] = (unsigned char)(v > 255 ? 255 : v);
            }
            for (int py = 0; py < scale; py++)
                for (int px = 0; px < scale; px++)
                    put(c, x0 + (int)i * scale + px, y0 + (int)k * scale + py, rgb);
        }
    free(h);
    if (!grains)
        return;
    double *x = ex_grain_positions(w);
    const uint32_t n = gr_world_get_grain_count(w);
    static const unsigned char dot[3] = {120, 60, 20};
    for (uint32_t g = 0; x && g < n; g++) {
        const double u = (x[3 * g] - info.origin.x) / d + 0.5, v = (x[3 * g + 2] - info.origin.z) / d + 0.5;
        if (u < 0 || v < 0 || u >= nx || v >= nz)
            continue;
        const int px = x0 + (int)(u * scale), py = y0 + (int)(v * scale), r = scale > 2 ? scale / 3 : 1;
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++)
                if (dx * dx + dy * dy <= r * r)
                    put(c, px + dx, py + dy, dot);
    }
    free(x);
}

int ex_canvas_save(const ex_canvas *c, const ex_args *args, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", args->out_dir, name);
    return png_write_rgb(path, c->width, c->height, c->rgb);
}

int ex_terrain_png(const gr_world *w, uint32_t system, const ex_args *args, const char *name, int scale,
                   double ref_height)
{
    gr_terrain_info info = {.size = sizeof info};
    if (gr_terrain_get_info(w, system, &info) != GR_OK)
        return -1;
    ex_canvas c;
    if (ex_canvas_init(&c, (int)info.columns_x * scale, (int)info.columns_z * scale))
        return -1;
    static const unsigned char sand[3] = {226, 196, 140};
    ex_canvas_terrain(&c, w, system, 0, 0, scale, sand, ref_height, 1);
    const int s = ex_canvas_save(&c, args, name);
    ex_canvas_free(&c);
    return s;
}
