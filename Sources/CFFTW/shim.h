#ifndef FOOTSTEPD_CFFTW_SHIM_H
#define FOOTSTEPD_CFFTW_SHIM_H
#include <fftw3.h>
#endif
