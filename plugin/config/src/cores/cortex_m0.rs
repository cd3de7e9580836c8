//! Cortex-M0 TRM (ARM DDI 0432C) Table 3-1: B 3, B<c> 1 or 3, BL 4, BX/BLX 3, MOV/ADD
//! PC 3, LDR/STR 2, LDM/STM/PUSH/POP 1+N, POP with PC 4+N, MSR/MRS 4, DMB/DSB/ISB 4,
//! WFI/WFE 2, MULS 1 (the fast multiplier option). No load pipelining. v7-M-only
//! instructions (which an ARMv6-M core would fault on) keep the M3's counts. Interrupt
//! latency 16 cycles.

use super::CoreTable;
use super::cortex_m3;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m0",
    arch: "armv6-m",
    description: "Cortex-M0: 3-stage pipeline, fast multiplier, no load pipelining, 16-cycle exception entry",
    source: "Cortex-M0 TRM (ARM DDI 0432C) Table 3-1",
    v7m: false,
    p_direct: 2,
    p_register: 2,
    p_load: 3,
    align_penalty: false,
    bl: 2,
    store_imm: 2,
    msr: 4,
    mrs: 4,
    dmb: 4,
    dsb: 4,
    isb: 4,
    wait: 2,
    entry: 16,
    ret: 12,
    tail: 6,
    // one AHB-Lite bus for code and data: no System-bus fetch difference
    sysbus_fetch: 0,
    ..cortex_m3::TABLE
};
