//! Cortex-M3 TRM r2p1 (ARM DDI 0337I) section 3.3.1 Table 3-1 "Cortex-M3 instruction set
//! summary" and section 3.3.2 "Load/store timings". P by the stage that issues the
//! target (r2p0, DDI 0337G, Table 15-3): decode 1 (B, B<c>, BL; BX LR, BLX LR, MOV PC, LR
//! with LR forwarded), execute 2 (BX/BLX Rm, MOV/ADD PC, CBZ/CBNZ), loaded PC 3 (3.3.2:
//! "LDR PC ... three cycles for the pipeline reload"); TRM range 1..3; which branch
//! takes which is the plugin's `flow::Refill`. MRS/MSR/CPS "1 or 2":
//! MSR 2, MRS 1, CPS 1. Interrupt latency 12 cycles, tail-chaining 6. Code fetched over
//! the System bus (0x20000000 and up: SRAM): TRM r1p1 (ARM DDI 0337E) 14.5.6 "Pipelined
//! instruction fetches": such a fetch takes two cycles, one more than over ICode, and two
//! cannot be back to back (`sysbus_fetch` 1; the M4 and M33 tables inherit it).

use super::CoreTable;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m3",
    arch: "armv7-m",
    description: "Cortex-M3 r2p1: 3-stage pipeline, load pipelining, 12-cycle exception entry",
    source: "Cortex-M3 TRM r2p1 (ARM DDI 0337I) 3.3.1 Table 3-1 and 3.3.2 Load/store timings",
    v7m: true,
    p_direct: 1,
    p_register: 2,
    p_load: 3,
    align_penalty: true,
    bl: 1,
    mul: 1,
    mla: 2,
    mull: [3, 4, 5],
    mlal: [4, 6, 7],
    div: [2, 7, 12],
    load: 2,
    store_imm: 1,
    store_reg: 2,
    dual: 3,
    tbb: 3,
    msr: 2,
    mrs: 1,
    cps: 1,
    dmb: 1,
    dsb: 1,
    isb: 3,
    wait: 1,
    entry: 12,
    ret: 10,
    tail: 6,
    // TRM r1p1 (DDI 0337E) 14.5.6: System-bus instruction fetches are registered
    sysbus_fetch: 1,
    fpu: None,
};
