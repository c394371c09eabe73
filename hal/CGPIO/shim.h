// The C side of Jolt's GPIO boundary: the kernel's GPIO character device uAPI v2
// (<linux/gpio.h>, /dev/gpiochipN). Never sysfs.
//
// The request numbers are _IOWR() macros that Swift cannot import, and ioctl() is variadic, so
// each request Jolt makes gets one typed inline wrapper here; the logic lives in Swift
// (Sources/JoltLinux/GPIO.swift).
#ifndef JOLT_CGPIO_SHIM_H
#define JOLT_CGPIO_SHIM_H

#include <sys/ioctl.h>
#include <linux/gpio.h>

/// GPIO_GET_CHIPINFO_IOCTL: the chip's name, label and number of lines.
static inline int jolt_gpio_chipinfo(int fd, struct gpiochip_info *info) {
    return ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, info);
}

/// GPIO_V2_GET_LINEINFO_IOCTL: one line's name, consumer and flags.
static inline int jolt_gpio_lineinfo(int fd, struct gpio_v2_line_info *info) {
    return ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, info);
}

/// GPIO_V2_GET_LINE_IOCTL: request lines; on success req->fd is the line file descriptor.
static inline int jolt_gpio_line_request(int fd, struct gpio_v2_line_request *req) {
    return ioctl(fd, GPIO_V2_GET_LINE_IOCTL, req);
}

/// GPIO_V2_LINE_SET_VALUES_IOCTL on a line file descriptor.
static inline int jolt_gpio_set_values(int fd, struct gpio_v2_line_values *values) {
    return ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, values);
}

/// GPIO_V2_LINE_GET_VALUES_IOCTL on a line file descriptor.
static inline int jolt_gpio_get_values(int fd, struct gpio_v2_line_values *values) {
    return ioctl(fd, GPIO_V2_LINE_GET_VALUES_IOCTL, values);
}

#endif
