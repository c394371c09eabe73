import JoltCore
import JoltDrivers

/// A register-level simulated chip: a device on the simulated bus whose readings come from a
/// `MotionSource`, the twin of a chip in the registry.
public protocol SimulatedChip: FaultableDevice {
    /// The facts of the chip it simulates, from the chip's own plug-in (JoltDrivers), so that a
    /// twin is joined to its chip by the plug-in's declaration, not by a name written again.
    static var chipInfo: ChipInfo { get }
    init(source: MotionSource)
    /// Its view of its motion.
    var tap: MotionTap { get }
    /// How far its self-test force moves it, percent of the typical part's pull (100; a twin
    /// with a damaged sense element, to test the alarm's check, moves 5 %).
    var selfTestGainPercent: Int32 { get set }
    /// The INT pin's rising edges since power-on, the chip caught up to `now` (its pin set up as
    /// the plug-in sets it: active high). A twin that does not simulate its pin has none.
    func interruptEdges(by now: Int64) -> Int
}

extension SimulatedChip {
    public func interruptEdges(by now: Int64) -> Int { 0 }

    /// Sim time of the source's sample 0 minus one period, µs, once the chip has made its first
    /// sample: source sample i is made at `sourceStart + (i + 1) × period`.
    public var sourceStart: Int64? { tap.sourceStart }
    /// Whether the motion has run out (the chip then makes no more samples).
    public var exhausted: Bool { tap.exhausted }
    /// Samples made since power-on.
    public var produced: Int { tap.produced }

    /// `s` as the sense element reads it while the self-test force is `on`: pulled by
    /// `response` (mg, the typical part's), times `selfTestGainPercent`.
    func selfTested(_ s: Sample, on: Bool, response: Vec3) -> Sample {
        guard on else { return s }
        let k = selfTestGainPercent
        var t = s
        t.accel = s.accel + Vec3(response.x * k / 100, response.y * k / 100, response.z * k / 100)
        return t
    }
}

/// A twin's registers as a bus write reaches them: the chip catches up to the time of the write,
/// the first byte sets the register pointer, and each further byte is stored where it points,
/// the pointer then moving on as the chip moves it.
protocol RegisterWrites: AnyObject {
    var pointer: UInt8 { get set }
    func advance(to now: Int64)
    func store(_ r: UInt8, _ v: UInt8, now: Int64)
    /// Takes a write's first byte: the register address, with any flag bits the chip reads there.
    func point(_ first: UInt8)
    /// Where the pointer goes once a byte is stored at `r`.
    func next(after r: UInt8) -> UInt8
}

extension RegisterWrites {
    func point(_ first: UInt8) { pointer = first }
    func next(after r: UInt8) -> UInt8 { r &+ 1 }

    func takeWrite(_ bytes: UnsafeRawBufferPointer, now: Int64) {
        advance(to: now)
        guard let first = bytes.first else { return }
        point(first)
        for b in bytes.dropFirst() {
            store(pointer, b, now: now)
            pointer = next(after: pointer)
        }
    }
}

/// A twin's registers: a byte at each address of the chip's map, reached by the datasheet's
/// name or by the address a bus transaction carries. An address past the map reads 0 and takes
/// no write.
struct RegisterFile<Register: DatasheetRegister> {
    private var bytes: [UInt8]

    init(count: Int) { bytes = [UInt8](repeating: 0, count: count) }

    subscript(_ r: Register) -> UInt8 {
        get { self[address: r.rawValue] }
        set { self[address: r.rawValue] = newValue }
    }

    subscript(address a: UInt8) -> UInt8 {
        get { holds(a) ? bytes[Int(a)] : 0 }
        set { if holds(a) { bytes[Int(a)] = newValue } }
    }

    /// Whether `a` is in the map.
    func holds(_ a: UInt8) -> Bool { Int(a) < bytes.count }

    /// Every register 0, as a power-on starts before the chip's own values are set.
    mutating func clear() { for i in bytes.indices { bytes[i] = 0 } }

    /// `data` in the registers from `first` on (the data registers a sample fills).
    mutating func fill(from first: Register, _ data: [UInt8]) {
        for (i, b) in data.enumerated() { self[address: first.rawValue &+ UInt8(i)] = b }
    }
}

/// A twin's INT1 pin: its level, and its rising edges since the twin was made, which is what the
/// simulated board's INT line reads (`interruptEdges`).
struct PinLevel {
    private(set) var high = false
    private(set) var rises = 0

    /// Drives the pin to `level`; a rise is counted.
    mutating func drive(_ level: Bool) {
        if level && !high { rises += 1 }
        high = level
    }

    /// A pulse too short to hold a level (the MPU6050's 50 µs INT pulse): a rise.
    mutating func pulse() { rises += 1 }
}

/// A twin that simulates its INT1 pin: its edges are its pin's, the chip caught up to `now`.
protocol PinnedTwin: SimulatedChip {
    var int1: PinLevel { get }
    func advance(to now: Int64)
}

extension PinnedTwin {
    public func interruptEdges(by now: Int64) -> Int {
        advance(to: now)
        return int1.rises
    }
}

/// A first-order high-pass filter, as the chips' motion and wake-up engines run one: each
/// reading's difference from a base that follows the readings with the time constant of the
/// cutoff, in mg × 1024. The first reading after a reset is the base (a difference of zero).
struct HighPass {
    var base: (x: Int64, y: Int64, z: Int64)?

    mutating func reset() { base = nil }

    /// `a` (mg) high-passed at `cutoffMilliHz` for readings `periodMicros` apart; a cutoff of 0
    /// holds the base (the MPU6050's "hold": a reference).
    mutating func filter(_ a: Vec3, periodMicros p: Int64, cutoffMilliHz: Int64) -> (x: Int64, y: Int64, z: Int64) {
        let x = Int64(a.x) << 10, y = Int64(a.y) << 10, z = Int64(a.z) << 10
        let b = base ?? (x, y, z)
        // τ = 1 / (2π f); the base moves period / (τ + period) of the way each reading.
        let tau = cutoffMilliHz <= 0 ? Int64.max / 4 : 159_155_000 / cutoffMilliHz
        let k = (p << 16) / (tau + p)
        let d = (x: x - b.x, y: y - b.y, z: z - b.z)
        base = (b.x + ((d.x * k) >> 16), b.y + ((d.y * k) >> 16), b.z + ((d.z * k) >> 16))
        return d
    }

    /// Whether `d` (mg × 1024) passes `limitMilliG` on an axis `axes` enables.
    static func past(_ d: (x: Int64, y: Int64, z: Int64), limitMilliG: Int64, axes: (x: Bool, y: Bool, z: Bool) = (true, true, true)) -> Bool {
        let limit = limitMilliG << 10
        guard limit > 0 else { return false }
        return (axes.x && abs(d.x) > limit) || (axes.y && abs(d.y) > limit) || (axes.z && abs(d.z) > limit)
    }
}

/// The simulated twins, one line per chip (a test checks every chip in the registry has one).
public enum SimulatedChips {
    public static var all: [any SimulatedChip.Type] { [SimMPU6050.self, SimADXL345.self, SimLIS3DH.self, SimLSM6DSO.self] }

    /// The twin of the chip a board names.
    public static func twin(of chip: String) -> (any SimulatedChip.Type)? { all.first { $0.chipInfo.name == chip } }
}

/// A twin's view of its motion: which source sample stands at each of its output data times
/// (source sample i at `sourceStart + (i + 1) × period`, the period the source's, or else the
/// chip's), the last one held while the data is frozen or until the next is due, none once the
/// motion is over. Shared by every twin, so that they all keep time alike.
public struct MotionTap {
    let source: MotionSource
    /// Sim time of source sample 0 minus one period, µs (set at the first sample made).
    public private(set) var sourceStart: Int64?
    var index = -1
    var last = Sample(t: 0, accel: Vec3(0, 0, 1000))
    /// When the next reading is made, sim µs.
    public internal(set) var nextAt: Int64 = 0
    /// Whether the motion has run out.
    public private(set) var exhausted = false
    /// Samples made.
    public private(set) var produced = 0

    public init(_ source: MotionSource) { self.source = source }

    /// The chip starts measuring at `now`: its first sample comes one period later.
    public mutating func start(now: Int64, period: Int64) { nextAt = now + period }

    /// Each sample due by `now`, in order, to `latch` (which puts it in the data registers or the
    /// FIFO). While `frozen`, the last one again.
    public mutating func due(by now: Int64, period: Int64, frozen: Bool, _ latch: (Sample) -> Void) {
        while nextAt <= now {
            if let s = sample(at: nextAt, period: period, frozen: frozen) { latch(s) }
            nextAt += period
        }
    }

    mutating func sample(at t: Int64, period chip: Int64, frozen: Bool) -> Sample? {
        let period = source.periodMicros ?? chip
        if sourceStart == nil { sourceStart = t - period }
        let target = Int((t - sourceStart!) / period) - 1
        if exhausted { return nil }   // the motion is over: no more samples
        if !frozen {
            while index < target {
                guard let s = source.next() else {
                    exhausted = true
                    return nil
                }
                last = s
                index += 1
            }
        }
        produced += 1
        return last
    }
}
