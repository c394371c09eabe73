#if canImport(Glibc)
import Glibc
#endif
import JoltCore

/// A small, fast, deterministic random generator (SplitMix64), so that every generated signal is
/// the same on every machine for the same seed.
public struct SplitMix64: Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// Uniform in [lo, hi).
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }

    /// Standard normal (Box-Muller).
    public mutating func normal() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// A 3-vector of doubles, for physical models (g, °/s).
public struct V3: Sendable, Equatable {
    public var x, y, z: Double
    public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    public static let zero = V3(0, 0, 0)
    public static func + (a: V3, b: V3) -> V3 { V3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: V3, b: V3) -> V3 { V3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: V3, k: Double) -> V3 { V3(a.x * k, a.y * k, a.z * k) }
    public var length: Double { (x * x + y * y + z * z).squareRoot() }
    public var unit: V3 { let l = length; return l > 0 ? self * (1 / l) : V3(0, 0, 1) }
    public func dot(_ o: V3) -> Double { x * o.x + y * o.y + z * o.z }
    public func cross(_ o: V3) -> V3 { V3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x) }

    /// Rotated about the unit axis `k` by `angle` radians (Rodrigues' formula).
    public func rotated(about k: V3, by angle: Double) -> V3 {
        let c = cos(angle), s = sin(angle)
        return self * c + k.cross(self) * s + k * (k.dot(self) * (1 - c))
    }
}

/// Builds motion as the sensor sees it: acceleration (g, gravity included) and rotation rate
/// (°/s) in the device's axes, sampled at a fixed rate, turned into core samples.
///
/// The device's orientation is kept as the gravity direction in device axes (`up`: face up is
/// (0, 0, 1)). Segments append to `samples`; `t` advances by one period per sample.
public struct Motion: Sendable {
    /// Output data rate, Hz.
    public let rate: Double
    /// Time of the next sample, s.
    public var t = 0.0
    /// Gravity's direction in device axes (unit vector; +1 g along it at rest).
    public var up = V3(0, 0, 1)
    /// Sensor noise, g (standard deviation per axis).
    public var noise = 0.004
    /// Gyro noise, °/s.
    public var gyroNoise = 0.05
    /// The chip's full-scale range, g: readings clip here (nil: no clipping).
    public var clip: Double?
    /// Random numbers for noise and variation.
    public var rng: SplitMix64
    /// The samples made so far.
    public var samples: [Sample] = []

    public init(rate: Double, seed: UInt64 = 1) {
        self.rate = rate
        rng = SplitMix64(seed: seed)
    }

    /// The sample period, s.
    public var dt: Double { 1 / rate }

    /// Emits one sample: acceleration `a` (g) and rotation rate `w` (°/s), plus noise.
    public mutating func emit(_ a: V3, _ w: V3 = .zero) {
        func mg(_ v: Double) -> Int32 {
            var g = v + noise * rng.normal()
            if let c = clip { g = min(max(g, -c), c) }
            return Int32((g * 1000).rounded())
        }
        func mdps(_ v: Double) -> Int32 { Int32(((v + gyroNoise * rng.normal()) * 1000).rounded()) }
        samples.append(Sample(t: Int64((t * 1e6).rounded()), accel: Vec3(mg(a.x), mg(a.y), mg(a.z)),
                              gyro: Vec3(mdps(w.x), mdps(w.y), mdps(w.z))))
        t += dt
    }

    /// Number of samples in `seconds`.
    public func count(_ seconds: Double) -> Int { max(Int((seconds * rate).rounded()), 0) }

    /// Lies still.
    public mutating func rest(_ seconds: Double) {
        for _ in 0..<count(seconds) { emit(up) }
    }

    /// Held in a hand: still but for a physiological tremor (8-12 Hz, a few mg) and slow drift.
    public mutating func hold(_ seconds: Double, tremor: Double = 0.01) {
        let f = rng.uniform(8, 12)
        let phase = rng.uniform(0, 6.28)
        for i in 0..<count(seconds) {
            let tt = Double(i) * dt
            let d = tremor * sin(2 * .pi * f * tt + phase)
            emit(up + V3(d, 0.7 * d, 0.3 * d))
        }
    }

    /// A deliberate shake: sinusoidal dynamic acceleration of `amp` g along `axis` at `freq` Hz,
    /// ramped in and out over a quarter cycle; `tremor` adds a shaky hand (frequency jitter and
    /// off-axis wobble, 0 to 1).
    public mutating func shake(freq: Double, amp: Double, axis: V3 = V3(1, 0, 0), seconds: Double, tremor: Double = 0) {
        let k = axis.unit
        let ramp = 0.25 / freq
        var phase = 0.0
        let n = count(seconds)
        for i in 0..<n {
            let tt = Double(i) * dt
            let env = max(0, min(1, tt / ramp, (seconds - tt) / ramp))
            phase += 2 * .pi * freq * (1 + tremor * 0.08 * rng.normal()) * dt
            let d = amp * env * sin(phase)
            let wobble = tremor > 0 ? V3(rng.normal(), rng.normal(), rng.normal()) * (0.05 * tremor * amp * env) : .zero
            // A hand shaking also twists the wrist a little: rotation rate in step with the shake.
            let w = k.cross(V3(0.3, 0.5, 0.8).unit) * (40 * amp * env * cos(phase))
            emit(up + k * d + wobble, w)
        }
    }

    /// Turns the device about `axis` (device frame) by `degrees` over `seconds`, with a smooth
    /// (raised-cosine) speed profile; gravity follows and the gyroscope reads the rate.
    public mutating func rotate(axis: V3, degrees: Double, seconds: Double) {
        let k = axis.unit
        let n = max(count(seconds), 1)
        let total = degrees * .pi / 180
        var done = 0.0
        for i in 1...n {
            let f = Double(i) / Double(n)
            let target = total * (1 - cos(.pi * f)) / 2
            let step = target - done
            done = target
            // Turning the device by +θ about k turns gravity, seen from the device, by -θ.
            up = up.rotated(about: k, by: -step)
            emit(up, k * (step * rate * 180 / .pi))
        }
    }

    /// A knock on the surface the device lies on: a spike of `peak` g that rings at `ringHz` and
    /// decays with time constant `decay` s, then 0.3 s of the same rest.
    public mutating func knock(peak: Double, ringHz: Double = 40, decay: Double = 0.03, axis: V3 = V3(0, 0, 1)) {
        let k = axis.unit
        for i in 0..<count(0.3) {
            let tt = Double(i) * dt
            emit(up + k * (peak * exp(-tt / decay) * cos(2 * .pi * ringHz * tt)))
        }
    }

    /// A kiosk being lifted (0.35 g up for 0.4 s, then a stop), carried at walking pace (a
    /// 1.8 Hz bounce of 0.15 g with a sway) for `carry` seconds, and set down tilted by 15°.
    public mutating func liftAndCarry(carry: Double = 4) {
        for i in 0..<count(0.6) {
            let tt = Double(i) * dt
            let a = tt < 0.4 ? 0.35 * sin(Double.pi * tt / 0.4) : -0.25 * sin(Double.pi * (tt - 0.4) / 0.2)
            emit(up * (1 + a))
        }
        for i in 0..<count(carry) {
            let tt = Double(i) * dt
            let bounce = 0.15 * sin(2 * Double.pi * 1.8 * tt)
            let sway = 0.05 * sin(2 * Double.pi * 0.9 * tt)
            emit(up * (1 + bounce) + V3(sway, 0, 0))
        }
        rotate(axis: V3(1, 0, 0), degrees: 15, seconds: 1)
    }

    /// Takes the samples made so far, leaving the builder empty (time and orientation continue).
    public mutating func take() -> [Sample] {
        defer { samples.removeAll(keepingCapacity: true) }
        return samples
    }
}
