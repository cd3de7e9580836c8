/* Capabilities of pool (firmware/allocators/pool): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "pool"
#define LAB_ALLOC_ALIGN 8u

#define LAB_ALLOC_HAS_REALLOC 0 /* a fixed-block pool has one block size: nothing to resize */
#define LAB_ALLOC_HAS_ALIGNED 0 /* blocks are only 8-byte aligned */
#define LAB_ALLOC_HAS_FREE_BYTES 1
#define LAB_ALLOC_HAS_LARGEST_FREE 1
#define LAB_ALLOC_HAS_ANY_REGION 1
#define LAB_ALLOC_HAS_REINIT 1

#endif /* LAB_ALLOC_CAPS_H */
