import JoltDrivers

#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time for people and other machines: ISO 8601 in UTC.
enum WallClock {
    /// Now, µs since 1970.
    static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// "2026-11-30T18:00:00Z".
    static func iso8601(_ micros: Int64) -> String {
        var t = time_t(micros / 1_000_000)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))T\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec))Z"
    }
}

/// A rate in mHz as Hz text: 100, 12.5, 333.333.
func hz(_ milliHz: Int32) -> String { Hz.text(milliHz) }
