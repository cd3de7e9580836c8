//! Cortex-M4 TRM r0p1 (ARM DDI 0439B) section 3.3.1 Table 3-1: as the M3, but MUL, MLA,
//! MLS, UMULL, SMULL, UMLAL, SMLAL and the DSP multiplies all take 1 cycle.

use super::CoreTable;
use super::cortex_m3;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m4",
    arch: "armv7e-m",
    description: "Cortex-M4 r0p1 (no FPU timing): as the M3 with single-cycle multiplies and the DSP extension",
    source: "Cortex-M4 TRM r0p1 (ARM DDI 0439B) 3.3.1 Table 3-1",
    mla: 1,
    mull: [1, 1, 1],
    mlal: [1, 1, 1],
    ..cortex_m3::TABLE
};
