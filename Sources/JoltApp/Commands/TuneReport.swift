import JoltActions
import JoltConfig
import JoltCore
import JoltJSON
import JoltSupport
import JoltTrace

/// What `jolt tune` found, as the owner reads it or as one JSON object.
struct TuneReport {
    let site: [TuneRecording]
    let moves: [TuneRecording]
    let triggers: AlarmTriggers
    let target: Double
    let now: TuneCommand.Judged
    /// Every alarm trigger the site's life would have raised with the profile as it is.
    let wouldTrigger: [TuneHit]
    /// For each test move, the largest value of each setting whose rule still fires on it.
    let reach: [[(knob: TuneKnob, value: Int32)]]
    let suggested: TuneCommand.Judged
    /// For each test move, the rules that still catch it under the suggestion: each rule's first
    /// trigger.
    var movesSuggested: [[TuneHit]] = []
    /// Triggers the site's life would still raise under the suggestion.
    var stillTriggers: [TuneHit] = []

    /// Why the suggestion is not to be written as it is (none: it may be).
    var blockers: [String] {
        var b: [String] = []
        for (i, m) in suggested.moves.enumerated() where m == nil { b.append("it would miss the test move \(moves[i].path)") }
        if !stillTriggers.isEmpty { b.append("the site's own recordings would still trigger it \(counted(stillTriggers.count, "time"))") }
        if !suggested.fixed.isEmpty { b.append("the site's life trips a rule with nothing to tune") }
        if b.isEmpty && !suggested.passes(target) { b.append("it falls short of the \(Self.ratio(target)) margin") }
        return b
    }

    /// Each setting's suggested value against today's: how many times less sensitive (over 1) or
    /// more (under 1) the suggestion makes the alarm.
    var changes: [(knob: TuneKnob, now: Int32, suggested: Int32, ratio: Double)] {
        now.criticals.map { c in
            let a = c.knob.get(now.settings), b = c.knob.get(suggested.settings)
            return (c.knob, a, b, Double(b) / Double(max(a, 1)))
        }
    }

    static func ratio(_ r: Double) -> String { EvalCommand.fmt(r, r < 10 ? 1 : 0) + "×" }

    /// "site/a.csv at 62.3 s: moved 9 mm/s for 120 ms".
    static func place(_ h: TuneHit, _ recordings: [TuneRecording]) -> String {
        "\(recordings[h.file].path) at \(EvalCommand.fmt(Double(h.t) / 1e6, 1)) s: \(h.reason.text)"
    }

    var minutes: Double { site.map { Double($0.micros) / 6e7 }.reduce(0, +) }

    var rates: String {
        let r = Set(site.map(\.rateMilliHz)).sorted().map { TraceWriter.decimal(Int64($0), places: 3, trim: true) }
        return r.joined(separator: ", ") + " Hz"
    }

    var triggerNames: String {
        EventKinds.triggerNames(triggers).joined(separator: ", ")
    }

    func text(output: String?) -> String {
        var s = "\(counted(site.count, "recording")) of the site: \(EvalCommand.fmt(minutes, 1)) min at \(rates)"
        s += moves.isEmpty ? "; no test moves (--moves)\n" : "; \(counted(moves.count, "test move"))\n"
        s += "judged: the alarm's triggers (\(triggerNames)); margin wanted: \(Self.ratio(target))\n\n"
        s += "now (\(now.name)): where the site's life would trigger each setting\n"
        s += table(now)
        for h in now.fixed { s += "  and, with nothing to tune: \(Self.place(h, site))\n" }
        s += wouldTrigger.isEmpty ? "the site's life would have triggered the alarm 0 times\n"
            : "the site's life would have triggered the alarm \(counted(wouldTrigger.count, "time")):\n" + wouldTrigger.prefix(10).map { "  \(Self.place($0, site))\n" }.joined()
        if !moves.isEmpty {
            s += "\ntest moves, now:\n"
            for (i, m) in moves.enumerated() {
                if let h = now.moves[i] {
                    s += "  \(m.path): caught at \(EvalCommand.fmt(Double(h.t) / 1e6, 1)) s: \(h.reason.text)\n"
                } else {
                    s += "  \(m.path): MISSED\n"
                }
                let r = reach[i].map { "\($0.knob.key) up to \($0.knob.text($0.value))\($0.knob.unit) (\(Self.ratio(Double($0.value) / Double($0.knob.get(now.settings)))))" }
                if !r.isEmpty { s += "    still caught with " + r.joined(separator: ", ") + "\n" }
            }
        }
        s += "\nsuggested: " + (suggested.name == "custom" ? "the low preset with settings raised" : "sensitivity \"\(suggested.name)\"")
        s += suggested.passes(target) ? " (every margin at least \(Self.ratio(target))\(moves.isEmpty ? "" : ", every test move caught"))\n"
            : " (it still falls short: see below)\n"
        s += table(suggested)
        for h in suggested.fixed { s += "  the site's life trips a rule with nothing to tune: \(Self.place(h, site)): fix the kiosk down or move the sensor\n" }
        for (i, m) in suggested.moves.enumerated() where m == nil { s += "  it would miss \(moves[i].path): the site's life comes too close to this move; mount the kiosk more firmly\n" }
        s += "  \"detection\": \(suggested.detection.pretty(indent: 2))\n"
        s += "against today's profile (a setting raised N× is N times harder to trip): " + changes.map { "\($0.knob.name) \($0.knob.text($0.now)) → \($0.knob.text($0.suggested)) (\(Self.ratio($0.ratio)))" }.joined(separator: ", ") + "\n"
        if !moves.isEmpty {
            s += "test moves, with the suggestion, rule by rule:\n"
            for (i, m) in moves.enumerated() {
                let rules = movesSuggested[i].map { "\($0.reason.kind.rawValue) at \(EvalCommand.fmt(Double($0.t) / 1e6, 1)) s" }
                s += "  \(m.path): " + (rules.isEmpty ? "MISSED by every rule" : "caught by " + rules.joined(separator: ", ")) + "\n"
            }
        }
        if let output { s += "wrote it to \(output)\n" }
        return s
    }

    func table(_ j: TuneCommand.Judged) -> String {
        var s = "  " + "setting".padding(20) + "value".padding(8) + "fires at".padding(10) + "margin".padding(9) + "closest\n"
        for c in j.criticals {
            let m = j.margin(c)
            let at = c.found.map { c.knob.text($0.value) } ?? "—"
            let closest = c.found.map { Self.place($0.hit, site) } ?? "quiet even at \(c.knob.text(c.knob.lowest(j.settings)))\(c.knob.unit)"
            s += "  " + c.knob.name.padding(20) + c.knob.text(c.knob.get(j.settings)).padding(8) + at.padding(10) + ((m.quiet ? "> " : "") + Self.ratio(m.ratio)).padding(9) + closest + "\n"
        }
        return s
    }

    func json(output: String?) -> String {
        func hit(_ h: TuneHit, _ recordings: [TuneRecording]) -> JSON {
            .members([("file", .string(recordings[h.file].path)), ("t", .decimal(EventRecord.seconds(h.t)))] + h.reason.jsonFields)
        }
        func judged(_ j: TuneCommand.Judged) -> JSON {
            let settings: [(String, JSON)] = j.criticals.map { c in
                let m = j.margin(c)
                return (c.knob.name, .members([
                    ("value", .decimal(c.knob.text(c.knob.get(j.settings)))),
                    ("fires_at", c.found.map { .decimal(c.knob.text($0.value)) } ?? .null),
                    ("margin", .decimal(EvalCommand.fmt(m.ratio, 2))), ("quiet", .bool(m.quiet)),
                    ("closest", c.found.map { hit($0.hit, site) } ?? .null),
                ]))
            }
            return .members([
                ("name", .string(j.name)), ("detection", j.detection.value), ("settings", .members(settings)),
                ("fixed", .list(j.fixed.map { hit($0, site) })),
                ("moves", .list(j.moves.enumerated().map { i, h in h.map { hit($0, moves) } ?? .members([("file", .string(moves[i].path)), ("missed", .bool(true))]) })),
                ("passes", .bool(j.passes(target))),
            ])
        }
        return JSON.members([
            ("recordings", .int(site.count)), ("minutes", .decimal(EvalCommand.fmt(minutes, 1))), ("moves", .int(moves.count)),
            ("margin", .decimal(EvalCommand.fmt(target, 2))),
            ("now", judged(now)), ("would_trigger", .list(wouldTrigger.map { hit($0, site) })),
            ("reach", .list(reach.map { r in .members(r.map { ($0.knob.name, .decimal($0.knob.text($0.value))) }) })),
            ("suggested", judged(suggested)), ("wrote", output.map { .string($0) } ?? .null),
            ("against_now", .members(changes.map { ($0.knob.name, .decimal(EvalCommand.fmt($0.ratio, 2))) })),
            ("moves_suggested", .list(movesSuggested.map { .list($0.map { hit($0, moves) }) })),
            ("still_triggers", .list(stillTriggers.map { hit($0, site) })), ("not_written_because", .list(blockers.map { .string($0) })),
        ]).text
    }
}
