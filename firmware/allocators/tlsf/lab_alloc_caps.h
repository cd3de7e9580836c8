/* Capabilities of tlsf (firmware/allocators/tlsf): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "tlsf"
#define LAB_ALLOC_ALIGN 8u /* payload alignment guaranteed by malloc */

#define LAB_ALLOC_HAS_REALLOC 1
#define LAB_ALLOC_HAS_ALIGNED 1
#define LAB_ALLOC_HAS_FREE_BYTES 1   /* sum of free payloads, kept by malloc/free */
#define LAB_ALLOC_HAS_LARGEST_FREE 1 /* walks the largest non-empty class */
#define LAB_ALLOC_HAS_ANY_REGION 1
#define LAB_ALLOC_HAS_REINIT 1

#endif /* LAB_ALLOC_CAPS_H */
