/* SPDX-License-Identifier: MIT */
/* Checksums: CRC-32 for snapshot integrity, FNV-1a 64 for state hashes in tests. */
#ifndef GR_CORE_HASH_H
#define GR_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32 (IEEE 802.3, reflected, as zlib). Start with crc = 0; chain calls over pieces.
uint32_t gr_crc32(uint32_t crc, const void *data, size_t size);

#endif /* GR_CORE_HASH_H */
