/// Oversampling for the slow output rates: the chip is read `factor` times faster than the
/// detectors run, through the low-pass filter chosen for the detectors' rate, and each run of
/// `factor` readings is averaged into one sample.
///
/// Why: below 50 Hz a counter ringing near the output rate (a door slam rings it at 6–40 Hz) is
/// folded by the sampling onto 0–5 Hz, where it looks like a shove: the chip's low-pass leaves
/// 0.07–0.36 g of a 20–28 Hz ring at 25 Hz. An average of `k` readings taken at `k × rate` has
/// its zeros at every multiple of the output rate — exactly the frequencies that fold onto zero
/// — so a 20–28 Hz ring is cut a further 4–25× before the detectors see it, while a shake at
/// 7.5 Hz keeps 87 % of its size (a boxcar of 4 at 100 Hz: |H(f)| = |sin(4πf/100) / (4 sin(πf/100))|).
///
/// A reading at the end of the chip's range is no measurement of the size, only a sign that the
/// motion went past it: on an axis where a reading of the run came within 2 % of full scale,
/// the sample is that reading (the largest), not the mean, so that the shake detector still sees
/// a clipped stroke as clipped (its `clipLevel`).
///
/// Integers only: the sums are `Int64`, the mean rounds half up (an arithmetic shift, so a
/// reading of −0.5 LSB rounds as +0.5 does, the same way on every CPU).
public struct Oversampler: Sendable {
    /// log2 of the readings per sample.
    public let shift: Int32
    /// Readings this far from zero or further are clipped, mg.
    public let clipLevel: Int32
    @usableFromInline var ax: Int64 = 0, ay: Int64 = 0, az: Int64 = 0
    @usableFromInline var gx: Int64 = 0, gy: Int64 = 0, gz: Int64 = 0
    /// The clipped reading of largest size on each axis in this run (0: none).
    @usableFromInline var cx: Int32 = 0, cy: Int32 = 0, cz: Int32 = 0
    @usableFromInline var count: Int32 = 0

    /// The lowest rate at which the chip is read when oversampling, mHz.
    public static let chipMilliHz: Int32 = 100_000
    /// Output rates below this are oversampled, mHz; from 50 Hz up a ring that folds onto zero
    /// is one past the chip's low-pass, and the chip is read at the output rate.
    public static let belowMilliHz: Int32 = 50_000

    /// How many readings make a sample at an output rate of `rateMilliHz`: 1 from 50 Hz up;
    /// below, the smallest power of two that reads the chip at 100 Hz or more (25 Hz: 4,
    /// 12.5 Hz: 8).
    public static func factor(rateMilliHz: Int32) -> Int32 {
        guard rateMilliHz > 0, rateMilliHz < belowMilliHz else { return 1 }
        var k: Int32 = 1
        while Int64(rateMilliHz) * Int64(k) < Int64(chipMilliHz) && k < 64 { k <<= 1 }
        return k
    }

    /// An oversampler averaging `factor` readings (a power of two from 1 to 64; others are
    /// taken as the power of two below) of a chip whose full scale is `rangeMilliG` (0: unknown,
    /// nothing counts as clipped).
    public init(factor: Int32, rangeMilliG: Int32 = 0) {
        var s: Int32 = 0
        while s < 6 && (Int32(1) << (s + 1)) <= factor { s += 1 }
        shift = s
        clipLevel = rangeMilliG > 0 ? rangeMilliG - rangeMilliG / 50 : .max
    }

    /// Readings per sample.
    public var factor: Int32 { Int32(1) << shift }

    /// Readings taken towards the next sample.
    public var pending: Int32 { count }

    /// Forgets a partial run (after a break in the data).
    public mutating func clear() {
        ax = 0; ay = 0; az = 0; gx = 0; gy = 0; gz = 0
        cx = 0; cy = 0; cz = 0
        count = 0
    }

    /// Adds one reading; returns the mean when it completes a run of `factor`.
    @inlinable
    public mutating func add(accel a: Vec3, gyro g: Vec3) -> (accel: Vec3, gyro: Vec3)? {
        ax &+= Int64(a.x); ay &+= Int64(a.y); az &+= Int64(a.z)
        gx &+= Int64(g.x); gy &+= Int64(g.y); gz &+= Int64(g.z)
        Self.keepClipped(a.x, &cx, clipLevel)
        Self.keepClipped(a.y, &cy, clipLevel)
        Self.keepClipped(a.z, &cz, clipLevel)
        count &+= 1
        guard count >= Int32(1) << shift else { return nil }
        let s = Int64(shift), half: Int64 = (1 << s) >> 1
        func mean(_ v: Int64) -> Int32 { Int32(truncatingIfNeeded: (v &+ half) >> s) }
        let accel = Vec3(cx != 0 ? cx : mean(ax), cy != 0 ? cy : mean(ay), cz != 0 ? cz : mean(az))
        let out = (accel, Vec3(mean(gx), mean(gy), mean(gz)))
        clear()
        return out
    }

    /// Keeps `v` in `kept` when it is clipped and larger than what is kept.
    @inlinable @inline(__always)
    static func keepClipped(_ v: Int32, _ kept: inout Int32, _ level: Int32) {
        let m = v.magnitude
        if m >= level.magnitude && m > kept.magnitude { kept = v }
    }
}
