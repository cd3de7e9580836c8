/* FreeRTOS's heap_5.c, unmodified, compiled through this file so that the allocation
 * lab's settings (heap4/alloc.cmake: renames, -iquote freertos_cfg) apply to this
 * translation unit only. */
#include "heap_5.c"
