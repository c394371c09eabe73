// Eclipse Mosquitto's C client library (Debian: libmosquitto-dev), for Jolt's MQTT link.
// Jolt drives it from one thread of its own with the "external loop" calls
// (mosquitto_loop_read/write/misc around poll), so no thread of the library's runs.
#ifndef JOLT_CMOSQUITTO_SHIM_H
#define JOLT_CMOSQUITTO_SHIM_H

#include <mosquitto.h>

#endif
