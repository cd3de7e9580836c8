/* Object types of the baremetal port: none of lab/port.h's kernel objects exists here (see
 * lab_port_caps.h), so the placeholders of lab/port_types_none.h serve. */
#ifndef LAB_PORT_TYPES_H
#define LAB_PORT_TYPES_H

#include "lab/port_types_none.h"

#endif /* LAB_PORT_TYPES_H */
