/* Fault reports (lab/fault.h): the line the host parses, from what the target captured. */
#include "lab/fault.h"

#include "lab/console.h"
#include "lab/exit.h"
#include "lab/target.h"

void lab_fault_report(const struct lab_fault *fault)
{
    lab_console_puts("\nLAB-FAULT exception=");
    lab_console_put_dec(fault->exception);
    if (fault->frame != 0) {
        lab_console_puts(" pc=");
        lab_console_put_hex(fault->frame[6]);
        lab_console_puts(" lr=");
        lab_console_put_hex(fault->frame[5]);
        lab_console_puts(" xpsr=");
        lab_console_put_hex(fault->frame[7]);
    }
    lab_console_puts(" exc_return=");
    lab_console_put_hex(fault->exc_return);
    lab_console_puts(" cfsr=");
    lab_console_put_hex(fault->cfsr);
    lab_console_puts(" hfsr=");
    lab_console_put_hex(fault->hfsr);
    lab_console_puts(" mmfar=");
    lab_console_put_hex(fault->mmfar);
    lab_console_puts(" bfar=");
    lab_console_put_hex(fault->bfar);
    lab_console_puts("\n");
    lab_target_exit(LAB_EXIT_FAULT);
}
