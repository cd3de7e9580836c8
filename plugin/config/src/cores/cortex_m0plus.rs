//! Cortex-M0+ TRM (ARM DDI 0484C) Table 3-1 (two-stage pipeline): B 2, B<c> 1 or 2,
//! BL 3, BX/BLX 2, POP with PC 3+N, MSR/MRS 3, DMB/DSB/ISB 3; otherwise as the M0.
//! Interrupt latency 15 cycles (TRM section 3.6.1).

use super::CoreTable;
use super::cortex_m0;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m0plus",
    arch: "armv6-m",
    description: "Cortex-M0+: 2-stage pipeline, fast multiplier, 15-cycle exception entry",
    source: "Cortex-M0+ TRM (ARM DDI 0484C) Table 3-1 and 3.6.1",
    p_direct: 1,
    p_register: 1,
    p_load: 2,
    msr: 3,
    mrs: 3,
    dmb: 3,
    dsb: 3,
    isb: 3,
    entry: 15,
    ret: 11,
    ..cortex_m0::TABLE
};
