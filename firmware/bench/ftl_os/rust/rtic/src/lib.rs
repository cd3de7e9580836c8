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
use lab::ftl::{
    ffi, FtlCmd, FtlCpl, Handoff, NandReq, FTL_OK, FTL_STEP_DONE, FTL_STEP_IDLE, FTL_STEP_NAND,
};

/// The C core's host queue depth: the channel of commands holds as many.
const HOST_QUEUE_DEPTH: usize = lab::ftl::FTL_HOST_QUEUE_DEPTH;

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2, FREE1])]
mod app {
    use super::*;
    use rtic_sync::channel::{Receiver, Sender};
    use rtic_sync::make_channel;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
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
                let mut cpl = FtlCpl::EMPTY;
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

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 2, FREE2 => 3, FREE1 => 4);
