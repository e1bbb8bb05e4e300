/* SPDX-License-Identifier: MIT */
/* The functions of handle_tags.c: the process-wide counter of world tags (handles.h). */
#ifndef GR_CORE_HANDLE_TAGS_H
#define GR_CORE_HANDLE_TAGS_H

#include <stdint.h>

/// A new world's tag: the next value of the process-wide counter (1 .. GR_HANDLE_TAG_MAX,
/// never 0; lock-free, safe from any thread).
uint32_t gr_handle_new_tag(void);

#endif /* GR_CORE_HANDLE_TAGS_H */
