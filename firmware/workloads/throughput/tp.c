/*
 * workloads/throughput/tp.c - the throughput suite's shared start and report (tp.h).
 */
#include "tp.h"

#include "lab/bench.h"
#include "lab/console.h"

static void (*tp_single_body)(void);

#if LAB_HAS_SCHEDULER
static lab_task_t tp_single_task;
static LAB_STACK_DEFINE(tp_single_stack, TP_STACK_WORDS);

static void tp_single_entry(void *arg)
{
    (void)arg;
    tp_single_body();
    lab_finish();
}
#endif

void tp_run_single(void (*body)(void))
{
    tp_single_body = body;
#if LAB_HAS_SCHEDULER
    LAB_CHECK(lab_task_create(&tp_single_task, "tp", tp_single_entry, 0, TP_PRIO, tp_single_stack,
                              TP_STACK_WORDS) == LAB_OK);
    lab_port_start();
#else
    tp_single_body();
    lab_finish();
#endif
}

void tp_report(uint32_t ops, uint32_t ticks)
{
    lab_console_put_kv("ops", ops);
#if LAB_HAS_TICK
    lab_console_put_kv("ticks", ticks);
#else
    (void)ticks;
#endif
}
