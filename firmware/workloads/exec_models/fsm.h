/*
 * fsm.h - the event-driven state-machine execution model (active objects).
 *
 *   active object  a state machine with its own event queue (a ring of caller-owned
 *                  storage) and a priority; its current state is a handler function
 *                  that runs one event to completion and may change state (FSM_TRAN)
 *   posting        fsm_post() copies an event into the target's queue; safe from
 *                  handlers and from interrupt handlers (a short critical section
 *                  through lab/port.h, as active-object frameworks do)
 *   dispatcher     fsm_run() in main: takes ONE event from the most urgent non-empty
 *                  queue and runs its handler to completion, then chooses again; among
 *                  objects of equal priority it goes round-robin (the one after the
 *                  object served last at that priority), so equal-priority objects that
 *                  keep posting to themselves interleave event by event
 *
 * All handlers share main's stack: there are no per-task stacks and no context switches,
 * only function calls. A long job must be split into events by its object (post a
 * "continue" event to itself) to let others run. When every queue is empty the
 * dispatcher polls (busy idle) until an interrupt posts or fsm_stop() was called.
 */
#ifndef MODELS_FSM_H
#define MODELS_FSM_H

#include <stdbool.h>
#include <stdint.h>

/* Most active objects (one ready bit each). */
#ifndef FSM_MAX_AOS
#define FSM_MAX_AOS 8u
#endif

/* An event: a signal and a small payload, copied by value into the queue. */
typedef struct fsm_evt {
    uint16_t sig;   /* what happened (the application's enumeration) */
    int16_t arg;    /* small argument (e.g. a status) */
    uint32_t param; /* word argument (e.g. a tag or an index) */
    void *ptr;      /* pointer argument (e.g. a request) */
} fsm_evt_t;

struct fsm_ao;
typedef void (*fsm_state_fn)(struct fsm_ao *me, const fsm_evt_t *e);

/* An active object: caller-owned; the fields are the framework's, except that the
 * application may embed this struct first in its own and cast back in handlers. */
typedef struct fsm_ao {
    fsm_state_fn state; /* current state: handles the next event */
    fsm_evt_t *ring;    /* queue storage: cap events */
    uint16_t cap;
    uint16_t head; /* oldest event */
    volatile uint16_t count;
    uint8_t prio;  /* higher = more urgent */
    uint8_t index; /* ready bit, assigned by fsm_run() */
} fsm_ao_t;

/* Change the state of `me`: the next event goes to `s`. */
#define FSM_TRAN(me, s) ((me)->state = (s))

/* No objects, nothing ready. Call once before fsm_add(). */
void fsm_init(void);

/* Registers an active object with initial state `initial`, priority `prio` (any value,
 * higher = more urgent) and an event queue of `cap` events in `storage`. Before fsm_run()
 * only. Events may be posted to it from now on. Fails the run when the table is full. */
void fsm_add(fsm_ao_t *ao, fsm_state_fn initial, uint8_t prio, fsm_evt_t *storage, uint16_t cap);

/* Posts an event to `ao`. Returns false (and posts nothing) when its queue is full.
 * Callable from handlers, main and interrupt handlers. */
bool fsm_post(fsm_ao_t *ao, uint16_t sig, int16_t arg, uint32_t param, void *ptr);

/* Dispatches events until fsm_stop() was called (checked after every event and while
 * idle). */
void fsm_run(void);

/* Makes fsm_run() return after the current handler. */
void fsm_stop(void);

#endif /* MODELS_FSM_H */
