# Bare metal: no kernel. The port code implements the parts of lab/port.h that make
# sense without a scheduler.
file(GLOB LAB_PORT_SOURCES CONFIGURE_DEPENDS ${LAB_PORT_DIR}/*.c)
