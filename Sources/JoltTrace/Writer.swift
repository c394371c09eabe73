import JoltCore

/// Writes jolt-trace v1 text: the header, then one row per sample.
public enum TraceWriter {
    /// The comment and header lines for a trace at `rateMilliHz`, with or without gyro columns,
    /// plus any extra `# key: value` metadata.
    public static func header(rateMilliHz: Int32, gyro: Bool, metadata: [(String, String)] = []) -> String {
        var s = "# jolt-trace v1\n# rate_hz: \(decimal(Int64(rateMilliHz), places: 3, trim: true))\n"
        for (k, v) in metadata { s += "# \(k): \(v)\n" }
        s += gyro ? "t,ax,ay,az,gx,gy,gz\n" : "t,ax,ay,az\n"
        return s
    }

    /// One row: t in seconds (6 decimals), a in g (4 decimals), rate in °/s (3 decimals).
    public static func row(_ s: Sample, gyro: Bool) -> String {
        var r = decimal(s.t, places: 6, trim: false)
        for v in [s.accel.x, s.accel.y, s.accel.z] { r += ","; r += decimal(Int64(v), places: 3, trim: false) }
        if gyro {
            for v in [s.gyro.x, s.gyro.y, s.gyro.z] { r += ","; r += decimal(Int64(v), places: 3, trim: false) }
        }
        return r + "\n"
    }

    /// `value` / 10^places as decimal text. With `trim`, trailing zeros go (keeping one decimal).
    public static func decimal(_ value: Int64, places: Int, trim: Bool) -> String {
        var p: Int64 = 1
        for _ in 0..<places { p *= 10 }
        let negative = value < 0
        let m = value.magnitude
        let whole = m / UInt64(p)
        var frac = String(m % UInt64(p))
        while frac.count < places { frac = "0" + frac }
        if trim {
            while frac.count > 1 && frac.hasSuffix("0") { frac.removeLast() }
        }
        let body = places == 0 ? "\(whole)" : "\(whole).\(frac)"
        return negative ? "-" + body : body
    }
}

extension TraceWriter {
    /// A compact row for corpus files: t with up to 4 decimals (trailing zeros trimmed), a in g to
    /// 1 mg, rate in °/s to 0.1 °/s.
    public static func compactRow(_ s: Sample, gyro: Bool) -> String {
        var r = decimal((s.t + 50) / 100, places: 4, trim: true)
        for v in [s.accel.x, s.accel.y, s.accel.z] { r += ","; r += decimal(Int64(v), places: 3, trim: true) }
        if gyro {
            for v in [s.gyro.x, s.gyro.y, s.gyro.z] {
                let tenth = (Int64(v) + (v >= 0 ? 50 : -50)) / 100
                r += ","; r += decimal(tenth, places: 1, trim: true)
            }
        }
        return r + "\n"
    }
}
