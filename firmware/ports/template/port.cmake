# Template port: only our port code. A real port also lists the kernel's own sources,
# which are compiled without -Werror (they are not ours), e.g.
#
#   if(NOT LAB_DEPS_MYKERNEL)
#     message(FATAL_ERROR "kernel mykernel: LAB_DEPS_MYKERNEL is not set ...")
#   endif()
#   set(LAB_PORT_KERNEL_SOURCES ${LAB_DEPS_MYKERNEL}/src/sched.c ...)
#   set(LAB_PORT_INCLUDES ${LAB_DEPS_MYKERNEL}/include)
#   set(LAB_PORT_DEFINES MYKERNEL_SOME_SWITCH=1)
#
# LAB_PORT_SOURCES (our code) is compiled with every warning as an error and -Wundef.
set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_template.c)
