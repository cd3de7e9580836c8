/*
 * lab/port_types_none.h - the object types of a port whose kernel offers no lab/port.h
 * objects (bare metal, and the Rust models, whose benchmarks are written in Rust). Every
 * LAB_HAS_* that takes one of these types is 0 in such a port's lab_port_caps.h, so no
 * function using them exists: they are placeholders so that lab/port.h compiles. A port
 * with real kernel objects defines its own lab_port_types.h instead.
 */
#ifndef LAB_PORT_TYPES_NONE_H
#define LAB_PORT_TYPES_NONE_H

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

#endif /* LAB_PORT_TYPES_NONE_H */
