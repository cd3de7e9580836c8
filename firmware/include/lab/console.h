/*
 * lab/console.h - text output for reports and failure paths. Blocking, slow, and never
 * allowed between probes: the measured path never prints.
 *
 * lab_console_put_kv("name", v) prints "LAB-KV name=v": the host stores such lines with
 * the benchmark result (e.g. counters a workload reports after its measured part).
 */
#ifndef LAB_CONSOLE_H
#define LAB_CONSOLE_H

#include <stdint.h>

void lab_console_puts(const char *s);
void lab_console_put_hex(uint32_t v);
void lab_console_put_dec(uint32_t v);
void lab_console_put_kv(const char *key, uint32_t value);

#endif /* LAB_CONSOLE_H */
