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
        /// The bus is fine but the host stops polling it (a process descheduled, a storage
        /// stall): the bus ignores it; the run loop honours it, so a FIFO can overflow.
        case stall
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
    /// Scheduled faults, in any order; kept sorted by start.
    public var faults: [SimFault] = [] {
        didSet {
            faults.sort { $0.from < $1.from }
            cursor = 0
            frozenNow = false
            resetsApplied = []
        }
    }
    /// Faults before this index have ended (and resets among them have happened).
    var cursor = 0
    var frozenNow = false
    var resetsApplied: Set<Int> = []
    /// Transactions seen (each `writeRead` is one), successful or not.
    public private(set) var transactions = 0
    /// Transactions that failed by injection.
    public private(set) var failedTransactions = 0
    /// The largest read allowed in one transaction (32 to mimic an SMBus-only adapter).
    public var maxReadLength = 1 << 16
    /// The largest write allowed in one transaction, the register address included (33 to mimic
    /// an SMBus-only adapter).
    public var maxWriteLength = 1 << 16

    public init(clock: SimClock) {
        self.clock = clock
    }

    /// Puts `device` at `address`.
    public func attach(_ device: SimulatedDevice, at address: UInt8) {
        devices[address] = device
    }

    /// The device at `address`.
    public func device(at address: UInt8) -> SimulatedDevice? { devices[address] }

    func targets(_ f: SimFault) -> [SimulatedDevice] {
        f.address.map { a in devices[a].map { [$0] } ?? [] } ?? Array(devices.values)
    }

    func applyReset(_ i: Int) {
        guard faults[i].kind == .reset, !resetsApplied.contains(i) else { return }
        resetsApplied.insert(i)
        for d in targets(faults[i]) { (d as? FaultableDevice)?.powerOnReset(now: faults[i].from) }
    }

    /// The fault failing a transaction with `address` now, if any. Resets happen once, at their
    /// start; freezes follow their span. Only faults from the cursor on are looked at, so a long
    /// schedule costs little per transaction.
    func activeFailure(now: Int64, address: UInt8) -> SimFault.Kind? {
        while cursor < faults.count {
            let f = faults[cursor]
            let end = f.kind == .reset ? f.from : f.to
            if now < end || (f.kind == .reset && now < f.from) { break }
            applyReset(cursor)
            cursor += 1
        }
        var failing: SimFault.Kind?
        var frozen = false
        var i = cursor
        while i < faults.count && faults[i].from <= now {
            let f = faults[i]
            if f.address == nil || f.address == address {
                switch f.kind {
                case .noAcknowledge, .ioError, .timeout:
                    if now < f.to { failing = failing ?? f.kind }
                case .frozen:
                    if now < f.to { frozen = true }
                case .reset:
                    applyReset(i)
                case .stall:
                    break
                }
            }
            i += 1
        }
        if frozen != frozenNow {
            frozenNow = frozen
            for d in devices.values { (d as? FaultableDevice)?.frozen = frozen }
        }
        return failing
    }

    /// The end of a `.stall` covering `now`, if any.
    public func stallEnd(at now: Int64) -> Int64? {
        faults.first { $0.kind == .stall && $0.from <= now && now < $0.to }?.to
    }

    public func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        transactions += 1
        let now = clock.now
        if !faults.isEmpty, let kind = activeFailure(now: now, address: address) {
            failedTransactions += 1
            switch kind {
            case .noAcknowledge: throw I2CError(.noAcknowledge)
            case .ioError: throw I2CError(.bus)
            default: throw I2CError(.timeout)
            }
        }
        guard let d = devices[address] else { throw I2CError(.noAcknowledge) }
        if read.count > maxReadLength || write.count > maxWriteLength { throw I2CError(.unsupported) }
        if write.count > 0 { d.write(write, now: now) }
        if read.count > 0 { d.read(into: read, now: now) }
    }
}
