/* o1heap's configuration on the target (O1HEAP_CONFIG_HEADER, set by alloc.cmake): its
 * assertions off, as a release build. The host tests build without it (assertions on). */
#ifndef LAB_O1HEAP_CFG_H
#define LAB_O1HEAP_CFG_H
#define O1HEAP_ASSERT(x) ((void)0)
#endif /* LAB_O1HEAP_CFG_H */
