/* The event-driven state-machine execution model (fsm.h). */
#include "fsm.h"

#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_CRITICAL
#error "the FSM framework needs LAB_HAS_CRITICAL (event posting masks interrupts briefly)"
#endif

/* Objects in registration order until fsm_run() sorts them by priority, most urgent
 * first; afterwards bit i of every mask below means fsm_aos[i]. */
static fsm_ao_t *fsm_aos[FSM_MAX_AOS];
static uint32_t fsm_count;
static volatile uint32_t fsm_ready;      /* objects with a non-empty queue */
static uint32_t fsm_group[FSM_MAX_AOS];  /* objects with the priority of object i */
static uint8_t fsm_lead[FSM_MAX_AOS];    /* first object of object i's group */
static uint32_t fsm_last[FSM_MAX_AOS];   /* per group lead: the group's last served */
static volatile bool fsm_stopped;

void fsm_init(void)
{
    fsm_count = 0u;
    fsm_ready = 0u;
    fsm_stopped = false;
}

void fsm_add(fsm_ao_t *ao, fsm_state_fn initial, uint8_t prio, fsm_evt_t *storage, uint16_t cap)
{
    LAB_CHECK(fsm_count < FSM_MAX_AOS && initial != 0 && storage != 0 && cap > 0u);
    ao->state = initial;
    ao->ring = storage;
    ao->cap = cap;
    ao->head = 0u;
    ao->count = 0u;
    ao->prio = prio;
    ao->index = (uint8_t)fsm_count;
    fsm_aos[fsm_count++] = ao;
}

bool fsm_post(fsm_ao_t *ao, uint16_t sig, int16_t arg, uint32_t param, void *ptr)
{
    lab_critical_enter();
    uint32_t n = ao->count;
    if (n == ao->cap) {
        lab_critical_exit();
        return false;
    }
    uint32_t slot = ao->head + n;
    if (slot >= ao->cap) {
        slot -= ao->cap;
    }
    fsm_evt_t *e = &ao->ring[slot];
    e->sig = sig;
    e->arg = arg;
    e->param = param;
    e->ptr = ptr;
    ao->count = (uint16_t)(n + 1u);
    fsm_ready |= 1u << ao->index;
    lab_critical_exit();
    return true;
}

void fsm_stop(void) { fsm_stopped = true; }

/* Sort by priority, most urgent first (stable: registration order within a priority),
 * renumber the ready bits and build the priority groups. Events posted before this keep
 * their queues; their ready bits are rebuilt from the queue counts. */
static void fsm_prepare(void)
{
    lab_critical_enter();
    for (uint32_t i = 1; i < fsm_count; i++) {
        fsm_ao_t *ao = fsm_aos[i];
        uint32_t j = i;
        while (j > 0u && fsm_aos[j - 1u]->prio < ao->prio) {
            fsm_aos[j] = fsm_aos[j - 1u];
            j--;
        }
        fsm_aos[j] = ao;
    }
    uint32_t ready = 0u;
    for (uint32_t i = 0; i < fsm_count; i++) {
        fsm_aos[i]->index = (uint8_t)i;
        if (fsm_aos[i]->count != 0u) {
            ready |= 1u << i;
        }
        fsm_group[i] = 0u;
        for (uint32_t j = 0; j < fsm_count; j++) {
            if (fsm_aos[j]->prio == fsm_aos[i]->prio) {
                fsm_group[i] |= 1u << j;
            }
        }
        fsm_lead[i] = (uint8_t)__builtin_ctz(fsm_group[i]);
        /* The first round-robin choice in a group is its first object. */
        fsm_last[i] = 31u;
    }
    fsm_ready = ready;
    lab_critical_exit();
}

/* The object to serve next among the ready ones (ready != 0). */
static inline uint32_t fsm_pick(uint32_t ready)
{
    uint32_t top = (uint32_t)__builtin_ctz(ready); /* most urgent ready object */
    uint32_t peers = ready & fsm_group[top];
    uint32_t lead = fsm_lead[top];
    uint32_t pick = top;
    if ((peers & (peers - 1u)) != 0u) {
        /* Round-robin: the first ready peer after the one served last, else the first. */
        uint32_t last = fsm_last[lead];
        uint32_t after = last >= 31u ? 0u : peers & ~((2u << last) - 1u);
        pick = (uint32_t)__builtin_ctz(after != 0u ? after : peers);
    }
    fsm_last[lead] = pick; /* also when alone: the rotation continues after it */
    return pick;
}

void fsm_run(void)
{
    fsm_prepare();
    while (!fsm_stopped) {
        uint32_t ready = fsm_ready;
        if (ready == 0u) {
            continue; /* idle: only an interrupt can post now */
        }
        fsm_ao_t *ao = fsm_aos[fsm_pick(ready)];
        fsm_evt_t e;
        lab_critical_enter();
        e = ao->ring[ao->head];
        ao->head = (uint16_t)(ao->head + 1u == ao->cap ? 0u : ao->head + 1u);
        ao->count = (uint16_t)(ao->count - 1u);
        if (ao->count == 0u) {
            fsm_ready &= ~(1u << ao->index);
        }
        lab_critical_exit();
        ao->state(ao, &e);
    }
}
