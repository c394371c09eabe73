import JoltCorpus
import JoltCore
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltTrace

/// `jolt eval --tamper`: the tamper rules on the kiosk corpus, by scenario, at each rate, with
/// and without a gyroscope.
enum TamperEval {
    struct Row {
        var rate: Double
        var gyro: Bool
        var algorithm: TamperAlgorithm
        var score: TamperScore
        /// Read as another tool records it (`KioskCorpus.foreign`).
        var foreign = false
    }

    /// Scores every rule at every rate on both kinds of chip, over the draws `seeds` as one
    /// corpus (each draw made, scored and let go in turn).
    static func run(rates: [Double], thefts: Int, shopMinutes: Double, seeds: [UInt64]) -> [Row] {
        var rows: [Row] = []
        for rate in rates {
            for gyro in [true, false] {
                var scores = TamperAlgorithm.allCases.map { _ in TamperScore() }
                for seed in seeds {
                    let corpus = KioskCorpus(rate: rate, gyro: gyro, seed: seed)
                    let cases = corpus.thefts(count: thefts) + corpus.shopLife(minutes: shopMinutes)
                    for (i, alg) in TamperAlgorithm.allCases.enumerated() {
                        scores[i].add(TamperEvaluator.score(alg, cases, rate: rate, gyro: gyro))
                    }
                }
                for (i, alg) in TamperAlgorithm.allCases.enumerated() {
                    rows.append(Row(rate: rate, gyro: gyro, algorithm: alg, score: scores[i]))
                }
            }
        }
        return rows
    }

    /// Jolt's rule on traces another tool recorded below 100 Hz from an MPU6050 left at its reset
    /// low-pass (off): what `jolt replay`, `tune` and `eval` read from such a file, where Jolt's
    /// own reading would have oversampled and filtered. Reported, not gated.
    static func foreign(rates: [Double], thefts: Int, shopMinutes: Double, seeds: [UInt64]) -> [Row] {
        rates.filter { $0 < 100 }.map { rate in
            var score = TamperScore()
            for seed in seeds {
                var corpus = KioskCorpus(rate: rate, gyro: true, seed: seed)
                corpus.foreign = true
                let cases = corpus.thefts(count: thefts) + corpus.shopLife(minutes: shopMinutes)
                score.add(TamperEvaluator.score(.jolt, cases, rate: rate, gyro: true, mayAlias: true))
            }
            return Row(rate: rate, gyro: true, algorithm: .jolt, score: score, foreign: true)
        }
    }

    /// A table row: the first `left` cells left-aligned, the rest right-aligned, each in its width.
    static func row(_ cells: [String], widths: [Int], left: Int) -> String {
        zip(cells, widths).enumerated().map { i, cw in
            i < left ? cw.0 + String(repeating: " ", count: max(cw.1 - cw.0.count, 0)) : EvalCommand.pad(cw.0, cw.1)
        }.joined() + "\n"
    }

    /// The share of `kind`'s thefts the rule caught, as "95%" ("—" when there were none).
    static func recall(_ sc: TamperScore, _ kind: String) -> String {
        let n = sc.labelled[kind] ?? 0
        return n == 0 ? "—" : EvalCommand.fmt(Double(sc.found[kind] ?? 0) / Double(n) * 100, 0) + "%"
    }

    static func percentile(_ v: [Double], _ p: Double) -> Double? {
        guard !v.isEmpty else { return nil }
        let s = v.sorted()
        return s[min(Int((Double(s.count - 1) * p / 100).rounded()), s.count - 1)]
    }

    /// The table: recall per scenario, latency, false tampers per hour.
    static func table(_ rows: [Row], title: String = "tamper: recall by theft, latency from the start of the theft motion, false tampers per hour of shop life") -> String {
        let kinds = KioskCorpus.positives
        var s = title + "\n"
        let head = ["rate", "chip", "rule"] + kinds + ["all", "p50", "p95", "false"]
        let sub = ["Hz", "", ""] + kinds.map { _ in "" } + ["", "ms", "ms", "/h"]
        let w = [6, 8, 10] + kinds.map { max($0.count + 1, 7) } + [7, 6, 6, 7]
        func line(_ cells: [String]) -> String { row(cells, widths: w, left: 3) }
        s += line(head) + line(sub)
        for r in rows {
            let sc = r.score
            var cells = [EvalCommand.fmt(r.rate, 0), r.gyro ? "gyro" : "accel", r.algorithm.rawValue]
            for k in kinds { cells.append(recall(sc, k)) }
            cells.append(EvalCommand.fmt(sc.recall * 100, 1) + "%")
            cells.append(EvalCommand.cell(percentile(sc.allLatencies, 50)))
            cells.append(EvalCommand.cell(percentile(sc.allLatencies, 95)))
            cells.append(EvalCommand.fmt(sc.falsePerHour, 1))
            s += line(cells)
        }
        for r in rows where r.algorithm == .jolt && r.score.falseTampers > 0 {
            let causes = r.score.falseCauses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            s += "\(EvalCommand.fmt(r.rate, 0)) Hz \(r.gyro ? "gyro" : "accel"): jolt's \(r.score.falseTampers) false tampers by what fired: \(causes)\n"
        }
        let hours = (rows.first.map { $0.score.negativeSeconds } ?? 0) / 3600
        s += "shop life per rate and chip: \(EvalCommand.fmt(hours * 60, 1)) min (taps and jabs, leaning, door slams and bags set down, the building's vibration and hum, offsets drifting); chip accel: no gyroscope, 3.9 mg steps.\n"
        return s
    }

    /// Jolt's detector theft by theft: recall, then the median and 95th-percentile latency.
    static func byTheft(_ rows: [Row]) -> String {
        let kinds = KioskCorpus.positives
        var s = "jolt by theft: recall, latency p50/p95 (ms)\n"
        let w = [6, 8] + kinds.map { _ in 16 }
        func line(_ cells: [String]) -> String { row(cells, widths: w, left: 2) }
        s += line(["rate", "chip"] + kinds)
        for r in rows where r.algorithm == .jolt {
            var cells = [EvalCommand.fmt(r.rate, 0), r.gyro ? "gyro" : "accel"]
            for k in kinds {
                let l = r.score.latencies[k] ?? []
                cells.append("\(recall(r.score, k)) \(EvalCommand.cell(percentile(l, 50)))/\(EvalCommand.cell(percentile(l, 95)))")
            }
            s += line(cells)
        }
        return s
    }

    /// The targets Jolt's detector holds, checked row by row: recall ≥ 98 %, median latency
    /// ≤ 400 ms, p95 ≤ 800 ms, no false tamper at any rate (below 50 Hz thanks to the
    /// oversampling, docs/detection.md). Returns the misses.
    static func gate(_ rows: [Row]) -> [String] {
        var misses: [String] = []
        for r in rows where r.algorithm == .jolt {
            let name = "\(EvalCommand.fmt(r.rate, 0)) Hz \(r.gyro ? "gyro" : "accel")"
            let p50 = percentile(r.score.allLatencies, 50) ?? .infinity
            let p95 = percentile(r.score.allLatencies, 95) ?? .infinity
            if r.score.recall < 0.98 { misses.append("\(name): tamper recall \(EvalCommand.fmt(r.score.recall * 100, 1)) % < 98 %") }
            if p50 > 400 { misses.append("\(name): median tamper latency \(EvalCommand.fmt(p50, 0)) ms > 400 ms") }
            if r.score.falseTampers > 0 {
                misses.append("\(name): \(r.score.falseTampers) false tampers in \(EvalCommand.fmt(r.score.negativeSeconds / 60, 1)) min of shop life")
            }
            if p95 > 800 { misses.append("\(name): p95 tamper latency \(EvalCommand.fmt(p95, 0)) ms > 800 ms") }
        }
        return misses
    }
}

extension TamperEval {
    /// `jolt eval --tamper`: the tamper rules on the kiosk corpus, by theft and rate.
    static func command(_ a: Arguments, out: TextOutput) throws(JoltError) {
        let minutes = try a.fixed("--shop-minutes", places: 1, range: 1...60_000, unit: "min").map { Double($0) / 10 } ?? 12
        let given = try a.fixed("--rate", places: 3, range: 12_500...1_000_000, unit: "Hz")
        let rate: [Double] = given.map { [Double($0) / 1000] } ?? [25, 50, 100, 200, 400, 800]
        try refuseUnused(a)
        // The draws the detector was tuned on are seed 2026's; any other seed is held out.
        var seeds: [UInt64] = [2026]
        if let v = a.value("--seed") { seeds = try EvalCommand.seeds(v) }
        let rows = TamperEval.run(rates: rate, thefts: 20, shopMinutes: minutes, seeds: seeds)
        out.write(TamperEval.table(rows) + "\n" + TamperEval.byTheft(rows))
        let foreign = TamperEval.foreign(rates: rate, thefts: 20, shopMinutes: minutes, seeds: seeds)
        if !foreign.isEmpty {
            out.write("\n" + TamperEval.table(foreign, title: "traces another tool recorded from an MPU6050 with its low-pass off (no oversampling): reported, not gated"))
        }
        if a.flag("--gate") {
            let misses = TamperEval.gate(rows)
            for line in misses { out.write("missed: \(line)\n") }
            out.write(misses.isEmpty ? "tamper gate: PASS\n" : "tamper gate: FAIL (\(misses.count) missed)\n")
            if !misses.isEmpty {
                out.flush()
                throw JoltError(.failure, "jolt eval --tamper: \(misses.count) targets missed (see above)")
            }
        }
    }

    /// `jolt eval`'s options that shape the shake and flip corpus and mean nothing to the kiosk
    /// corpus: named in a usage error rather than silently ignored.
    static func refuseUnused(_ a: Arguments) throws(JoltError) {
        if let p = a.positional.first {
            throw JoltError(.usage, "jolt eval --tamper: '\(p)': the kiosk corpus is made in memory and takes no trace files; drop it, or run jolt eval without --tamper")
        }
        let why: [(String, String)] = [
            ("--noise", "the kiosk corpus models each chip's own noise"),
            ("--gait-minutes", "the kiosk corpus has no walking; --shop-minutes sets its length"),
            ("--config", "the tamper rules are scored with Jolt's default settings"),
            ("--sensitivity", "the tamper rules are scored with Jolt's default settings"),
        ]
        for (option, reason) in why where a.value(option) != nil {
            throw JoltError(.usage, "jolt eval --tamper: \(option) does not apply (\(reason)); drop it")
        }
        for (flag, reason) in [("--accel-only", "both kinds of chip are scored at every rate"), ("--json", "the tamper tables are text only"),
                               ("--by-person", "the kiosk corpus has no people's recordings")] where a.flag(flag) {
            throw JoltError(.usage, "jolt eval --tamper: \(flag) does not apply (\(reason)); drop it")
        }
    }
}
