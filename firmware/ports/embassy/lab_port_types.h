/* Object types of the embassy port: placeholders only (see lab_port_caps.h: no lab/port.h
 * object exists on this port), so lab/port.h compiles. */
#ifndef LAB_PORT_TYPES_H
#define LAB_PORT_TYPES_H

#include <stdint.h>

typedef struct lab_task {
    uint32_t unused;
} lab_task_t;
typedef struct lab_sem {
    uint32_t unused;
} lab_sem_t;
typedef struct lab_mutex {
    uint32_t unused;
} lab_mutex_t;
typedef struct lab_queue {
    uint32_t unused;
} lab_queue_t;
typedef uint32_t lab_stack_t;

#define LAB_STACK_DEFINE(name, words) lab_stack_t name[(words)] __attribute__((aligned(8)))
#define LAB_PORT_STACK_MIN_WORDS 0u
#define LAB_PORT_PRIO_MAX 0

#endif /* LAB_PORT_TYPES_H */
