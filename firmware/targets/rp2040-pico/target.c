/* RP2040 (Raspberry Pi Pico, core 0) implementation of lab/target.h (a board: buffer
 * mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif
#if LAB_TARGET_CLOCK_HZ != 133000000
#error "rp2040-pico: target.c sets up 133 MHz; another clock_hz needs its own PLL setting"
#endif

/* 1 when clk_sys runs from PLL_SYS at 133 MHz (docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

static int rp_wait(volatile uint32_t *reg, uint32_t mask, uint32_t want)
{
    for (uint32_t n = 0; n < RP_CLOCK_POLLS; n++) {
        if ((*reg & mask) == want) {
            return 1;
        }
    }
    return 0;
}

/* 133 MHz: XOSC on; clk_ref from XOSC; PLL_SYS out of reset, programmed and locked, its
 * post dividers powered; clk_sys from the PLL through the aux mux (datasheet 2.15.6,
 * 2.18.2: the order the SDK's clocks_init follows, written here from the datasheet). */
static void rp_clock_133mhz(void)
{
    XOSC_STARTUP = XOSC_STARTUP_12MHZ;
    XOSC_CTRL = XOSC_CTRL_1_15MHZ_ENABLE;
    if (!rp_wait(&XOSC_STATUS, XOSC_STATUS_STABLE, XOSC_STATUS_STABLE)) {
        return;
    }
    CLK_SYS_CTRL = 0u; /* clk_sys from clk_ref while the PLL changes */
    (void)rp_wait(&CLK_SYS_SELECTED, 1u, 1u);
    CLK_REF_CTRL = CLK_REF_SRC_XOSC;
    (void)rp_wait(&CLK_REF_SELECTED, 1u << CLK_REF_SRC_XOSC, 1u << CLK_REF_SRC_XOSC);
    RP_REG(RESETS_RESET + 0x2000u) = RESETS_PLL_SYS; /* hold PLL_SYS in reset, */
    RP_CLR(RESETS_RESET) = RESETS_PLL_SYS;             /* then release it */
    if (!rp_wait(&RESETS_RESET_DONE, RESETS_PLL_SYS, RESETS_PLL_SYS)) {
        return;
    }
    PLL_SYS_CS = 1u; /* REFDIV 1 */
    PLL_SYS_FBDIV = PLL_FBDIV_133MHZ;
    RP_CLR(0x40028004u) = PLL_PWR_PD | PLL_PWR_VCOPD;
    if (!rp_wait(&PLL_SYS_CS, PLL_CS_LOCK, PLL_CS_LOCK)) {
        return;
    }
    PLL_SYS_PRIM = PLL_PRIM_6_2;
    RP_CLR(0x40028004u) = PLL_PWR_POSTDIVPD;
    CLK_SYS_CTRL = CLK_SYS_SRC_AUX; /* AUXSRC 0 = PLL_SYS */
    lab_board_clock_ok = rp_wait(&CLK_SYS_SELECTED, 2u, 2u) ? 1u : 0u;
}

void lab_target_init(void)
{
    rp_clock_133mhz();
    lab_target_vectors_init();
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    /* No UART is wired up: a board run's console is the RAM console the GDB runner reads
     * (lab_cortex_m.h; docs/boards.md, "Console"). */
    lab_cm_console_ram_write(buf, len);
}

/* lab_target_exit (buffer mode: lab_board_halt), the IRQ API, the main stack's bounds,
 * the software IRQ lines and the probe buffer: the Cortex-M code every target shares. */
#include "lab_cortex_m_target.h"

/* The benchmark timer is not written for this board yet ([lacks] timer in target.toml):
 * benchmarks that need it are n/a here. */
int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    (void)period;
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_timer_stop(void) {}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)LAB_BOARD_OUTPUT_ADDR; }
