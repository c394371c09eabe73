import JoltCore

/// The fast path of `TraceParser`: a row of a trace whose header is exactly `t,ax,ay,az` or
/// `t,ax,ay,az,gx,gy,gz`, read straight from its bytes into the core's units in one pass.
/// Anything unusual gives nil, and the general reader then reads the row and says what is wrong
/// with it.
extension TraceParser {
    /// A row of a canonical trace, read in one pass over its bytes; nil when anything is unusual
    /// (the general reader then reports exactly what).
    @inline(__always)
    static func canonicalRow(_ b: UnsafeBufferPointer<UInt8>, to end: Int, gyro: Bool) -> Sample? {
        guard var p = b.baseAddress else { return nil }
        let e = p + end
        guard let s = fields(&p, e, gyro: gyro) else { return nil }
        return p == e ? s : nil
    }

    /// A canonical row's fields from `p` on, `p` left after the last; nil if anything is unusual.
    @inline(__always)
    static func fields(_ p: inout UnsafePointer<UInt8>, _ e: UnsafePointer<UInt8>, gyro: Bool) -> Sample? {
        guard let t = Self.number(&p, e, places: 6), Self.comma(&p, e),
              let x = Self.number(&p, e, places: 3), Self.comma(&p, e),
              let y = Self.number(&p, e, places: 3), Self.comma(&p, e),
              let z = Self.number(&p, e, places: 3)
        else { return nil }
        let lim = Self.maxAccelMilliG
        guard x.magnitude <= lim && y.magnitude <= lim && z.magnitude <= lim else { return nil }
        var s = Sample(t: t, accel: Vec3(Int32(truncatingIfNeeded: x), Int32(truncatingIfNeeded: y), Int32(truncatingIfNeeded: z)))
        if gyro {
            guard Self.comma(&p, e), let gx = Self.number(&p, e, places: 3), Self.comma(&p, e),
                  let gy = Self.number(&p, e, places: 3), Self.comma(&p, e),
                  let gz = Self.number(&p, e, places: 3)
            else { return nil }
            let g = Self.maxRateMdps
            guard gx.magnitude <= g && gy.magnitude <= g && gz.magnitude <= g else { return nil }
            s.gyro = Vec3(Int32(truncatingIfNeeded: gx), Int32(truncatingIfNeeded: gy), Int32(truncatingIfNeeded: gz))
        }
        return s
    }

    @inline(__always)
    static func comma(_ p: inout UnsafePointer<UInt8>, _ e: UnsafePointer<UInt8>) -> Bool {
        guard p < e && p.pointee == 0x2C else { return false }
        p += 1
        return true
    }

    /// `[-]digits[.digits]` at `p` (up to 12 whole digits) × 10^places, rounded half away from
    /// zero; `p` is left on the byte after it. The same value `FixedDecimal.parse` gives. The
    /// line must be followed by a byte that is not a digit (its newline, or a sentinel), so the
    /// digit loops need no bounds test; `e` bounds where a number may start.
    @inline(__always)
    static func number(_ p: inout UnsafePointer<UInt8>, _ e: UnsafePointer<UInt8>, places: Int) -> Int64? {
        var q = p
        guard q < e else { return nil }
        let negative = q.pointee == 0x2D
        if negative { q += 1 }
        let first = q
        var v: Int64 = 0
        var d = q.pointee &- 0x30
        while d <= 9 {
            v = v &* 10 &+ Int64(d)
            q += 1
            d = q.pointee &- 0x30
        }
        let whole = first.distance(to: q)
        guard whole > 0 && whole <= 12 else { return nil }
        var left = places
        if q.pointee == 0x2E {
            q += 1
            d = q.pointee &- 0x30
            while d <= 9 && left > 0 {
                v = v &* 10 &+ Int64(d)
                left -= 1
                q += 1
                d = q.pointee &- 0x30
            }
            if d <= 9 {
                if d >= 5 { v &+= 1 }   // all places read: this is the rounding digit
                repeat { q += 1 } while q.pointee &- 0x30 <= 9
            }
        }
        v = v &* Self.scale(left)
        guard q <= e else { return nil }
        p = q
        return negative ? 0 &- v : v
    }

    /// 10^n for n = 0…6.
    @inline(__always)
    static func scale(_ n: Int) -> Int64 {
        switch n {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10_000
        case 5: return 100_000
        default: return 1_000_000
        }
    }
}
