import JoltCore
import JoltMotion

/// Where a simulated chip's readings come from: one physical sample (mg, mdps) per output data
/// period, in order.
public protocol MotionSource: AnyObject {
    /// The next reading, or nil when the motion is over (the chip then holds its last reading).
    func next() -> Sample?
    /// How far apart the samples stand, µs, when that is not the chip's own period: a chip that
    /// reads faster holds each sample for as many of its periods as it spans.
    var periodMicros: Int64? { get }
}

extension MotionSource {
    public var periodMicros: Int64? { nil }
}

/// Another source with its samples `periodMicros` apart: for a chip read faster than the
/// samples were made (an oversampled chip), which then reads each one again until the next is
/// due, and averages back the very samples the source gave.
public final class PacedSource: MotionSource {
    let base: MotionSource
    public let periodMicros: Int64?

    public init(_ base: MotionSource, periodMicros: Int64) {
        self.base = base
        self.periodMicros = periodMicros
    }

    public func next() -> Sample? { base.next() }
}

/// A fixed list of samples (a trace, or a generated script), optionally repeated.
public final class SampleListSource: MotionSource {
    let samples: [Sample]
    var index = 0
    let loop: Bool

    public init(_ samples: [Sample], loop: Bool = false) {
        self.samples = samples
        self.loop = loop
    }

    public func next() -> Sample? {
        if index >= samples.count {
            guard loop, !samples.isEmpty else { return nil }
            index = 0
        }
        index += 1
        return samples[index - 1]
    }
}

/// A source made chunk by chunk by a closure (for long or endless runs such as a soak).
public final class GeneratedSource: MotionSource {
    var buffer: [Sample] = []
    var index = 0
    let make: () -> [Sample]?

    /// `make` returns the next chunk, or nil when there is no more.
    public init(_ make: @escaping () -> [Sample]?) {
        self.make = make
    }

    public func next() -> Sample? {
        while index >= buffer.count {
            guard let chunk = make() else { return nil }
            buffer = chunk
            index = 0
        }
        index += 1
        return buffer[index - 1]
    }
}

/// The built-in motion scripts for the simulated board.
public enum MotionScript: String, CaseIterable, Sendable {
    /// Rest, a shake, rest, a flip face down, rest, and back face up (about 14 s).
    case demo
    /// Lies still.
    case rest
    /// A kiosk at rest for 12 s, then lifted, carried and tilted (for the alarm).
    case lift
    /// Rest, then a shake.
    case shake
    /// Rest, then a flip face down and back.
    case flip
    /// A minute of a kiosk's life on a shop counter, never stolen: customers tapping the
    /// screen, one leaning on it and one bumping it 6 mm along the counter, a door slammed, the
    /// building's vibration and hum (what `jolt tune` learns a site from).
    case shop

    /// The script's samples at `rateHz`.
    public func samples(rateHz: Double, seed: UInt64 = 7) -> [Sample] {
        var m = Motion(rate: rateHz, seed: seed)
        switch self {
        case .demo:
            m.rest(2)
            m.shake(freq: 4, amp: 2, axis: V3(1, 0.3, 0), seconds: 1.5, tremor: 0.3)
            m.rest(3)
            m.rotate(axis: V3(0, 1, 0), degrees: 180, seconds: 0.8)
            m.rest(3)
            m.rotate(axis: V3(0, 1, 0), degrees: -180, seconds: 0.8)
            m.rest(2.5)
        case .rest:
            m.rest(10)
        case .lift:
            m.rest(12)
            m.liftAndCarry()
            m.rest(3)
        case .shake:
            m.rest(2)
            m.shake(freq: 5, amp: 2.2, seconds: 1.5)
            m.rest(2)
        case .flip:
            m.rest(2)
            m.rotate(axis: V3(1, 0, 0), degrees: 180, seconds: 0.7)
            m.rest(3)
            m.rotate(axis: V3(1, 0, 0), degrees: -180, seconds: 0.7)
            m.rest(2)
        case .shop:
            return Self.shop(rateHz: rateHz, seed: seed)
        }
        return m.take()
    }

    /// The `shop` script: the kiosk scene's counter life, through its chip model.
    static func shop(rateHz: Double, seed: UInt64) -> [Sample] {
        var sc = Scene(rate: rateHz, seed: seed)
        let screen = V3(0.3, 1, 0.3).unit
        sc.rest(3)
        sc.taps(seconds: 12, screenNormal: screen)
        sc.rest(2)
        sc.lean(degrees: 0.7, hold: 5)
        sc.rest(2)
        // A customer's hip bumps the kiosk 6 mm along the counter.
        sc.slide(metres: 0.006, seconds: 0.4, jerks: 1, peak: 0.12, heading: 0.5)
        sc.rest(2)
        sc.counterShock(peak: 0.9, ringHz: 18, decay: 0.12)
        sc.rest(3)
        sc.building(seconds: 12, hum: true)
        sc.taps(seconds: 10, screenNormal: screen)
        sc.counterShock(peak: 0.6, ringHz: 30, decay: 0.06)
        sc.rest(5)
        return sc.samples
    }
}

/// Another source's samples with a constant added: a chip's zero-g offset and gyro bias, for
/// the simulated board (what `jolt calibrate` measures).
public final class BiasedSource: MotionSource {
    let base: MotionSource
    let accel: Vec3, gyro: Vec3

    public init(_ base: MotionSource, accel: Vec3, gyro: Vec3) {
        self.base = base
        self.accel = accel
        self.gyro = gyro
    }

    public func next() -> Sample? {
        guard var s = base.next() else { return nil }
        s.accel = s.accel + accel
        s.gyro = s.gyro + gyro
        return s
    }
}
