/// The readings for which the detectors' updates would change nothing but what their `rest`
/// steps do (a time stamp, a running sum): a box of acceleration, a limit on rotation, and until
/// when it holds. Each detector narrows it from its own state after a full update
/// (`restBox`); while the next samples fall inside it, `DetectorSet` takes its rest path.
///
/// Bounds are Int32, as readings are. A bound worked out past the Int32 range (a centre within
/// a band of its end) wraps to the far side of the other bound, which empties the box: such a
/// sample takes the full path, whose events the rest path only ever repeats.
public struct RestBox: Sendable {
    public var lo: Vec3
    public var hi: Vec3
    /// Rotation, mdps, that every axis must stay within.
    public var rotation: Int32
    /// The samples before this time (µs) may take the rest path.
    public var until: Int64

    /// Every reading, for ever.
    @inlinable
    public init() {
        lo = Vec3(.min, .min, .min)
        hi = Vec3(.max, .max, .max)
        rotation = 1 << 30
        until = .max
    }

    /// No reading.
    public static var none: RestBox {
        var b = RestBox()
        b.until = .min
        return b
    }

    /// Keeps the readings within `band` (≥ 0) of `center` on every axis.
    @inlinable @inline(__always)
    public mutating func limit(around center: Vec3, within band: Int32) {
        limit(lo: center - Vec3(band, band, band), hi: center + Vec3(band, band, band))
    }

    /// Keeps the readings within [`lo`, `hi`] on every axis.
    @inlinable @inline(__always)
    public mutating func limit(lo l: Vec3, hi h: Vec3) {
        lo = Vec3(Swift.max(lo.x, l.x), Swift.max(lo.y, l.y), Swift.max(lo.z, l.z))
        hi = Vec3(Swift.min(hi.x, h.x), Swift.min(hi.y, h.y), Swift.min(hi.z, h.z))
    }

    /// Keeps the readings whose z is at least `lo` and at most `hi`.
    @inlinable @inline(__always)
    public mutating func limitZ(lo l: Int32 = .min, hi h: Int32 = .max) {
        lo.z = Swift.max(lo.z, l)
        hi.z = Swift.min(hi.z, h)
    }

    /// Keeps the rotation within ±`limit` mdps on every axis.
    @inlinable @inline(__always)
    public mutating func limitRotation(_ limit: Int32) { rotation = Swift.min(rotation, Swift.max(limit, 0)) }

    /// Keeps the samples before `t`, µs.
    @inlinable @inline(__always)
    public mutating func limitTime(_ t: Int64) { until = Swift.min(until, t) }

    /// Whether no reading is left.
    @inlinable
    public var isEmpty: Bool { lo.x > hi.x || lo.y > hi.y || lo.z > hi.z || until == .min }
}

/// A `RestBox` in the form the per-sample test wants: one subtraction and one unsigned
/// comparison per axis of acceleration, one mask test for the three of rotation, and the time.
///
/// The rotation test keeps every axis within [-2^k, 2^k), the largest such range inside the
/// box's limit: the gate may admit fewer samples than the box holds, never more.
public struct RestGate: Sendable {
    @usableFromInline var lo: Vec3 = .zero
    @usableFromInline var span: (x: UInt32, y: UInt32, z: UInt32) = (0, 0, 0)
    @usableFromInline var rotationBias: Int32 = 0
    @usableFromInline var rotationMask: UInt32 = ~0
    /// The samples before this time (µs) take the rest path; .min when closed.
    @usableFromInline var until: Int64 = .min

    /// A closed gate: no sample takes the rest path.
    @inlinable public init() {}

    /// The gate for `box` (closed when it is empty).
    @inlinable @inline(never)
    public init(_ box: RestBox) {
        guard !box.isEmpty else { return }
        // Not empty, so hi ≥ lo on every axis and the span fits a UInt32.
        lo = box.lo
        span = (UInt32(bitPattern: box.hi.x &- box.lo.x), UInt32(bitPattern: box.hi.y &- box.lo.y),
                UInt32(bitPattern: box.hi.z &- box.lo.z))
        if box.rotation > 0 {
            let k = Swift.min(31 - Int32(box.rotation.leadingZeroBitCount), 30)   // 2^k ≤ rotation
            rotationBias = 1 << k
            rotationMask = ~((UInt32(2) << UInt32(k)) &- 1)
        }
        until = box.until
    }

    /// Whether the gate is open.
    @inlinable public var isOpen: Bool { until != .min }

    /// Whether `s` is in the box (taking the rest path if its time is also before `until`).
    @inlinable @inline(__always)
    public func holds(_ s: Sample) -> Bool {
        let a = s.accel, w = s.gyro, b = rotationBias
        guard UInt32(bitPattern: a.x &- lo.x) <= span.x && UInt32(bitPattern: a.y &- lo.y) <= span.y
            && UInt32(bitPattern: a.z &- lo.z) <= span.z
            && (UInt32(bitPattern: w.x &+ b) | UInt32(bitPattern: w.y &+ b) | UInt32(bitPattern: w.z &+ b)) & rotationMask == 0
        else { return false }
        return true
    }

    /// Closes the gate.
    @inlinable public mutating func close() { until = .min }
}
