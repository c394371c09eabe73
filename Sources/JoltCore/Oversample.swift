/// Oversampling for the slow output rates: the chip is read `factor` times faster than the
/// detectors run, and its readings are filtered down to one sample a run.
///
/// Why: below 50 Hz a counter ringing near the output rate (a door slam rings it at 6–40 Hz) is
/// folded by the sampling onto 0–5 Hz, where the tamper detector reads it as a shove: the chip's
/// low-pass leaves 0.07–0.36 g of a 20–28 Hz ring at 25 Hz. The filter is a triangle over this
/// run and the last (weights 1, 2, …, k, …, 2, 1 over k²: two plain means in a row). A plain mean
/// of each run has one zero at the output rate, but the tamper detector integrates the samples
/// into a velocity, and a ring whose size rises and dies still leaves that sum one-signed (48–63
/// mg·samples for a 300 mg ring at 20–30 Hz); the triangle's double zero leaves 1–17. Its cost:
/// about 30 ms of delay at 25 Hz, and a 7.5 Hz shake keeps 76 % of its size, which
/// is why only a board whose alarm watches for tamper is read this way (`ChipSensor`).
///
/// A reading at the end of the chip's range is no measurement of the size, only a sign that the
/// motion went past it: on an axis where a reading of the run came within 2 % of full scale,
/// the sample is that reading (the largest), not the filter's output, so that the shake detector
/// still sees a clipped stroke as clipped (its `clipLevel`). The first run after a clear (a
/// start, a break in the data) is its plain mean.
///
/// Integers only: the sums are `Int64`, results round half up (an arithmetic shift, so −0.5 LSB
/// rounds as +0.5 does, the same way on every CPU).
public struct Oversampler: Sendable {
    /// One axis of a run: its readings' sum, their sum weighted by place (0 for the first), and
    /// the last run's weighted sum.
    @usableFromInline
    struct Channel: Sendable {
        @usableFromInline var sum: Int64 = 0
        @usableFromInline var weighted: Int64 = 0
        @usableFromInline var lastWeighted: Int64 = 0

        @usableFromInline init() {}

        @inlinable @inline(__always)
        mutating func add(_ v: Int32, at i: Int64) {
            sum &+= Int64(v)
            weighted &+= i &* Int64(v)
        }

        /// The triangle over this run and the last, `(k·Σr − Σi·r + Σi·r_last) / k²` rounded
        /// half up; with no last run (`fresh`), this run's plain mean (the last run's weighted
        /// sum taken as this one's). Starts the next run.
        @inlinable @inline(__always)
        mutating func end(shift: Int64, fresh: Bool) -> Int32 {
            if fresh { lastWeighted = weighted }
            let v = (sum &<< shift) &- weighted &+ lastWeighted
            lastWeighted = weighted
            sum = 0
            weighted = 0
            return Int32(truncatingIfNeeded: (v &+ ((1 << (2 * shift)) >> 1)) >> (2 * shift))
        }
    }

    /// Three axes of a run.
    @usableFromInline
    struct Channels: Sendable {
        @usableFromInline var x = Channel(), y = Channel(), z = Channel()

        @usableFromInline init() {}

        @inlinable @inline(__always)
        mutating func add(_ v: Vec3, at i: Int64) {
            x.add(v.x, at: i); y.add(v.y, at: i); z.add(v.z, at: i)
        }

        @inlinable @inline(__always)
        mutating func end(shift: Int64, fresh: Bool) -> Vec3 {
            Vec3(x.end(shift: shift, fresh: fresh), y.end(shift: shift, fresh: fresh), z.end(shift: shift, fresh: fresh))
        }
    }

    /// log2 of the readings per sample.
    public let shift: Int32
    /// Readings this far from zero or further are clipped, mg.
    public let clipLevel: Int32
    @usableFromInline var accel = Channels()
    @usableFromInline var gyro = Channels()
    /// Whether the last run is known (not since a clear).
    @usableFromInline var hasLast = false
    /// The clipped reading of largest size on each axis in this run (0: none).
    @usableFromInline var clipped = Vec3.zero
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

    /// An oversampler filtering runs of `factor` readings (a power of two from 1 to 64; others
    /// are taken as the power of two below) of a chip whose full scale is `rangeMilliG` (0:
    /// unknown, nothing counts as clipped).
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

    /// Forgets a partial run and the last one (after a break in the data).
    public mutating func clear() {
        accel = Channels()
        gyro = Channels()
        clipped = .zero
        count = 0
        hasLast = false
    }

    /// Adds one reading; returns the sample when it completes a run of `factor`.
    @inlinable
    public mutating func add(accel a: Vec3, gyro g: Vec3) -> (accel: Vec3, gyro: Vec3)? {
        let i = Int64(count)
        accel.add(a, at: i)
        gyro.add(g, at: i)
        Self.keepClipped(a.x, &clipped.x, clipLevel)
        Self.keepClipped(a.y, &clipped.y, clipLevel)
        Self.keepClipped(a.z, &clipped.z, clipLevel)
        count &+= 1
        guard count >= Int32(1) << shift else { return nil }
        let s = Int64(shift), fresh = !hasLast
        let f = accel.end(shift: s, fresh: fresh)
        let out = (accel: Vec3(clipped.x != 0 ? clipped.x : f.x, clipped.y != 0 ? clipped.y : f.y, clipped.z != 0 ? clipped.z : f.z),
                   gyro: gyro.end(shift: s, fresh: fresh))
        hasLast = true
        clipped = .zero
        count = 0
        return out
    }

    /// Keeps `v` in `kept` when it is clipped and larger than what is kept.
    @inlinable @inline(__always)
    static func keepClipped(_ v: Int32, _ kept: inout Int32, _ level: Int32) {
        let m = v.magnitude
        if m >= level.magnitude && m > kept.magnitude { kept = v }
    }
}
