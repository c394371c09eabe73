import JoltActions
import JoltBaselines
import JoltBoard
import JoltConfig
import JoltCore
import JoltEngine
import JoltSupport
import JoltTrace

/// One recording, read for `jolt tune`: its samples and what the detectors are set up for.
struct TuneRecording {
    var path: String
    var samples: [Sample]
    var rateMilliHz: Int32
    var gyro: Bool
    var rangeMilliG: Int32
    /// Whether taps may be folded into spikes (`TraceHeader.mayAlias`).
    var mayAlias = false

    init(path: String, samples: [Sample], rateMilliHz: Int32, gyro: Bool, rangeMilliG: Int32, mayAlias: Bool = false) {
        self.path = path
        self.samples = samples
        self.rateMilliHz = rateMilliHz
        self.gyro = gyro
        self.rangeMilliG = rangeMilliG
        self.mayAlias = mayAlias
    }

    init(path: String) throws(JoltError) {
        let f = try TraceFile(path: path)
        var samples: [Sample] = []
        try f.forEach { (s) throws(JoltError) in samples.append(s) }
        guard samples.count >= 2 else { throw JoltError(.dataError, "\(path): \(samples.count) samples: too short to learn from (record a few minutes with jolt record)") }
        self.init(path: path, samples: samples, rateMilliHz: f.rateMilliHz, gyro: f.header.hasGyro, rangeMilliG: f.header.rangeMilliG ?? 0,
                  mayAlias: f.header.mayAlias(rateMilliHz: f.rateMilliHz))
    }

    var micros: Int64 { samples.last!.t - samples.first!.t }

    /// `base` set up for this recording's rate and chip.
    func settings(_ base: DetectionSettings) -> DetectionSettings {
        var s = base
        s.rateMilliHz = rateMilliHz
        s.gyro = gyro
        s.rangeMilliG = rangeMilliG
        s.tamper.mayAlias = mayAlias
        return s
    }
}

/// A would-be trigger: where in which recording, and why.
struct TuneHit: Equatable {
    var file: Int
    /// From the recording's first sample, µs.
    var t: Int64
    var reason: TriggerReason
}

/// A setting `jolt tune` measures: the larger it is, the less the site's life (and a theft)
/// trips the rule it belongs to.
struct TuneKnob {
    /// The profile's key it tunes: its name, range and setting.
    let setting: DetectionKey
    /// The reasons its rule gives when it fires.
    let kinds: [TriggerReason.Kind]
    /// Which alarm trigger its rule belongs to.
    let trigger: AlarmTriggers
    /// How a value is shown after its number: " mm/s", "°", " g".
    let unit: String
    /// Puts the other rules of its detector out of the way, so that what fires is its own.
    let isolate: @Sendable (inout DetectionSettings) -> Void

    var section: String { setting.section }
    var key: String { setting.name }
    var name: String { section + "." + key }
    /// Decimal places from the unit it is kept in (mm/s, tenths of a degree, mg) to the profile's.
    var places: Int { setting.places }
    /// In the unit it is kept in.
    var range: ClosedRange<Int32> { Int32(setting.range.lowerBound)...Int32(setting.range.upperBound) }
    func get(_ s: DetectionSettings) -> Int32 { s[keyPath: setting.field] }
    func set(_ s: inout DetectionSettings, _ v: Int32) { setting.set(v, in: &s) }

    /// A value as the profile writes it: "20", "10.0", "1.8".
    func text(_ v: Int32) -> String { TraceWriter.decimal(Int64(v), places: places, trim: places == 3) }

    /// The smallest value it can take with `s`'s other settings (a shake threshold stays above
    /// its hysteresis).
    func lowest(_ s: DetectionSettings) -> Int32 {
        key == DetectionKeys.shakeThreshold.name ? max(range.lowerBound, s.shake.hysteresisMilliG + 1) : range.lowerBound
    }

    static let moveSpeed = TuneKnob(setting: DetectionKeys.moveSpeed, kinds: [.moved], trigger: .tamper, unit: " mm/s",
                                    isolate: { $0.tamper.tiltDeci = 900 })
    static let tilt = TuneKnob(setting: DetectionKeys.tilt, kinds: [.tilt], trigger: .tamper, unit: "°",
                               isolate: { $0.tamper.moveSpeedMMs = 1000 })
    static let shakeThreshold = TuneKnob(setting: DetectionKeys.shakeThreshold, kinds: [.shake], trigger: .shake, unit: " g",
                                         isolate: { _ in })
    static let all = [moveSpeed, tilt, shakeThreshold]
}

/// Replays recordings through the detectors, as the armed alarm runs them, to find what fires.
enum TuneSearch {
    /// The tamper detector is armed at a recording's first sample, against the orientation then,
    /// as `jolt replay --arm` arms it: what tune finds, a replay finds again.
    static let armAfterMicros: Int64 = 0

    /// What fires in `r` with `base`: every would-be trigger, or with `stopAt` only the first
    /// one of those reasons.
    static func hits(_ r: TuneRecording, file: Int, _ base: DetectionSettings, stopAt: [TriggerReason.Kind]? = nil) -> [TuneHit] {
        let replay = Replay(samples: r.samples, file: file, stopAt: stopAt)
        return withAnyDetectors(r.settings(base), replay)
    }

    struct Replay: DetectorConsumer {
        let samples: [Sample]
        let file: Int
        let stopAt: [TriggerReason.Kind]?

        func consume<D: SampleDetector>(_ d: inout D) -> [TuneHit] {
            var out: [TuneHit] = []
            let start = samples[0].t
            var armed = false
            for s in samples {
                let e = d.update(s)
                if !armed && s.t - start >= TuneSearch.armAfterMicros {
                    armed = true
                    d.armTamper()
                }
                guard !e.isEmpty else { continue }
                var found: [TriggerReason] = []
                if e.contains(.shakeBegan) {
                    let p2 = d.shakePeak2
                    found.append(TriggerReason(.shake, peakMilliG: p2 > 0 ? Int32(clamping: EventBuilder.isqrt(p2)) : nil))
                }
                if e.contains(.faceDown) { found.append(TriggerReason(.flip)) }
                if e.contains(.tamper), let reading = d.tamperReading(at: s.t) { found.append(TriggerReason(reading)) }
                for reason in found {
                    guard let stopAt else {
                        out.append(TuneHit(file: file, t: s.t - start, reason: reason))
                        continue
                    }
                    if stopAt.contains(reason.kind) { return [TuneHit(file: file, t: s.t - start, reason: reason)] }
                }
            }
            return out
        }
    }

    /// The first trigger of `knob`'s rule in `recordings` with it set to `value` (its detector's
    /// other rules out of the way), or nil.
    static func fires(_ knob: TuneKnob, _ value: Int32, _ base: DetectionSettings, _ recordings: [TuneRecording]) -> TuneHit? {
        var s = base
        knob.isolate(&s)
        knob.set(&s, value)
        for (i, r) in recordings.enumerated() {
            if let h = hits(r, file: i, s, stopAt: knob.kinds).first { return h }
        }
        return nil
    }

    /// The largest value of `knob` at which its rule fires on `recordings`, with what fired
    /// there; nil when it stays quiet even at its most sensitive. Found by bisection, each step a
    /// replay: the rule fires less the larger the value.
    static func critical(_ knob: TuneKnob, _ base: DetectionSettings, _ recordings: [TuneRecording]) -> (value: Int32, hit: TuneHit)? {
        var lo = knob.lowest(base), hi = knob.range.upperBound
        if let h = fires(knob, hi, base, recordings) { return (hi, h) }
        guard var found = fires(knob, lo, base, recordings) else { return nil }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if let h = fires(knob, mid, base, recordings) {
                lo = mid
                found = h
            } else {
                hi = mid
            }
        }
        return (lo, found)
    }

    /// The first alarm trigger (of `triggers`) each recording raises with `settings`.
    static func caught(_ recordings: [TuneRecording], _ settings: DetectionSettings, triggers: AlarmTriggers) -> [TuneHit?] {
        recordings.enumerated().map { i, r in hits(r, file: i, settings, stopAt: kinds(triggers)).first }
    }

    /// The reasons the alarm's `triggers` fire on.
    static func kinds(_ triggers: AlarmTriggers) -> [TriggerReason.Kind] {
        (triggers.contains(.tamper) ? [.moved, .tilting, .tilt] : []) + (triggers.contains(.shake) ? [.shake] : []) + (triggers.contains(.flip) ? [.flip] : [])
    }
}
