/* Capabilities of newlib_nano (newlib-nano's malloc (first fit), firmware/allocators/newlib_nano): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "newlib_nano"
#define LAB_ALLOC_ALIGN 8u /* newlib's malloc alignment on ARM */

#define LAB_ALLOC_HAS_REALLOC 1
#define LAB_ALLOC_HAS_ALIGNED 1      /* memalign */
#define LAB_ALLOC_HAS_FREE_BYTES 1   /* mallinfo().fordblks + the region above the break */
#define LAB_ALLOC_HAS_LARGEST_FREE 0 /* newlib reports no largest free block */
#define LAB_ALLOC_HAS_ANY_REGION 1   /* through _sbrk */
#define LAB_ALLOC_HAS_REINIT 0       /* global state; the break only grows */

#endif /* LAB_ALLOC_CAPS_H */
