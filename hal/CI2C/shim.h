// The C side of Jolt's I2C boundary: the kernel's i2c-dev uAPI (<linux/i2c-dev.h>,
// <linux/i2c.h>) and Debian's libi2c (<i2c/smbus.h>, package libi2c-dev).
//
// ioctl() is variadic and Swift does not import variadic C functions, so each request Jolt
// makes gets one typed inline wrapper here. Nothing else: the logic lives in Swift
// (Sources/JoltLinux/I2CDevice.swift), which calls these through its syscall layer.
#ifndef JOLT_CI2C_SHIM_H
#define JOLT_CI2C_SHIM_H

#include <sys/ioctl.h>
#include <linux/types.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

/// I2C_SLAVE: set the 7-bit address of the device this file descriptor talks to.
static inline int jolt_i2c_set_address(int fd, unsigned long address) {
    return ioctl(fd, I2C_SLAVE, address);
}

/// I2C_FUNCS: ask the adapter what it can do (I2C_FUNC_* bits).
static inline int jolt_i2c_funcs(int fd, unsigned long *funcs) {
    return ioctl(fd, I2C_FUNCS, funcs);
}

/// I2C_RDWR: a combined transaction, messages joined by repeated starts.
static inline int jolt_i2c_rdwr(int fd, struct i2c_rdwr_ioctl_data *data) {
    return ioctl(fd, I2C_RDWR, data);
}

#endif
