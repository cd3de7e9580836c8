/* Capabilities of the bare-metal port (see lab/port.h). 1 = supported, 0 = not; the
 * comment after a 0 is the reason rtoslab reports for benchmarks that need it. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0 /* no kernel: there are no tasks to schedule */

#endif /* LAB_PORT_CAPS_H */
