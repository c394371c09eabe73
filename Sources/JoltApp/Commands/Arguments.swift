import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltCore
import JoltCorpus
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

/// A command line, read option by option. Options are `--name`, `--name value`, `--name=value`
/// or a one-letter `-n value`; everything else is positional; `--` ends the options.
struct Arguments {
    let command: String
    var rest: [String]
    var positional: [String] = []
    var options: [(name: String, value: String?)] = []

    /// Splits `args` given the options that take a value.
    init(command: String, _ args: [String], valued: Set<String>, flags: Set<String>) throws(JoltError) {
        self.command = command
        rest = args
        var i = 0
        var onlyPositional = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositional || a == "-" || !a.hasPrefix("-") {
                positional.append(a)
                continue
            }
            if a == "--" {
                onlyPositional = true
                continue
            }
            var name = a
            var value: String?
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq])
                value = String(a[a.index(after: eq)...])
            }
            if valued.contains(name) {
                if value == nil {
                    guard i < args.count else {
                        throw JoltError(.usage, "jolt \(command): \(name) needs a value (see jolt \(command) --help)")
                    }
                    value = args[i]
                    i += 1
                }
                options.append((name, value))
            } else if flags.contains(name) {
                if value != nil { throw JoltError(.usage, "jolt \(command): \(name) takes no value (see jolt \(command) --help)") }
                options.append((name, nil))
            } else {
                let hint = Self.nearest(name, among: Array(valued.union(flags))).map { "did you mean \($0)? " } ?? ""
                throw JoltError(.usage, "jolt \(command): unknown option '\(name)' (\(hint)see jolt \(command) --help)")
            }
        }
    }

    /// The name nearest to a mistyped one: one it starts (or is started by), else one within
    /// three edits; nil when nothing is that near.
    static func nearest(_ word: String, among names: [String]) -> String? {
        func score(_ k: String) -> Int {
            let (a, b) = (k.trimmingDashes, word.trimmingDashes)
            return !a.isEmpty && !b.isEmpty && (a.hasPrefix(b) || b.hasPrefix(a)) ? 0 : ObjectReader.distance(k, word)
        }
        guard let best = names.sorted().min(by: { score($0) < score($1) }), score(best) <= min(3, word.trimmingDashes.count / 2) else { return nil }
        return best
    }

    /// Whether a flag was given.
    func flag(_ names: String...) -> Bool { options.contains { names.contains($0.name) } }

    /// The last value given for an option.
    func value(_ names: String...) -> String? { options.last { names.contains($0.name) }?.value }

    /// Every value given to a repeatable option, in order.
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }

    /// An option's value as a number with `places` decimals, checked against `range`.
    func fixed(_ name: String, places: Int, range: ClosedRange<Int64>, unit: String) throws(JoltError) -> Int64? {
        guard let v = value(name) else { return nil }
        var bytes = Array(v.utf8)
        let parsed = bytes.withUnsafeMutableBufferPointer { b in
            try? FixedDecimal.parse(UnsafeBufferPointer(b), from: 0, to: b.count, places: places)
        }
        guard let parsed, range.contains(parsed) else {
            let lo = ObjectReader.clean(TraceWriter.decimal(range.lowerBound, places: places, trim: true))
            let hi = ObjectReader.clean(TraceWriter.decimal(range.upperBound, places: places, trim: true))
            throw JoltError(.usage, "jolt \(command): \(name) must be a number from \(lo) to \(hi)\(unit.isEmpty ? "" : " " + unit), found '\(v)'")
        }
        return parsed
    }
}


extension String {
    /// The string without its leading dashes ("--board" → "board").
    var trimmingDashes: Substring { drop { $0 == "-" } }
}
