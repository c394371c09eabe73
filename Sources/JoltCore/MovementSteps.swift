/// The turn across gravity, the despiking of readings that may fold a tap into a spike, and the
/// per-axis steps of `Movement` (docs/detection.md, "Tamper").
extension Movement {
    /// Whether the reading has turned away from the baseline across gravity by more than
    /// `turnMilliG`, the same way, for `turnMicros`: the start of a tilt, long before it reaches
    /// the tilt angle. Only the part across gravity counts (a tilt turns gravity sideways; the
    /// floor shakes the kiosk up and down); it is low-passed so that a tap's push and give-back
    /// cancel.
    @inlinable
    mutating func turning(_ t: Int64, _ rx: Int64, _ ry: Int64, _ rz: Int64) -> Bool {
        let lim = Self.lim
        let ex = Swift.min(Swift.max(rx, -lim), lim), ey = Swift.min(Swift.max(ry, -lim), lim), ez = Swift.min(Swift.max(rz, -lim), lim)
        var px = ex, py = ey, pz = ez
        if ex | ey | ez != 0 && g2 != 0 {
            // e − g·(e·g)/|g|², with (e·g)/|g|² in Q16. With every component within 2·10^6 mg,
            // and a baseline under 0.5 g (a kiosk in free fall: the movement catches it) not
            // used, the quotient stays below 2^29 and every product below 2^51.
            let q = ((ex &* gx &+ ey &* gy &+ ez &* gz) << 16) / g2
            px = ex &- (gx &* q) / (1 << 16); py = ey &- (gy &* q) / (1 << 16); pz = ez &- (gz &* q) / (1 << 16)
        }
        let lp = Int64(lpQ16)
        lx = Self.ease(lx, px << 8, lp); ly = Self.ease(ly, py << 8, lp); lz = Self.ease(lz, pz << 8, lp)
        let k: Int64 = Self.turnMilliG << 8
        let l2: Int64 = lx &* lx &+ ly &* ly &+ lz &* lz
        guard l2 > k * k else {
            turnSince = .min
            return false
        }
        if turnSince == .min || lx &* Int64(tx) &+ ly &* Int64(ty) &+ lz &* Int64(tz) <= 0 {
            turnSince = t
            tx = Int32(truncatingIfNeeded: lx); ty = Int32(truncatingIfNeeded: ly); tz = Int32(truncatingIfNeeded: lz)
        }
        return t - turnSince >= Self.turnMicros
    }

    /// Sets the baseline as the turn uses it (`gx`, `gy`, `gz`, `g2`), after it moved: within
    /// ±`lim` on every axis, and `g2` 0 (no gravity to turn across) under 0.5 g. Not inlined:
    /// it runs once every 2 s.
    @inlinable @inline(never)
    mutating func across() {
        let lim = Self.lim
        gx = Swift.min(Swift.max(bx >> 16, -lim), lim)
        gy = Swift.min(Swift.max(by >> 16, -lim), lim)
        gz = Swift.min(Swift.max(bz >> 16, -lim), lim)
        let n = gx &* gx &+ gy &* gy &+ gz &* gz
        g2 = n >= 250_000 ? n : 0
    }

    /// One step of the turn's low-pass from `l` toward `target` (Q8), at least one unit, so
    /// that it settles exactly.
    /// (Static, so that a call does not copy the detector.)
    @inlinable
    static func ease(_ l: Int64, _ target: Int64, _ lpQ16: Int64) -> Int64 {
        let d = target &- l
        if d == 0 { return l }
        let step = d &* lpQ16 / (1 << 16)
        return l &+ (step != 0 ? step : (d > 0 ? 1 : -1))
    }

    /// One step of an axis's leaky velocity: the acceleration past the dead zone times the
    /// period, less the leak (rounded half away from zero, and at least 1 so that a velocity
    /// left alone reaches zero), kept within ±10 m/s.
    @inlinable
    static func step(_ v: Int64, _ e: Int64, _ d: Int64, _ period: Int64, _ leakQ16: Int64) -> Int64 {
        let past = e > d ? e &- d : (e < -d ? e &+ d : 0)
        let leak = v > 0 ? Swift.max((v &* leakQ16 &+ (1 << 15)) >> 16, 1) : (v < 0 ? 0 &- Swift.max(((0 &- v) &* leakQ16 &+ (1 << 15)) >> 16, 1) : 0)
        return Swift.min(Swift.max(v &+ past &* period &- leak, -Self.limit), Self.limit)
    }

    /// Whether an axis's deviation crossed from past `ringMilliG` on one side to past it on the
    /// other.
    @inlinable @inline(__always)
    mutating func reversed(_ ex: Int64, _ ey: Int64, _ ez: Int64) -> Bool {
        let d = ringMilliG
        let fx = Self.crossed(&sx, ex, d), fy = Self.crossed(&sy, ey, d), fz = Self.crossed(&sz, ez, d)
        return fx || fy || fz
    }

    /// One axis of `reversed`: whether `e` is past `d` on the other side from the last reading
    /// that was (`side`, which it then becomes).
    @inlinable
    static func crossed(_ side: inout Int8, _ e: Int64, _ d: Int64) -> Bool {
        let n: Int8 = e > d ? 1 : (e < -d ? -1 : 0)
        guard n != 0 else { return false }
        defer { side = n }
        return side == -n
    }

    /// The deviation the velocity takes for this reading's (`x`, `y`, `z`, `quiet`: with a
    /// gyroscope, what the kiosk's rotation does not explain), and whether it is quiet. With a
    /// gyroscope, low-passed (`smoothed`); at 50 Hz and below in another tool's trace, despiked;
    /// otherwise as it is. (A chip read fine is never despiked, and one despiked has no rotation
    /// to take off.)
    @inlinable @inline(__always)
    mutating func taken(_ x: Int64, _ y: Int64, _ z: Int64, _ quiet: Bool) -> (Int64, Int64, Int64, Bool) {
        if despike { return despiked(x, y, z, quiet) }
        guard fine else { return (x, y, z, quiet) }
        let (mx, my, mz) = smoothed(x, y, z)
        return (mx, my, mz, quiet)
    }

    /// The deviation the velocity takes for this reading's (`x`, `y`, `z`, `quiet`): the one a
    /// sample back (two with `pairs`), 0 on an axis where it is a spike, and whether it was
    /// quiet. Out of line: only traces another tool recorded take it, and Jolt's own path stays
    /// short.
    @inlinable @inline(never)
    mutating func despiked(_ x: Int64, _ y: Int64, _ z: Int64, _ quiet: Bool) -> (Int64, Int64, Int64, Bool) {
        let ex = Int32(truncatingIfNeeded: x), ey = Int32(truncatingIfNeeded: y), ez = Int32(truncatingIfNeeded: z)
        let out: (Int64, Int64, Int64, Bool)
        if pairs {
            out = (Self.unlessPair(px4, px3, px2, px1, ex), Self.unlessPair(py4, py3, py2, py1, ey),
                   Self.unlessPair(pz4, pz3, pz2, pz1, ez), pquiet2)
            px4 = px3; py4 = py3; pz4 = pz3
            px3 = px2; py3 = py2; pz3 = pz2
        } else {
            out = (Self.unlessLone(px2, px1, ex), Self.unlessLone(py2, py1, ey), Self.unlessLone(pz2, pz1, ez), pquiet)
        }
        px2 = px1; py2 = py1; pz2 = pz1
        px1 = ex; py1 = ey; pz1 = ez
        pquiet2 = pquiet
        pquiet = quiet
        return out
    }

    /// Past the dead zone: 1 one way, -1 the other, 0 within it.
    @inlinable @inline(__always)
    static func side(_ v: Int32) -> Int32 {
        let d = Self.deadZoneMilliG
        return v > d ? 1 : v < -d ? -1 : 0
    }

    /// `mid`, or 0 when it is past the dead zone and neither `before` nor `after` is past it the
    /// same way: a lone spike.
    @inlinable @inline(__always)
    static func unlessLone(_ before: Int32, _ mid: Int32, _ after: Int32) -> Int64 {
        let s = side(mid)
        return s == 0 || side(before) == s || side(after) == s ? Int64(mid) : 0
    }

    /// `mid`, or 0 when it is past the dead zone in a run of at most two readings past it the
    /// same way (no three in a row with it): a spike of one or two samples.
    @inlinable @inline(__always)
    static func unlessPair(_ b2: Int32, _ b1: Int32, _ mid: Int32, _ a1: Int32, _ a2: Int32) -> Int64 {
        let s = side(mid)
        guard s != 0 else { return Int64(mid) }
        let before = side(b1) == s, after = side(a1) == s
        let long = (before && side(b2) == s) || (before && after) || (after && side(a2) == s)
        return long ? Int64(mid) : 0
    }

    /// Forgets the deviations kept for despiking (kept only when despiking), or with a gyroscope
    /// the low-passed deviation (`smoothed`).
    @inlinable @inline(__always)
    mutating func forgetDeviations() {
        guard despike || fine else { return }
        px1 = 0; py1 = 0; pz1 = 0
        px2 = 0; py2 = 0; pz2 = 0
        px3 = 0; py3 = 0; pz3 = 0
        px4 = 0; py4 = 0; pz4 = 0
        pquiet = true
        pquiet2 = true
    }

    /// Whether every axis of a velocity or a turn is within [-`bound`, `bound`), `bound` a power
    /// of two: each shifted by it is under 2·`bound`, and so is their bitwise or.
    @inlinable @inline(__always)
    static func tiny(_ x: Int64, _ y: Int64, _ z: Int64, _ bound: Int64) -> Bool {
        (UInt64(bitPattern: x &+ bound) | UInt64(bitPattern: y &+ bound) | UInt64(bitPattern: z &+ bound)) < UInt64(bitPattern: bound << 1)
    }

    /// Whether a reading off the baseline has stayed within `settleBandMilliG` of one place for
    /// `settleMicros`; otherwise it becomes that place.
    @inlinable @inline(__always)
    mutating func settled(_ a: Vec3, _ t: Int64) -> Bool {
        if heldSince != .min && (a - held).within(Self.settleBandMilliG) { return t &- heldSince >= Self.settleMicros }
        held = a
        heldSince = t
        return false
    }
}
