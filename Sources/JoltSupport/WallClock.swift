import JoltDrivers
import JoltLinux

/// Wall-clock time for people and other machines: ISO 8601 in UTC.
package enum WallClock {
    /// Now, µs since 1970.
    package static func nowMicros() -> Int64 { Sys.wallMicros() }

    /// "2026-11-30T18:00:00Z".
    package static func iso8601(_ micros: Int64) -> String { Sys.utcText(micros) }
}

/// A rate in mHz as Hz text: 100, 12.5, 333.333.
package func hz(_ milliHz: Int32) -> String { Hz.text(milliHz) }
