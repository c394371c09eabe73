#if canImport(Glibc)
import Glibc
#endif
import JoltBaselines
import JoltCore
import JoltCorpus
import JoltMotion

// The rest path's equivalence check (`jolt-bench --equivalence`): the default set run with the
// rest path and without over every trace given (as `jolt replay --samples` hands the detectors
// their samples: the corpus and the real recordings), over the kiosk corpus at every rate on
// both chips (thefts and shop life, armed as the tamper evaluation arms them) and over the
// benchmark's workloads; plain and armed. The events must be the same, at the same times.

/// What one comparison found.
struct EquivalenceTally {
    var runs = 0
    var samples = 0
    var events = 0
    var restSamples = 0
    var differences: [String] = []

    mutating func add(_ o: EquivalenceTally) {
        runs += o.runs
        samples += o.samples
        events += o.events
        restSamples += o.restSamples
        differences += o.differences
    }
}

/// Runs `samples` through the default set with and without the rest path, armed at `armAt`
/// (never when nil); the first difference, if any, is described.
func compareRestPath(_ name: String, _ samples: [Sample], _ settings: DetectionSettings, armAt: Int64?) -> EquivalenceTally {
    var fast = DefaultDetectors(settings)
    var full = DefaultDetectors(settings)
    full.restPath = false
    var tally = EquivalenceTally()
    tally.runs = 1
    var armed = false
    for s in samples {
        if let a = armAt, !armed && s.t >= a {
            fast.armTamper()
            full.armTamper()
            armed = true
        }
        if fast.takesRestPath(s) { tally.restSamples += 1 }
        let a = fast.update(s), b = full.update(s)
        tally.samples += 1
        if !b.isEmpty { tally.events += 1 }
        if a != b || fast.gravity != full.gravity || fast.isFaceDown != full.isFaceDown {
            tally.differences.append("\(name)\(armAt == nil ? "" : " (armed)"): at t=\(s.t) µs the rest path gave \(a.rawValue), the full path \(b.rawValue)")
            break
        }
    }
    return tally
}

/// `jolt replay --samples` of one trace: the settings and the samples the detectors get.
func replaySamples(jolt: String, trace: String, dir: String) -> (DetectionSettings, [Sample])? {
    let out = dir + "/samples.txt"
    guard spawn([jolt, "replay", "--samples", trace], stdoutTo: out).status == 0,
          let f = fopen(out, "r") else { return nil }
    defer { fclose(f) }
    var rate: Int32 = 100_000, gyro = true, range: Int32 = 0
    var samples: [Sample] = []
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, 512, f) != nil {
        let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("#") {
            for field in text.split(separator: " ") {
                let kv = field.split(separator: "=")
                guard kv.count == 2, let v = Int32(kv[1]) else { continue }
                switch kv[0] {
                case "rate_mhz": rate = v
                case "gyro": gyro = v != 0
                case "range_mg": range = v
                default: break
                }
            }
            continue
        }
        let n = text.split(separator: " ").compactMap { Int64($0) }
        guard n.count == 7 else { continue }
        samples.append(Sample(t: n[0], accel: Vec3(Int32(n[1]), Int32(n[2]), Int32(n[3])),
                              gyro: Vec3(Int32(n[4]), Int32(n[5]), Int32(n[6]))))
    }
    var settings = DetectionSettings(rateMilliHz: rate, gyro: gyro)
    settings.rangeMilliG = range
    return (settings, samples)
}

/// The whole check; prints what it compared and returns whether everything agreed.
func equivalence(jolt: String, traces: [String], dir: String, shopMinutes: Double, bench: DetectionSettings) -> Bool {
    var byKind: [(String, EquivalenceTally)] = []
    var traceTally = EquivalenceTally()
    for path in traces {
        guard let (settings, samples) = replaySamples(jolt: jolt, trace: path, dir: dir) else {
            traceTally.differences.append("\(path): jolt replay --samples failed")
            continue
        }
        traceTally.add(compareRestPath(path, samples, settings, armAt: nil))
        traceTally.add(compareRestPath(path, samples, settings, armAt: samples.first.map { $0.t + 1_000_000 }))
    }
    byKind.append(("traces (\(traces.count) files)", traceTally))
    var kioskTally = EquivalenceTally()
    for rate in [25.0, 50, 100, 200, 400, 800] {
        for gyro in [true, false] {
            let corpus = KioskCorpus(rate: rate, gyro: gyro)
            let settings = DetectionSettings(sensitivity: .medium, rateMilliHz: Int32((rate * 1000).rounded()), gyro: gyro)
            for c in corpus.thefts(count: 4) + corpus.shopLife(minutes: shopMinutes) {
                kioskTally.add(compareRestPath("kiosk \(c.scenario) at \(rate) Hz", c.samples, settings, armAt: c.armAt))
            }
        }
    }
    byKind.append(("kiosk corpus (6 rates, 2 chips)", kioskTally))
    var workTally = EquivalenceTally()
    for (name, samples) in [("rest", rest(count: 200_000)), ("mixed motion", mixedMotion(count: 200_000))] {
        workTally.add(compareRestPath(name, samples, bench, armAt: nil))
        workTally.add(compareRestPath(name, samples, bench, armAt: samples[0].t))
    }
    byKind.append(("benchmark workloads", workTally))

    var all = EquivalenceTally()
    print("rest path against the full path (the default set; each run plain and armed):")
    for (name, t) in byKind {
        all.add(t)
        let share = t.samples > 0 ? Double(t.restSamples) / Double(t.samples) * 100 : 0
        print("  \(name.rightPad(34)) \(String(t.runs).leftPad(5)) runs \(String(t.samples).leftPad(9)) samples  \(String(t.events).leftPad(6)) with events  \(f(share, 1).leftPad(5))% on the rest path  \(t.differences.isEmpty ? "identical" : "DIFFERENT")")
    }
    for d in all.differences.prefix(10) { print("  " + d) }
    print(all.differences.isEmpty
        ? "identical: \(all.events) samples with events, \(all.samples) samples in \(all.runs) runs"
        : "\(all.differences.count) runs differ")
    return all.differences.isEmpty
}

/// The `.csv` files in `dir`, sorted.
func csvFiles(in dir: String) -> [String] {
    guard let d = opendir(dir) else { return [] }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasSuffix(".csv") { out.append(dir + "/" + name) }
    }
    return out.sorted()
}
