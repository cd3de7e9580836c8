//! Seed 000's FTL firmware (firmware/workloads/ftl: core/ftl.h, core/host_if.h,
//! app/ftl_app.h; compiled by the benchmark's bench.cmake) as the Rust versions of ftl_os
//! drive it through FFI: the C FTL core and host side do the work, hit the probes and
//! check the data; a Rust model only runs the host, FTL and NAND tasks and joins them.
//! Names are the C ones (FTL_OK, ftl_cpl_t as FtlCpl, ...).

/// The C core's host queue depth (core/ftl_config.h FTL_HOST_QUEUE_DEPTH default).
pub const FTL_HOST_QUEUE_DEPTH: usize = 4;
/// FTL_OK (core/ftl.h).
pub const FTL_OK: i32 = 0;
/// ftl_step results (core/ftl.h): nothing to do until a command arrives.
pub const FTL_STEP_IDLE: i32 = 0;
/// ftl_step: a NAND request to execute (then ftl_complete).
pub const FTL_STEP_NAND: i32 = 1;
/// ftl_step: a completion to collect with ftl_poll.
pub const FTL_STEP_DONE: i32 = 2;

/// ftl_cpl_t (core/host_if.h).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FtlCpl {
    pub tag: u32,
    pub lba: u32,
    pub count: u16,
    pub op: u8,
    pub status: i8,
}

impl FtlCpl {
    /// An all-zero completion, for ftl_poll to fill.
    pub const EMPTY: FtlCpl = FtlCpl {
        tag: 0,
        lba: 0,
        count: 0,
        op: 0,
        status: 0,
    };
}

/// Opaque C objects: commands (ftl_cmd_t).
#[repr(C)]
pub struct FtlCmd {
    _private: [u8; 0],
}

/// Opaque C objects: NAND requests (ftl_nand_req_t).
#[repr(C)]
pub struct NandReq {
    _private: [u8; 0],
}

/// A pointer handed between tasks; the C object it points to is used by one task at a
/// time (the channel hand-over orders the accesses).
pub struct Handoff<T>(pub *mut T);
// SAFETY: one core; ownership passes with the message.
unsafe impl<T> Send for Handoff<T> {}

/// The FTL core's and host side's functions (app/ftl_app.h, core/ftl.h).
pub mod ffi {
    extern "C" {
        pub fn ftl_app_setup();
        pub fn ftl_app_host_next() -> *mut super::FtlCmd;
        pub fn ftl_app_host_complete(tag: u32, status: i32);
        pub fn ftl_app_host_done() -> bool;
        pub fn ftl_app_report();
        pub fn ftl_submit(cmd: *const super::FtlCmd) -> i32;
        pub fn ftl_step(req: *mut *mut super::NandReq) -> i32;
        pub fn ftl_complete(req: *mut super::NandReq) -> i32;
        pub fn ftl_poll(cpl: *mut super::FtlCpl) -> bool;
        pub fn ftl_nand_execute(req: *mut super::NandReq) -> i32;
    }
}
