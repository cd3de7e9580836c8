/* FreeRTOS's heap_4.c, unmodified, compiled through this file so that the allocation
 * lab's settings (heap4/alloc.cmake: renames, -iquote freertos_cfg) apply to this
 * translation unit only, never to the kernel's own heap_4.c in a FreeRTOS image. */
#include "heap_4.c"
