import Foundation
import JoltCore

/// A small deterministic random generator for test signals.
public struct SplitMix64 {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box-Muller).
    public mutating func normal() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// Builds test signals in physical units (g, °/s, s) and turns them into core samples.
public struct SignalBuilder {
    public let rate: Double
    public var t = 0.0
    /// Unit vector of gravity in device axes (face up: (0, 0, 1)).
    public var up = (x: 0.0, y: 0.0, z: 1.0)
    public var noise = 0.004
    public var clip: Double?
    public var rng = SplitMix64(state: 42)
    public var samples: [Sample] = []

    public init(rate: Double, seed: UInt64 = 42) {
        self.rate = rate
        rng = SplitMix64(state: seed)
    }

    public var dt: Double { 1 / rate }

    public mutating func emit(_ a: (Double, Double, Double), gyro: (Double, Double, Double) = (0, 0, 0)) {
        func q(_ v: Double) -> Int32 {
            var g = v + noise * rng.normal()
            if let c = clip { g = min(max(g, -c), c) }
            return Int32((g * 1000).rounded())
        }
        let s = Sample(t: Int64((t * 1e6).rounded()), accel: Vec3(q(a.0), q(a.1), q(a.2)),
                       gyro: Vec3(Int32((gyro.0 * 1000).rounded()), Int32((gyro.1 * 1000).rounded()), Int32((gyro.2 * 1000).rounded())))
        samples.append(s)
        t += dt
    }

    public mutating func rest(_ seconds: Double) {
        for _ in 0..<Int((seconds * rate).rounded()) { emit((up.x, up.y, up.z)) }
    }

    /// A sinusoidal shake: dynamic acceleration `amp` g along `axis` (normalised), at `freq` Hz,
    /// with a quarter-cycle ramp in and out.
    public mutating func shake(freq: Double, amp: Double, axis: (Double, Double, Double) = (1, 0, 0), seconds: Double, tremor: Double = 0) {
        let n = (axis.0 * axis.0 + axis.1 * axis.1 + axis.2 * axis.2).squareRoot()
        let ax = (axis.0 / n, axis.1 / n, axis.2 / n)
        let count = Int((seconds * rate).rounded())
        let ramp = 0.25 / freq
        var phase = 0.0
        for i in 0..<count {
            let tt = Double(i) / rate
            let env = min(1, tt / ramp, (seconds - tt) / ramp)
            phase += 2 * .pi * freq * (1 + tremor * rng.normal() * 0.1) / rate
            let d = amp * max(env, 0) * sin(phase)
            emit((up.x + d * ax.0, up.y + d * ax.1, up.z + d * ax.2))
        }
    }

    /// Rotates about `axis` (device frame, unit) by `degrees` over `seconds` (smooth), with
    /// matching gyro readings; gravity follows.
    public mutating func rotate(axis: (Double, Double, Double), degrees: Double, seconds: Double) {
        let count = max(Int((seconds * rate).rounded()), 1)
        let total = degrees * .pi / 180
        var done = 0.0
        for i in 1...count {
            let f = Double(i) / Double(count)
            let target = total * (1 - cos(.pi * f)) / 2
            let step = target - done
            done = target
            // Rotating the device by +θ about n turns the gravity vector, seen in device axes, by -θ.
            let (x, y, z) = Self.rotateVector(up, axis: axis, angle: -step)
            up = (x, y, z)
            let w = step * rate * 180 / .pi
            emit((up.x, up.y, up.z), gyro: (axis.0 * w, axis.1 * w, axis.2 * w))
        }
    }

    static func rotateVector(_ v: (x: Double, y: Double, z: Double), axis k: (Double, Double, Double), angle a: Double) -> (Double, Double, Double) {
        // Rodrigues' rotation formula.
        let c = cos(a), s = sin(a)
        let dot = v.x * k.0 + v.y * k.1 + v.z * k.2
        let cross = (k.1 * v.z - k.2 * v.y, k.2 * v.x - k.0 * v.z, k.0 * v.y - k.1 * v.x)
        return (v.x * c + cross.0 * s + k.0 * dot * (1 - c),
                v.y * c + cross.1 * s + k.1 * dot * (1 - c),
                v.z * c + cross.2 * s + k.2 * dot * (1 - c))
    }

    /// A knock on the table: a sharp spike that rings at `ringHz` and decays in `decay` s.
    public mutating func knock(peak: Double, ringHz: Double = 40, decay: Double = 0.03, axis: (Double, Double, Double) = (0, 0, 1)) {
        let count = Int((0.3 * rate).rounded())
        for i in 0..<count {
            let tt = Double(i) / rate
            let d = peak * exp(-tt / decay) * cos(2 * .pi * ringHz * tt)
            emit((up.x + d * axis.0, up.y + d * axis.1, up.z + d * axis.2))
        }
    }
}

/// The events a detector set raises over `samples`, with their times.
public func detect<D: SampleDetector>(_ d: inout D, _ samples: [Sample]) -> [(t: Int64, e: Events)] {
    var out: [(Int64, Events)] = []
    for s in samples {
        let e = d.update(s)
        if !e.isEmpty { out.append((s.t, e)) }
    }
    return out
}

public func settings(rate: Double, gyro: Bool = true, _ sensitivity: Sensitivity = .medium) -> DetectionSettings {
    DetectionSettings(sensitivity: sensitivity, rateMilliHz: Int32((rate * 1000).rounded()), gyro: gyro)
}

/// The package's root folder (where Package.swift is), found from this file's path.
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
    }
    return FileManager.default.currentDirectoryPath
}()

/// The real recordings committed with the package (Tests/Data, with their licence).
public let testData = packageRoot + "/Tests/Data"
