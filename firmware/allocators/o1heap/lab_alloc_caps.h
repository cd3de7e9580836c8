/* Capabilities of o1heap (firmware/allocators/o1heap): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "o1heap"
#define LAB_ALLOC_ALIGN 16u /* O1HEAP_ALIGNMENT on 32-bit (4 pointers) */

#define LAB_ALLOC_HAS_REALLOC 0      /* o1heap has no realloc */
#define LAB_ALLOC_HAS_ALIGNED 0      /* o1heap has no aligned allocation beyond its own */
#define LAB_ALLOC_HAS_FREE_BYTES 1   /* capacity - allocated (o1heapGetDiagnostics) */
#define LAB_ALLOC_HAS_LARGEST_FREE 0 /* o1heap reports no largest free fragment */
#define LAB_ALLOC_HAS_ANY_REGION 1
#define LAB_ALLOC_HAS_REINIT 1

#endif /* LAB_ALLOC_CAPS_H */
