#if canImport(Glibc)
import Glibc
#endif
import JoltCore

/// A 3×3 rotation matrix: device axes → world axes (columns are the device axes in world
/// coordinates). World z points up.
public struct Mat3: Sendable, Equatable {
    public var c0, c1, c2: V3
    public static let identity = Mat3(c0: V3(1, 0, 0), c1: V3(0, 1, 0), c2: V3(0, 0, 1))

    /// Device vector → world.
    public func apply(_ v: V3) -> V3 { c0 * v.x + c1 * v.y + c2 * v.z }
    /// World vector → device.
    public func applyInverse(_ v: V3) -> V3 { V3(c0.dot(v), c1.dot(v), c2.dot(v)) }

    /// Turned by the device-frame rotation vector `w` (radians): R ← R·exp([w]×).
    public func rotated(byDevice w: V3) -> Mat3 {
        let angle = w.length
        guard angle > 1e-12 else { return self }
        let k = w * (1 / angle)
        var m = Mat3(c0: apply(V3(1, 0, 0).rotated(about: k, by: angle)),
                     c1: apply(V3(0, 1, 0).rotated(about: k, by: angle)),
                     c2: apply(V3(0, 0, 1).rotated(about: k, by: angle)))
        m.orthonormalize()
        return m
    }

    mutating func orthonormalize() {
        c0 = c0.unit
        c1 = (c1 - c0 * c0.dot(c1)).unit
        c2 = c0.cross(c1)
    }

    /// A rotation taking the device's z axis to `up` (world), with a twist `yaw` about it.
    public static func facing(_ zWorld: V3, yaw: Double = 0) -> Mat3 {
        let z = zWorld.unit
        var x = abs(z.z) < 0.9 ? V3(0, 0, 1).cross(z).unit : V3(1, 0, 0)
        x = x.rotated(about: z, by: yaw)
        let y = z.cross(x)
        return Mat3(c0: x, c1: y, c2: z)
    }
}

/// A second-order Butterworth low-pass (bilinear transform), the sensor's digital low-pass
/// filter in the model.
struct Biquad: Sendable {
    let b0, b1, b2, a1, a2: Double
    var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(cutoff: Double, rate: Double) {
        let k = tan(Double.pi * min(cutoff, rate * 0.45) / rate)
        let q = 1 / 2.0.squareRoot()
        let norm = 1 / (1 + k / q + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - k / q + k * k) * norm
    }

    mutating func prime(_ v: Double) { x1 = v; x2 = v; y1 = v; y2 = v }

    mutating func step(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x; y2 = y1; y1 = y
        return y
    }
}

/// A physical scene: a device moving in the world, simulated at 2 kHz and seen through a sensor
/// model — the chip's low-pass filter (as an MPU6050 picks its DLPF for the output rate), white
/// noise, clipping at the full-scale range, 1 mg and 1 m°/s resolution — sampled at the output
/// data rate.
///
/// The accelerometer reads specific force in device axes: `Rᵀ·(a + ẑ)` in g (world z up, so a
/// device at rest face up reads +1 g on z). The gyroscope reads the angular velocity in device
/// axes, °/s.
public struct Scene: Sendable {
    /// Internal simulation rate, Hz: 2 kHz unless an output rate needs more (800 Hz: 4 kHz).
    public let physicsRate: Double
    /// Output data rate, Hz (must divide 2000).
    public let rate: Double
    let decimation: Int
    /// The device's orientation (device → world).
    public var orientation = Mat3.identity
    /// Full-scale range, g.
    public var range: Double
    /// Accelerometer noise, g RMS per axis (after the filter).
    public var noise = 0.004
    /// Gyroscope noise, °/s RMS.
    public var gyroNoise = 0.05
    /// Random numbers.
    public var rng: SplitMix64
    /// Readings per output sample when the scene stands for an oversampled chip (the engine
    /// filters runs of this many down to one): only the first of each run draws its noise from `rng`, the
    /// others from `noiseRng`, so that the scene draws the very gestures it would at the output
    /// rate, and a corpus read both ways can be compared draw for draw.
    public var oversampling = 1
    var noiseRng: SplitMix64
    /// Physics steps so far.
    public private(set) var step = 0
    var filters: [Biquad]
    var primed = false
    /// The samples so far.
    public var samples: [Sample] = []
    /// Where the device is and how fast it goes, world axes, m and m/s, from the accelerations
    /// it was moved with (what a test of the scene's physics checks).
    public private(set) var velocity = V3(0, 0, 0), position = V3(0, 0, 0)

    /// A scene sampled at `rate`; `bandwidth` (Hz) sets the chip's low-pass, else it is chosen
    /// for the rate as an MPU6050's DLPF is (the widest below half the rate).
    public init(rate: Double, seed: UInt64, range: Double = 8, bandwidth: Double? = nil) {
        self.rate = rate
        // The simulation runs at a whole multiple of the output rate: 2 kHz, or 4 kHz for rates
        // that do not divide 2 kHz (800 Hz).
        let physics = 2000.0.truncatingRemainder(dividingBy: rate) == 0 ? 2000.0 : 4000.0
        physicsRate = physics
        decimation = max(Int((physics / rate).rounded()), 1)
        self.range = range
        rng = SplitMix64(seed: seed)
        noiseRng = SplitMix64(seed: seed ^ 0x6E6F_6973_6520_3221)
        // Bandwidth as the MPU6050's DLPF would be chosen: the widest below half the rate.
        let bw = bandwidth ?? Scene.bandwidth(rate: rate)
        filters = (0..<6).map { _ in Biquad(cutoff: bw, rate: physics) }
    }

    /// The MPU6050's DLPF bandwidth for an output rate, Hz: the widest below half the rate.
    public static func bandwidth(rate: Double) -> Double {
        [184.0, 94, 44, 21, 10, 5].first { $0 <= rate / 2 } ?? 5
    }

    /// Time now, s.
    public var time: Double { Double(step) / physicsRate }
    /// The physics time step, s.
    public var dt: Double { 1 / physicsRate }

    /// Advances one physics step with world acceleration `a` (g, gravity excluded) and device
    /// angular velocity `w` (rad/s, device axes); the orientation turns by `w·dt`.
    public mutating func advance(a: V3, w: V3) {
        let f = orientation.applyInverse(a + V3(0, 0, 1))
        let degrees = w * (180 / Double.pi)
        // The six channels (a in g, ω in °/s) in one fixed-size value; the last two lanes unused.
        let raw = SIMD8<Double>(f.x, f.y, f.z, degrees.x, degrees.y, degrees.z, 0, 0)
        if !primed {
            for i in 0..<6 { filters[i].prime(raw[i]) }
            primed = true
        }
        var out = SIMD8<Double>()
        for i in 0..<6 { out[i] = filters[i].step(raw[i]) }
        if step % decimation == 0 {
            let primary = (step / decimation) % oversampling == 0
            func normal() -> Double { primary ? rng.normal() : noiseRng.normal() }
            func mg(_ v: Double) -> Int32 { Int32((min(max(v + noise * normal(), -range), range) * 1000).rounded()) }
            func mdps(_ v: Double) -> Int32 { Int32((min(max(v + gyroNoise * normal(), -2000), 2000) * 1000).rounded()) }
            samples.append(Sample(t: Int64((Double(step / decimation) / rate * 1e6).rounded()),
                                  accel: Vec3(mg(out[0]), mg(out[1]), mg(out[2])),
                                  gyro: Vec3(mdps(out[3]), mdps(out[4]), mdps(out[5]))))
        }
        orientation = orientation.rotated(byDevice: w * dt)
        velocity = velocity + a * (9.80665 * dt)
        position = position + velocity * dt
        step += 1
    }

    /// Steps for `seconds`.
    public func steps(_ seconds: Double) -> Int { max(Int((seconds * physicsRate).rounded()), 0) }

    /// Lies still on a table.
    public mutating func rest(_ seconds: Double) {
        for _ in 0..<steps(seconds) { advance(a: .zero, w: .zero) }
    }

    /// Held in a hand: physiological tremor (8–12 Hz, `tremor` g) and a slow wobble of the wrist
    /// (a few degrees).
    public mutating func hold(_ seconds: Double, tremor: Double = 0.015) {
        let f = rng.uniform(8, 12), p = rng.uniform(0, 6.3)
        let wf = rng.uniform(0.2, 0.6), wp = rng.uniform(0, 6.3)
        let axis = V3(rng.normal(), rng.normal(), 0.3 * rng.normal()).unit
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            let a = V3(sin(2 * .pi * f * t + p), sin(2 * .pi * f * t + p + 1.3), 0.5 * sin(2 * .pi * f * t + p + 2.1)) * tremor
            let w = axis * (0.05 * sin(2 * .pi * wf * t + wp))
            advance(a: a, w: w)
        }
    }
}
