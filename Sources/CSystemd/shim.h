#ifndef FOOTSTEPD_CSYSTEMD_SHIM_H
#define FOOTSTEPD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#endif
