# embassy: the model lives in Rust (firmware/rust/lab-embassy, linked through each
# benchmark's Rust staticlib); the C side is lab_port_init only.
set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_embassy.c)
