//! rtoslab's probe and benchmark API for Rust firmware: the same effect as the C headers
//! lab/probe.h, lab/bench.h and lab/target.h (docs/rust-models.md).
//!
//! * `probe!(id)` is the target's probe: the same three instructions as the C
//!   `LAB_PROBE_IMPL` of emulator targets (movw r12, #id*4; movt r12, #base>>16;
//!   str r12, [r12]), one scratch register (r12, clobbered, never spilled) and one store.
//!   The asm block may touch memory, so the compiler moves no memory access across it (the
//!   C macro's "memory" clobber).
//! * `meta!` puts probe metadata records into the non-loaded ELF section `.lab_meta`,
//!   byte for byte the C `struct lab_meta_rec` (docs/formats.md section 3), in the order
//!   written (one array, so nothing can reorder them).
//! * `check!(cond)` is `LAB_CHECK`: a false condition ends the run as failed.
//! * The harness's C functions (`lab_finish`, `lab_fail`, ...) and the target's interrupt
//!   API (lab/target.h) are declared here for Rust callers.
//!
//! * `define_u32!(NAME, default)` is a configuration's `--define NAME=VALUE` (the build
//!   passes it as `LAB_DEFINE_NAME`), as the C code sees the macro.
//! * `toggle` and `ftl` declare the C workloads that Rust benchmark versions drive through
//!   FFI (firmware/workloads/toggle, firmware/workloads/ftl), once for every Rust model.
//!
//! The probe region base comes from the build (`LAB_PROBE_REGION_BASE`, target.toml
//! [probe]) like the C macro of the same name.
#![no_std]

pub mod ftl;
pub mod toggle;

/// The probe region's base address (target.toml [probe] base, passed by the build).
pub const PROBE_REGION_BASE: u32 = parse_u32(env!("LAB_PROBE_REGION_BASE"));
/// The probe region's size in bytes (target.toml [probe] size).
pub const PROBE_REGION_SIZE: u32 = parse_u32(env!("LAB_PROBE_REGION_SIZE"));
/// The upper half of the base: the `movt` immediate of every probe.
pub const PROBE_BASE_HI: u32 = {
    assert!(
        PROBE_REGION_BASE & 0xFFFF == 0,
        "probe region base must be 64 KiB aligned"
    );
    PROBE_REGION_BASE >> 16
};
/// Core clock of the image in Hz (target.toml clock_hz; SysTick counts at this rate).
pub const CLOCK_HZ: u32 = parse_u32(env!("LAB_TARGET_CLOCK_HZ"));
/// Implemented NVIC priority bits (target.toml nvic_prio_bits).
pub const NVIC_PRIO_BITS: u8 = parse_u32(env!("LAB_TARGET_NVIC_PRIO_BITS")) as u8;
/// The highest free device interrupt line (target.toml irq_soft_top): lab_target_irq_soft(n)
/// is IRQ_SOFT_TOP - n for n = 0..3, known at compile time for RTIC's device crate.
pub const IRQ_SOFT_TOP: u32 = {
    let top = parse_u32(env!("LAB_TARGET_IRQ_SOFT_TOP"));
    assert!(top >= 3 && top < 496, "irq_soft_top must be 3..495");
    top
};

/// A decimal or 0x-hexadecimal number with an optional `u` suffix, at compile time.
pub const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut end = b.len();
    if end > 0 && (b[end - 1] == b'u' || b[end - 1] == b'U') {
        end -= 1;
    }
    let (mut i, radix) = if end > 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        (2, 16)
    } else {
        (0, 10)
    };
    assert!(i < end, "empty number");
    let mut v: u32 = 0;
    while i < end {
        let c = b[i];
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u32,
            b'a'..=b'f' if radix == 16 => (c - b'a' + 10) as u32,
            b'A'..=b'F' if radix == 16 => (c - b'A' + 10) as u32,
            _ => panic!("not a number"),
        };
        v = v * radix + d;
        i += 1;
    }
    v
}

/// The value of the configuration's preprocessor define `NAME` (`--define NAME=VALUE`,
/// passed by the build as `LAB_DEFINE_NAME`; decimal or 0x-hexadecimal), or `default`
/// when the configuration does not define it, at compile time:
/// `const TASKS: u32 = lab::define_u32!(TOGGLE_TASKS, 1);`. Expanded in the calling
/// crate, so only that crate is rebuilt when the value changes.
#[macro_export]
macro_rules! define_u32 {
    ($name:ident, $default:expr) => {
        match ::core::option_env!(::core::concat!("LAB_DEFINE_", ::core::stringify!($name))) {
            Some(v) => $crate::parse_u32(v),
            None => $default,
        }
    };
}

/// Mark probe point `id` (a constant 2..region size/4; 0 and 1 are the harness's
/// calibration pair). Never blocks, prints or reads a timer; costs the same three
/// instructions as the C probe of the target's core, which the host calibrates away.
#[macro_export]
macro_rules! probe {
    ($id:expr) => {
        $crate::__probe_impl!($id)
    };
}

/// The probe on a core with Thumb-2 (ARMv7-M, ARMv8-M mainline): movw/movt build the
/// address in r12 (clobbered, never spilled), one store.
#[cfg(target_feature = "thumb2")]
#[doc(hidden)]
#[macro_export]
macro_rules! __probe_impl {
    ($id:expr) => {
        // SAFETY: one store into the probe region, which no Rust or C object occupies.
        unsafe {
            ::core::arch::asm!(
                "movw r12, #{off}",
                "movt r12, #{hi}",
                "str r12, [r12]",
                off = const {
                    assert!(($id as u32) < $crate::PROBE_REGION_SIZE / 4, "probe id out of range");
                    ($id as u32) * 4
                },
                hi = const $crate::PROBE_BASE_HI,
                out("r12") _,
                options(nostack, preserves_flags),
            )
        }
    };
}

/// The probe on ARMv6-M (no movw/movt; loads and stores take low registers only): the C
/// target's sequence (microbit lab_probe_impl.h), `ldr r3, lit; b over; lit: .word
/// address; over: str r3, [r3]`: three executed instructions, r3 clobbered, one store.
#[cfg(not(target_feature = "thumb2"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __probe_impl {
    ($id:expr) => {
        // SAFETY: one store into the probe region, which no Rust or C object occupies.
        unsafe {
            ::core::arch::asm!(
                "ldr r3, 1f",
                "b 2f",
                ".p2align 2",
                "1:",
                ".word {addr}",
                "2:",
                "str r3, [r3]",
                addr = const {
                    assert!(($id as u32) < $crate::PROBE_REGION_SIZE / 4, "probe id out of range");
                    $crate::PROBE_REGION_BASE + ($id as u32) * 4
                },
                out("r3") _,
                options(nostack, preserves_flags),
            )
        }
    };
}

pub const META_MAGIC: u32 = 0x5042_414C; // "LABP"
pub const META_VERSION: u16 = 1;
pub const KIND_INTERVAL: u16 = 0;
pub const KIND_PERIOD: u16 = 1;
pub const KIND_SINCE: u16 = 2;
pub const FLAG_VIRTUAL: u32 = 4;

/// One probe metadata record: the layout of C `struct lab_meta_rec` (160 bytes,
/// docs/formats.md section 3).
#[repr(C, align(4))]
pub struct MetaRec {
    pub magic: u32,
    pub version: u16,
    pub kind: u16,
    pub start_id: u16,
    pub end_id: u16,
    pub flags: u32,
    pub name: [u8; 32],
    pub desc: [u8; 112],
}

const _: () = assert!(core::mem::size_of::<MetaRec>() == 160);

const fn padded<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    assert!(b.len() < N, "metric name or description too long");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < b.len() {
        out[i] = b[i];
        i += 1;
    }
    out
}

const fn check_name(name: &str) {
    let b = name.as_bytes();
    assert!(
        !b.is_empty() && b.len() <= 31,
        "a metric name is 1..31 characters"
    );
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        assert!(
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_',
            "a metric name is [a-z0-9_]"
        );
        i += 1;
    }
}

impl MetaRec {
    /// A record; `name` [a-z0-9_] up to 31 characters, `desc` up to 111 (checked at
    /// compile time when used in a static).
    pub const fn new(kind: u16, start: u16, end: u16, flags: u32, name: &str, desc: &str) -> Self {
        check_name(name);
        MetaRec {
            magic: META_MAGIC,
            version: META_VERSION,
            kind,
            start_id: start,
            end_id: end,
            flags,
            name: padded::<32>(name),
            desc: padded::<112>(desc),
        }
    }
    /// `LAB_INTERVAL`: each hit of `start` followed by a hit of `end` is one sample.
    pub const fn interval(name: &str, start: u16, end: u16, desc: &str) -> Self {
        Self::new(KIND_INTERVAL, start, end, 0, name, desc)
    }
    /// `LAB_PERIOD`: the distances between successive hits of `id`.
    pub const fn period(name: &str, id: u16, desc: &str) -> Self {
        Self::new(KIND_PERIOD, id, id, 0, name, desc)
    }
    /// `LAB_SINCE`: one sample per hit of `end`, from the latest hit of `start`.
    pub const fn since(name: &str, start: u16, end: u16, desc: &str) -> Self {
        Self::new(KIND_SINCE, start, end, 0, name, desc)
    }
    /// `LAB_INTERVAL_VIRTUAL`: paced by the emulator's instruction clock.
    pub const fn interval_virtual(name: &str, start: u16, end: u16, desc: &str) -> Self {
        Self::new(KIND_INTERVAL, start, end, FLAG_VIRTUAL, name, desc)
    }
    /// `LAB_PERIOD_VIRTUAL`.
    pub const fn period_virtual(name: &str, id: u16, desc: &str) -> Self {
        Self::new(KIND_PERIOD, id, id, FLAG_VIRTUAL, name, desc)
    }
}

/// Declare a benchmark's metrics, in report order:
/// `lab::meta!(MetaRec::interval("call", 2, 3, "..."), ...);` at item level. The records
/// go to `.lab_meta` (not loaded: no flash, RAM or time).
#[macro_export]
macro_rules! meta {
    ($($rec:expr),+ $(,)?) => {
        #[link_section = ".lab_meta"]
        #[used]
        #[no_mangle]
        static LAB_META_RUST: [$crate::MetaRec; [$(stringify!($rec)),+].len()] = [$($rec),+];
    };
}

/// The interrupt-latency trigger of firmware/workloads/irq_latency (irq_latency.h) for the
/// Rust versions of k_irq_latency, defined at item level in the calling crate (as the C
/// header is compiled inside each benchmark, so the code around the probes is the
/// benchmark's own): `IRQ_SAMPLES` (2000), `IRQ_TIMER_PERIOD` (499 target clock cycles),
/// the counters `TRIGGERED`, `HANDLED`, `SKIPPED`, the measured line `LINE` (the benchmark
/// stores it before it starts the timer) and `timer_handler`, the target benchmark timer's
/// handler: it raises `LINE` only when the previous raise was handled (else it counts a
/// skip), at most `IRQ_SAMPLES` times, hitting probe 2 just before. The measured handler
/// hits probe 3 first and counts `HANDLED`; the benchmark declares the metric (2 -> 3).
#[macro_export]
macro_rules! irq_latency_trigger {
    () => {
        const IRQ_SAMPLES: u32 = 2000;
        /// The C benchmark's period (workloads/irq_latency/irq_latency.h): 499 target clock cycles.
        const IRQ_TIMER_PERIOD: u32 = 499;

        static TRIGGERED: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
        static HANDLED: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
        static SKIPPED: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
        /// The measured line, looked up once before the timer starts (as the C workload's irq_line).
        static LINE: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);

        /// The trigger, as the C workload's irq_timer_handler: on the target's benchmark timer at
        /// the most urgent priority; raises the measured line only when the previous one was
        /// handled (else counts a skip).
        unsafe extern "C" fn timer_handler() {
            use ::core::sync::atomic::Ordering;
            let t = TRIGGERED.load(Ordering::Relaxed);
            if t >= IRQ_SAMPLES {
                return;
            }
            if HANDLED.load(Ordering::Relaxed) != t {
                $crate::fetch_add(&SKIPPED, 1);
                return;
            }
            TRIGGERED.store(t + 1, Ordering::Relaxed);
            $crate::probe!(2);
            $crate::irq_trigger(LINE.load(Ordering::Relaxed));
        }
    };
}

/// List an interrupt handler installed at run time for the timing model (C `LAB_ISR`):
/// its address goes to the non-loaded section `.lab_isr`.
#[macro_export]
macro_rules! isr {
    ($name:ident, $f:path) => {
        #[link_section = ".lab_isr"]
        #[used]
        static $name: unsafe extern "C" fn() = $f;
    };
}

/// `LAB_CHECK`: end the run as failed ("LAB-FAIL file:line: cond") when `cond` is false.
#[macro_export]
macro_rules! check {
    ($cond:expr) => {
        if !($cond) {
            // (names bound outside the unsafe block: it expands no metavariable)
            let fail = $crate::fail;
            let file: &'static str = concat!(file!(), "\0");
            let what: &'static str = concat!(stringify!($cond), "\0");
            let line = line!() as i32;
            // SAFETY: both strings are NUL-terminated literals.
            unsafe { fail(file.as_ptr(), line, what.as_ptr()) }
        }
    };
}

/// Exit codes of lab/exit.h.
pub const EXIT_CHECK_FAILED: i32 = 10;
pub const EXIT_UNSUPPORTED: i32 = 15;

/// A device interrupt handler for `irq_install` (lab/target.h lab_irq_handler_t).
pub type IrqHandler = unsafe extern "C" fn();

mod ffi {
    extern "C" {
        pub fn lab_finish() -> !;
        pub fn lab_fail(file: *const u8, line: i32, what: *const u8) -> !;
        pub fn lab_fail_status(status: i32, what: *const u8) -> !;
        pub fn lab_target_irq_install(irq: u32, handler: super::IrqHandler, priority: u32) -> i32;
        pub fn lab_target_irq_trigger(irq: u32);
        pub fn lab_target_irq_soft(n: u32) -> u32;
        pub fn lab_target_timer_start(
            period: u32,
            handler: super::IrqHandler,
            priority: u32,
        ) -> i32;
        pub fn lab_target_timer_stop();
        pub fn lab_console_put_kv(key: *const u8, value: u32);
    }
}

/// End the run with success (harness). Never returns.
#[inline]
pub fn finish() -> ! {
    // SAFETY: the harness's C function; callable from any context.
    unsafe { ffi::lab_finish() }
}

/// End the run as failed ("LAB-FAIL file:line: what"). Never returns.
///
/// # Safety
/// `file` and `what` must point to NUL-terminated strings (check! passes literals).
pub unsafe fn fail(file: *const u8, line: i32, what: *const u8) -> ! {
    // SAFETY: the caller's promise above.
    unsafe { ffi::lab_fail(file, line, what) }
}

/// End the run with exit status `status`; `what` must end with "\0".
pub fn fail_status(status: i32, what: &'static str) -> ! {
    assert!(what.ends_with('\0'));
    // SAFETY: NUL-terminated.
    unsafe { ffi::lab_fail_status(status, what.as_ptr()) }
}

/// The value of `r`, or the end of the run as a failed check when it is an error. Unlike
/// `unwrap`, which formats the error for its panic message, this pulls no formatting code
/// into the image (so images are not inflated by core::fmt; docs/rust-models.md).
#[inline]
pub fn ok<T, E>(r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(_) => fail_status(EXIT_CHECK_FAILED, "Rust: an operation returned an error\0"),
    }
}

/// Install `handler` for device interrupt `irq` at raw NVIC priority `priority` (0 = most
/// urgent) and enable it. The handler must also be listed with `isr!` for the timing
/// model. Fails the run if the target refuses.
pub fn irq_install(irq: u32, handler: IrqHandler, priority: u32) {
    // SAFETY: the target's C function; called with the IRQ neither pending nor active.
    let r = unsafe { ffi::lab_target_irq_install(irq, handler, priority) };
    check!(r == 0);
}

/// Make device interrupt `irq` pending (NVIC STIR): it runs before the next instruction
/// when the caller runs at a lower priority with interrupts enabled.
#[inline]
pub fn irq_trigger(irq: u32) {
    // SAFETY: a register write.
    unsafe { ffi::lab_target_irq_trigger(irq) }
}

/// Device interrupt line `n` (0..3) that no device drives (lab_target_irq_soft).
#[inline]
pub fn irq_soft(n: u32) -> u32 {
    // SAFETY: pure lookup.
    unsafe { ffi::lab_target_irq_soft(n) }
}

/// Start the target's benchmark timer (lab_target_timer_start).
pub fn timer_start(period: u32, handler: IrqHandler, priority: u32) {
    // SAFETY: the target's C function.
    let r = unsafe { ffi::lab_target_timer_start(period, handler, priority) };
    check!(r == 0);
}

/// Stop the benchmark timer.
#[inline]
pub fn timer_stop() {
    // SAFETY: the target's C function.
    unsafe { ffi::lab_target_timer_stop() }
}

/// Print "LAB-KV key=value" (lab/console.h; never on a measured path). `key` must end
/// with "\0".
pub fn put_kv(key: &'static str, value: u32) {
    assert!(key.ends_with('\0'));
    // SAFETY: NUL-terminated key; the harness's console printer.
    unsafe { ffi::lab_console_put_kv(key.as_ptr(), value) }
}

/// Raw NVIC priority value for priority level `level` counted from the least urgent
/// (level 0 = the least urgent implemented value), as lab_target_irq_install takes it.
pub const fn nvic_prio_from_least_urgent(level: u8) -> u32 {
    let max = (1u32 << NVIC_PRIO_BITS) - 1;
    ((max - level as u32) << (8 - NVIC_PRIO_BITS)) & 0xFF
}

/// A Rust panic ends the run as a failed check (never on a measured path).
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    fail_status(EXIT_CHECK_FAILED, "rust panic\0")
}

/// Keep a value alive and the compiler from moving memory accesses across (LAB_KEEP).
#[inline(always)]
pub fn keep<T>(v: &T) {
    // SAFETY: empty asm.
    unsafe {
        core::arch::asm!("/* {0} */", in(reg) v as *const T, options(nostack, preserves_flags))
    }
}

/// `*a += n`, returning the value before (Relaxed): `AtomicU32::fetch_add` where the core
/// has atomic read-modify-write (ARMv7-M, ARMv8-M mainline: LDREX/STREX); on ARMv6-M,
/// which has none, a load and a store with interrupts masked (PRIMASK) around them.
#[inline(always)]
pub fn fetch_add(a: &core::sync::atomic::AtomicU32, n: u32) -> u32 {
    use core::sync::atomic::Ordering::Relaxed;
    #[cfg(target_has_atomic = "32")]
    {
        a.fetch_add(n, Relaxed)
    }
    #[cfg(not(target_has_atomic = "32"))]
    {
        irqs_masked(|| {
            let v = a.load(Relaxed);
            a.store(v.wrapping_add(n), Relaxed);
            v
        })
    }
}

/// `*a = v`, returning the value before (Relaxed): `AtomicU32::swap`, or on ARMv6-M a
/// load and a store with interrupts masked (as `fetch_add`).
#[inline(always)]
pub fn swap(a: &core::sync::atomic::AtomicU32, v: u32) -> u32 {
    use core::sync::atomic::Ordering::Relaxed;
    #[cfg(target_has_atomic = "32")]
    {
        a.swap(v, Relaxed)
    }
    #[cfg(not(target_has_atomic = "32"))]
    {
        irqs_masked(|| {
            let old = a.load(Relaxed);
            a.store(v, Relaxed);
            old
        })
    }
}

/// Run `f` with PRIMASK set, restoring PRIMASK's previous value after.
#[cfg(not(target_has_atomic = "32"))]
#[inline(always)]
fn irqs_masked<R>(f: impl FnOnce() -> R) -> R {
    let primask: u32;
    // SAFETY: reads PRIMASK and masks interrupts; the compiler keeps memory accesses
    // inside (no `nomem`).
    unsafe {
        core::arch::asm!("mrs {0}, PRIMASK", "cpsid i", out(reg) primask, options(nostack, preserves_flags))
    };
    let r = f();
    // SAFETY: restores the PRIMASK read above.
    unsafe {
        core::arch::asm!("msr PRIMASK, {0}", in(reg) primask, options(nostack, preserves_flags))
    };
    r
}
