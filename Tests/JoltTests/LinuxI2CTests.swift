#if canImport(Glibc)
import Glibc
#endif
import CI2C
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltChips
import JoltDrivers
import JoltLinux
import JoltTestSupport
import Testing

@Suite("Linux i2c-dev through the syscall layer")
struct LinuxI2CTests {
    // <linux/i2c.h>: I2C_FUNC_I2C 0x1, I2C_FUNC_SMBUS_READ_I2C_BLOCK 0x04000000.
    static let funcI2C: UInt64 = 0x0000_0001
    static let funcSMBusBlock: UInt64 = 0x0400_0000 | 0x0800_0000 | 0x0010_0000

    @Test("a plain-I2C adapter: open, I2C_FUNCS, I2C_SLAVE once, then one I2C_RDWR per register read")
    func combined() throws {
        let mock = SyscallMock(expect: [
            (.open(path: "/dev/i2c-1", flags: O_RDWR), .ok(7)),
            (.i2cFuncs(fd: 7), SyscallReply(value: Self.funcI2C | Self.funcSMBusBlock)),
            (.i2cSetAddress(fd: 7, address: 0x68), .ok()),
            (.i2cTransfer(fd: 7, messages: [I2CMessage(address: 0x68, write: [0x75]), I2CMessage(address: 0x68, readCount: 1)]), .data([0x68])),
            (.i2cTransfer(fd: 7, messages: [I2CMessage(address: 0x68, write: [0x3B]), I2CMessage(address: 0x68, readCount: 14)]), .data(Array(repeating: 0, count: 14))),
            (.i2cTransfer(fd: 7, messages: [I2CMessage(address: 0x68, write: [0x6B, 0x01])]), .ok()),
            (.i2cSetAddress(fd: 7, address: 0x53), .ok()),
            (.i2cTransfer(fd: 7, messages: [I2CMessage(address: 0x53, write: [0x00]), I2CMessage(address: 0x53, readCount: 1)]), .data([0xE5])),
            (.close(fd: 7), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let bus = try LinuxI2CBus(path: "1")
            #expect(bus.mode == .combined)
            var b = bus
            #expect(try b.readRegister(address: 0x68, 0x75) == 0x68)
            var buf = [UInt8](repeating: 0xFF, count: 14)
            try b.readRegisters(address: 0x68, 0x3B, into: &buf, count: 14)
            #expect(buf == Array(repeating: 0, count: 14))
            try b.writeRegister(address: 0x68, 0x6B, 0x01)
            #expect(try b.readRegister(address: 0x53, 0x00) == 0xE5)
            bus.close()
        }
        #expect(mock.failures == [])
        #expect(mock.remaining.isEmpty)
    }

    @Test("an SMBus-only adapter (like i2c-stub): reads through SMBus I2C-block reads, writes through SMBus writes")
    func smbusOnly() throws {
        let mock = SyscallMock(expect: [
            (.open(path: "/dev/i2c-0", flags: O_RDWR), .ok(3)),
            (.i2cFuncs(fd: 3), SyscallReply(value: Self.funcSMBusBlock)),
            (.i2cSetAddress(fd: 3, address: 0x68), .ok()),
            (.smbusReadBlock(fd: 3, command: 0x3B, length: 14), .data(Array(1...14))),
            (.smbusWriteByteData(fd: 3, command: 0x6B, value: 0x80), .ok()),
            (.smbusWriteBlock(fd: 3, command: 0x19, bytes: [9, 3]), .ok()),
            (.smbusReadBlock(fd: 3, command: 0x74, length: 24), .data(Array(repeating: 1, count: 23))),   // short read
            (.close(fd: 3), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let bus = try LinuxI2CBus(path: "/dev/i2c-0")
            #expect(bus.mode == .smbus)
            #expect(bus.maxReadLength == 32)
            var b = bus
            var buf = [UInt8](repeating: 0, count: 14)
            try b.readRegisters(address: 0x68, 0x3B, into: &buf, count: 14)
            #expect(buf == Array(1...14))
            try b.writeRegister(address: 0x68, 0x6B, 0x80)
            try b.write(address: 0x68, [0x19, 9, 3])
            var fifo = [UInt8](repeating: 0, count: 24)
            #expect(throws: I2CError(.bus, code: EIO)) { try b.readRegisters(address: 0x68, 0x74, into: &fifo, count: 24) }
            bus.close()
        }
        #expect(mock.failures == [])
        #expect(mock.remaining.isEmpty)
    }

    @Test("errno from a transfer maps to the kernel's fault codes", arguments: [
        (ENXIO, I2CErrorKind.noAcknowledge), (EREMOTEIO, .noAcknowledge), (ENODEV, .noAcknowledge), (EAGAIN, .arbitrationLoss), (EIO, .bus),
        (EBUSY, .bus), (ETIMEDOUT, .timeout), (EOPNOTSUPP, .unsupported), (EINVAL, .other(EINVAL)),
    ])
    func errnoMapping(code: Int32, kind: I2CErrorKind) throws {
        let mock = SyscallMock(expect: [
            (.open(path: "/dev/i2c-1", flags: O_RDWR), .ok(5)),
            (.i2cFuncs(fd: 5), SyscallReply(value: Self.funcI2C)),
            (.i2cSetAddress(fd: 5, address: 0x68), .ok()),
            (.i2cTransfer(fd: 5, messages: [I2CMessage(address: 0x68, write: [0x75]), I2CMessage(address: 0x68, readCount: 1)]), .fail(Errno(code))),
            (.close(fd: 5), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            var bus = try LinuxI2CBus(path: "/dev/i2c-1")
            #expect(throws: I2CError(kind, code: code)) { try bus.readRegister(address: 0x68, 0x75) }
            bus.close()
        }
        #expect(mock.failures == [])
    }

    @Test("opening: no bus, no permission, an adapter that can do neither, a kernel driver holding the address")
    func openErrors() throws {
        func open(_ replies: [(Syscall, SyscallReply)]) -> JoltError? {
            let mock = SyscallMock(expect: replies)
            return SyscallMock.$current.withValue(mock) { () -> JoltError? in
                do throws(JoltError) { _ = try LinuxBoard.openLinuxBus("/dev/i2c-1"); return nil } catch { return error }
            }
        }
        let noBus = open([(.open(path: "/dev/i2c-1", flags: O_RDWR), .fail(.noEntry))])
        #expect(noBus?.code == .unavailable)
        #expect(noBus?.message.contains("dtparam=i2c_arm=on") == true)
        let denied = open([(.open(path: "/dev/i2c-1", flags: O_RDWR), .fail(.accessDenied))])
        #expect(denied?.code == .noPermission)
        #expect(denied?.message.contains("i2c group") == true)
        let neither = open([(.open(path: "/dev/i2c-1", flags: O_RDWR), .ok(4)), (.i2cFuncs(fd: 4), SyscallReply(value: 0x8)), (.close(fd: 4), .ok())])
        #expect(neither?.code == .unavailable)
        #expect(neither?.message.contains("neither plain I2C nor SMBus") == true)

        let mock = SyscallMock(expect: [
            (.open(path: "/dev/i2c-1", flags: O_RDWR), .ok(6)),
            (.i2cFuncs(fd: 6), SyscallReply(value: Self.funcI2C)),
            (.i2cSetAddress(fd: 6, address: 0x68), .fail(.busy)),
            (.close(fd: 6), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let bus = try LinuxI2CBus(path: "/dev/i2c-1")
            let sensor = try ChipSensor(ChipRegistry.named("mpu6050")!, bus: bus, busName: "/dev/i2c-1", address: 0x68, settings: SensorSettings())
            var delay = NoDelay()
            do throws(ChipError) {
                try sensor.start(delay: &delay)
                Issue.record("start should fail")
            } catch {
                let e = chipError(error, sensor)
                #expect(e.message.contains("claimed by a kernel driver"), "\(e.message)")
            }
            bus.close()
        }
        #expect(mock.failures == [])
    }

    @Test("one jolt per bus: a second lock on the device node is refused (75) and names the node, until the first is released")
    func busLock() throws {
        let node = tempFile("", name: "i2c-9")
        let first = try #require(try BusLock.take(node))
        do {
            _ = try BusLock.take(node)
            Issue.record("a second lock on \(node) was taken")
        } catch {
            #expect(error.code == .tempFailure && error.message.contains("another jolt is already using \(node)"), "\(error.message)")
        }
        first.release()
        let again = try #require(try BusLock.take(node), "free once released")
        again.release()
        #expect(try BusLock.take(nil) == nil, "a simulated bus has no node to lock")
    }

    @Test("bus names: 1, i2c-1 and /dev/i2c-1 are the same bus")
    func names() {
        #expect(LinuxI2CPath.normalize("1") == "/dev/i2c-1")
        #expect(LinuxI2CPath.normalize("i2c-1") == "/dev/i2c-1")
        #expect(LinuxI2CPath.normalize("/dev/i2c-22") == "/dev/i2c-22")
        #expect(LinuxI2CPath.normalize("/dev/sda") == nil)
        #expect(LinuxI2CPath.normalize("i2c-") == nil)
        #expect(LinuxI2CPath.normalize("one") == nil)
    }
}

/// A delay that does not wait (the syscall mock has no clock).
struct NoDelay: Delay {
    mutating func delay(milliseconds: UInt32) {}
}
