// Units used everywhere in the core. Every quantity is an integer; the unit is part of the name.
//
//   acceleration   milli-g (mg), 1 g = 1000 mg, gravity included.     Int32 per axis
//   rotation rate  milli-degrees per second (mdps), 1 °/s = 1000 mdps. Int32 per axis
//   time           microseconds (µs) on the source's own clock.        Int64
//
// Int32 per axis covers ±2,147 g and ±2,147,483 °/s, far past any supported range (±16 g,
// ±2000 °/s), so sums of squares of three axes at full scale fit an Int64 with room to spare:
// 3 × (16,000 mg)² ≈ 7.7e8, 3 × (2,000,000 mdps)² = 1.2e13.

/// A three-axis integer vector: milli-g for acceleration, milli-degrees per second for rotation.
public struct Vec3: Equatable, Sendable {
    public var x: Int32
    public var y: Int32
    public var z: Int32

    @inlinable
    public init(_ x: Int32, _ y: Int32, _ z: Int32) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vec3(0, 0, 0)

    // The per-sample arithmetic wraps instead of trapping: with readings bounded by the chip
    // (±16 g, ±2000 °/s) and by the trace parser (±1000 g) it never overflows, and a corrupt
    // reading must not stop the detectors. Squares and dot products of Int32 components fit an
    // Int64 for any reading below ±1.7 million units.

    /// Squared Euclidean length, in the square of the vector's unit.
    @inlinable @inline(__always)
    public var lengthSquared: Int64 {
        let x = Int64(x), y = Int64(y), z = Int64(z)
        return x &* x &+ y &* y &+ z &* z
    }

    /// The largest absolute component (the L∞ norm), in the vector's unit.
    @inlinable @inline(__always)
    public var maxAbs: Int32 {
        let ax = x.magnitude, ay = y.magnitude, az = z.magnitude
        return Int32(truncatingIfNeeded: max(ax, max(ay, az)))
    }

    /// Whether every component is within ±`limit` (`limit` ≥ 0): one unsigned comparison per
    /// axis, the cheap form of `maxAbs <= limit`.
    @inlinable @inline(__always)
    public func within(_ limit: Int32) -> Bool {
        let span = UInt32(bitPattern: limit) &* 2
        return UInt32(bitPattern: x &+ limit) <= span && UInt32(bitPattern: y &+ limit) <= span
            && UInt32(bitPattern: z &+ limit) <= span
    }

    /// Dot product, in the square of the vectors' unit.
    @inlinable @inline(__always)
    public func dot(_ o: Vec3) -> Int64 {
        Int64(x) &* Int64(o.x) &+ Int64(y) &* Int64(o.y) &+ Int64(z) &* Int64(o.z)
    }

    @inlinable @inline(__always)
    public static func - (a: Vec3, b: Vec3) -> Vec3 {
        Vec3(a.x &- b.x, a.y &- b.y, a.z &- b.z)
    }

    @inlinable @inline(__always)
    public static func + (a: Vec3, b: Vec3) -> Vec3 {
        Vec3(a.x &+ b.x, a.y &+ b.y, a.z &+ b.z)
    }
}

/// One reading of the sensor, in the core's integer units.
///
/// `accel` is in milli-g with gravity included; `gyro` in milli-degrees per second (all zero when
/// the chip has no gyroscope); `t` is the sample's time in microseconds on the source's clock.
public struct Sample: Equatable, Sendable {
    /// Time of the sample, microseconds.
    public var t: Int64
    /// Acceleration, milli-g, gravity included.
    public var accel: Vec3
    /// Rotation rate, milli-degrees per second; zero when there is no gyroscope.
    public var gyro: Vec3

    @inlinable
    public init(t: Int64, accel: Vec3, gyro: Vec3 = .zero) {
        self.t = t
        self.accel = accel
        self.gyro = gyro
    }
}

/// Conversions between physical settings (integers in convenient units) and the core's units.
public enum Units {
    /// Microseconds in one millisecond.
    public static let microsPerMilli: Int64 = 1000
    /// Microseconds in one second.
    public static let microsPerSecond: Int64 = 1_000_000

    /// The sample period in microseconds for an output data rate given in milli-hertz, rounded.
    /// 12.5 Hz = 12,500 mHz → 80,000 µs; 1 kHz = 1,000,000 mHz → 1,000 µs.
    @inlinable
    public static func periodMicros(rateMilliHz: Int32) -> Int64 {
        let r = Int64(max(rateMilliHz, 1))
        return (1_000_000_000 + r / 2) / r
    }
}
