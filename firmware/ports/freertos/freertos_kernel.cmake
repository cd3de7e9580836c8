# The FreeRTOS kernel a FreeRTOS port builds, checked: the freertos port and every port
# built on it (port.toml base = "freertos", e.g. freertos-smp) include this first. Sets
# LAB_FREERTOS_KERNEL, the kernel's folder: LAB_KERNEL_SOURCE_DIR, which rtoslab passes
# (port.toml [kernel_source]): the pinned crate's FreeRTOS-Kernel/ folder, or the user's
# tree (--kernel-source DIR). Messages name the port being built (LAB_KERNEL).
if(NOT LAB_KERNEL_SOURCE_DIR)
  message(FATAL_ERROR
    "kernel ${LAB_KERNEL}: LAB_KERNEL_SOURCE_DIR is not set. rtoslab passes it (the folder "
    "FreeRTOS-Kernel/ of the crate freertos-next from `cargo metadata --manifest-path "
    "deps/Cargo.toml`, or --kernel-source DIR); when running CMake by hand add "
    "-DLAB_KERNEL_SOURCE_DIR=<that folder>, after `make setup`.")
endif()
set(LAB_FREERTOS_KERNEL ${LAB_KERNEL_SOURCE_DIR})
if(NOT EXISTS ${LAB_FREERTOS_KERNEL}/tasks.c)
  message(FATAL_ERROR
    "kernel ${LAB_KERNEL}: ${LAB_FREERTOS_KERNEL}/tasks.c does not exist: LAB_KERNEL_SOURCE_DIR "
    "must be a FreeRTOS-Kernel folder")
endif()
if(NOT LAB_KERNEL_CONFIG_DIR OR NOT EXISTS ${LAB_KERNEL_CONFIG_DIR}/FreeRTOSConfig.h)
  message(FATAL_ERROR
    "kernel ${LAB_KERNEL}: no FreeRTOSConfig.h in LAB_KERNEL_CONFIG_DIR ('${LAB_KERNEL_CONFIG_DIR}'): "
    "rtoslab renders it from ports/${LAB_KERNEL}/FreeRTOSConfig.h.in; build through rtoslab")
endif()
