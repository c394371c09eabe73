import JoltCore
import JoltConfig
import JoltJSON
import JoltLinux
import JoltSupport
import JoltTrace

/// Builds event records from what a detector set raised on one sample.
package enum EventBuilder {
    /// Appends the records for `events` raised at `t` by `detectors` to `out`.
    package static func records<D: SampleDetector>(_ events: Events, at t: Int64, detectors d: D, settings: DetectionSettings, into out: inout [EventRecord]) {
        let shakeName = "\(settings.shakeAlgorithm.name)"
        let flipName = "\(settings.flipAlgorithm.name)"
        func peak() -> Int32? {
            let p2 = d.shakePeak2
            return p2 > 0 ? Int32(isqrt(p2)) : nil
        }
        if events.contains(.shakeBegan) {
            out.append(EventRecord(t: t, kind: .shake(.began), algorithm: shakeName, peakMilliG: peak()))
        }
        if events.contains(.shakeEnded) {
            out.append(EventRecord(t: t, kind: .shake(.ended), algorithm: shakeName, peakMilliG: peak(), durationMicros: t - d.shakeSince))
        }
        if events.contains(.shakeCancelled) {
            out.append(EventRecord(t: t, kind: .shake(.cancelled), algorithm: shakeName, peakMilliG: peak(), durationMicros: t - d.shakeSince))
        }
        if events.contains(.faceDown) { out.append(EventRecord(t: t, kind: .flip(.faceDown), algorithm: flipName)) }
        if events.contains(.faceUp) { out.append(EventRecord(t: t, kind: .flip(.faceUp), algorithm: flipName)) }
        if events.contains(.tamper) { out.append(EventRecord(t: t, kind: .tamper, reason: d.tamperReading(at: t).map(TriggerReason.init))) }
    }

    /// Integer square root (floor).
    package static func isqrt(_ v: Int64) -> Int64 {
        guard v > 0 else { return 0 }
        var x = Int64(Double(v).squareRoot())
        while x * x > v { x -= 1 }
        while (x + 1) * (x + 1) <= v { x += 1 }
        return x
    }
}
