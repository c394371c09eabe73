import JoltActions
import JoltBoard
import JoltConfig
import JoltCore
import JoltJSON
import JoltLinux
import JoltSupport
import JoltTrace

/// `jolt tune`: the alarm's settings against this site's own life. From recordings of the
/// counter (`jolt record`), it finds for each tamper and shake setting the value at which what
/// the site did would have triggered the alarm, and the margin the profile keeps from it; from
/// recordings of deliberate moves (a walk test's lifts and slides), how far each setting could
/// go and still catch them. Then it suggests the most sensitive preset that keeps every margin
/// (or numbers of its own when none does), checked by replaying both again.
struct TuneCommand {
    struct Options {
        var site: [String] = []
        var moves: [String] = []
        var board: String?
        /// The margin to keep, hundredths (200: the site's life must come no closer than half of
        /// each setting).
        var marginHundredths = 200
        var output: String?
        var json = false
        /// Write the suggestion even where it would miss a move, fall short or still trigger.
        var force = false
    }

    /// A profile's detection section, judged: for each setting, where the site's life fires
    /// its rule; what fired that no setting governs; and which moves it catches.
    struct Judged {
        var name: String
        var detection: JSONNode
        var settings: DetectionSettings
        var criticals: [(knob: TuneKnob, found: (value: Int32, hit: TuneHit)?)]
        /// Triggers of rules with nothing to tune (the start of a tilt past about 1.7°, a flip).
        var fixed: [TuneHit]
        /// Each test move's first trigger, nil where it was missed.
        var moves: [TuneHit?]

        /// How many times over `knob`'s value is the site's firing point (nil: quiet even at its
        /// most sensitive, and the lower bound then).
        func margin(_ c: (knob: TuneKnob, found: (value: Int32, hit: TuneHit)?)) -> (ratio: Double, quiet: Bool) {
            let v = Double(c.knob.get(settings))
            guard let f = c.found else { return (v / Double(c.knob.lowest(settings)), true) }
            return (v / Double(max(f.value, 1)), false)
        }

        func passes(_ target: Double) -> Bool {
            fixed.isEmpty && moves.allSatisfy { $0 != nil } && criticals.allSatisfy { margin($0).quiet || margin($0).ratio >= target }
        }
    }

    let options: Options

    func run(out: TextOutput) throws(JoltError) {
        let o = options
        var root = JSONNode(value: .object([]), line: 0)
        var triggers = AlarmTriggers.all
        if let path = o.board {
            let board = try BoardProfile.load(path: path)
            triggers = board.alarm?.settings.triggers ?? .all
            let text = try readFile(path, what: "board profile", missingHint: "check the path")
            do { root = try JSONParser.parse(text) } catch { throw JoltError(.config, "\(path): not valid JSON") }
        }
        let site = try Self.read(o.site, what: "the site's recordings")
        let moves = try Self.read(o.moves, what: "--moves")
        let knobs = TuneKnob.all.filter { triggers.contains($0.trigger) }
        let detection = root.member("detection") ?? JSONNode(value: .object([]), line: 0)
        let now = try judge(name: Self.presetName(detection), detection, knobs: knobs, triggers: triggers, site: site, moves: moves)
        let target = Double(o.marginHundredths) / 100
        var candidates: [Judged] = []
        for preset in ["high", "medium", "low"] {
            let c = try judge(name: preset, Self.preset(detection, preset), knobs: knobs, triggers: triggers, site: site, moves: moves)
            candidates.append(c)
            if c.passes(target) { break }
        }
        var chosen = candidates.last!
        if !chosen.passes(target) {
            chosen = try judge(name: "custom", Self.custom(chosen, target: target), knobs: knobs, triggers: triggers, site: site, moves: moves)
        }
        let all = site.enumerated().flatMap { i, r in TuneSearch.hits(r, file: i, r.settings(now.settings)).filter { TuneSearch.kinds(triggers).contains($0.reason.kind) } }
        // How far each setting could go and still catch each test move by its own rule.
        let reach = moves.map { m in knobs.compactMap { k in TuneSearch.critical(k, now.settings, [m]).map { (k, $0.value) } } }
        var report = TuneReport(site: site, moves: moves, triggers: triggers, target: target, now: now, wouldTrigger: all, reach: reach, suggested: chosen)
        let kinds = TuneSearch.kinds(triggers)
        report.movesSuggested = moves.enumerated().map { i, m in
            let hits = TuneSearch.hits(m, file: i, chosen.settings).filter { kinds.contains($0.reason.kind) }
            return kinds.compactMap { k in hits.first { $0.reason.kind == k } }
        }
        report.stillTriggers = site.enumerated().flatMap { i, r in TuneSearch.hits(r, file: i, r.settings(chosen.settings)).filter { kinds.contains($0.reason.kind) } }
        guard let output = o.output else { return out.write(o.json ? report.json(output: nil) + "\n" : report.text(output: nil)) }
        guard o.board != nil else { throw JoltError(.usage, "jolt tune: -o writes the suggestion into a copy of the board: give --board FILE too") }
        let blockers = report.blockers
        if !blockers.isEmpty && !o.force {
            out.write(o.json ? report.json(output: nil) + "\n" : report.text(output: nil))
            throw JoltError(.failure, "jolt tune: \(output) not written: \(blockers.joined(separator: "; ")) (--force writes it all the same)")
        }
        if !blockers.isEmpty { Log.warning("jolt tune --force: writing \(output) although \(blockers.joined(separator: "; "))") }
        let text = root.setting("detection", chosen.detection.value).pretty() + "\n"
        _ = try BoardProfile.parse(Array(text.utf8), file: output)
        try AtomicFile.write(output, text)
        out.write(o.json ? report.json(output: output) + "\n" : report.text(output: output))
    }

    /// Every recording under `paths` (trace files, or folders of them). A file named on its own
    /// that cannot be read stops the command; one in a folder is reported and left out, so that
    /// one damaged recording does not cost the site's others.
    static func read(_ paths: [String], what: String) throws(JoltError) -> [TuneRecording] {
        var out: [TuneRecording] = []
        for p in paths {
            let files = try EvalCommand.files(p)
            let before = out.count
            for f in files {
                do { out.append(try TuneRecording(path: f)) } catch {
                    guard files != [p] else { throw error }
                    Log.warning("\(error.message): left out; the folder's other recordings are used")
                }
            }
            if out.count == before && files != [p] {
                throw JoltError(.dataError, "\(p): no recording in the folder could be read (see the lines above)")
            }
        }
        return out
    }

    func judge(name: String, _ detection: JSONNode, knobs: [TuneKnob], triggers: AlarmTriggers, site: [TuneRecording], moves: [TuneRecording]) throws(JoltError) -> Judged {
        let settings = try BoardProfile.parseDetection(try ObjectReader(file: options.board ?? "tune", path: "detection", node: detection))
        var j = Judged(name: name, detection: detection, settings: settings, criticals: [], fixed: [], moves: [])
        j.criticals = knobs.map { ($0, TuneSearch.critical($0, settings, site)) }
        let fixedKinds = TuneSearch.kinds(triggers).filter { $0 == .tilting || $0 == .flip }
        if !fixedKinds.isEmpty {
            j.fixed = site.enumerated().compactMap { i, r in TuneSearch.hits(r, file: i, settings, stopAt: fixedKinds).first }
        }
        j.moves = TuneSearch.caught(moves, settings, triggers: triggers)
        return j
    }

    static func presetName(_ detection: JSONNode) -> String {
        if case .string(let s)? = detection.member("sensitivity")?.value { return s }
        return "medium"
    }

    /// `detection` with `preset` and the tuned settings taken back to it (the rest kept).
    static func preset(_ detection: JSONNode, _ preset: String) -> JSONNode {
        var d = detection.setting("sensitivity", .string(preset))
        for k in TuneKnob.all {
            guard let section = d.member(k.section) else { continue }
            let rest = section.removing(k.key)
            if case .object(let m) = rest.value, m.isEmpty { d = d.removing(k.section) } else { d = d.setting(k.section, rest.value) }
        }
        return d
    }

    /// The least sensitive candidate's section with each setting the site's life came within
    /// `target` of raised to `target` times its firing point.
    static func custom(_ least: Judged, target: Double) -> JSONNode {
        var d = least.detection
        for c in least.criticals {
            guard let f = c.found, !least.margin(c).quiet, least.margin(c).ratio < target else { continue }
            let v = min(Int32((Double(f.value) * target).rounded(.up)), c.knob.range.upperBound)
            let section = d.member(c.knob.section) ?? JSONNode(value: .object([]), line: 0)
            d = d.setting(c.knob.section, section.setting(c.knob.key, .number(c.knob.text(v))).value)
        }
        return d
    }
}

extension JoltCLI {
    static func tune(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "tune", args, valued: ["--board", "--config", "--moves", "--margin", "-o", "--output"], flags: ["--json", "--force"])
        guard !a.positional.isEmpty else {
            throw JoltError(.usage, "jolt tune: give recordings of the site's life (trace files or folders, from jolt record; see jolt tune --help)")
        }
        var o = TuneCommand.Options()
        o.site = a.positional
        o.moves = a.values("--moves")
        o.board = try boardPath(a)
        if let m = try a.fixed("--margin", places: 2, range: 100...1000, unit: "×") { o.marginHundredths = Int(m) }
        o.output = a.value("-o", "--output")
        o.json = a.flag("--json")
        o.force = a.flag("--force")
        try TuneCommand(options: o).run(out: out)
    }

    static let tuneHelp = CommandHelp(
        name: "tune", summary: "measure the alarm's margins against this site's own life, and suggest a profile",
        usage: "jolt tune [--board FILE] [--moves PATH]... [--margin X] [-o FILE [--force]] [--json] PATH...",
        details: """
        Replays recordings of the site's life (PATH: jolt-trace files, or folders of them, from
        jolt record over hours of a normal day) through the armed alarm's detectors, and finds for
        each tamper and shake setting the value at which what the site did would have triggered
        it: "fires at 9" against move_mm_s 20 is a margin of 2.2x. With --moves, recordings of
        deliberate lifts, slides and tilts (a walk test's), it says which are caught and how far
        each setting could go and still catch them. Then it suggests the most sensitive preset
        that keeps every margin and catches every move (or, when none does, the low preset with
        the settings the site came close to raised), replayed again to check it. Only the board's
        alarm triggers are judged. The settings of the board (--board, $JOLT_BOARD, or the
        installed one) are the ones measured; -o writes the board with the suggested detection
        section to FILE (it may be the board itself), and only when the suggestion, replayed,
        catches every test move, keeps every margin and leaves the site's life quiet: otherwise
        it says why and writes nothing (exit 1), unless --force.
        """,
        options: [
            ("--board FILE", "the board profile whose settings are measured"),
            ("--moves PATH", "recordings of deliberate moves the alarm must catch (repeatable)"),
            ("--margin X", "how many times the site's firing point each setting keeps (default 2)"),
            ("-o, --output FILE", "write the board with the suggested detection section"),
            ("--force", "with -o: write it even where it would miss a move, fall short or still trigger (said)"),
            ("--json", "one JSON object instead of the report"),
        ],
        examples: [
            "jolt record --board kiosk.json --seconds 3600 -o site/monday-am.csv",
            "jolt tune --board kiosk.json site/",
            "jolt tune --board kiosk.json --moves walk/ site/ -o kiosk.json",
        ])
}
