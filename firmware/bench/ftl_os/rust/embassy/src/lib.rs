//! ftl_os, embassy version: seed 000's FTL firmware as three async tasks of the thread
//! executor over the same C FTL core and host side as ftl_os and ftl_fsm
//! (firmware/workloads/ftl: core/ftl.h, app/ftl_app.h; compiled by bench.cmake, called
//! through FFI), joined by embassy-sync Channels as ftl_os.c joins its tasks by queues:
//!   host: submits commands (cmd channel, depth FTL_HOST_QUEUE_DEPTH = 4) until none is
//!         ready, then awaits a completion (cpl channel) and hands it to the host side
//!   ftl:  ftl_step(): NAND -> send the request to the NAND task and await it back, then
//!         ftl_complete; DONE -> ftl_poll and send the completion; IDLE -> await a command
//!         and ftl_submit
//!   nand: await a request, ftl_nand_execute, send it back
//! FreeRTOS gives them priorities (NAND 4 > FTL 3 > host 2); one embassy executor has
//! none: a task runs until it awaits, in run-queue order. Metrics and checks: the
//! workload's (sw, sr, rr, rw_1 .. rw_8, total; data verified by the host side).
#![no_std]

use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::channel::Channel;
use lab::check;
use lab::ftl::{
    ffi, FtlCmd, FtlCpl, Handoff, NandReq, FTL_OK, FTL_STEP_DONE, FTL_STEP_IDLE, FTL_STEP_NAND,
};

/// The C core's host queue depth: the channel of commands holds as many.
const HOST_QUEUE_DEPTH: usize = lab::ftl::FTL_HOST_QUEUE_DEPTH;

static CMD: Channel<CriticalSectionRawMutex, Handoff<FtlCmd>, HOST_QUEUE_DEPTH> = Channel::new();
static CPL: Channel<CriticalSectionRawMutex, FtlCpl, HOST_QUEUE_DEPTH> = Channel::new();
static NAND: Channel<CriticalSectionRawMutex, Handoff<NandReq>, 1> = Channel::new();
static NAND_DONE: Channel<CriticalSectionRawMutex, Handoff<NandReq>, 1> = Channel::new();

#[embassy_executor::task]
async fn host() {
    loop {
        loop {
            // SAFETY: the host side's functions, from this task only.
            let cmd = unsafe { ffi::ftl_app_host_next() };
            if cmd.is_null() {
                break;
            }
            CMD.send(Handoff(cmd)).await;
        }
        // SAFETY: as above.
        if unsafe { ffi::ftl_app_host_done() } {
            break;
        }
        let cpl = CPL.receive().await;
        // SAFETY: as above.
        unsafe { ffi::ftl_app_host_complete(cpl.tag, cpl.status as i32) };
    }
    // SAFETY: as above; after the last command.
    unsafe { ffi::ftl_app_report() };
    lab::finish();
}

#[embassy_executor::task]
async fn ftl() {
    loop {
        let mut req: *mut NandReq = core::ptr::null_mut();
        // SAFETY: the FTL core, driven from this task only.
        let step = unsafe { ffi::ftl_step(&mut req) };
        if step == FTL_STEP_NAND {
            NAND.send(Handoff(req)).await;
            let done = NAND_DONE.receive().await;
            // SAFETY: the request the NAND task executed and handed back.
            check!(unsafe { ffi::ftl_complete(done.0) } == FTL_OK);
        } else if step == FTL_STEP_DONE {
            let mut cpl = FtlCpl::EMPTY;
            // SAFETY: cpl is a valid ftl_cpl_t to fill.
            check!(unsafe { ffi::ftl_poll(&mut cpl) });
            CPL.send(cpl).await;
        } else {
            check!(step == FTL_STEP_IDLE); // WAIT cannot happen here, HALTED must not
            let cmd = CMD.receive().await;
            // SAFETY: a command of the host side, valid until its completion.
            check!(unsafe { ffi::ftl_submit(cmd.0) } == FTL_OK);
        }
    }
}

#[embassy_executor::task]
async fn nand() {
    loop {
        let req = NAND.receive().await;
        // SAFETY: the FTL's outstanding request, owned by this task until sent back.
        let _ = unsafe { ffi::ftl_nand_execute(req.0) };
        NAND_DONE.send(req).await;
    }
}

/// The benchmark's entry point (lab/bench.h): runs the thread executor, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    // SAFETY: format the simulated NAND before anything runs (not timed).
    unsafe { ffi::ftl_app_setup() };
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(nand()));
        spawner.spawn(lab::ok(ftl()));
        spawner.spawn(lab::ok(host()));
    })
}
