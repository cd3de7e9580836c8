/*
 * ftl_app.h - workload 2 (seed 000): the model-independent part of the FTL firmware,
 * compiled unchanged into ftl_os (RTOS tasks and queues) and ftl_fsm (state machines and
 * event queues). The FTL engine itself is firmware/workloads/ftl/core (ftl.h); this layer
 * is the "host" side: the scenario, the command slots, the data verification, the probes
 * and the report. Each build's glue only moves commands, NAND requests and completions
 * between the three roles (host, FTL, NAND driver) with its own mechanism.
 *
 * Scenario (after an untimed format), one metric per chunk, named alike in both builds:
 *   sw        sequential write of the whole logical space, FTL_CMD_MAX_PAGES pages per command
 *   sr        sequential read of the whole space, verifying every page
 *   rr        random reads of single pages (FTL_APP_RR_CMDS commands), verified
 *   rw_1..8   random writes of single pages, FTL_APP_RW_CMDS per chunk: the first chunk(s)
 *             fill the over-provisioned space, later ones run with garbage collection
 *   total     sw's first command -> rw_8's last completion (seed 000's "Sum")
 * A chunk's time runs from the host issuing its first command to the host having checked
 * its last completion. Chunks do not overlap: the host lets the previous chunk drain
 * before it issues the next one. Within a chunk up to FTL_HOST_QUEUE_DEPTH commands are in
 * flight.
 *
 * Checks (a failure ends the run with the check's text): every completion has status OK
 * and the tag of the oldest command in flight; every page read decodes to the data last
 * written to that LBA (ftl_host_on_complete). -DFTL_APP_CORRUPT_READ=1 flips one byte of
 * the first page read, after the FTL returned it: the run must then fail.
 */
#ifndef WORKLOADS_FTL_APP_H
#define WORKLOADS_FTL_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "ftl.h"

/* Random-read commands (one page each). */
#ifndef FTL_APP_RR_CMDS
#define FTL_APP_RR_CMDS (FTL_LOGICAL_PAGES / 4u)
#endif

/* Random-write commands (one page each) per chunk; 8 chunks. */
#define FTL_APP_RW_CHUNKS 8u
#ifndef FTL_APP_RW_CMDS
#define FTL_APP_RW_CMDS (FTL_NAND_PAGES_PER_BLOCK * FTL_OP_BLOCKS / 2u)
#endif

#ifndef FTL_APP_CORRUPT_READ
#define FTL_APP_CORRUPT_READ 0
#endif

/* Untimed set-up: a factory-new chip, the engine formatted and mounted, the host model
 * empty, the scenario's generator at its start. */
void ftl_app_setup(void);

/* Host role: the next command to hand to the FTL role, or NULL when the host must first
 * collect a completion (queue depth reached, or a chunk draining) or when every command
 * was issued (ftl_app_host_done() tells). The command stays valid until its completion. */
const ftl_cmd_t *ftl_app_host_next(void);

/* Host role: the completion of the oldest command in flight (its tag and status):
 * checks it (and the data of a read). */
void ftl_app_host_complete(uint32_t tag, int status);

/* Host role: every command issued and its completion checked. */
bool ftl_app_host_done(void);

/* After the measured part: checks the totals and prints the FTL's counters as LAB-KV. */
void ftl_app_report(void);

#endif /* WORKLOADS_FTL_APP_H */
