# heap4: FreeRTOS's heap_4.c (first fit, coalescing) from the crate freertos-next
# (deps/Cargo.toml), unmodified. It is compiled with its own FreeRTOSConfig.h
# (freertos_cfg/, found first through -iquote) and its public names renamed (lab_heap_*),
# so it coexists with the kernel's own heap when the image runs FreeRTOS; heap5 reuses
# this file's settings.
lab_alloc_require_dep(freertos-next LAB_ALLOC_FREERTOS_DIR)
set(LAB_ALLOC_FREERTOS_KERNEL ${LAB_ALLOC_FREERTOS_DIR}/FreeRTOS-Kernel)
if(LAB_ALLOC_HOST)
  set(LAB_ALLOC_FREERTOS_PORTMACRO ${LAB_ALLOC_HOST_PORTMACRO_DIR})
else()
  # heap_4/5 read only portmacro.h's types and portBYTE_ALIGNMENT (8 on every Cortex-M port)
  set(LAB_ALLOC_FREERTOS_PORTMACRO ${LAB_ALLOC_FREERTOS_KERNEL}/portable/GCC/ARM_CM3)
endif()
set(LAB_ALLOC_FREERTOS_RENAMES
    pvPortMalloc=lab_heap_malloc vPortFree=lab_heap_free pvPortCalloc=lab_heap_calloc
    xPortGetFreeHeapSize=lab_heap_free_size
    xPortGetMinimumEverFreeHeapSize=lab_heap_min_ever_free
    xPortResetHeapMinimumEverFreeHeapSize=lab_heap_reset_min_ever
    vPortInitialiseBlocks=lab_heap_initialise_blocks vPortGetHeapStats=lab_heap_stats
    vPortHeapResetState=lab_heap_reset_state vPortDefineHeapRegions=lab_heap_define_regions
    vTaskSuspendAll=lab_heap_lock xTaskResumeAll=lab_heap_unlock
    vPortEnterCritical=lab_heap_critical_enter vPortExitCritical=lab_heap_critical_exit
    ucHeap=lab_alloc_region)
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_heap4.c)
# through a wrapper: source properties must not reach the kernel's own heap_4.c
set(LAB_ALLOC_THIRD_PARTY_SOURCES ${LAB_ALLOC_ROOT}/heap4/lab_heap_4.c)
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR} ${LAB_ALLOC_ROOT}/heap4/freertos_cfg ${LAB_ALLOC_FREERTOS_KERNEL}/include
    ${LAB_ALLOC_FREERTOS_PORTMACRO} ${LAB_ALLOC_FREERTOS_KERNEL}/portable/MemMang)
set(LAB_ALLOC_DEFINES ${LAB_ALLOC_FREERTOS_RENAMES})
set(LAB_ALLOC_THIRD_PARTY_OPTIONS -iquote ${LAB_ALLOC_ROOT}/heap4/freertos_cfg)
