# coop: the whole kernel is our port code (port_coop.c), compiled with every warning as
# an error like any port code; it has no sources of its own elsewhere.
set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_coop.c)
