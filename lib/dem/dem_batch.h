/* SPDX-License-Identifier: MIT */
/* The DEM's side of the contact batch (lib/simd/kernel_contact.h): the scalar reference. */
#ifndef GR_DEM_BATCH_H
#define GR_DEM_BATCH_H

#include "../simd/kernel_contact.h"
#include "dem_internal.h"

enum { BATCH = GR_CONTACT_BATCH };

/// The scalar reference (tests): Hertz + history (+ EPSD) through the generic batch code.
void dem_kernel_reference(struct gr_contact_batch *b, const dem_law *law, bool epsd, double h);

#endif /* GR_DEM_BATCH_H */
