/*
 * rtoslab's FreeRTOS SMP port, ARMv8-M mainline (Secure-only): the context switch and the
 * first-task start. Our own code; register use from the ARMv8-M Architecture Reference
 * Manual (Arm DDI0553): exception entry stacks r0-r3, r12, lr, pc, xPSR (and, with an
 * active FP context, s0-s15 and FPSCR, lazily) on PSP; EXC_RETURN bit 4 (FType) is 0 when
 * the frame holds FP state; PSPLIM is the PSP stack limit (B3.19, D1.2).
 *
 * A switched-out task's stack holds, from its saved top upwards: PSPLIM, EXC_RETURN,
 * r4-r11, then s16-s31 when EXC_RETURN.FType = 0, then the processor's exception frame.
 * pxPortInitialiseStack (port_smp.c) builds a first frame in the same layout.
 */
    .syntax unified
    .thumb
    .text

/* PendSV_Handler: the CMSIS name the target's vector table calls. PendSV is the least
 * urgent exception on every core (port_smp.c), so it runs only when no other handler is
 * active and the kernel's interrupts are not masked. */
    .global PendSV_Handler
    .type PendSV_Handler, %function
    .thumb_func
PendSV_Handler:
    mrs r0, psp
#if defined(__ARM_FP)
    tst lr, #0x10               /* FType = 0: the task has an FP context */
    it eq
    vstmdbeq r0!, {s16-s31}     /* also completes a pending lazy save of s0-s15 */
#endif
    mrs r2, psplim
    mov r3, lr
    stmdb r0!, {r2-r11}         /* PSPLIM, EXC_RETURN, r4-r11 */
    bl lab_smp_switch           /* r0: this task's top in, the next task's top out */
    ldmia r0!, {r2-r11}
    msr psplim, r2
    mov lr, r3
#if defined(__ARM_FP)
    tst lr, #0x10
    it eq
    vldmiaeq r0!, {s16-s31}
#endif
    msr psp, r0
    bx lr
    .size PendSV_Handler, . - PendSV_Handler

/* lab_smp_start_first(top): start the task whose first frame (port_smp.c) begins at
 * `top`, on the calling core, from Thread mode on the main stack. Takes r4-r11 and PSPLIM
 * from the frame, moves Thread mode to PSP at the end of the exception frame, then jumps
 * to the task's entry with its argument in r0 and the frame's lr, with BASEPRI 0 and
 * PRIMASK clear. Never returns. */
    .global lab_smp_start_first
    .type lab_smp_start_first, %function
    .thumb_func
lab_smp_start_first:
    ldmia r0!, {r1, r2, r4-r11} /* PSPLIM, EXC_RETURN (a first frame has no FP state) */
    msr psplim, r1
    add r3, r0, #32             /* the exception frame's end: the task's stack pointer */
    msr psp, r3
    movs r3, #2                 /* CONTROL: SPSEL = 1 (PSP), privileged, no FP context */
    msr control, r3
    isb
    ldr lr, [r0, #20]
    ldr r3, [r0, #24]
    orr r3, r3, #1              /* Thumb state for bx */
    ldr r0, [r0, #0]
    movs r1, #0
    msr basepri, r1
    dsb
    isb
    cpsie i
    bx r3
    .size lab_smp_start_first, . - lab_smp_start_first
