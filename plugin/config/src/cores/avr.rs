//! The 8-bit AVR cores: their own table type, since nothing of a Cortex-M table (pipeline
//! refills, wait states, neighbour rules) applies. An AVR core fetches from flash with no
//! wait states and executes each instruction in a fixed number of cycles, with the
//! documented extras for a taken branch, a skip and an interrupt (the plugin's `avr.rs`
//! applies them).

/// One AVR core's cycle counts, as its instruction set manual gives them.
#[derive(Debug, PartialEq, Eq)]
pub struct AvrTable {
    /// The `core=` value.
    pub name: &'static str,
    /// One line: what is modelled.
    pub description: &'static str,
    /// The documents (and columns) the counts come from.
    pub source: &'static str,
    /// Program counter width in bits (9/16-bit PC or 22-bit PC columns of the manual).
    pub pc_bits: u32,
    /// LD/LDD/ST/STD (every pointer form), LDS, STS: internal SRAM.
    pub ld: u32,
    pub st: u32,
    pub lds: u32,
    pub sts: u32,
    pub push: u32,
    pub pop: u32,
    /// LPM/ELPM (every form).
    pub lpm: u32,
    /// MUL, MULS, MULSU, FMUL, FMULS, FMULSU.
    pub mul: u32,
    /// ADIW, SBIW.
    pub adiw: u32,
    /// SBI, CBI.
    pub sbi: u32,
    pub rjmp: u32,
    pub ijmp: u32,
    pub jmp: u32,
    pub rcall: u32,
    pub icall: u32,
    pub call: u32,
    pub ret: u32,
    pub reti: u32,
    /// A conditional branch: not taken / taken.
    pub branch: u32,
    pub branch_taken: u32,
    /// CPSE/SBRC/SBRS/SBIC/SBIS without a skip; a skip adds the skipped instruction's
    /// words (1 or 2) to it.
    pub skip: u32,
    /// Interrupt response: from the end of the instruction in flight to the vector's
    /// first instruction (the PC pushed); the vector's JMP is then charged as a JMP.
    pub irq_entry: u32,
    /// Extra response cycles when the interrupt wakes the core from SLEEP.
    pub irq_wake: u32,
}

/// The AVRe+ core of the megaAVR parts (ATmega328P), 16-bit PC. The manual gives the
/// AVRe column for AVRe and AVRe+ alike ("Same timing as AVR and AVRe").
pub const AVRE: AvrTable = AvrTable {
    name: "avre",
    description: "AVRe+ 8-bit core (megaAVR: ATmega328P), 16-bit PC, internal SRAM, no flash wait states",
    source: "Microchip AVR Instruction Set Manual (DS40002198), AVRe column with 9/16-bit PC: \
             LD/ST/LDD/STD/LDS/STS/PUSH/POP 2, LPM 3, MUL 2, ADIW/SBIW 2, SBI/CBI 2, RJMP/IJMP 2, \
             JMP 3, RCALL/ICALL 3, CALL 4, RET/RETI 4, BRxx 1/2, CPSE/SBRx/SBIx 1/2/3; interrupt \
             response 4 (+4 from sleep): ATmega328P datasheet 7.7.1",
    pc_bits: 16,
    ld: 2,
    st: 2,
    lds: 2,
    sts: 2,
    push: 2,
    pop: 2,
    lpm: 3,
    mul: 2,
    adiw: 2,
    sbi: 2,
    rjmp: 2,
    ijmp: 2,
    jmp: 3,
    rcall: 3,
    icall: 3,
    call: 4,
    ret: 4,
    reti: 4,
    branch: 1,
    branch_taken: 2,
    skip: 1,
    irq_entry: 4,
    irq_wake: 4,
};

/// Every AVR core table, in the order `core=` lists them.
pub static AVR_CORES: &[&AvrTable] = &[&AVRE];

/// Look an AVR core up by its `core=` name.
pub fn avr_by_name(name: &str) -> Option<&'static AvrTable> {
    AVR_CORES.iter().copied().find(|t| t.name == name)
}
