/// What went wrong on the bus, in the kernel's terms (Linux `Documentation/i2c/fault-codes.rst`),
/// independent of any operating system. Modelled on embedded-hal's `ErrorKind`.
public enum I2CErrorKind: Equatable, Sendable {
    /// Nothing acknowledged the address or a data byte (`ENXIO`, `EREMOTEIO`): no device there,
    /// or it is not powered, or SDA/SCL are not connected.
    case noAcknowledge
    /// Another master won arbitration (`EAGAIN`).
    case arbitrationLoss
    /// The bus misbehaved (`EIO`, `EBUSY`): a glitch, a stuck line, a bad connection.
    case bus
    /// The transfer timed out (`ETIMEDOUT`): a device stretching the clock too long.
    case timeout
    /// The adapter cannot do this kind of transfer (`EOPNOTSUPP`).
    case unsupported
    /// Anything else, with the operating system's error number.
    case other(Int32)

    /// Whether retrying the same transfer may succeed.
    public var isTransient: Bool {
        switch self {
        case .noAcknowledge, .arbitrationLoss, .bus, .timeout: return true
        case .unsupported, .other: return false
        }
    }

    /// A few words for messages: "no acknowledge", "bus error".
    public var words: String {
        switch self {
        case .noAcknowledge: return "no acknowledge"
        case .arbitrationLoss: return "arbitration lost"
        case .bus: return "bus error"
        case .timeout: return "timeout"
        case .unsupported: return "not supported by the adapter"
        case .other(let e): return "error \(e)"
        }
    }
}

/// An I2C transfer failure.
public struct I2CError: Error, Equatable, Sendable {
    /// What kind of failure.
    public var kind: I2CErrorKind
    /// The operating system's error number behind it (0 when there is none, e.g. simulated).
    public var code: Int32

    public init(_ kind: I2CErrorKind, code: Int32 = 0) {
        self.kind = kind
        self.code = code
    }
}

/// An I2C bus: one required operation, a write followed by a read with a repeated start.
///
/// Modelled on embedded-hal's `I2c` trait: everything else (`write`, `readRegister`, …) is built
/// on `writeRead` in an extension. Drivers are generic over the bus and own it.
public protocol I2CBus {
    /// One transaction with the device at the 7-bit `address`: write the bytes of `write` (if
    /// any), then, after a repeated start, read `read.count` bytes into `read` (if any).
    mutating func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError)

    /// The longest read the bus can do in one transaction (SMBus-only adapters: 32 bytes).
    var maxReadLength: Int { get }
    /// The longest write the bus can do in one transaction, the register address included
    /// (SMBus-only adapters: 33 bytes, a block write of 32 after its command byte).
    var maxWriteLength: Int { get }
}

extension I2CBus {
    public var maxReadLength: Int { 1 << 16 }
    public var maxWriteLength: Int { 1 << 16 }

    /// Writes `bytes` to the device at `address`; more than the bus can write at once fails as
    /// unsupported, before anything is sent.
    public mutating func write(address: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        guard bytes.count <= maxWriteLength else { throw I2CError(.unsupported) }
        let empty = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        try bytes.withUnsafeBytesTyped { (w) throws(I2CError) in
            try writeRead(address: address, write: w, read: empty)
        }
    }

    /// Writes one register.
    public mutating func writeRegister(address: UInt8, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        try write(address: address, [register, value])
    }

    /// Reads one register.
    public mutating func readRegister(address: UInt8, _ register: UInt8) throws(I2CError) -> UInt8 {
        var r: UInt8 = 0
        try readRegisters(address: address, register, into: &r, count: 1)
        return r
    }

    /// Reads `count` consecutive registers from `register` on, into `buffer`.
    public mutating func readRegisters(address: UInt8, _ register: UInt8, into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(I2CError) {
        var reg = register
        try withUnsafeBytesOf(&reg) { (w) throws(I2CError) in
            try writeRead(address: address, write: w, read: UnsafeMutableRawBufferPointer(start: buffer, count: count))
        }
    }
}

/// Runs `body` with 16 bytes of zeroed scratch memory on the stack (for register bursts).
@inline(__always)
func withScratch16<R, E: Error>(_ body: (UnsafeMutablePointer<UInt8>) throws(E) -> R) throws(E) -> R {
    var buf: (UInt64, UInt64) = (0, 0)
    let r: Result<R, E> = withUnsafeMutableBytes(of: &buf) { b in
        do throws(E) { return .success(try body(b.baseAddress!.assumingMemoryBound(to: UInt8.self))) } catch { return .failure(error) }
    }
    return try r.get()
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a typed-throws body.
    func withUnsafeBytesTyped<R>(_ body: (UnsafeRawBufferPointer) throws(I2CError) -> R) throws(I2CError) -> R {
        let r: Result<R, I2CError> = withUnsafeBytes { b in
            do throws(I2CError) { return .success(try body(b)) } catch { return .failure(error) }
        }
        return try r.get()
    }
}

func withUnsafeBytesOf<R>(_ v: inout UInt8, _ body: (UnsafeRawBufferPointer) throws(I2CError) -> R) throws(I2CError) -> R {
    let r: Result<R, I2CError> = withUnsafeBytes(of: &v) { b in
        do throws(I2CError) { return .success(try body(b)) } catch { return .failure(error) }
    }
    return try r.get()
}

/// Waits a while: a driver's only notion of time (a chip reset takes 100 ms). Modelled on
/// embedded-hal's `DelayNs`.
public protocol Delay {
    /// Blocks (or advances simulated time) for `milliseconds`.
    mutating func delay(milliseconds: UInt32)
}

/// One reading from a chip, converted to the core's units, in the chip's own axes.
public struct ChipSample: Equatable, Sendable {
    /// Acceleration, mg (x, y, z).
    public var ax: Int32, ay: Int32, az: Int32
    /// Rotation rate, mdps (x, y, z); zero for accelerometer-only chips.
    public var gx: Int32, gy: Int32, gz: Int32

    public init(ax: Int32, ay: Int32, az: Int32, gx: Int32 = 0, gy: Int32 = 0, gz: Int32 = 0) {
        self.ax = ax; self.ay = ay; self.az = az
        self.gx = gx; self.gy = gy; self.gz = gz
    }
}

/// Exact integer conversions from raw counts to the core's units.
public enum Convert {
    /// `raw × num / den`, rounded to nearest (halves away from zero). `den` > 0.
    @inlinable
    public static func scale(_ raw: Int32, _ num: Int64, _ den: Int64) -> Int32 {
        let p = Int64(raw) * num
        let q = p >= 0 ? (p + den / 2) / den : (p - den / 2) / den
        return Int32(truncatingIfNeeded: q)
    }

    /// A big-endian signed 16-bit value (MPU6050 data registers).
    @inlinable
    public static func int16BE(_ hi: UInt8, _ lo: UInt8) -> Int32 {
        Int32(Int16(bitPattern: UInt16(hi) << 8 | UInt16(lo)))
    }

    /// A little-endian signed 16-bit value (ADXL345 data registers).
    @inlinable
    public static func int16LE(_ lo: UInt8, _ hi: UInt8) -> Int32 {
        Int32(Int16(bitPattern: UInt16(hi) << 8 | UInt16(lo)))
    }
}
