/// How the chip sits in the enclosure: which chip axis (and sign) is each board axis, and the
/// offsets measured at calibration. Applied to every sample before the detectors, so that
/// "face down" means the kiosk's face.
public struct Mount: Equatable, Sendable {
    /// For board axes x, y, z: the chip axis (0, 1, 2) it reads.
    public let source: (UInt8, UInt8, UInt8)
    /// For board axes x, y, z: +1 or -1.
    public let sign: (Int32, Int32, Int32)
    /// Subtracted from the chip's acceleration before mapping, mg (chip frame).
    public var accelOffset: Vec3
    /// Subtracted from the chip's rotation rate before mapping, mdps (chip frame).
    public var gyroOffset: Vec3

    /// The chip's axes as they are.
    public static let identity = Mount(source: (0, 1, 2), sign: (1, 1, 1))!

    /// A mount from a permutation and signs; nil unless `source` is a permutation of 0, 1, 2,
    /// every sign is ±1 and the mapping is a rotation (determinant +1), not a mirror image.
    public init?(source: (UInt8, UInt8, UInt8), sign: (Int32, Int32, Int32),
                 accelOffset: Vec3 = .zero, gyroOffset: Vec3 = .zero) {
        let s = [source.0, source.1, source.2]
        guard s.contains(0), s.contains(1), s.contains(2) else { return nil }
        for v in [sign.0, sign.1, sign.2] where v != 1 && v != -1 { return nil }
        // Determinant of a signed permutation: the permutation's parity times the signs.
        var inversions = 0
        if s[0] > s[1] { inversions += 1 }
        if s[0] > s[2] { inversions += 1 }
        if s[1] > s[2] { inversions += 1 }
        let parity: Int32 = inversions % 2 == 0 ? 1 : -1
        guard parity * sign.0 * sign.1 * sign.2 == 1 else { return nil }
        self.source = source
        self.sign = sign
        self.accelOffset = accelOffset
        self.gyroOffset = gyroOffset
    }

    public static func == (a: Mount, b: Mount) -> Bool {
        a.source == b.source && a.sign == b.sign && a.accelOffset == b.accelOffset && a.gyroOffset == b.gyroOffset
    }

    @inlinable
    func map(_ v: Vec3) -> Vec3 {
        @inline(__always) func pick(_ i: UInt8) -> Int32 { i == 0 ? v.x : (i == 1 ? v.y : v.z) }
        return Vec3(pick(source.0) * sign.0, pick(source.1) * sign.1, pick(source.2) * sign.2)
    }

    /// The sample in board axes, offsets removed.
    @inlinable
    public func apply(_ s: Sample) -> Sample {
        Sample(t: s.t, accel: map(s.accel - accelOffset), gyro: map(s.gyro - gyroOffset))
    }
}
