#if canImport(Glibc)
import Glibc
#endif
import CGPIO
import CI2C

// The hardware boundary: every system call on a device node (/dev/i2c-*, /dev/gpiochip*: open,
// read, write, close and the i2c-dev, SMBus and GPIO ioctls) goes through one function here,
// once. In debug builds (ENABLE_MOCKING) a test can install a `SyscallMock` for the current
// task: each call is then recorded and answered by the mock instead of the kernel, so the exact
// sequence of ioctls and the handling of every errno can be tested on a machine with no
// /dev/i2c-* or /dev/gpiochip*. Release builds compile the mock out. The other system calls
// (files, sockets, processes, time, the terminal) are made in JoltLinux's other files, each in
// one small wrapper; nothing above JoltLinux calls the C library for them.

/// One I2C message of an `I2C_RDWR` transaction, as the syscall layer records it.
public struct I2CMessage: Equatable, Sendable, CustomStringConvertible {
    /// 7-bit address.
    public var address: UInt16
    /// Bytes written (for a write message).
    public var write: [UInt8]
    /// Bytes to read (for a read message; 0 for a write).
    public var readCount: Int

    public init(address: UInt16, write: [UInt8] = [], readCount: Int = 0) {
        self.address = address
        self.write = write
        self.readCount = readCount
    }

    public var description: String {
        readCount > 0 ? "R(0x\(String(address, radix: 16)), \(readCount))"
            : "W(0x\(String(address, radix: 16)), \(write.map { "0x" + String($0, radix: 16) }))"
    }
}

/// A system call as the mock sees it: what was asked, with the arguments that matter.
public enum Syscall: Equatable, Sendable {
    case open(path: String, flags: Int32)
    case close(fd: Int32)
    case read(fd: Int32, count: Int)
    case write(fd: Int32, bytes: [UInt8])
    /// `ioctl(I2C_SLAVE)`.
    case i2cSetAddress(fd: Int32, address: UInt8)
    /// `ioctl(I2C_FUNCS)`.
    case i2cFuncs(fd: Int32)
    /// `ioctl(I2C_RDWR)`.
    case i2cTransfer(fd: Int32, messages: [I2CMessage])
    /// libi2c `i2c_smbus_read_i2c_block_data`.
    case smbusReadBlock(fd: Int32, command: UInt8, length: UInt8)
    /// libi2c `i2c_smbus_write_byte_data`.
    case smbusWriteByteData(fd: Int32, command: UInt8, value: UInt8)
    /// libi2c `i2c_smbus_write_i2c_block_data`.
    case smbusWriteBlock(fd: Int32, command: UInt8, bytes: [UInt8])
    /// libi2c `i2c_smbus_write_byte`.
    case smbusWriteByte(fd: Int32, value: UInt8)
    /// libi2c `i2c_smbus_read_byte`.
    case smbusReadByte(fd: Int32)
    /// `ioctl(GPIO_GET_CHIPINFO_IOCTL)`.
    case gpioChipInfo(fd: Int32)
    /// `ioctl(GPIO_V2_GET_LINEINFO_IOCTL)`.
    case gpioLineInfo(fd: Int32, offset: UInt32)
    /// `ioctl(GPIO_V2_GET_LINE_IOCTL)` for one line.
    case gpioRequestLine(fd: Int32, offset: UInt32, flags: UInt64, consumer: String, initial: Bool?)
    /// `ioctl(GPIO_V2_LINE_SET_VALUES_IOCTL)` on one requested line.
    case gpioSetValue(fd: Int32, active: Bool)
    /// `ioctl(GPIO_V2_LINE_GET_VALUES_IOCTL)` on one requested line.
    case gpioGetValue(fd: Int32)
}

/// The mock's answer to one call.
public struct SyscallReply: Sendable {
    /// The return value on success (a file descriptor, a byte count, the result of a read).
    public var result: Int32 = 0
    /// Fail with this errno instead.
    public var error: Errno?
    /// Bytes the call returns: read data, I2C read messages' data in order.
    public var bytes: [UInt8] = []
    /// A number the call returns through a pointer: I2C_FUNCS bits, GPIO flags, line count.
    public var value: UInt64 = 0
    /// Names the call returns: GPIO chip name / line name.
    public var name: String = ""
    /// GPIO chip label.
    public var label: String = ""

    public init(result: Int32 = 0, error: Errno? = nil, bytes: [UInt8] = [], value: UInt64 = 0, name: String = "", label: String = "") {
        self.result = result
        self.error = error
        self.bytes = bytes
        self.value = value
        self.name = name
        self.label = label
    }

    /// Success with `result`.
    public static func ok(_ result: Int32 = 0) -> SyscallReply { SyscallReply(result: result) }
    /// Failure with `errno`.
    public static func fail(_ e: Errno) -> SyscallReply { SyscallReply(result: -1, error: e) }
    /// Success returning `bytes` (result: their count).
    public static func data(_ bytes: [UInt8]) -> SyscallReply { SyscallReply(result: Int32(bytes.count), bytes: bytes) }
}

#if ENABLE_MOCKING
/// Answers system calls in tests. Install it with `SyscallMock.$current.withValue(mock) { … }`.
public final class SyscallMock: @unchecked Sendable {
    /// The mock in force for the current task, if any.
    @TaskLocal public static var current: SyscallMock?

    private let lock = Lock()
    private var expected: [(Syscall, SyscallReply)]
    private let handler: (@Sendable (Syscall) -> SyscallReply)?
    /// Every call made, in order.
    public private(set) var calls: [Syscall] = []
    /// Calls that did not match what was expected, as messages.
    public private(set) var failures: [String] = []

    /// A mock that expects exactly these calls, in this order, and answers each as given.
    public init(expect: [(Syscall, SyscallReply)]) {
        expected = expect
        handler = nil
    }

    /// A mock that answers every call with `handler`.
    public init(handler: @escaping @Sendable (Syscall) -> SyscallReply) {
        expected = []
        self.handler = handler
    }

    /// Expectations not yet met.
    public var remaining: [Syscall] { lock.with { expected.map(\.0) } }

    func answer(_ call: Syscall) -> SyscallReply {
        lock.with {
            calls.append(call)
            if let handler { return handler(call) }
            guard !expected.isEmpty else {
                failures.append("unexpected call \(call): no more calls were expected")
                return .fail(Errno(EIO))
            }
            let (want, reply) = expected.removeFirst()
            if want != call {
                failures.append("call \(calls.count): expected \(want), got \(call)")
            }
            return reply
        }
    }
}

#endif

/// The syscall layer: one wrapper per call. Each throws the `Errno` the kernel returned; calls
/// interrupted by a signal (EINTR) are retried.
public enum Sys {
    @inline(__always)
    static func mocked(_ call: @autoclosure () -> Syscall) -> SyscallReply? {
        #if ENABLE_MOCKING
        if let m = SyscallMock.current { return m.answer(call()) }
        #endif
        return nil
    }

    @inline(__always)
    static func check(_ r: Int32) throws(Errno) -> Int32 {
        if r < 0 { throw Errno.current }
        return r
    }

    static func retrying(_ body: () -> Int32) throws(Errno) -> Int32 {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = Errno.current
            if e != .interrupted { throw e }
        }
    }

    /// `open(2)`. The corresponding call is `open`.
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws(Errno) -> Int32 {
        if let r = mocked(.open(path: path, flags: flags)) {
            if let e = r.error { throw e }
            return r.result
        }
        return try retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// `close(2)`. Errors are ignored: the descriptor is gone either way.
    public static func close(_ fd: Int32) {
        if mocked(.close(fd: fd)) != nil { return }
        _ = Glibc.close(fd)
    }

    /// `read(2)` into `buffer`; returns the count read (0 at end of file).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        if let r = mocked(.read(fd: fd, count: buffer.count)) {
            if let e = r.error { throw e }
            let n = min(r.bytes.count, buffer.count)
            for i in 0..<n { buffer[i] = r.bytes[i] }
            return n
        }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            let e = Errno.current
            if e != .interrupted { throw e }
        }
    }

    /// `write(2)` of all of `bytes` (looping over short writes).
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        if let r = mocked(.write(fd: fd, bytes: Array(bytes))) {
            if let e = r.error { throw e }
            return
        }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                let e = Errno.current
                if e == .interrupted { continue }
                throw e
            }
            done += n
        }
    }

    // MARK: I2C (<linux/i2c-dev.h>, libi2c)

    /// Sets the slave address for later transfers. The corresponding ioctl is `I2C_SLAVE`.
    public static func i2cSetAddress(_ fd: Int32, _ address: UInt8) throws(Errno) {
        if let r = mocked(.i2cSetAddress(fd: fd, address: address)) {
            if let e = r.error { throw e }
            return
        }
        _ = try retrying { jolt_i2c_set_address(fd, UInt(address)) }
    }

    /// The adapter's functionality bits. The corresponding ioctl is `I2C_FUNCS`.
    public static func i2cFuncs(_ fd: Int32) throws(Errno) -> UInt64 {
        if let r = mocked(.i2cFuncs(fd: fd)) {
            if let e = r.error { throw e }
            return r.value
        }
        var funcs: UInt = 0
        _ = try retrying { jolt_i2c_funcs(fd, &funcs) }
        return UInt64(funcs)
    }

    /// A combined transaction: write `write` to `address` (if any), then with a repeated start
    /// read `read.count` bytes (if any). The corresponding ioctl is `I2C_RDWR`.
    public static func i2cTransfer(_ fd: Int32, address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(Errno) {
        if mockingActive {
            var msgs: [I2CMessage] = []
            if write.count > 0 { msgs.append(I2CMessage(address: UInt16(address), write: Array(write))) }
            if read.count > 0 { msgs.append(I2CMessage(address: UInt16(address), readCount: read.count)) }
            let r = mocked(.i2cTransfer(fd: fd, messages: msgs))!
            if let e = r.error { throw e }
            for i in 0..<min(r.bytes.count, read.count) { read[i] = r.bytes[i] }
            return
        }
        var msgs = [i2c_msg](repeating: i2c_msg(), count: 2)
        var n: UInt32 = 0
        if write.count > 0 {
            msgs[0] = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(write.count),
                              buf: UnsafeMutablePointer(mutating: write.baseAddress!.assumingMemoryBound(to: UInt8.self)))
            n = 1
        }
        if read.count > 0 {
            msgs[Int(n)] = i2c_msg(addr: UInt16(address), flags: UInt16(I2C_M_RD), len: UInt16(read.count),
                                   buf: read.baseAddress!.assumingMemoryBound(to: UInt8.self))
            n += 1
        }
        let r: Int32 = msgs.withUnsafeMutableBufferPointer { m in
            var data = i2c_rdwr_ioctl_data(msgs: m.baseAddress, nmsgs: n)
            while true {
                let r = jolt_i2c_rdwr(fd, &data)
                if r >= 0 || errno != EINTR { return r < 0 ? -errno : r }
            }
        }
        if r < 0 { throw Errno(-r) }
    }

    /// Reads up to 32 bytes starting at `command`. The corresponding call is libi2c's
    /// `i2c_smbus_read_i2c_block_data` (ioctl `I2C_SMBUS`, `I2C_SMBUS_I2C_BLOCK_DATA`).
    public static func smbusReadBlock(_ fd: Int32, command: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let length = UInt8(min(buffer.count, 32))
        if let r = mocked(.smbusReadBlock(fd: fd, command: command, length: length)) {
            if let e = r.error { throw e }
            let n = min(r.bytes.count, Int(length))
            for i in 0..<n { buffer[i] = r.bytes[i] }
            return n
        }
        let n = try retrying {
            i2c_smbus_read_i2c_block_data(fd, command, length, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return Int(n)
    }

    /// Writes one register. The corresponding call is libi2c's `i2c_smbus_write_byte_data`.
    public static func smbusWriteByteData(_ fd: Int32, command: UInt8, value: UInt8) throws(Errno) {
        if let r = mocked(.smbusWriteByteData(fd: fd, command: command, value: value)) {
            if let e = r.error { throw e }
            return
        }
        _ = try retrying { i2c_smbus_write_byte_data(fd, command, value) }
    }

    /// Writes up to 32 bytes from `command` on. The corresponding call is libi2c's
    /// `i2c_smbus_write_i2c_block_data`.
    public static func smbusWriteBlock(_ fd: Int32, command: UInt8, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        if let r = mocked(.smbusWriteBlock(fd: fd, command: command, bytes: Array(bytes))) {
            if let e = r.error { throw e }
            return
        }
        _ = try retrying {
            i2c_smbus_write_i2c_block_data(fd, command, UInt8(bytes.count), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Sends one byte (e.g. a register pointer). The corresponding call is libi2c's
    /// `i2c_smbus_write_byte`.
    public static func smbusWriteByte(_ fd: Int32, value: UInt8) throws(Errno) {
        if let r = mocked(.smbusWriteByte(fd: fd, value: value)) {
            if let e = r.error { throw e }
            return
        }
        _ = try retrying { i2c_smbus_write_byte(fd, value) }
    }

    /// Receives one byte. The corresponding call is libi2c's `i2c_smbus_read_byte`.
    public static func smbusReadByte(_ fd: Int32) throws(Errno) -> UInt8 {
        if let r = mocked(.smbusReadByte(fd: fd)) {
            if let e = r.error { throw e }
            return UInt8(truncatingIfNeeded: r.result)
        }
        return UInt8(truncatingIfNeeded: try retrying { i2c_smbus_read_byte(fd) })
    }

    static var mockingActive: Bool {
        #if ENABLE_MOCKING
        return SyscallMock.current != nil
        #else
        return false
        #endif
    }
}
