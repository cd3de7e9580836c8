/*
 * umm_sqrtf.c - the square root umm_info.c asks for (its sqrtf call is renamed to
 * lab_umm_sqrtf by alloc.cmake): the images link no libm. Newton's iteration in float,
 * exact to within a few ulp for the non-negative block counts umm passes; only umm's
 * fragmentation metric uses it, never a measured path.
 */
#include <math.h> /* declares lab_umm_sqrtf through the rename */

float lab_umm_sqrtf(float x)
{
    if (!(x > 0.0f)) {
        return 0.0f;
    }
    float r = x >= 1.0f ? x : 1.0f;
    for (int i = 0; i < 64; i++) {
        float next = 0.5f * (r + x / r);
        if (next >= r) {
            break;
        }
        r = next;
    }
    return r;
}
