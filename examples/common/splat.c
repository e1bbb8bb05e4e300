/* SPDX-License-Identifier: MIT */
/* Software sphere impostor renderer with a z-buffer (see splat.h). */
#include "splat.h"

#include "png_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shading: ambient + diffuse * max(0, n.l). The light direction is in camera space (x right,
 * y up, z forward), pointing from the surface towards the light: up-left, behind the viewer. */
#define SPLAT_AMBIENT 0.22f
#define SPLAT_DIFFUSE 0.78f
static const float light_dir[3] = {-0.403604f, 0.538138f, -0.739940f}; /* unit length */

/* Degrees to radians, halved (the field of view is split about the view axis); M_PI is not
 * part of C11. */
#define SPLAT_HALF_DEG_TO_RAD 0.00872664626f

/* Lines win depth ties against surfaces they lie on by this relative margin. */
#define SPLAT_LINE_BIAS 1e-4f

/* A camera resolved for one image: orthonormal basis and projection constants. */
typedef struct view {
    float eye[3];
    float right[3], up[3], fwd[3]; /* camera x, y, z axes in world space */
    float scale;                   /* perspective: focal length in pixels; ortho: pixels/unit */
    float inv_scale;
    float cx, cy; /* picture centre in pixels */
    int ortho;
} view;

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Normalise v in place; returns its former length (0 or non-finite: v is left alone). */
static float normalize3(float v[3])
{
    const float len = sqrtf(dot3(v, v));
    if (len > 0.0f && isfinite(len)) {
        v[0] /= len;
        v[1] /= len;
        v[2] /= len;
    }
    return len;
}

static int finite3(const float v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static int image_ok(const splat_image *img)
{
    return img && img->rgb && img->depth && img->width > 0 && img->height > 0;
}

/* Resolve cam for img. Returns 0, or -1 if the camera is unusable. */
static int setup_view(const splat_image *img, const splat_camera *cam, view *v)
{
    if (!cam || !finite3(cam->eye) || !finite3(cam->target) || !finite3(cam->up))
        return -1;
    for (int i = 0; i < 3; ++i) {
        v->eye[i] = cam->eye[i];
        v->fwd[i] = cam->target[i] - cam->eye[i];
    }
    const float dist = normalize3(v->fwd);
    if (!(dist > 0.0f) || !isfinite(dist))
        return -1;

    cross3(v->fwd, cam->up, v->right);
    const float up_len = sqrtf(dot3(cam->up, cam->up));
    const float r_len = sqrtf(dot3(v->right, v->right));
    if (!(r_len > 1e-4f * up_len) || !(up_len > 0.0f)) {
        /* up is zero or parallel to the view: use the world axis least aligned with it */
        float axis[3] = {0.0f, 0.0f, 0.0f};
        int k = 0;
        for (int i = 1; i < 3; ++i)
            if (fabsf(v->fwd[i]) < fabsf(v->fwd[k]))
                k = i;
        axis[k] = 1.0f;
        cross3(v->fwd, axis, v->right);
    }
    normalize3(v->right);
    cross3(v->right, v->fwd, v->up);

    const float half_h = 0.5f * (float)img->height;
    v->ortho = cam->ortho != 0;
    if (v->ortho) {
        if (!(cam->ortho_half_height > 0.0f) || !isfinite(cam->ortho_half_height))
            return -1;
        v->scale = half_h / cam->ortho_half_height;
    } else {
        if (!(cam->fov_y_deg > 0.0f && cam->fov_y_deg < 180.0f))
            return -1;
        v->scale = half_h / tanf(cam->fov_y_deg * SPLAT_HALF_DEG_TO_RAD);
    }
    if (!(v->scale > 0.0f) || !isfinite(v->scale))
        return -1;
    v->inv_scale = 1.0f / v->scale;
    v->cx = 0.5f * (float)img->width;
    v->cy = half_h;
    return 0;
}

/* World point -> camera space (x right, y up, z forward). */
static void to_camera(const view *v, const float p[3], float out[3])
{
    const float d[3] = {p[0] - v->eye[0], p[1] - v->eye[1], p[2] - v->eye[2]};
    out[0] = dot3(d, v->right);
    out[1] = dot3(d, v->up);
    out[2] = dot3(d, v->fwd);
}

/* Pixel index range [*lo, *hi] of pixel centres (i + 0.5) inside [a, b], clamped to [0, n).
 * Returns 0 if empty. Works on floats first so huge or infinite bounds cannot overflow int. */
static int pixel_range(float a, float b, int n, int *lo, int *hi)
{
    a = fmaxf(a - 0.5f, -1.0f);
    b = fminf(b - 0.5f, (float)n);
    if (!(a <= b))
        return 0;
    int i0 = (int)ceilf(a), i1 = (int)floorf(b);
    if (i0 < 0)
        i0 = 0;
    if (i1 > n - 1)
        i1 = n - 1;
    if (i0 > i1)
        return 0;
    *lo = i0;
    *hi = i1;
    return 1;
}

static unsigned char shade(float c, float k)
{
    const float s = c * k + 0.5f;
    return (unsigned char)(s >= 255.0f ? 255.0f : s);
}

/* Shade a unit normal n (camera space) with base colour col into px. */
static void shade_pixel(unsigned char *px, const float col[3], float nx, float ny, float nz)
{
    const float ndl = nx * light_dir[0] + ny * light_dir[1] + nz * light_dir[2];
    const float k = SPLAT_AMBIENT + SPLAT_DIFFUSE * (ndl > 0.0f ? ndl : 0.0f);
    px[0] = shade(col[0], k);
    px[1] = shade(col[1], k);
    px[2] = shade(col[2], k);
}

/* One sphere, centre c in camera space, perspective camera. Each pixel's ray from the eye is
 * (u, v, 1); it is intersected with the sphere in a form that stays accurate for spheres far
 * smaller than their distance (no |c|^2 - r^2 cancellation): e is the vector from the ray's
 * closest point to the centre, h2 = r^2 - |e|^2. */
static void sphere_perspective(splat_image *img, const view *v, const float c[3], float r,
                               const float col[3])
{
    /* Exact screen bounds: slopes of the tangent lines from the eye, per axis; needs c[2] > r
     * (checked by the caller). */
    const float den = (c[2] - r) * (c[2] + r);
    if (!isfinite(den) || !isfinite(r * r))
        return; /* absurd sizes would overflow below */
    const float sx = sqrtf(c[0] * c[0] + den), sy = sqrtf(c[1] * c[1] + den);
    const float mx0 = (c[0] * c[2] - r * sx) / den, mx1 = (c[0] * c[2] + r * sx) / den;
    const float my0 = (c[1] * c[2] - r * sy) / den, my1 = (c[1] * c[2] + r * sy) / den;
    int i0, i1, j0, j1;
    /* one pixel of margin for rounding in the bounds; the per-pixel test is exact */
    if (!pixel_range(v->cx + v->scale * mx0 - 1.0f, v->cx + v->scale * mx1 + 1.0f, img->width,
                     &i0, &i1) ||
        !pixel_range(v->cy - v->scale * my1 - 1.0f, v->cy - v->scale * my0 + 1.0f, img->height,
                     &j0, &j1))
        return;

    const float r2 = r * r, inv_r = 1.0f / r, z_near = c[2] - r;
    for (int j = j0; j <= j1; ++j) {
        const float pv = (v->cy - ((float)j + 0.5f)) * v->inv_scale;
        float *depth = img->depth + (size_t)j * (size_t)img->width;
        unsigned char *rgb = img->rgb + (size_t)j * (size_t)img->width * 3u;
        for (int i = i0; i <= i1; ++i) {
            if (z_near >= depth[i])
                continue; /* the whole sphere is behind what is already there */
            const float pu = ((float)i + 0.5f - v->cx) * v->inv_scale;
            const float inv_a = 1.0f / (pu * pu + pv * pv + 1.0f);
            const float t0 = (pu * c[0] + pv * c[1] + c[2]) * inv_a;
            const float ex = c[0] - t0 * pu, ey = c[1] - t0 * pv, ez = c[2] - t0;
            const float h2 = r2 - (ex * ex + ey * ey + ez * ez);
            if (h2 <= 0.0f)
                continue;
            const float s = sqrtf(h2 * inv_a);
            const float t = t0 - s; /* ray parameter = camera z, since the ray's z is 1 */
            if (t >= depth[i])
                continue;
            depth[i] = t;
            /* hit - c = (t - t0) * ray - e */
            shade_pixel(rgb + 3 * i, col, (-s * pu - ex) * inv_r, (-s * pv - ey) * inv_r,
                        (-s - ez) * inv_r);
        }
    }
}

/* One sphere, centre c in camera space, orthographic camera (rays along +z). */
static void sphere_ortho(splat_image *img, const view *v, const float c[3], float r,
                         const float col[3])
{
    const float px = v->cx + v->scale * c[0], py = v->cy - v->scale * c[1];
    const float pr = v->scale * r + 1.0f;
    if (!isfinite(pr) || !isfinite(r * r))
        return;
    int i0, i1, j0, j1;
    if (!pixel_range(px - pr, px + pr, img->width, &i0, &i1) ||
        !pixel_range(py - pr, py + pr, img->height, &j0, &j1))
        return;

    const float r2 = r * r, inv_r = 1.0f / r, z_near = c[2] - r;
    for (int j = j0; j <= j1; ++j) {
        const float dy = (v->cy - ((float)j + 0.5f)) * v->inv_scale - c[1];
        const float dy2 = dy * dy;
        if (dy2 >= r2)
            continue;
        float *depth = img->depth + (size_t)j * (size_t)img->width;
        unsigned char *rgb = img->rgb + (size_t)j * (size_t)img->width * 3u;
        for (int i = i0; i <= i1; ++i) {
            if (z_near >= depth[i])
                continue;
            const float dx = ((float)i + 0.5f - v->cx) * v->inv_scale - c[0];
            const float h2 = r2 - dx * dx - dy2;
            if (h2 <= 0.0f)
                continue;
            const float dz = sqrtf(h2);
            const float t = c[2] - dz;
            if (t <= 0.0f || t >= depth[i])
                continue; /* behind the eye plane, or occluded */
            depth[i] = t;
            shade_pixel(rgb + 3 * i, col, dx * inv_r, dy * inv_r, -dz * inv_r);
        }
    }
}

int splat_init(splat_image *img, int width, int height, const unsigned char bg[3])
{
    if (!img)
        return -1;
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || width > SPLAT_MAX_DIM || height > SPLAT_MAX_DIM)
        return -1;
    const size_t n = (size_t)width * (size_t)height;
    img->rgb = malloc(n * 3u);
    img->depth = malloc(n * sizeof(float));
    if (!img->rgb || !img->depth) {
        splat_free(img);
        return -1;
    }
    img->width = width;
    img->height = height;
    splat_clear(img, bg);
    return 0;
}

void splat_clear(splat_image *img, const unsigned char bg[3])
{
    if (!image_ok(img))
        return;
    static const unsigned char black[3] = {0, 0, 0};
    if (!bg)
        bg = black;
    const size_t n = (size_t)img->width * (size_t)img->height;
    for (size_t i = 0; i < n; ++i) {
        img->rgb[3 * i + 0] = bg[0];
        img->rgb[3 * i + 1] = bg[1];
        img->rgb[3 * i + 2] = bg[2];
        img->depth[i] = INFINITY;
    }
}

void splat_free(splat_image *img)
{
    if (!img)
        return;
    free(img->rgb);
    free(img->depth);
    memset(img, 0, sizeof *img);
}

int splat_spheres(splat_image *img, const splat_camera *cam, const float *xyzr,
                  size_t stride_bytes, size_t count, const unsigned char *rgb_per_sphere,
                  size_t rgb_stride_bytes, const unsigned char colour[3])
{
    view v;
    if (!image_ok(img) || setup_view(img, cam, &v) != 0)
        return -1;
    if (!xyzr || count == 0)
        return 0;
    if (stride_bytes == 0)
        stride_bytes = 4u * sizeof(float);
    if (rgb_stride_bytes == 0)
        rgb_stride_bytes = 3u;
    static const unsigned char grey[3] = {200, 200, 200};
    if (!colour)
        colour = grey;
    float col[3] = {colour[0], colour[1], colour[2]};

    const unsigned char *base = (const unsigned char *)xyzr;
    for (size_t k = 0; k < count; ++k) {
        float s[4]; /* memcpy: the caller's stride need not keep floats aligned */
        memcpy(s, base + k * stride_bytes, sizeof s);
        const float r = s[3];
        if (!(r > 0.0f) || !isfinite(r) || !finite3(s))
            continue;
        float c[3];
        to_camera(&v, s, c);
        if (!finite3(c))
            continue;
        if (rgb_per_sphere) {
            const unsigned char *q = rgb_per_sphere + k * rgb_stride_bytes;
            col[0] = q[0];
            col[1] = q[1];
            col[2] = q[2];
        }
        if (v.ortho) {
            if (c[2] + r > 0.0f)
                sphere_ortho(img, &v, c, r, col);
        } else if (c[2] > r) {
            sphere_perspective(img, &v, c, r, col);
        }
    }
    return 0;
}

/* Clip the segment's parameter range [*t0, *t1] to where q >= 0, q being linear along the
 * segment with values q0, q1 at its ends. Returns 0 if nothing is left. */
static int clip_linear(double q0, double q1, double *t0, double *t1)
{
    if (q0 < 0.0 && q1 < 0.0)
        return 0;
    if (q0 >= 0.0 && q1 >= 0.0)
        return 1;
    const double t = q0 / (q0 - q1);
    if (q0 < 0.0) {
        if (t > *t0)
            *t0 = t;
    } else if (t < *t1) {
        *t1 = t;
    }
    return *t0 <= *t1;
}

/* Point at parameter t of the segment a-b, interpolated from the nearer end for accuracy. */
static void lerp3d(const double a[3], const double b[3], double t, double out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = t <= 0.5 ? a[i] + t * (b[i] - a[i]) : b[i] - (1.0 - t) * (b[i] - a[i]);
}

int splat_line(splat_image *img, const splat_camera *cam, const float a[3], const float b[3],
               const unsigned char colour[3])
{
    view v;
    if (!image_ok(img) || !a || !b || setup_view(img, cam, &v) != 0)
        return -1;
    static const unsigned char white[3] = {255, 255, 255};
    if (!colour)
        colour = white;
    if (!finite3(a) || !finite3(b))
        return 0;

    /* Camera space, in double: the clipping below must not overflow or lose the segment for
     * far-away endpoints. */
    double ca[3], cb[3];
    for (int k = 0; k < 3; ++k) {
        ca[k] = cb[k] = 0.0;
        for (int i = 0; i < 3; ++i) {
            const double axis = (double)(k == 0 ? v.right[i] : (k == 1 ? v.up[i] : v.fwd[i]));
            ca[k] += ((double)a[i] - (double)v.eye[i]) * axis;
            cb[k] += ((double)b[i] - (double)v.eye[i]) * axis;
        }
    }

    /* Clip to the view volume in camera space, where every bound is a linear function of the
     * point: the eye plane (perspective: a near plane just in front of the eye) and the four
     * sides of the picture. Then both ends project inside the picture. */
    const double s = (double)v.scale, cx = (double)v.cx, cy = (double)v.cy;
    const double w = img->width, h = img->height;
    const double z_near = v.ortho ? 0.0 : 1e-6 * (fabs(ca[2]) + fabs(cb[2])) + 1e-30;
    const double za = v.ortho ? 1.0 : ca[2], zb = v.ortho ? 1.0 : cb[2]; /* projective weight */
    double t0 = 0.0, t1 = 1.0;
    if (!clip_linear(ca[2] - z_near, cb[2] - z_near, &t0, &t1) ||
        !clip_linear(s * ca[0] + cx * za, s * cb[0] + cx * zb, &t0, &t1) ||         /* x >= 0 */
        !clip_linear((w - cx) * za - s * ca[0], (w - cx) * zb - s * cb[0], &t0, &t1) || /* x <= w */
        !clip_linear(cy * za - s * ca[1], cy * zb - s * cb[1], &t0, &t1) ||         /* y >= 0 */
        !clip_linear((h - cy) * za + s * ca[1], (h - cy) * zb + s * cb[1], &t0, &t1))  /* y <= h */
        return 0;
    double pa[3], pb[3];
    lerp3d(ca, cb, t0, pa);
    lerp3d(ca, cb, t1, pb);

    /* Screen space: x, y in pixels and a depth term linear along the projected segment
     * (1/z for perspective, z for orthographic). */
    double sa[3], sb[3];
    if (v.ortho) {
        sa[2] = pa[2];
        sb[2] = pb[2];
        sa[0] = cx + s * pa[0];
        sa[1] = cy - s * pa[1];
        sb[0] = cx + s * pb[0];
        sb[1] = cy - s * pb[1];
    } else {
        sa[2] = 1.0 / fmax(pa[2], z_near);
        sb[2] = 1.0 / fmax(pb[2], z_near);
        sa[0] = cx + s * pa[0] * sa[2];
        sa[1] = cy - s * pa[1] * sa[2];
        sb[0] = cx + s * pb[0] * sb[2];
        sb[1] = cy - s * pb[1] * sb[2];
    }
    for (int i = 0; i < 2; ++i) { /* rounding may leave the ends a hair outside */
        const double lim = i == 0 ? w : h;
        sa[i] = fmin(fmax(sa[i], 0.0), lim);
        sb[i] = fmin(fmax(sb[i], 0.0), lim);
    }
    if (!(isfinite(sa[2]) && isfinite(sb[2])))
        return 0;

    const double dx = sb[0] - sa[0], dy = sb[1] - sa[1];
    const int steps = (int)ceil(fmax(fmax(fabs(dx), fabs(dy)), 1.0)); /* <= width + height */
    for (int k = 0; k <= steps; ++k) {
        const double t = (double)k / (double)steps;
        int i = (int)(sa[0] + t * dx), j = (int)(sa[1] + t * dy); /* >= 0: floor */
        if (i >= img->width)
            i = img->width - 1;
        if (j >= img->height)
            j = img->height - 1;
        const double dterm = sa[2] + t * (sb[2] - sa[2]);
        const float z = (float)(v.ortho ? dterm : 1.0 / dterm);
        const size_t idx = (size_t)j * (size_t)img->width + (size_t)i;
        if (z * (1.0f - SPLAT_LINE_BIAS) >= img->depth[idx])
            continue;
        if (z < img->depth[idx])
            img->depth[idx] = z;
        memcpy(img->rgb + 3u * idx, colour, 3);
    }
    return 0;
}

int splat_box(splat_image *img, const splat_camera *cam, const float lo[3], const float hi[3],
              const unsigned char colour[3])
{
    if (!lo || !hi)
        return -1;
    float corner[8][3];
    for (int k = 0; k < 8; ++k) {
        corner[k][0] = (k & 1) ? hi[0] : lo[0];
        corner[k][1] = (k & 2) ? hi[1] : lo[1];
        corner[k][2] = (k & 4) ? hi[2] : lo[2];
    }
    /* an edge joins corners differing in exactly one bit */
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(k & bit) && splat_line(img, cam, corner[k], corner[k | bit], colour) != 0)
                return -1;
    return 0;
}

int splat_save_png(const splat_image *img, const char *path)
{
    if (!image_ok(img))
        return -1;
    return png_write_rgb(path, img->width, img->height, img->rgb);
}

void splat_camera_frame(splat_camera *cam, const float lo[3], const float hi[3],
                        const float view_dir[3], const float up[3])
{
    if (!cam || !lo || !hi)
        return;
    float dir[3] = {-0.5f, -0.45f, -1.0f};
    if (view_dir && finite3(view_dir) && dot3(view_dir, view_dir) > 0.0f)
        memcpy(dir, view_dir, sizeof dir);
    normalize3(dir);
    float radius = 0.0f;
    for (int i = 0; i < 3; ++i) {
        cam->target[i] = 0.5f * (lo[i] + hi[i]);
        const float e = 0.5f * (hi[i] - lo[i]);
        radius += e * e;
        cam->up[i] = up ? up[i] : (i == 1 ? 1.0f : 0.0f);
    }
    radius = sqrtf(radius);
    if (!(radius > 0.0f) || !isfinite(radius))
        radius = 1.0f;
    radius *= 1.02f; /* a little margin around the box */

    if (!(cam->fov_y_deg > 0.0f && cam->fov_y_deg < 180.0f))
        cam->fov_y_deg = 40.0f;
    float dist;
    if (cam->ortho) {
        cam->ortho_half_height = radius;
        dist = 2.0f * radius; /* only needs to put the eye plane outside the box */
    } else {
        dist = radius / sinf(cam->fov_y_deg * SPLAT_HALF_DEG_TO_RAD);
    }
    for (int i = 0; i < 3; ++i)
        cam->eye[i] = cam->target[i] - dist * dir[i];
}
