/* Console helpers on top of lab_target_console_write(). For reports and failure paths
 * only: none of this may run between a benchmark's probes. */
#include "lab/console.h"

#include "lab/target.h"

void lab_console_puts(const char *s)
{
    uint32_t n = 0;
    while (s[n] != '\0') {
        n++;
    }
    lab_target_console_write(s, n);
}

void lab_console_put_hex(uint32_t v)
{
    char buf[10];
    static const char digits[] = "0123456789abcdef";
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 8; i++) {
        buf[2 + i] = digits[(v >> (28 - 4 * i)) & 0xFu];
    }
    lab_target_console_write(buf, sizeof buf);
}

void lab_console_put_dec(uint32_t v)
{
    char buf[10];
    int i = (int)sizeof buf;
    do {
        buf[--i] = (char)('0' + (v % 10u));
        v /= 10u;
    } while (v != 0u && i > 0);
    lab_target_console_write(&buf[i], (uint32_t)(sizeof buf - (uint32_t)i));
}

void lab_console_put_kv(const char *key, uint32_t value)
{
    lab_console_puts("LAB-KV ");
    lab_console_puts(key);
    lab_console_puts("=");
    lab_console_put_dec(value);
    lab_console_puts("\n");
}
