/*
 * The chip's side of Jolt's guest tests (Tests/System/guest/feeder.c, Tests/Kernel/chip-feeder.c):
 * i2c-stub keeps a chip's registers, and a feeder plays the chip through i2c-dev's SMBus ioctl.
 * `bus` is the open /dev/i2c-N, its slave address set.
 */
#ifndef JOLT_TEST_SMBUS_H
#define JOLT_TEST_SMBUS_H

#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <string.h>
#include <sys/ioctl.h>

static int bus;

static int smbus(char rw, unsigned char command, int size, union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data args = { .read_write = rw, .command = command, .size = size, .data = data };
    return ioctl(bus, I2C_SMBUS, &args);
}

/* A register's byte, or -1 when the transfer fails. */
static int read_byte(unsigned char reg) {
    union i2c_smbus_data d;
    return smbus(I2C_SMBUS_READ, reg, I2C_SMBUS_BYTE_DATA, &d) < 0 ? -1 : d.byte;
}

static void write_byte(unsigned char reg, unsigned char value) {
    union i2c_smbus_data d = { .byte = value };
    smbus(I2C_SMBUS_WRITE, reg, I2C_SMBUS_BYTE_DATA, &d);
}

/* `n` bytes (at most 32) from `reg` on, in one I2C-block write. */
static void write_block(unsigned char reg, const unsigned char *bytes, int n) {
    union i2c_smbus_data d;
    d.block[0] = (unsigned char)n;
    memcpy(d.block + 1, bytes, (size_t)n);
    smbus(I2C_SMBUS_WRITE, reg, I2C_SMBUS_I2C_BLOCK_DATA, &d);
}

#endif
