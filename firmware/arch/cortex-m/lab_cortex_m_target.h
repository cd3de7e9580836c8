/*
 * The part of lab/target.h that is the same on every Cortex-M target: lab_target_exit()
 * by Arm semihosting (QEMU -semihosting; bkpt exists on ARMv6-M too), the IRQ API on the
 * NVIC and the RAM vector table, software-only IRQ lines and the main stack's bounds; and
 * (lab_cortex_m_cores.h) the cores section and the kernel tick.
 * ARMv6-M gets its own NVIC access (one register per kind, word-wide priorities, no STIR),
 * chosen by the compiler's __ARM_ARCH_6M__, never by board.
 *
 * Function definitions, not declarations: included once per image, by the board's
 * target.c, right after its console code. The board's timer code in the same translation
 * unit calls lab_target_irq_install() and lab_target_irq_remove(), and the compiler may
 * inline them there, as it did when every board had its own copy of this code; so the
 * image, its addresses and every measured count are what they were (a separate object
 * file would turn those inlined calls into real ones and move the timer's interrupt
 * phase). The board keeps its own console, timer, clock and output register.
 */
#ifndef LAB_CORTEX_M_TARGET_H
#define LAB_CORTEX_M_TARGET_H

#include <stdint.h>

#include "lab/probe.h"
#include "lab/target.h"
#include "lab_cortex_m.h"

#if LAB_PROBE_MODE_BUFFER
/* The RAM console (lab_cortex_m.h, lab_cm_console_ram_write): in .bss (no flash copy);
 * lab_probe_buf_init() writes its magic and size. */
__attribute__((used)) struct lab_console_ram lab_console_ram;

/* Buffer mode (docs/boards.md): the image runs under a GDB server, on a board or an
 * emulator's GDB stub. The end is a known symbol, not semihosting (a bkpt 0xab on a board
 * without a semihosting debugger faults): the status goes to lab_exit_status and the core
 * parks in lab_board_halt, where the GDB runner's breakpoint stops it. */
volatile int32_t lab_exit_status = -1;

__attribute__((noinline, noreturn, used)) void lab_board_halt(int32_t status);
__attribute__((noinline, noreturn, used)) void lab_board_halt(int32_t status)
{
    (void)status;
    for (;;) {
        __asm__ volatile("" ::: "memory");
    }
}

void lab_target_exit(int status)
{
    __asm__ volatile("cpsid i" ::: "memory");
    lab_exit_status = (int32_t)status;
    lab_board_halt((int32_t)status);
}

/* The probe buffer (layout: lab/probe.h; capacity: target.toml [probe] buffer). In .bss:
 * cleared at reset, filled by lab_probe_buf_init(). */
struct lab_probe_buffer {
    uint32_t magic;
    uint32_t clock;
    uint32_t *next;
    uint32_t *end;
    uint32_t overflow;
    volatile uint32_t *ts_addr;
    uint32_t capacity;
    uint32_t reload;
    volatile uint32_t *wraps_addr;
    volatile uint32_t wraps;
    volatile uint32_t tick_on;
    uint32_t zero;
    uint32_t entries[2u * LAB_PROBE_BUFFER_ENTRIES];
};
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, entries) == LAB_PROBE_BUF_OFF_ENTRIES,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, ts_addr) == LAB_PROBE_BUF_OFF_TS_ADDR,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, overflow) == LAB_PROBE_BUF_OFF_OVERFLOW,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, next) == LAB_PROBE_BUF_OFF_NEXT,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, wraps_addr) == LAB_PROBE_BUF_OFF_WRAPS_ADDR,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, wraps) == LAB_PROBE_BUF_OFF_WRAPS,
               "probe buffer header layout (lab/probe.h)");
_Static_assert(__builtin_offsetof(struct lab_probe_buffer, zero) == LAB_PROBE_BUF_OFF_ZERO,
               "probe buffer header layout (lab/probe.h)");
__attribute__((used, aligned(8))) struct lab_probe_buffer lab_probe_buf;

/* DWT (ARMv7-M ARM DDI 0403E C1.8: DWT_CTRL 0xE0001000, CYCCNTENA bit 0, NOCYCCNT bit
 * 25; DWT_CYCCNT 0xE0001004; DEMCR 0xE000EDFC, TRCENA bit 24; the lock access register
 * 0xE0001FB0 that the Cortex-M7 needs written with the CoreSight key, write-ignored
 * elsewhere). ARMv6-M has no cycle counter. SysTick: lab_cortex_m_cores.h. */
#define LAB_CM_SYST_CSR_ LAB_CM_REG(0xE000E010u)
#define LAB_CM_SYST_RVR_ LAB_CM_REG(0xE000E014u)
#define LAB_CM_SYST_CVR_ADDR_ 0xE000E018u
#define LAB_CM_DWT_CTRL_ LAB_CM_REG(0xE0001000u)
#define LAB_CM_DWT_CYCCNT_ADDR_ 0xE0001004u
#define LAB_CM_DWT_LAR_ LAB_CM_REG(0xE0001FB0u)
#define LAB_CM_DEMCR_ LAB_CM_REG(0xE000EDFCu)

/* The SysTick exception while the probes read SysTick: count the wrap, then run the
 * kernel's tick handler once a kernel tick runs (lab_target_tick_start). Installed in the
 * RAM vector table by lab_probe_buf_init. */
void SysTick_Handler(void);
static void lab_probe_systick_isr(void)
{
    lab_probe_buf.wraps++;
    if (lab_probe_buf.tick_on != 0u) {
        SysTick_Handler();
    }
}

void lab_probe_buf_init(void)
{
    lab_console_ram.size = LAB_CONSOLE_RAM_BYTES;
    lab_console_ram.magic = LAB_CONSOLE_RAM_MAGIC;
    lab_probe_buf.next = &lab_probe_buf.entries[0];
    lab_probe_buf.end = &lab_probe_buf.entries[2u * LAB_PROBE_BUFFER_ENTRIES];
    lab_probe_buf.capacity = LAB_PROBE_BUFFER_ENTRIES;
    lab_probe_buf.overflow = 0u;
    lab_probe_buf.wraps_addr = &lab_probe_buf.zero;
#if !LAB_CM_ARMV6M
    /* DWT CYCCNT, if the core has it and it counts (QEMU's reads 0: then SysTick). */
    LAB_CM_DEMCR_ |= 1u << 24;
    LAB_CM_DWT_LAR_ = 0xC5ACCE55u;
    if ((LAB_CM_DWT_CTRL_ & (1u << 25)) == 0u) {
        LAB_CM_REG(LAB_CM_DWT_CYCCNT_ADDR_) = 0u;
        LAB_CM_DWT_CTRL_ |= 1u;
        uint32_t c0 = LAB_CM_REG(LAB_CM_DWT_CYCCNT_ADDR_);
        __asm__ volatile("nop\n\tnop\n\tnop\n\tnop" ::: "memory");
        uint32_t c1 = LAB_CM_REG(LAB_CM_DWT_CYCCNT_ADDR_);
        if (c1 != c0) {
            lab_probe_buf.ts_addr = (volatile uint32_t *)(uintptr_t)LAB_CM_DWT_CYCCNT_ADDR_;
            lab_probe_buf.clock = LAB_PROBE_CLOCK_DWT;
            lab_probe_buf.magic = LAB_PROBE_BUF_MAGIC;
            return;
        }
    }
#endif
    /* SysTick, free-running over its 24-bit range on the processor clock; its exception
     * counts the wraps (lab_target_tick_start reprograms it for a kernel tick and records
     * that). The exception is taken whenever interrupts are enabled; a wrap while they are
     * masked is counted when they are enabled again (the host accounts for one pending). */
    lab_ram_vectors[15] = lab_probe_systick_isr;
    lab_probe_buf.wraps_addr = &lab_probe_buf.wraps;
    LAB_CM_SYST_CSR_ = 0u;
    LAB_CM_SYST_RVR_ = 0xFFFFFFu;
    LAB_CM_REG(LAB_CM_SYST_CVR_ADDR_) = 0u;
    LAB_CM_SYST_CSR_ = 0x7u; /* ENABLE, TICKINT, CLKSOURCE = processor clock */
    lab_probe_buf.reload = 0xFFFFFFu;
    lab_probe_buf.ts_addr = (volatile uint32_t *)(uintptr_t)LAB_CM_SYST_CVR_ADDR_;
    lab_probe_buf.clock = LAB_PROBE_CLOCK_SYSTICK;
    lab_probe_buf.magic = LAB_PROBE_BUF_MAGIC;
}

/* A probe found the buffer full (lab_probe_buffer_impl.h). The GDB runner has a
 * breakpoint in it (lab_probe_buf_drain): it copies the entries out, sets `next` back to the first entry and
 * continues (the clocks stand still while the core is halted), so a run records any number
 * of hits; each drain adds this call's cycles to the interval after the hit that found
 * the buffer full, and the runner reports how many drains a run had (docs/boards.md).
 * Without a runner nothing drains: the hit is counted in `overflow`. */
__attribute__((noinline, used)) void lab_probe_buf_drain(void);
__attribute__((noinline, used)) void lab_probe_buf_drain(void)
{
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) uint32_t lab_probe_buf_full(void)
{
    /* The runner's breakpoint is lab_probe_buf_drain. On the SysTick clock, SysTick is
     * stopped around it: an emulator whose virtual clock jumps to its next timer deadline
     * while the debugger holds the core (QEMU's icount does) would otherwise move the
     * counter by that jump; a chip's SysTick already stands still while halted. */
    uint32_t csr = LAB_CM_REG(0xE000E010u);
    if (lab_probe_buf.clock == LAB_PROBE_CLOCK_SYSTICK) {
        LAB_CM_REG(0xE000E010u) = csr & ~1u;
    }
    lab_probe_buf_drain();
    if (lab_probe_buf.clock == LAB_PROBE_CLOCK_SYSTICK) {
        LAB_CM_REG(0xE000E010u) = csr;
    }
    if (lab_probe_buf.next < lab_probe_buf.end) {
        return 1u;
    }
    lab_probe_buf.overflow++;
    return 0u;
}

/* Append one entry (a run-time id, or a marker), interrupts masked around it. */
static void lab_probe_buf_put(uint32_t id, uint32_t value)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    if (lab_probe_buf.next < lab_probe_buf.end || lab_probe_buf_full() != 0u) {
        lab_probe_buf.next[0] = id;
        lab_probe_buf.next[1] = value;
        lab_probe_buf.next += 2;
    } else {
        lab_probe_buf.overflow++;
    }
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

void lab_probe_buf_record(uint32_t id)
{
    if (lab_probe_buf.ts_addr != 0) {
        uint32_t ts = *lab_probe_buf.ts_addr;
        lab_probe_buf_put((id & 0xFFFFu) | (*lab_probe_buf.wraps_addr << 16), ts);
    }
}

/* SysTick is about to be reprogrammed with `reload` (lab_target_tick_start): record the
 * current value on the old reload, then the new reload, so the host can unwrap across. */
static void lab_probe_buf_systick_reload(uint32_t reload)
{
    if (lab_probe_buf.clock == LAB_PROBE_CLOCK_SYSTICK) {
        uint32_t cvr = LAB_CM_REG(LAB_CM_SYST_CVR_ADDR_);
        lab_probe_buf_put(LAB_PROBE_MARK_BEFORE | (lab_probe_buf.wraps << 16), cvr);
        lab_probe_buf_put(LAB_PROBE_MARK_RELOAD | (lab_probe_buf.wraps << 16), reload);
        lab_probe_buf.tick_on = 1u;
    }
}

#else /* region mode: semihosting exit (the emulator) */
void lab_target_exit(int status)
{
    /* Semihosting SYS_EXIT_EXTENDED (0x20): block {ADP_Stopped_ApplicationExit, status};
     * QEMU exits with `status` as its process exit code. */
    static volatile uint32_t block[2];
    block[0] = 0x20026u;
    block[1] = (uint32_t)status;
    register uint32_t r0 __asm__("r0") = 0x20u;
    register uint32_t r1 __asm__("r1") = (uint32_t)(uintptr_t)block;
    __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
        /* Not under a semihosting debugger: nothing else to do. */
        __asm__ volatile("wfi");
    }
}
#endif /* LAB_PROBE_MODE_BUFFER */

uint32_t lab_target_irq_count(void) { return LAB_BOARD_IRQ_COUNT; }

#if LAB_CM_ARMV6M
/* ARMv6-M: the priority registers are word access only; each holds four lines. */
static void lab_target_irq_priority(uint32_t irq, uint32_t priority)
{
    uint32_t shift = 8u * (irq % 4u);
    uint32_t v = NVIC_IPR(irq / 4u);
    v &= ~(0xFFu << shift);
    v |= (priority & 0xFFu) << shift;
    NVIC_IPR(irq / 4u) = v;
}
#endif

/* (name in parentheses: the function, not the macro of lab/target.h that lists handlers) */
int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    if (irq >= LAB_BOARD_IRQ_COUNT || handler == 0) {
        return -1;
    }
    lab_ram_vectors[16u + irq] = handler;
#if LAB_CM_ARMV6M
    lab_target_irq_priority(irq, priority);
    NVIC_ICPR = 1u << irq;
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER = 1u << irq;
#else
    NVIC_IPR(irq) = (uint8_t)priority;
    NVIC_ICPR(irq / 32u) = 1u << (irq % 32u);
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

void lab_target_irq_trigger(uint32_t irq)
{
#if LAB_CM_ARMV6M
    /* ARMv6-M has no STIR: set the line pending in ISPR. */
    NVIC_ISPR = 1u << (irq % 32u);
#else
    NVIC_STIR = irq;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void lab_target_irq_remove(uint32_t irq)
{
    if (irq >= LAB_BOARD_IRQ_COUNT) {
        return;
    }
#if LAB_CM_ARMV6M
    NVIC_ICER = 1u << irq;
#else
    NVIC_ICER(irq / 32u) = 1u << (irq % 32u);
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    lab_ram_vectors[16u + irq] = lab_target_default_handler;
}

extern uint32_t __lab_main_stack_limit, __lab_main_stack_top;

void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)&__lab_main_stack_limit;
    *hi = (uintptr_t)&__lab_main_stack_top;
}

uint32_t lab_target_irq_soft(uint32_t n) { return LAB_TARGET_IRQ_SOFT_TOP - (n & 3u); }

/* The cores section of lab/target.h (single-core or several, by LAB_TARGET_CORES) and the
 * kernel tick (lab_target_tick_start). */
#include "lab_cortex_m_cores.h"

#endif /* LAB_CORTEX_M_TARGET_H */
