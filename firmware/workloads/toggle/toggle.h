/*
 * toggle.h - workload 1 (seed 002): N tasks, each toggling a board output 8000 times.
 *
 * Model-independent part, compiled unchanged into toggle_superloop, toggle_fsm and
 * toggle_rtos: the toggling itself, the probes, the metrics, the round bookkeeping and
 * the self-checks. Each model's glue only decides WHEN each task's work runs.
 *
 * A round: a coordinator calls toggle_round_begin() (probe "origin": every task is
 * released now), then lets the N tasks run; each task does its TOGGLE_COUNT output
 * writes, through toggle_part[k] in one call or in several consecutive slices; the call
 * that makes the last write of the last task returns TOGGLE_ROUND_DONE and the
 * coordinator is told; it calls toggle_round_end() and starts the next round at once
 * (rounds run back to back, so kernel ticks fall at a different point of each round).
 * TOGGLE_ROUNDS rounds in all; then toggle_report() and lab_finish().
 *
 * Metrics, one sample per round (k = 1 .. TOGGLE_TASKS):
 *   start_k  origin -> task k's first output write
 *   done_k   origin -> task k's last output write
 *   spread   first task's completion -> last task's completion (first-to-last spread)
 *   total    origin -> last task's completion
 * "Completion" is marked in the bookkeeping right after a task's last write, so spread
 * with one task is whatever the compiler leaves between the two completion probes (0 to
 * a few instructions). Every other probe hit inside an interval adds its own 3
 * instructions (the host subtracts one probe cost per sample).
 */
#ifndef WORKLOADS_TOGGLE_H
#define WORKLOADS_TOGGLE_H

#include <stdint.h>

/* Number of concurrent tasks (-DTOGGLE_TASKS=N in the experiment's cflags axis). */
#ifndef TOGGLE_TASKS
#define TOGGLE_TASKS 1
#endif
#if TOGGLE_TASKS < 1 || TOGGLE_TASKS > 5
#error "TOGGLE_TASKS must be 1 .. 5"
#endif

/* Output writes per task and round (seed 002: 8000 digital writes). */
#ifndef TOGGLE_COUNT
#define TOGGLE_COUNT 8000u
#endif

/* Rounds (samples per metric). */
#ifndef TOGGLE_ROUNDS
#define TOGGLE_ROUNDS 10u
#endif

typedef enum {
    TOGGLE_MORE = 0,      /* the task has writes left */
    TOGGLE_TASK_DONE = 1, /* the task made its last write; others are still running */
    TOGGLE_ROUND_DONE = 2 /* the task made its last write and was the last one: tell the coordinator */
} toggle_result_t;

/* Task k's work (k = 0 .. TOGGLE_TASKS-1): output writes number `from` .. from+count-1 of
 * this round (0 <= from, from + count <= TOGGLE_COUNT). Slices of one task must be called
 * in order and cover 0 .. TOGGLE_COUNT-1 exactly once per round. */
typedef toggle_result_t (*toggle_part_fn)(uint32_t from, uint32_t count);
extern const toggle_part_fn toggle_part[TOGGLE_TASKS];

/* Once, before the first round: finds the output register, resets the bookkeeping. */
void toggle_init(void);

/* The coordinator releases a round: probe "origin". */
void toggle_round_begin(void);

/* The coordinator, after TOGGLE_ROUND_DONE: checks the round (every task wrote exactly
 * TOGGLE_COUNT times, the output holds the last value written). Returns 1 if another round
 * follows, 0 after the last one. */
int toggle_round_end(void);

/* After the last round (not measured): prints the workload's parameters as LAB-KV. */
void toggle_report(void);

#endif /* WORKLOADS_TOGGLE_H */
