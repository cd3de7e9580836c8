//! ftl_os, RTIC version: seed 000's FTL firmware as three RTIC software tasks over the
//! same C FTL core and host side as ftl_os and ftl_fsm (firmware/workloads/ftl, compiled
//! by bench.cmake, called through FFI), with ftl_os.c's priorities (NAND 4 > FTL 3 >
//! host 2) and rtic-sync Channels for its queues (the same depths: host 4, NAND 1):
//!   host: submits commands until none is ready, then awaits a completion
//!   ftl:  ftl_step(): NAND -> send the request to the NAND task and await it back, then
//!         ftl_complete; DONE -> ftl_poll and send the completion; IDLE -> await a command
//!   nand: await a request, ftl_nand_execute, send it back
//! Metrics and checks: the workload's (sw, sr, rr, rw_1 .. rw_8, total; data verified).
#![no_std]

use lab::check;

/// The C core's host queue depth (core/ftl_config.h FTL_HOST_QUEUE_DEPTH default).
const HOST_QUEUE_DEPTH: usize = 4;
const FTL_OK: i32 = 0;
const FTL_STEP_IDLE: i32 = 0;
const FTL_STEP_NAND: i32 = 1;
const FTL_STEP_DONE: i32 = 2;

/// ftl_cpl_t (core/host_if.h).
#[repr(C)]
#[derive(Clone, Copy)]
struct FtlCpl {
    tag: u32,
    lba: u32,
    count: u16,
    op: u8,
    status: i8,
}

/// Opaque C objects: commands (ftl_cmd_t) and NAND requests (ftl_nand_req_t).
#[repr(C)]
struct FtlCmd {
    _private: [u8; 0],
}
#[repr(C)]
struct NandReq {
    _private: [u8; 0],
}

/// A pointer handed between tasks; the C object it points to is used by one task at a
/// time (the channel hand-over orders the accesses).
struct Handoff<T>(*mut T);
// SAFETY: one core; ownership passes with the message.
unsafe impl<T> Send for Handoff<T> {}

mod ffi {
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


#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2, FREE1])]
mod app {
    use super::*;
    use crate::handlers;
    use lab_rtic_device::Interrupt;
    use rtic_sync::channel::{Receiver, Sender};
    use rtic_sync::make_channel;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        lab_rtic_device::install(Interrupt::FREE3, handlers::FREE3, 2);
        lab_rtic_device::install(Interrupt::FREE2, handlers::FREE2, 3);
        lab_rtic_device::install(Interrupt::FREE1, handlers::FREE1, 4);
        // SAFETY: format the simulated NAND before anything runs (not timed).
        unsafe { ffi::ftl_app_setup() };
        let (cmd_s, cmd_r) = make_channel!(Handoff<FtlCmd>, HOST_QUEUE_DEPTH);
        let (cpl_s, cpl_r) = make_channel!(FtlCpl, HOST_QUEUE_DEPTH);
        let (nand_s, nand_r) = make_channel!(Handoff<NandReq>, 1);
        let (done_s, done_r) = make_channel!(Handoff<NandReq>, 1);
        check!(nand::spawn(nand_r, done_s).is_ok());
        check!(ftl::spawn(cmd_r, cpl_s, nand_s, done_r).is_ok());
        check!(host::spawn(cmd_s, cpl_r).is_ok());
        (Shared {}, Local {})
    }

    #[task(priority = 2)]
    async fn host(
        _cx: host::Context,
        mut cmd_s: Sender<'static, Handoff<FtlCmd>, HOST_QUEUE_DEPTH>,
        mut cpl_r: Receiver<'static, FtlCpl, HOST_QUEUE_DEPTH>,
    ) {
        loop {
            loop {
                // SAFETY: the host side's functions, from this task only.
                let cmd = unsafe { ffi::ftl_app_host_next() };
                if cmd.is_null() {
                    break;
                }
                check!(cmd_s.send(Handoff(cmd)).await.is_ok());
            }
            // SAFETY: as above.
            if unsafe { ffi::ftl_app_host_done() } {
                break;
            }
            let cpl = lab::ok(cpl_r.recv().await);
            // SAFETY: as above.
            unsafe { ffi::ftl_app_host_complete(cpl.tag, cpl.status as i32) };
        }
        // SAFETY: as above; after the last command.
        unsafe { ffi::ftl_app_report() };
        lab::finish();
    }

    #[task(priority = 3)]
    async fn ftl(
        _cx: ftl::Context,
        mut cmd_r: Receiver<'static, Handoff<FtlCmd>, HOST_QUEUE_DEPTH>,
        mut cpl_s: Sender<'static, FtlCpl, HOST_QUEUE_DEPTH>,
        mut nand_s: Sender<'static, Handoff<NandReq>, 1>,
        mut done_r: Receiver<'static, Handoff<NandReq>, 1>,
    ) {
        loop {
            let mut req: *mut NandReq = core::ptr::null_mut();
            // SAFETY: the FTL core, driven from this task only.
            let step = unsafe { ffi::ftl_step(&mut req) };
            if step == FTL_STEP_NAND {
                check!(nand_s.send(Handoff(req)).await.is_ok());
                let done = lab::ok(done_r.recv().await);
                // SAFETY: the request the NAND task executed and handed back.
                check!(unsafe { ffi::ftl_complete(done.0) } == FTL_OK);
            } else if step == FTL_STEP_DONE {
                let mut cpl = FtlCpl { tag: 0, lba: 0, count: 0, op: 0, status: 0 };
                // SAFETY: cpl is a valid ftl_cpl_t to fill.
                check!(unsafe { ffi::ftl_poll(&mut cpl) });
                check!(cpl_s.send(cpl).await.is_ok());
            } else {
                check!(step == FTL_STEP_IDLE); // WAIT cannot happen here, HALTED must not
                let cmd = lab::ok(cmd_r.recv().await);
                // SAFETY: a command of the host side, valid until its completion.
                check!(unsafe { ffi::ftl_submit(cmd.0) } == FTL_OK);
            }
        }
    }

    #[task(priority = 4)]
    async fn nand(
        _cx: nand::Context,
        mut nand_r: Receiver<'static, Handoff<NandReq>, 1>,
        mut done_s: Sender<'static, Handoff<NandReq>, 1>,
    ) {
        loop {
            let req = lab::ok(nand_r.recv().await);
            // SAFETY: the FTL's outstanding request, owned by this task until sent back.
            let _ = unsafe { ffi::ftl_nand_execute(req.0) };
            check!(done_s.send(req).await.is_ok());
        }
    }
}

/// RTIC's dispatcher handlers, installed in init and listed for the timing model.
mod handlers {
    extern "C" {
        pub fn FREE3();
        pub fn FREE2();
        pub fn FREE1();
    }
    lab::isr!(LAB_ISR_FREE3, FREE3);
    lab::isr!(LAB_ISR_FREE2, FREE2);
    lab::isr!(LAB_ISR_FREE1, FREE1);
}

/// The benchmark's entry point (lab/bench.h): RTIC's generated `main`, renamed
/// lab_rust_main by the build (the C harness owns `main`); never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    extern "C" {
        fn lab_rust_main() -> !;
    }
    // SAFETY: RTIC's main, called once.
    unsafe { lab_rust_main() }
}
