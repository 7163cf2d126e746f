#ifndef FOOTSTEPD_CSNDFILE_SHIM_H
#define FOOTSTEPD_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
