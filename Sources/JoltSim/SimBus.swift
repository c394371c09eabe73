import JoltDrivers

/// The simulated world's time, µs. Shared by the bus, its devices and whoever drives them: in real
/// time it follows the monotonic clock; in fast mode it jumps to each deadline.
public final class SimClock {
    /// Now, µs since the simulation started.
    public var now: Int64 = 0
    public init() {}
}

/// A device on the simulated bus: it sees each transaction's bytes, as a chip would.
public protocol SimulatedDevice: AnyObject {
    /// The bytes written (the first is the register address), at time `now`.
    func write(_ bytes: UnsafeRawBufferPointer, now: Int64)
    /// Fills `into` with bytes read from the current register pointer on, at time `now`.
    func read(into: UnsafeMutableRawBufferPointer, now: Int64)
}

/// A fault the simulated bus can inject, for a span of simulated time.
public struct SimFault: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The device does not acknowledge (unplugged, or its address line floats).
        case noAcknowledge
        /// Transfers fail with a bus error (EIO).
        case ioError
        /// Transfers time out.
        case timeout
        /// The chip keeps answering, but its data stops changing.
        case frozen
        /// The chip resets itself to its power-on state at `from` (a brown-out).
        case reset
    }

    public var kind: Kind
    /// Start, µs of simulated time.
    public var from: Int64
    /// End, µs (exclusive); for `.reset`, ignored.
    public var to: Int64
    /// The address it affects (nil: every device).
    public var address: UInt8?

    public init(_ kind: Kind, from: Int64, to: Int64, address: UInt8? = nil) {
        self.kind = kind
        self.from = from
        self.to = to
        self.address = address
    }
}

/// Something a simulated chip can do when a fault says so.
public protocol FaultableDevice: SimulatedDevice {
    /// Back to the power-on register values, as after a brown-out.
    func powerOnReset(now: Int64)
    /// Freezes (or unfreezes) the data.
    var frozen: Bool { get set }
}

/// A simulated I2C bus: devices by address, a clock, a transaction counter and fault injection.
/// A reference type, so that the driver, the run loop and a test can share it.
public final class SimBus: I2CBus {
    /// The bus's clock.
    public let clock: SimClock
    var devices: [UInt8: SimulatedDevice] = [:]
    /// Scheduled faults.
    public var faults: [SimFault] = []
    var resetsDone: Set<Int> = []
    /// Transactions seen (each `writeRead` is one), successful or not.
    public private(set) var transactions = 0
    /// Transactions that failed by injection.
    public private(set) var failedTransactions = 0
    /// The largest read allowed in one transaction (32 to mimic an SMBus-only adapter).
    public var maxReadLength = 1 << 16

    public init(clock: SimClock) {
        self.clock = clock
    }

    /// Puts `device` at `address`.
    public func attach(_ device: SimulatedDevice, at address: UInt8) {
        devices[address] = device
    }

    /// The device at `address`.
    public func device(at address: UInt8) -> SimulatedDevice? { devices[address] }

    /// Applies faults whose time has come (resets happen once; freezes follow their span).
    func applyFaults(now: Int64) {
        for (i, f) in faults.enumerated() {
            let targets = f.address.map { a in devices[a].map { [$0] } ?? [] } ?? Array(devices.values)
            switch f.kind {
            case .reset where now >= f.from && !resetsDone.contains(i):
                resetsDone.insert(i)
                for d in targets { (d as? FaultableDevice)?.powerOnReset(now: f.from) }
            case .frozen:
                let on = now >= f.from && now < f.to
                for d in targets { if let d = d as? FaultableDevice, d.frozen != on { d.frozen = on } }
            default:
                break
            }
        }
    }

    public func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        transactions += 1
        let now = clock.now
        applyFaults(now: now)
        for f in faults where now >= f.from && now < f.to && (f.address == nil || f.address == address) {
            switch f.kind {
            case .noAcknowledge:
                failedTransactions += 1
                throw I2CError(.noAcknowledge)
            case .ioError:
                failedTransactions += 1
                throw I2CError(.bus)
            case .timeout:
                failedTransactions += 1
                throw I2CError(.timeout)
            case .frozen, .reset:
                break
            }
        }
        guard let d = devices[address] else { throw I2CError(.noAcknowledge) }
        if read.count > maxReadLength { throw I2CError(.unsupported) }
        if write.count > 0 { d.write(write, now: now) }
        if read.count > 0 { d.read(into: read, now: now) }
    }
}
