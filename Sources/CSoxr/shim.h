#ifndef FOOTSTEPD_CSOXR_SHIM_H
#define FOOTSTEPD_CSOXR_SHIM_H
#include <soxr.h>
#endif
