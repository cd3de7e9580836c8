/* Stack painting and high-water marks (lab/stack.h). */
#include "lab/stack.h"

#include "lab/console.h"

void lab_stack_paint(uintptr_t lo, uintptr_t hi)
{
    for (volatile uint32_t *p = (volatile uint32_t *)lo; (uintptr_t)p < hi; p++) {
        *p = LAB_STACK_PAINT_WORD;
    }
}

uint32_t lab_stack_peak_bytes(uintptr_t lo, uintptr_t hi)
{
    const volatile uint32_t *p = (const volatile uint32_t *)lo;
    while ((uintptr_t)p < hi && *p == LAB_STACK_PAINT_WORD) {
        p++;
    }
    return (uint32_t)(hi - (uintptr_t)p);
}

void lab_stack_report(const char *name, uintptr_t lo, uintptr_t hi)
{
    lab_console_puts("LAB-KV stack_peak_");
    lab_console_puts(name);
    lab_console_puts("=");
    lab_console_put_dec(lab_stack_peak_bytes(lo, hi));
    lab_console_puts("\n");
}
