/* Object types of the coop kernel (see lab/port.h, "run-to-completion tasks"). The storage
 * is the caller's, as everywhere in lab/port.h; the fields are the kernel's. Semaphores
 * and mutexes do not exist here (lab_port_caps.h): placeholders keep lab/port.h compiling. */
#ifndef LAB_PORT_TYPES_H
#define LAB_PORT_TYPES_H

#include <stdint.h>

/* A task: the function the loop calls and what makes it ready. */
typedef struct lab_task {
    void (*fn)(void *arg);
    void *arg;
    uint32_t pending;       /* messages waiting in the queues it receives from */
    uint8_t activated;      /* 1: call it once even without a message */
    uint8_t prio;           /* 1 .. LAB_PORT_PRIO_MAX, its bit in the ready set */
    uint8_t trace;          /* trace number (LAB_TRACE), 0 when not traced */
    uint8_t unused;
} lab_task_t;

/* A message queue: a ring of item_size-byte items whose messages go to `receiver`. */
typedef struct lab_queue {
    uint8_t *storage;
    uint32_t item_size;
    uint32_t length;
    uint32_t head;  /* index of the oldest item */
    uint32_t count; /* items held */
    lab_task_t *receiver;
} lab_queue_t;

typedef struct lab_sem {
    uint32_t unused;
} lab_sem_t;
typedef struct lab_mutex {
    uint32_t unused;
} lab_mutex_t;

/* No task has a stack: these exist so that lab/port.h compiles (LAB_HAS_SCHEDULER 0). */
typedef uint32_t lab_stack_t;
#define LAB_STACK_DEFINE(name, words) lab_stack_t name[(words)] __attribute__((aligned(8)))
#define LAB_PORT_STACK_MIN_WORDS 0u

/* One task per priority; bit p of the ready set is priority p (bit 0 unused). */
#define LAB_PORT_PRIO_MAX 31

#endif /* LAB_PORT_TYPES_H */
