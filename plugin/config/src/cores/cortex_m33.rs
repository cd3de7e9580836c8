//! Cortex-M33 (ARMv8-M mainline). PROVISIONAL: the counts are the Cortex-M4's until the
//! M33 sources are transcribed (see docs/timing-model.md).

use super::CoreTable;
use super::cortex_m4;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m33",
    arch: "armv8-m.main",
    description: "Cortex-M33 (provisional: the Cortex-M4 counts)",
    source: "provisional: Cortex-M4 TRM r0p1 (ARM DDI 0439B) 3.3.1 Table 3-1",
    ..cortex_m4::TABLE
};
