#if canImport(Glibc)
import Glibc
#endif
import CI2C
import JoltDrivers

/// An I2C bus through Linux's i2c-dev (`/dev/i2c-N`), the way the kernel documents it
/// (`Documentation/i2c/dev-interface.rst`): the slave address is set with `I2C_SLAVE` (once per
/// address change), the adapter's capabilities are asked with `I2C_FUNCS`, and a register read is
/// one `I2C_RDWR` combined transaction (a write and a read joined by a repeated start) where the
/// adapter speaks plain I2C, or libi2c's SMBus I2C-block read where it only speaks SMBus.
public final class LinuxI2CBus: I2CBus {
    /// How transfers are made on this adapter.
    public enum Mode: Equatable, Sendable {
        /// `I2C_RDWR` combined transactions (`I2C_FUNC_I2C`).
        case combined
        /// SMBus calls through libi2c (`I2C_FUNC_SMBUS_READ_I2C_BLOCK` and friends): reads of
        /// up to 32 bytes.
        case smbus
    }

    /// The device node.
    public let path: String
    let fd: Int32
    /// The adapter's `I2C_FUNC_*` bits.
    public let functionality: UInt64
    /// How transfers are made.
    public let mode: Mode
    var currentAddress: UInt8?
    var closed = false
    /// Transactions attempted (each `writeRead` is one), for the daemon's cost figures.
    public private(set) var transactions = 0

    /// Why a bus could not be opened.
    public struct OpenError: Error, Equatable, Sendable {
        /// The errno of the failing call.
        public var errno: Errno
        /// Which step failed: "open", "I2C_FUNCS", or "capabilities" (neither I2C nor SMBus
        /// block reads).
        public var step: String
    }

    /// Opens `/dev/i2c-N` (given as `N`, `i2c-N` or the path) and asks what the adapter can do.
    public init(path given: String) throws(OpenError) {
        path = LinuxI2CPath.normalize(given) ?? given
        do {
            fd = try Sys.open(path, O_RDWR)
        } catch {
            throw OpenError(errno: error, step: "open")
        }
        do {
            functionality = try Sys.i2cFuncs(fd)
        } catch {
            Sys.close(fd)
            throw OpenError(errno: error, step: "I2C_FUNCS")
        }
        if functionality & UInt64(I2C_FUNC_I2C) != 0 {
            mode = .combined
        } else if functionality & UInt64(I2C_FUNC_SMBUS_READ_I2C_BLOCK) != 0 {
            mode = .smbus
        } else {
            Sys.close(fd)
            throw OpenError(errno: .notSupported, step: "capabilities")
        }
    }

    deinit { close() }

    /// Closes the device node.
    public func close() {
        if !closed {
            Sys.close(fd)
            closed = true
        }
    }

    public var maxReadLength: Int { mode == .smbus ? Int(I2C_SMBUS_BLOCK_MAX) : 8192 }
    public var maxWriteLength: Int { mode == .smbus ? Int(I2C_SMBUS_BLOCK_MAX) + 1 : 8192 }

    /// The bus error kind for an errno, as `Documentation/i2c/fault-codes.rst` assigns them;
    /// ENODEV as well, which SMBus-only adapters such as i2c-stub return for an address where
    /// no device is (found by the kernel-in-the-loop test).
    public static func kind(_ e: Errno) -> I2CErrorKind {
        switch e.rawValue {
        case ENXIO, EREMOTEIO, ENODEV: return .noAcknowledge
        case EAGAIN: return .arbitrationLoss
        case EIO, EBUSY, EPROTO: return .bus
        case ETIMEDOUT: return .timeout
        case EOPNOTSUPP: return .unsupported
        default: return .other(e.rawValue)
        }
    }

    static func error(_ e: Errno) -> I2CError { I2CError(kind(e), code: e.rawValue) }

    func select(_ address: UInt8) throws(I2CError) {
        if currentAddress == address { return }
        do {
            try Sys.i2cSetAddress(fd, address)
        } catch {
            // EBUSY here means a kernel driver has claimed the address.
            throw I2CError(error == .busy ? .other(EBUSY) : Self.kind(error), code: error.rawValue)
        }
        currentAddress = address
    }

    public func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        transactions += 1
        try select(address)
        switch mode {
        case .combined:
            do {
                try Sys.i2cTransfer(fd, address: address, write: write, read: read)
            } catch {
                throw Self.error(error)
            }
        case .smbus:
            try smbus(write: write, read: read)
        }
    }

    func smbus(write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        do {
            switch (write.count, read.count) {
            case (1, 1...Int(I2C_SMBUS_BLOCK_MAX)):
                let n = try Sys.smbusReadBlock(fd, command: write[0], into: read)
                if n != read.count { throw I2CError(.bus, code: EIO) }
            case (2, 0):
                try Sys.smbusWriteByteData(fd, command: write[0], value: write[1])
            case (3...Int(I2C_SMBUS_BLOCK_MAX) + 1, 0):
                try Sys.smbusWriteBlock(fd, command: write[0], UnsafeRawBufferPointer(rebasing: write[1...]))
            case (1, 0):
                try Sys.smbusWriteByte(fd, value: write[0])
            case (0, 1):
                read[0] = try Sys.smbusReadByte(fd)
            default:
                throw I2CError(.unsupported, code: EOPNOTSUPP)
            }
        } catch let e as I2CError {
            throw e
        } catch let e as Errno {
            throw Self.error(e)
        } catch {
            throw I2CError(.bus, code: EIO)
        }
    }
}
