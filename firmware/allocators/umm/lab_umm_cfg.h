/* umm_malloc's configuration for rtoslab (umm_malloc_cfg.h includes it through
 * UMM_CFGFILE). Best fit (umm's default), 8-byte blocks (its default UMM_BLOCK_BODY_SIZE),
 * UMM_INFO for lab_alloc_stats (umm_info walks the heap; never on a measured path). No
 * critical section: the lab's workloads lock around the allocator themselves. No debug
 * log. */
#ifndef LAB_UMM_CFG_H
#define LAB_UMM_CFG_H

#include <stdbool.h>
#include <stddef.h>

#define UMM_BEST_FIT
#define UMM_INFO

/* umm_malloc_cfg.h blanks the DBGLOG_* calls; this one it leaves to dbglog.h */
#define DBGLOG_32_BIT_PTR(p) ((uint32_t)(uintptr_t)(p))

#endif /* LAB_UMM_CFG_H */
