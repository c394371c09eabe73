import JoltCore

// Fixed point against its Double twin (FloatDetectors.swift, FloatTamper.swift): the default
// set, the tamper detector armed a third of the way in, over the first two million samples of
// the mixed-motion workload (made to that length when the timing runs use fewer, as the smoke
// run does).
//
// They agree when they raise the same events, of the same kinds, in the same order, each within
// three sample periods of its twin. Not at the same instant: where a signal crosses a threshold
// slowly, integer and floating-point arithmetic round it across a sample or two apart, and the
// tamper detector's repeats then keep the cadence of the first (in this workload, one crossing
// 20 ms apart moves 530 tamper events by the same 20 ms). A twin that has drifted in its logic
// raises another event, or none, or one seconds away: that fails.

struct Agreement {
    static let samples = 2_000_000
    /// How far apart in time twin events may be, in sample periods.
    static let slackPeriods: Int64 = 3

    private(set) var events = 0
    /// Twin events at different times, within the slack, and the largest difference (µs).
    private(set) var shifted = 0
    private(set) var largestShift: Int64 = 0
    /// Events without a twin: another kind, another count, or further apart than the slack.
    private(set) var mismatched = 0
    /// The first of them, said.
    private(set) var first: String?

    var agreed: Bool { mismatched == 0 }

    init(_ workload: ArraySlice<Sample>, settings: DetectionSettings) {
        var fixed: [(t: Int64, kind: UInt8)] = []
        var double: [(t: Int64, kind: UInt8)] = []
        var d = DefaultDetectors(settings)
        var f = FloatDefaultDetectors(settings)
        let armAt = workload.startIndex + workload.count / 3
        for i in workload.indices {
            let s = workload[i]
            let a = d.update(s), b = f.update(s)
            if i == armAt { d.armTamper(); f.armTamper() }
            if !a.isEmpty { fixed.append((s.t, a.rawValue)) }
            if !b.isEmpty { double.append((s.t, b.rawValue)) }
        }
        events = fixed.count
        let slack = Self.slackPeriods * settings.periodMicros
        for (a, b) in zip(fixed, double) {
            let apart = abs(a.t - b.t)
            if a.kind == b.kind && apart <= slack {
                if apart > 0 { shifted += 1; largestShift = max(largestShift, apart) }
                continue
            }
            mismatched += 1
            if first == nil { first = "fixed point \(Self.say(a)), Double \(Self.say(b))" }
        }
        let unpaired = abs(fixed.count - double.count)
        mismatched += unpaired
        if first == nil && unpaired > 0 {
            first = "fixed point raised \(fixed.count) events, Double \(double.count)"
        }
    }

    /// For the benchmark's table.
    var note: String {
        guard agreed else { return "\(mismatched) of \(events) events differ" }
        guard shifted > 0 else { return "same \(events) events" }
        return "same \(events) events, \(shifted) up to \(largestShift / 1000) ms apart"
    }

    private static func say(_ e: (t: Int64, kind: UInt8)) -> String {
        "events 0x\(String(e.kind, radix: 16)) at \(Double(e.t) / 1e6) s"
    }
}
