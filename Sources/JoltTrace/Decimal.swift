/// Exact conversion of decimal text to fixed point, in integers only.
///
/// "-1.0836" g at 3 decimal places (milli-g) is -1084; "1.5e-3" s at 6 places (µs) is 1500.
/// Rounding is to nearest, halves away from zero, computed from the exact decimal value: no
/// floating point is involved, so a number reads the same on every machine and every run.
public enum FixedDecimal {
    /// Why a field is not a number.
    public enum Failure: Error, Equatable, Sendable {
        /// Not of the form `[-+]digits[.digits][e[-+]digits]` (this includes nan, inf, empty).
        case malformed
        /// A number, but too large for the unit.
        case outOfRange
    }

    /// 10^n, for n in 0...18 (the largest power an Int64 holds); off the fast path, so a loop.
    static func pow10(_ n: Int) -> Int64 {
        var p: Int64 = 1
        for _ in 0..<n { p &*= 10 }
        return p
    }

    /// Parses `bytes[from..<to]` as a decimal number and returns it × 10^`places`, rounded.
    /// Leading and trailing spaces are allowed.
    @inline(__always)
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, places: Int) throws(Failure) -> Int64 {
        if let v = fast(bytes, from: from, to: to, places: places) { return v }
        return try general(bytes, from: from, to: to, places: places)
    }

    /// The common case, `[-]digits[.digits]` with at most 12 whole digits, in one pass with no
    /// table: whole digits, then `places` fraction digits, then the next digit for rounding
    /// (half away from zero, as `general` does). Anything else returns nil for `general`.
    @inline(__always)
    static func fast(_ b: UnsafeBufferPointer<UInt8>, from: Int, to: Int, places: Int) -> Int64? {
        var i = from
        guard i < to else { return nil }
        let negative = b[i] == 0x2D
        if negative { i += 1 }
        var v: Int64 = 0
        var whole = 0
        while i < to {
            let d = b[i] &- 0x30
            if d > 9 { break }
            v = v &* 10 &+ Int64(d)
            whole += 1
            i += 1
        }
        guard whole > 0 && whole <= 12 else { return nil }
        var left = places
        if i < to {
            guard b[i] == 0x2E else { return nil }
            i += 1
            while i < to && left > 0 {
                let d = b[i] &- 0x30
                if d > 9 { return nil }
                v = v &* 10 &+ Int64(d)
                left -= 1
                i += 1
            }
            if i < to {
                let d = b[i] &- 0x30
                if d > 9 { return nil }
                if d >= 5 { v &+= 1 }
                i += 1
                while i < to {
                    if b[i] &- 0x30 > 9 { return nil }
                    i += 1
                }
            }
        }
        while left > 0 {
            v = v &* 10
            left -= 1
        }
        return negative ? -v : v
    }

    /// Any decimal, with an exponent, spaces, a plus sign or many digits.
    static func general(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, places: Int) throws(Failure) -> Int64 {
        var i = from
        var end = to
        while i < end && bytes[i] == 0x20 { i += 1 }
        while end > i && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x0D) { end -= 1 }
        var negative = false
        if i < end && (bytes[i] == 0x2D || bytes[i] == 0x2B) {
            negative = bytes[i] == 0x2D
            i += 1
        }
        let (mantissa, e0) = try significand(bytes, &i, end)
        var exponent = e0
        if i < end { exponent += try exponentPart(bytes, &i, end) }
        let value = try scaled(mantissa, by: exponent + places)
        return negative ? -value : value
    }

    /// The digits and the point: value = mantissa × 10^exponent (digits past the 18 kept are
    /// dropped, counted in the exponent when before the point).
    static func significand(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) throws(Failure) -> (Int64, Int) {
        var mantissa: Int64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        var afterPoint = false
        while i < end {
            let c = bytes[i]
            if c >= 0x30 && c <= 0x39 {
                sawDigit = true
                let d = Int64(c &- 0x30)
                if digits < 18 {
                    if mantissa != 0 || d != 0 { digits += 1 }
                    mantissa = mantissa * 10 + d
                    if afterPoint { exponent -= 1 }
                } else if !afterPoint {
                    exponent += 1
                }
            } else if c == 0x2E && !afterPoint {
                afterPoint = true
            } else {
                break
            }
            i += 1
        }
        guard sawDigit else { throw .malformed }
        return (mantissa, exponent)
    }

    /// `e` or `E`, a sign, digits, and nothing after them.
    static func exponentPart(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) throws(Failure) -> Int {
        guard bytes[i] == 0x65 || bytes[i] == 0x45 else { throw .malformed }
        i += 1
        var negative = false
        if i < end && (bytes[i] == 0x2D || bytes[i] == 0x2B) {
            negative = bytes[i] == 0x2D
            i += 1
        }
        var e = 0
        var eDigits = 0
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            if e < 10_000 { e = e * 10 + Int(bytes[i] &- 0x30) }
            eDigits += 1
            i += 1
        }
        guard eDigits > 0, i == end else { throw .malformed }
        return negative ? -e : e
    }

    /// mantissa × 10^shift as an integer, rounded half away from zero.
    static func scaled(_ mantissa: Int64, by shift: Int) throws(Failure) -> Int64 {
        if mantissa == 0 { return 0 }
        if shift >= 0 {
            guard shift <= 18 else { throw .outOfRange }
            let (v, overflow) = mantissa.multipliedReportingOverflow(by: pow10(shift))
            guard !overflow else { throw .outOfRange }
            return v
        }
        if -shift > 18 { return 0 }
        let div = pow10(-shift)
        // Digits dropped past the 18 kept cannot change the rounding: they add less than one
        // unit of the remainder, and `div` is even.
        return mantissa / div + (mantissa % div * 2 >= div ? 1 : 0)
    }
}
