/*
 * lab/exit.h - the exit status of a run: the process exit code the host reads (the
 * harness's, src/rtoslab/runners/qemu.py maps them to failure reasons). The harness, kernel
 * ports and benchmarks end a run with lab_finish / lab_fail / lab_fail_status (lab/bench.h);
 * a target passes these codes on unchanged through lab_target_exit().
 */
#ifndef LAB_EXIT_H
#define LAB_EXIT_H

#define LAB_EXIT_OK 0
#define LAB_EXIT_CHECK_FAILED 10 /* a benchmark's self-check failed */
#define LAB_EXIT_FAULT 11        /* HardFault or another fault exception (lab/fault.h) */
#define LAB_EXIT_KERNEL_ASSERT 12
#define LAB_EXIT_STACK_OVERFLOW 13
#define LAB_EXIT_OUT_OF_MEMORY 14
#define LAB_EXIT_UNSUPPORTED 15 /* the image cannot run this benchmark on this kernel */

#endif /* LAB_EXIT_H */
