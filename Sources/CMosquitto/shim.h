#ifndef FOOTSTEPD_CMOSQUITTO_SHIM_H
#define FOOTSTEPD_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
