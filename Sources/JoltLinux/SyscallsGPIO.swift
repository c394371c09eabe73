#if canImport(Glibc)
import Glibc
#endif
import CGPIO

// MARK: GPIO character device (<linux/gpio.h>, uAPI v2)

/// What `GPIO_GET_CHIPINFO_IOCTL` says about a chip.
public struct GPIOChipInfo: Equatable, Sendable {
    public var name: String
    public var label: String
    public var lines: UInt32
}

/// What `GPIO_V2_GET_LINEINFO_IOCTL` says about a line.
public struct GPIOLineInfo: Equatable, Sendable {
    public var name: String
    public var consumer: String
    public var flags: UInt64
}

extension Sys {
    static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { b in String(decoding: b.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The chip's name, label and line count. The corresponding ioctl is `GPIO_GET_CHIPINFO_IOCTL`.
    public static func gpioChipInfo(_ fd: Int32) throws(Errno) -> GPIOChipInfo {
        if let r = mocked(.gpioChipInfo(fd: fd)) {
            if let e = r.error { throw e }
            return GPIOChipInfo(name: r.name, label: r.label, lines: UInt32(r.value))
        }
        var info = gpiochip_info()
        _ = try retrying { jolt_gpio_chipinfo(fd, &info) }
        return GPIOChipInfo(name: cString(info.name), label: cString(info.label), lines: info.lines)
    }

    /// One line's name, consumer and flags. The corresponding ioctl is `GPIO_V2_GET_LINEINFO_IOCTL`.
    public static func gpioLineInfo(_ fd: Int32, offset: UInt32) throws(Errno) -> GPIOLineInfo {
        if let r = mocked(.gpioLineInfo(fd: fd, offset: offset)) {
            if let e = r.error { throw e }
            return GPIOLineInfo(name: r.name, consumer: r.label, flags: r.value)
        }
        var info = gpio_v2_line_info()
        info.offset = offset
        _ = try retrying { jolt_gpio_lineinfo(fd, &info) }
        return GPIOLineInfo(name: cString(info.name), consumer: cString(info.consumer), flags: info.flags)
    }

    /// Requests one line with `flags` (`GPIO_V2_LINE_FLAG_*`), optionally with an initial output
    /// value (logical: true = active); returns the line's file descriptor. The corresponding
    /// ioctl is `GPIO_V2_GET_LINE_IOCTL`.
    public static func gpioRequestLine(_ fd: Int32, offset: UInt32, flags: UInt64, consumer: String, initial: Bool?) throws(Errno) -> Int32 {
        if let r = mocked(.gpioRequestLine(fd: fd, offset: offset, flags: flags, consumer: consumer, initial: initial)) {
            if let e = r.error { throw e }
            return r.result
        }
        var req = gpio_v2_line_request()
        req.offsets.0 = offset
        req.num_lines = 1
        withUnsafeMutableBytes(of: &req.consumer) { b in
            for (i, c) in consumer.utf8.prefix(b.count - 1).enumerated() { b[i] = c }
        }
        req.config.flags = flags
        if let initial {
            req.config.num_attrs = 1
            req.config.attrs.0.attr.id = UInt32(GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES.rawValue)
            req.config.attrs.0.attr.values = initial ? 1 : 0
            req.config.attrs.0.mask = 1
        }
        _ = try retrying { jolt_gpio_line_request(fd, &req) }
        return req.fd
    }

    /// Drives a requested line (logical value: true = active). The corresponding ioctl is
    /// `GPIO_V2_LINE_SET_VALUES_IOCTL`.
    public static func gpioSetValue(_ lineFD: Int32, active: Bool) throws(Errno) {
        if let r = mocked(.gpioSetValue(fd: lineFD, active: active)) {
            if let e = r.error { throw e }
            return
        }
        var v = gpio_v2_line_values(bits: active ? 1 : 0, mask: 1)
        _ = try retrying { jolt_gpio_set_values(lineFD, &v) }
    }

    /// Reads a requested line (logical value). The corresponding ioctl is
    /// `GPIO_V2_LINE_GET_VALUES_IOCTL`.
    public static func gpioGetValue(_ lineFD: Int32) throws(Errno) -> Bool {
        if let r = mocked(.gpioGetValue(fd: lineFD)) {
            if let e = r.error { throw e }
            return r.value != 0
        }
        var v = gpio_v2_line_values(bits: 0, mask: 1)
        _ = try retrying { jolt_gpio_get_values(lineFD, &v) }
        return v.bits & 1 != 0
    }
}
