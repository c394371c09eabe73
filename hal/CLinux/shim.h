// Linux interfaces the Glibc module does not bring into Swift: signalfd(2).
#ifndef JOLT_CLINUX_SHIM_H
#define JOLT_CLINUX_SHIM_H

#include <sys/signalfd.h>

#endif
