/* Capabilities of umm (umm_malloc, firmware/allocators/umm): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "umm"
#define LAB_ALLOC_ALIGN 4u /* umm's 4-byte block header: payloads are 4-byte aligned */

#define LAB_ALLOC_HAS_REALLOC 1
#define LAB_ALLOC_HAS_ALIGNED 0 /* umm_malloc has no aligned allocation */
#define LAB_ALLOC_HAS_FREE_BYTES 1   /* umm_free_heap_size (walks the heap) */
#define LAB_ALLOC_HAS_LARGEST_FREE 1 /* umm_max_free_block_size (walks the heap) */
#define LAB_ALLOC_HAS_ANY_REGION 1
#define LAB_ALLOC_HAS_REINIT 1

#endif /* LAB_ALLOC_CAPS_H */
