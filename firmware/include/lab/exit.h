/*
 * lab/exit.h - the exit status of a run: the process exit code the host reads. The
 * harness, kernel ports and benchmarks end a run with lab_finish / lab_fail /
 * lab_fail_status (lab/bench.h); a target passes these codes on unchanged through
 * lab_target_exit(). This file is the one declaration: the host reads it
 * (src/rtoslab/exitcodes.py), and each code's trailing comment is the reason a failed run
 * names (keep it one short phrase). LAB_EXIT_UNSUPPORTED makes the benchmark n/a, with its
 * LAB-FAIL text as the reason: the image cannot run this benchmark on this kernel.
 */
#ifndef LAB_EXIT_H
#define LAB_EXIT_H

#define LAB_EXIT_OK 0
#define LAB_EXIT_CHECK_FAILED 10    /* self-check failed */
#define LAB_EXIT_FAULT 11           /* fault */
#define LAB_EXIT_KERNEL_ASSERT 12   /* kernel assertion failed */
#define LAB_EXIT_STACK_OVERFLOW 13  /* stack overflow detected by the kernel */
#define LAB_EXIT_OUT_OF_MEMORY 14   /* out of memory (kernel allocation failed) */
#define LAB_EXIT_UNSUPPORTED 15     /* benchmark not supported by this image */

#endif /* LAB_EXIT_H */
