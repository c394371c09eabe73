import JoltCore
import JoltMotion
import JoltTrace

/// What a stretch of a corpus trace is: the ground truth the evaluation scores against.
public struct Label: Equatable, Sendable {
    /// The kind of gesture or activity.
    public enum Kind: String, CaseIterable, Sendable {
        /// A deliberate shake: a `began` is expected between onset and end.
        case shake
        /// A flip face down: a `face_down` is expected after `settled`.
        case flip
        /// Tilted 40–80° and back: nothing expected.
        case nearflip
        /// Put down slowly: nothing expected.
        case setdown
        /// Knocks and slams on the table: nothing expected.
        case knock
        /// Walking or running, in a hand, a bag or a pocket: nothing expected.
        case walk, run
        /// A kiosk lifted and carried: tamper, not a shake or a flip.
        case lift
    }

    public var kind: Kind
    /// When the gesture starts, µs.
    public var onset: Int64
    /// When it ends, µs.
    public var end: Int64
    /// Flips: when the device has come to rest face down, µs.
    public var settled: Int64?
    /// Free-form details: "freq=4.2 amp=2.1 axis=x".
    public var details: String

    public init(kind: Kind, onset: Int64, end: Int64, settled: Int64? = nil, details: String = "") {
        self.kind = kind
        self.onset = onset
        self.end = end
        self.settled = settled
        self.details = details
    }

    /// The `freq=` of the details, Hz, when there is one.
    public var frequency: Double? {
        guard let f = details.split(separator: " ").first(where: { $0.hasPrefix("freq=") }) else { return nil }
        return Double(f.dropFirst(5))
    }

    /// The `# label:` comment value: `shake onset=2.000 end=3.500 freq=4.2`.
    public var text: String {
        var s = "\(kind.rawValue) onset=\(TraceWriter.decimal(onset / 1000, places: 3, trim: false)) end=\(TraceWriter.decimal(end / 1000, places: 3, trim: false))"
        if let settled { s += " settled=\(TraceWriter.decimal(settled / 1000, places: 3, trim: false))" }
        if !details.isEmpty { s += " " + details }
        return s
    }

    /// Reads a `# label:` comment value; nil if it is not one.
    public init?(text: String) {
        let parts = text.split(separator: " ")
        guard let first = parts.first, let k = Kind(rawValue: String(first)) else { return nil }
        var onset: Int64?, end: Int64?, settled: Int64?
        var rest: [String] = []
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { rest.append(String(p)); continue }
            var digits = Array(kv[1].utf8)
            let v = digits.withUnsafeMutableBufferPointer { b in
                try? FixedDecimal.parse(UnsafeBufferPointer(b), from: 0, to: b.count, places: 6)
            }
            switch kv[0] {
            case "onset": onset = v
            case "end": end = v
            case "settled": settled = v
            default: rest.append(String(p))
            }
        }
        guard let onset, let end, end >= onset else { return nil }
        self.init(kind: k, onset: onset, end: end, settled: settled, details: rest.joined(separator: " "))
    }
}

/// One labelled trace: samples and what they contain.
public struct LabelledTrace: Sendable {
    /// A short name (the file name without .csv).
    public var name: String
    /// Output data rate, mHz.
    public var rateMilliHz: Int32
    public var hasGyro: Bool
    /// The chip's full-scale range, mg.
    public var rangeMilliG: Int32
    public var samples: [Sample]
    public var labels: [Label]
    /// Whether this is a real recording (hard negatives) rather than generated.
    public var real: Bool
    /// For negatives: which activity the whole trace is (e.g. "walk-pocket", "wrist").
    public var category: String

    public init(name: String, rateMilliHz: Int32, hasGyro: Bool, rangeMilliG: Int32, samples: [Sample], labels: [Label], real: Bool, category: String) {
        self.name = name
        self.rateMilliHz = rateMilliHz
        self.hasGyro = hasGyro
        self.rangeMilliG = rangeMilliG
        self.samples = samples
        self.labels = labels
        self.real = real
        self.category = category
    }

    /// Duration, µs.
    public var duration: Int64 {
        guard let f = samples.first, let l = samples.last else { return 0 }
        return l.t - f.t + Units.periodMicros(rateMilliHz: rateMilliHz)
    }

    /// The trace as jolt-trace v1 text, with its labels as `# label:` comments.
    public func text() -> String {
        var meta: [(String, String)] = [("source", "jolt-corpus (generated from physical models; see Tests/Corpus/README.md)"),
                                        ("category", category), ("range_g", "\(rangeMilliG / 1000)")]
        for l in labels { meta.append(("label", l.text)) }
        var s = TraceWriter.header(rateMilliHz: rateMilliHz, gyro: hasGyro, metadata: meta)
        s.reserveCapacity(samples.count * 44)
        for x in samples { s += TraceWriter.compactRow(x, gyro: hasGyro) }
        return s
    }
}
