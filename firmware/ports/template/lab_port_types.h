/* Object types of the template port (see lab/port.h). A real port puts the kernel's own
 * static object storage here (its TCB, semaphore, queue control blocks: usually the
 * kernel header's "static" types) plus whatever handle it needs to reach the object in
 * one load, so that benchmarks can allocate every object statically. */
#ifndef LAB_PORT_TYPES_H
#define LAB_PORT_TYPES_H

#include <stdint.h>

typedef struct lab_task {
    void *handle; /* e.g. the kernel's task handle, first so reaching it is one load */
} lab_task_t;
typedef struct lab_sem {
    void *handle;
} lab_sem_t;
typedef struct lab_mutex {
    void *handle;
} lab_mutex_t;
typedef struct lab_queue {
    void *handle;
} lab_queue_t;

/* One word of a task stack, in the kernel's stack type. */
typedef uint32_t lab_stack_t;

/* A stack of `words` words, aligned and placed as the kernel requires (some need a
 * section or a guard area). */
#define LAB_STACK_DEFINE(name, words) lab_stack_t name[(words)] __attribute__((aligned(8)))
/* The smallest stack a benchmark task calling lab/port.h functions may have. */
#define LAB_PORT_STACK_MIN_WORDS 128u
/* The most urgent task priority in lab numbering (higher = more urgent, 1 = least). */
#define LAB_PORT_PRIO_MAX 0

#endif /* LAB_PORT_TYPES_H */
