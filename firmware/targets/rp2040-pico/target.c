/* RP2040 (Raspberry Pi Pico, core 0) implementation of lab/target.h (a board: buffer
 * mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#if LAB_TARGET_CLOCK_HZ != 133000000
#error "rp2040-pico: target.c sets up 133 MHz; another clock_hz needs its own PLL setting"
#endif

/* 1 when clk_sys runs from PLL_SYS at 133 MHz (docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

/* 133 MHz: XOSC on; clk_ref from XOSC; PLL_SYS out of reset, programmed and locked, its
 * post dividers powered; clk_sys from the PLL through the aux mux (datasheet 2.15.6,
 * 2.18.2: the order the SDK's clocks_init follows, written here from the datasheet). */
static void rp_clock_133mhz(void)
{
    XOSC_STARTUP = XOSC_STARTUP_12MHZ;
    XOSC_CTRL = XOSC_CTRL_1_15MHZ_ENABLE;
    if (!lab_cm_wait(&XOSC_STATUS, XOSC_STATUS_STABLE, XOSC_STATUS_STABLE, RP_CLOCK_POLLS)) {
        return;
    }
    CLK_SYS_CTRL = 0u; /* clk_sys from clk_ref while the PLL changes */
    (void)lab_cm_wait(&CLK_SYS_SELECTED, 1u, 1u, RP_CLOCK_POLLS);
    CLK_REF_CTRL = CLK_REF_SRC_XOSC;
    (void)lab_cm_wait(&CLK_REF_SELECTED, 1u << CLK_REF_SRC_XOSC, 1u << CLK_REF_SRC_XOSC, RP_CLOCK_POLLS);
    RP_REG(RESETS_RESET + 0x2000u) = RESETS_PLL_SYS; /* hold PLL_SYS in reset, */
    RP_CLR(RESETS_RESET) = RESETS_PLL_SYS;             /* then release it */
    if (!lab_cm_wait(&RESETS_RESET_DONE, RESETS_PLL_SYS, RESETS_PLL_SYS, RP_CLOCK_POLLS)) {
        return;
    }
    PLL_SYS_CS = 1u; /* REFDIV 1 */
    PLL_SYS_FBDIV = PLL_FBDIV_133MHZ;
    RP_CLR(0x40028004u) = PLL_PWR_PD | PLL_PWR_VCOPD;
    if (!lab_cm_wait(&PLL_SYS_CS, PLL_CS_LOCK, PLL_CS_LOCK, RP_CLOCK_POLLS)) {
        return;
    }
    PLL_SYS_PRIM = PLL_PRIM_6_2;
    RP_CLR(0x40028004u) = PLL_PWR_POSTDIVPD;
    CLK_SYS_CTRL = CLK_SYS_SRC_AUX; /* AUXSRC 0 = PLL_SYS */
    lab_board_clock_ok = lab_cm_wait(&CLK_SYS_SELECTED, 2u, 2u, RP_CLOCK_POLLS) ? 1u : 0u;
}

void lab_target_init(void)
{
    rp_clock_133mhz();
    lab_target_vectors_init();
}

/* The console (the RAM console), lab_target_exit, the IRQ API, the probe buffer, the
 * timer this board lacks, the clock and the output register: what every board without a
 * UART or timer shares. */
#include "lab_cortex_m_board.h"
