/* Object types of the freertos-smp port: the same kernel objects as the single-core
 * freertos port (its lab_port_types.h, with its include guard), so one definition. */
#include "../freertos/lab_port_types.h"
