import JoltCore
import JoltLinux
import JoltJSON
import JoltCorpus
import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt eval`: every algorithm over the labelled corpus and the real recordings, one table.
enum EvalCommand {
    struct Options {
        var paths: [String] = []
        var json = false
        var gate = false
        /// Generate the corpus in memory at this rate (Hz) instead of reading its files.
        var rate: Double?
        /// The generator's seeds with --rate: one draw, or a family judged as one corpus.
        var seeds: [UInt64] = [2026]
        /// With --rate: minutes of each walking and running trace.
        var gaitMinutes = 2.0
        /// With --rate: the accelerometer's noise, mg RMS per axis.
        var noiseMilliG = 4.0
        /// Drop the gyroscope, as an ADXL345 board sees the world.
        var accelOnly = false
        /// Add the real recordings person by person, and cross-validation by person.
        var byPerson = false
        var board = BoardProfile()
    }

    /// `--seed`'s value: a whole number, or a range `A-B` of at most 100 draws.
    static func seeds(_ text: String) throws(JoltError) -> [UInt64] {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { UInt64($0) }
        guard numbers.count == parts.count, (1...2).contains(parts.count) else {
            throw JoltError(.usage, "jolt eval: --seed must be a whole number or a range such as 9001-9004, found '\(text)'")
        }
        guard let lo = numbers.first, let hi = numbers.last, lo <= hi, hi - lo < 100 else {
            throw JoltError(.usage, "jolt eval: --seed \(text): give a range from low to high of at most 100 draws")
        }
        return Array(lo...hi)
    }

    /// Seeds as `--seed` takes them.
    static func seedText(_ seeds: [UInt64]) -> String {
        guard let lo = seeds.first, let hi = seeds.last, lo != hi else { return "\(seeds.first ?? 0)" }
        return "\(lo)-\(hi)"
    }

    /// The real recordings in the repository: wrists, and bodies walking and moving.
    static let realPaths = ["Tests/Data/wrist-imu", "Tests/Data/body-imu"]

    /// The default corpus: the committed test split and the real recordings, when present.
    static func defaultPaths() -> [String] {
        var p: [String] = []
        for c in ["Tests/Corpus/test"] + realPaths where Files.exists(c) { p.append(c) }
        return p
    }

    /// Every .csv under `path` (a file, or a folder's files), sorted.
    static func files(_ path: String) throws(JoltError) -> [String] {
        guard let st = Files.status(path) else { throw JoltError(.noInput, "\(path): no such file or folder (give corpus folders or trace files)") }
        guard st.isDirectory else { return [path] }
        guard let names = try? Files.list(path) else { throw JoltError(.noPermission, "\(path): cannot read the folder") }
        let out = names.filter { $0.hasSuffix(".csv") }.map { path + "/" + $0 }
        guard !out.isEmpty else { throw JoltError(.noInput, "\(path): no .csv traces in this folder (give a folder of jolt-trace files)") }
        return out.sorted()
    }

    /// Reads a trace file with its labels. Files without `# category:` are real recordings
    /// (hard negatives: nothing should fire), named after their folder.
    static func load(_ path: String) throws(JoltError) -> LabelledTrace {
        let f = try TraceFile(path: path)
        var samples: [Sample] = []
        while let s = try f.next() { samples.append(s) }
        var labels: [Label] = []
        var category: String?
        for (k, v) in f.header.metadata {
            if k == "label" {
                guard let l = Label(text: v) else { throw JoltError(.dataError, "\(path): a '# label:' comment I cannot read: \(v)") }
                labels.append(l)
            }
            if k == "category" { category = v }
        }
        let folder = path.split(separator: "/").dropLast().last.map(String.init) ?? "real"
        let file = String(path.split(separator: "/").last ?? "")
        let name = file.hasSuffix(".csv") ? String(file.dropLast(4)) : file
        return LabelledTrace(name: name, rateMilliHz: f.rateMilliHz, hasGyro: f.header.hasGyro,
                             rangeMilliG: f.header.rangeMilliG ?? 16_000, samples: samples, labels: labels,
                             real: category == nil, category: category ?? "real/\(folder)/\(person(name))")
    }

    /// Who a real recording is of: its file name up to the first "_" ("s3" for the wrist
    /// recordings' `s3_012_ABD`, "ha001" for `ha001_back_walk1_100hz`).
    static func person(_ name: String) -> String {
        name.split(separator: "_").first.map(String.init) ?? name
    }

    static func run(_ o: Options, out: TextOutput) throws(JoltError) -> [EvalResult] {
        var traces: [LabelledTrace] = []
        var paths = o.paths.isEmpty ? defaultPaths() : o.paths
        if let rate = o.rate {
            for seed in o.seeds {
                var g = CorpusGenerator(rate: rate, seed: seed)
                g.gaitMinutes = o.gaitMinutes
                g.noise = o.noiseMilliG / 1000
                traces += g.all()
            }
            paths = paths.filter { !$0.contains("Tests/Corpus") }
        }
        guard !paths.isEmpty || !traces.isEmpty else {
            throw JoltError(.noInput, "jolt eval: no corpus found (Tests/Corpus/test, Tests/Data/wrist-imu and Tests/Data/body-imu are absent here): give corpus folders, or --rate HZ to generate one")
        }
        for p in paths {
            for f in try files(p) { traces.append(try load(f)) }
        }
        if o.gate && !traces.contains(where: \.real) {
            throw JoltError(.noInput, "jolt eval --gate: no real recordings among \(paths.isEmpty ? "the generated corpus" : paths.joined(separator: ", ")): the gate's false-event targets need them (give Tests/Data/wrist-imu or Tests/Data/body-imu)")
        }
        if o.accelOnly {
            for i in traces.indices {
                traces[i].hasGyro = false
                for j in traces[i].samples.indices { traces[i].samples[j].gyro = .zero }
            }
        }
        let progress = TextOutput.standardError.isTerminal && !o.json
        var results: [EvalResult] = []
        let total = EvalAlgorithm.all.count
        for (i, alg) in EvalAlgorithm.all.enumerated() {
            if progress {
                let done = i * 30 / total
                TextOutput.standardError.write("\revaluating \(alg.name)\(String(repeating: " ", count: max(0, 16 - alg.name.count))) [\(String(repeating: "=", count: done))\(String(repeating: " ", count: 30 - done))] \(i + 1)/\(total)")
                TextOutput.standardError.flush()
            }
            results.append(Evaluator.evaluate(alg, traces: traces, settings: o.board.detection))
        }
        if progress { TextOutput.standardError.write("\r\(String(repeating: " ", count: 70))\r") }
        let realHours = traces.filter(\.real).map { Double($0.duration) / 3.6e9 }.reduce(0, +)
        let synthHours = traces.filter { !$0.real }.map { Double($0.duration) / 3.6e9 }.reduce(0, +)
        let describe = "\(traces.count) traces: \(fmt(synthHours * 60, 1)) min generated\(o.rate.map { " in memory at \(fmt($0, 1)) Hz (seed \(seedText(o.seeds)))" } ?? ""), \(fmt(realHours * 60, 1)) min of real recordings\(o.accelOnly ? "; accelerometer only" : "")"
        if o.json {
            out.write(json(results, describe: describe) + "\n")
        } else {
            out.write(table(results, describe: describe))
            if o.byPerson, let first = results.first {
                out.write(EvalPeople.report(traces: traces, settings: o.board.detection, defaultResult: first))
            }
        }
        return results
    }

    static func fmt(_ v: Double, _ places: Int) -> String {
        var p = 1.0
        for _ in 0..<places { p *= 10 }
        let r = (v * p).rounded() / p
        let whole = Int(r)
        if places == 0 { return "\(whole)" }
        var frac = String(Int(((abs(r) - Double(abs(whole))) * p).rounded()))
        while frac.count < places { frac = "0" + frac }
        return "\(r < 0 && whole == 0 ? "-" : "")\(whole).\(frac)"
    }

    static func cell(_ v: Double?, _ places: Int = 0) -> String { v.map { fmt($0, places) } ?? "—" }
    static func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(w - s.count, 0)) + s }

    static func isGait(_ c: String, _ carry: String) -> Bool { (c.hasPrefix("walk-") || c.hasPrefix("run-")) && c.hasSuffix(carry) }

    static func table(_ results: [EvalResult], describe: String) -> String {
        var s = "\(describe)\n\n"
        let head = ["algorithm", "shake", "p50", "p95", "real", "knock", "walk", "run", "hand", "bag", "other", "flip", "p50", "p95", "real", "near"]
        let sub = ["", "recall", "ms", "ms", "/h", "n", "pocket", "pocket", "/h", "/h", "n", "recall", "ms", "ms", "/h", "n"]
        let widths = [16, 7, 5, 5, 6, 6, 7, 7, 6, 6, 6, 7, 5, 5, 6, 5]
        func row(_ cells: [String]) -> String {
            var line = cells[0] + String(repeating: " ", count: max(widths[0] - cells[0].count, 0))
            for (c, w) in zip(cells.dropFirst(), widths.dropFirst()) { line += " " + pad(c, w) }
            return line + "\n"
        }
        s += row(head) + row(sub) + String(repeating: "-", count: widths.reduce(0, +) + widths.count - 1) + "\n"
        for r in results {
            let sh = r.algorithm.shake != nil, fl = r.algorithm.flip != nil
            let other: (String) -> Bool = { ["flip", "nearflip", "setdown", "lift", "shake"].contains($0) }
            s += row([
                r.algorithm.name,
                sh ? fmt(r.shakeRecall * 100, 1) + "%" : "—",
                sh ? cell(EvalResult.percentile(r.shakeLatencies, 50)) : "—",
                sh ? cell(EvalResult.percentile(r.shakeLatencies, 95)) : "—",
                sh ? fmt(r.perHour(r.falseShakes, EvalResult.isReal), 1) : "—",
                sh ? "\(r.count(r.falseShakes) { $0 == "knock" })" : "—",
                sh ? fmt(r.perHour(r.falseShakes) { $0 == "walk-pocket" }, 1) : "—",
                sh ? fmt(r.perHour(r.falseShakes) { $0 == "run-pocket" }, 1) : "—",
                sh ? fmt(r.perHour(r.falseShakes) { isGait($0, "-hand") }, 1) : "—",
                sh ? fmt(r.perHour(r.falseShakes) { isGait($0, "-bag") }, 1) : "—",
                sh ? "\(r.count(r.falseShakes, other))" : "—",
                fl ? fmt(r.flipRecall * 100, 1) + "%" : "—",
                fl ? cell(EvalResult.percentile(r.flipLatencies, 50)) : "—",
                fl ? cell(EvalResult.percentile(r.flipLatencies, 95)) : "—",
                fl ? fmt(r.perHour(r.falseFlips, EvalResult.isReal), 1) : "—",
                fl ? "\(r.count(r.falseFlips) { $0 == "nearflip" })" : "—",
            ])
        }
        if let first = results.first {
            let h = first.hours(EvalResult.isReal) * 60
            let g = first.hours { $0.hasPrefix("walk-") || $0.hasPrefix("run-") } * 60
            s += "\nshake recall and latency (onset to began) over \(first.shakes) labelled shakes; flip recall and latency (settled to face_down) over \(first.flips) flips.\n"
            let slow = first.slowShakeLatencies
            s += "slow shakes (at most \(fmt(EvalResult.slowShakeHz, 1)) Hz, \(slow.count) found): began p50 \(cell(EvalResult.percentile(slow, 50))) ms, p95 \(cell(EvalResult.percentile(slow, 95))) ms after the start.\n"
            s += "real: false events per hour on \(fmt(h, 1)) min of real recordings; walk/run pocket, hand, bag: per hour over \(fmt(g, 1)) min of walking and running;\n"
            s += "knock, other: false events during knocks and slams, and during flips, near-flips, set-downs, lifts and around shakes; near: false flips on near-flips.\n"
            let fails = EvalTargets().failures(first)
            s += fails.isEmpty ? "jolt (default) meets every target.\n" : "jolt (default) misses: " + fails.joined(separator: "; ") + "\n"
        }
        return s
    }

    static func json(_ results: [EvalResult], describe: String) -> String {
        func num(_ v: Double?) -> JSON { v.map { .decimal(fmt($0, 3)) } ?? nil }
        func counts(_ m: [String: Int]) -> JSON { .members(m.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }) }
        var rows: [JSON] = []
        for r in results {
            var f: [(String, JSON)] = [("name", .string(r.algorithm.name))]
            if r.algorithm.shake != nil {
                let s = r.falseShakes
                f.append(("shake", [
                    "labelled": .int(r.shakes), "found": .int(r.shakesFound), "recall": num(r.shakeRecall),
                    "latency_p50_ms": num(EvalResult.percentile(r.shakeLatencies, 50)), "latency_p95_ms": num(EvalResult.percentile(r.shakeLatencies, 95)),
                    "slow_found": .int(r.slowShakeLatencies.count), "slow_latency_p50_ms": num(EvalResult.percentile(r.slowShakeLatencies, 50)),
                    "slow_latency_p95_ms": num(EvalResult.percentile(r.slowShakeLatencies, 95)),
                    "false_per_hour_real": num(r.perHour(s, EvalResult.isReal)), "false_knocks": .int(r.count(s) { $0 == "knock" }),
                    "false_per_hour_pocket": num(r.perHour(s) { isGait($0, "-pocket") }), "false_per_hour_walk_pocket": num(r.perHour(s) { $0 == "walk-pocket" }),
                    "false_per_hour_run_pocket": num(r.perHour(s) { $0 == "run-pocket" }), "false_per_hour_hand": num(r.perHour(s) { isGait($0, "-hand") }),
                    "false_per_hour_bag": num(r.perHour(s) { isGait($0, "-bag") }), "false_by_category": counts(s),
                ]))
            }
            if r.algorithm.flip != nil {
                f.append(("flip", [
                    "labelled": .int(r.flips), "found": .int(r.flipsFound), "recall": num(r.flipRecall),
                    "latency_p50_ms": num(EvalResult.percentile(r.flipLatencies, 50)), "latency_p95_ms": num(EvalResult.percentile(r.flipLatencies, 95)),
                    "false_per_hour_real": num(r.perHour(r.falseFlips, EvalResult.isReal)), "false_nearflips": .int(r.count(r.falseFlips) { $0 == "nearflip" }),
                    "false_by_category": counts(r.falseFlips),
                ]))
            }
            rows.append(.members(f))
        }
        let fails = results.first.map { EvalTargets().failures($0) } ?? []
        let j: JSON = ["corpus": .string(describe), "algorithms": .list(rows), "default_meets_targets": .bool(fails.isEmpty), "misses": .list(fails.map { .string($0) })]
        return j.text
    }
}
