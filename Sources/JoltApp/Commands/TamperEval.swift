import JoltCorpus
import JoltCore

/// `jolt eval --tamper`: the tamper rules on the kiosk corpus, by scenario, at each rate, with
/// and without a gyroscope.
enum TamperEval {
    struct Row {
        var rate: Double
        var gyro: Bool
        var algorithm: TamperAlgorithm
        var score: TamperScore
    }

    /// Scores every rule at every rate on both kinds of chip.
    static func run(rates: [Double], thefts: Int, shopMinutes: Double, seed: UInt64) -> [Row] {
        var rows: [Row] = []
        for rate in rates {
            for gyro in [true, false] {
                let corpus = KioskCorpus(rate: rate, gyro: gyro, seed: seed)
                let cases = corpus.thefts(count: thefts) + corpus.shopLife(minutes: shopMinutes)
                for alg in TamperAlgorithm.allCases {
                    rows.append(Row(rate: rate, gyro: gyro, algorithm: alg, score: TamperEvaluator.score(alg, cases, rate: rate, gyro: gyro)))
                }
            }
        }
        return rows
    }

    static func percentile(_ v: [Double], _ p: Double) -> Double? {
        guard !v.isEmpty else { return nil }
        let s = v.sorted()
        return s[min(Int((Double(s.count - 1) * p / 100).rounded()), s.count - 1)]
    }

    /// The table: recall per scenario, latency, false tampers per hour.
    static func table(_ rows: [Row]) -> String {
        let kinds = KioskCorpus.positives
        var s = "tamper: recall by theft, latency from the start of the theft motion, false tampers per hour of shop life\n"
        let head = ["rate", "chip", "rule"] + kinds + ["all", "p50", "p95", "false"]
        let sub = ["Hz", "", ""] + kinds.map { _ in "" } + ["", "ms", "ms", "/h"]
        let w = [6, 8, 10] + kinds.map { max($0.count + 1, 7) } + [7, 6, 6, 7]
        func line(_ cells: [String]) -> String {
            zip(cells, w).enumerated().map { i, cw in i < 3 ? cw.0 + String(repeating: " ", count: max(cw.1 - cw.0.count, 0)) : EvalCommand.pad(cw.0, cw.1) }.joined() + "\n"
        }
        s += line(head) + line(sub)
        for r in rows {
            let sc = r.score
            var cells = [EvalCommand.fmt(r.rate, 0), r.gyro ? "gyro" : "accel", r.algorithm.rawValue]
            for k in kinds {
                let n = sc.labelled[k] ?? 0
                cells.append(n == 0 ? "—" : EvalCommand.fmt(Double(sc.found[k] ?? 0) / Double(n) * 100, 0) + "%")
            }
            cells.append(EvalCommand.fmt(sc.recall * 100, 1) + "%")
            cells.append(EvalCommand.cell(percentile(sc.allLatencies, 50)))
            cells.append(EvalCommand.cell(percentile(sc.allLatencies, 95)))
            cells.append(EvalCommand.fmt(sc.falsePerHour, 1))
            s += line(cells)
        }
        let hours = (rows.first.map { $0.score.negativeSeconds } ?? 0) / 3600
        s += "shop life per rate and chip: \(EvalCommand.fmt(hours * 60, 1)) min (taps and jabs, leaning, door slams and bags set down, the building's vibration and hum, offsets drifting); chip accel: no gyroscope, 3.9 mg steps.\n"
        return s
    }
}
