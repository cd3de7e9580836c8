/*
 * Background load for kernel benchmarks: tasks that keep the kernel busy in queue and
 * semaphore calls and in short critical sections, so that what a benchmark measures
 * happens under load (interrupt latency under load, delay jitter under load).
 *
 * A producer task sends a sequence number through a 4-deep queue and waits for the
 * consumer's acknowledgement (a semaphore); both do LAB_BG_LOAD_WORK words of work in a
 * critical section per message. Runs forever; never prints.
 *
 * bg_load_start(producer_prio, consumer_prio)  creates the queue, the semaphore and the
 *     two tasks (static stacks of LAB_BG_LOAD_STACK_WORDS). Call once, before or after
 *     the scheduler starts; fails the run (LAB_CHECK) if the kernel refuses.
 * bg_load_rounds()        completed round trips so far.
 * bg_load_out_of_order()  messages received out of sequence (must stay 0).
 */
#ifndef BG_LOAD_H
#define BG_LOAD_H

#include <stdint.h>

#define LAB_BG_LOAD_WORK 8u
#define LAB_BG_LOAD_STACK_WORDS 256u

void bg_load_start(unsigned producer_prio, unsigned consumer_prio);
uint32_t bg_load_rounds(void);
uint32_t bg_load_out_of_order(void);

#endif /* BG_LOAD_H */
