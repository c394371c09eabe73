import JoltConfig
import JoltCore
import JoltCorpus

/// `jolt eval --by-person`: the real recordings person by person, and cross-validation by
/// person: each shake setting that real people could tune, tuned again on all people but one
/// and judged on the one left out.
enum EvalPeople {
    /// A shake setting tuned on people: the values tried, the most sensitive first.
    struct Knob: Sendable {
        let setting: DetectionKey
        let values: [Int32]
        let text: @Sendable (Int32) -> String
        var name: String { setting.section + "." + setting.name }
        func set(_ s: inout DetectionSettings, _ v: Int32) { setting.set(v, in: &s) }
    }

    static let knobs: [Knob] = [
        Knob(setting: DetectionKeys.shakeThreshold, values: Array(stride(from: 400, through: 1000, by: 50)),
             text: { EvalCommand.fmt(Double($0) / 1000, 2) + " g" }),
        Knob(setting: DetectionKeys.calmPair, values: [60, 70, 75, 80, 83, 86, 90, 95, 0],
             text: { $0 == 0 ? "off" : EvalCommand.fmt(Double($0) / 100, 2) }),
    ]

    /// The people the defaults were tuned and checked on (docs/detection.md): the wrist
    /// recordings. Every other real recording's person is held out.
    static func tuned(_ person: String) -> Bool { person.hasPrefix("wrist-imu/") }

    /// Per person of `r`: minutes, false shakes, false flips.
    static func byPerson(_ r: EvalResult) -> [(person: String, minutes: Double, shakes: Int, flips: Int)] {
        r.people.map { p in
            let key = "real/" + p
            return (p, Double(r.duration[key] ?? 0) / 6e7, r.falseShakes[key] ?? 0, r.falseFlips[key] ?? 0)
        }
    }

    /// Leave one person out for `knob`: for each person, the most sensitive of the values with
    /// the fewest false shakes on everyone else's recordings, and the false shakes it gives on
    /// that person.
    static func leaveOneOut(_ knob: Knob, traces: [LabelledTrace], settings: DetectionSettings) -> [(person: String, value: Int32?, falseShakes: Int)] {
        let runs = knob.values.map { v -> EvalResult in
            var s = settings
            knob.set(&s, v)
            return Evaluator.evaluate(EvalAlgorithm.all[0], traces: traces, settings: s)
        }
        let people = runs.first?.people ?? []
        return people.map { held in
            let others = runs.map { r in people.filter { $0 != held }.map { r.falseShakes["real/" + $0] ?? 0 }.reduce(0, +) }
            guard let fewest = others.min(), let i = others.firstIndex(of: fewest) else { return (held, nil, 0) }
            return (held, knob.values[i], runs[i].falseShakes["real/" + held] ?? 0)
        }
    }

    static func report(traces: [LabelledTrace], settings: DetectionSettings, defaultResult r: EvalResult) -> String {
        let real = traces.filter(\.real)
        var s = "\nBy person: jolt's default on the real recordings (tuned on the wrist recordings, every other person held out)\n"
        s += "person" + String(repeating: " ", count: 22) + "   min  false shakes  false flips\n"
        var held = (people: 0, minutes: 0.0, shakes: 0, flips: 0)
        for p in byPerson(r) {
            s += p.person.padding(28) + EvalCommand.pad(EvalCommand.fmt(p.minutes, 1), 6) + EvalCommand.pad("\(p.shakes)", 14)
                + EvalCommand.pad("\(p.flips)", 13) + (tuned(p.person) ? "  tuned on" : "  held out") + "\n"
            if !tuned(p.person) { held = (held.people + 1, held.minutes + p.minutes, held.shakes + p.shakes, held.flips + p.flips) }
        }
        let perHour = held.minutes > 0 ? Double(held.shakes) / (held.minutes / 60) : 0
        s += "held out: \(held.people) people, \(EvalCommand.fmt(held.minutes, 1)) min: \(held.shakes) false shake\(held.shakes == 1 ? "" : "s") (\(EvalCommand.fmt(perHour, 1))/h), \(held.flips) false flip\(held.flips == 1 ? "" : "s")\n"
        s += "\nLeave one person out: each setting tuned on everyone else (the most sensitive value with the fewest false shakes on their recordings), judged on the one left out\n"
        let folds = knobs.map { leaveOneOut($0, traces: real, settings: settings) }
        s += "left out" + String(repeating: " ", count: 20)
        for k in knobs { s += EvalCommand.pad(k.name, 22) + "  false" }
        s += "\n"
        for (i, person) in (folds.first ?? []).map(\.person).enumerated() {
            s += person.padding(28)
            for (k, f) in zip(knobs, folds) { s += EvalCommand.pad(f[i].value.map(k.text) ?? "none", 22) + EvalCommand.pad("\(f[i].falseShakes)", 7) }
            s += "\n"
        }
        for (k, f) in zip(knobs, folds) {
            let missed = f.filter { $0.falseShakes > 0 }
            s += "\(k.name): \(missed.count) of \(f.count) people left out had a false shake at the value the others chose (\(f.map(\.falseShakes).reduce(0, +)) in all)"
                + (missed.isEmpty ? "" : ": " + missed.map(\.person).joined(separator: ", ")) + "\n"
        }
        return s
    }
}
