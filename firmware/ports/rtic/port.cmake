# rtic: the model lives in Rust (each benchmark's #[rtic::app], with the device crate
# firmware/rust/lab-rtic-device); the C side is lab_port_init only.
set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_rtic.c)
