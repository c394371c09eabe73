import JoltCore
import JoltJSON
import JoltChips
import JoltDrivers
import JoltLinux
import JoltSupport
import JoltTrace

/// A GPIO line the board names: found by its name ("GPIO17") on whichever chip has it, or at a
/// chip and offset.
/// A named GPIO line of the board (`outputs.NAME`, `inputs.NAME`).
public struct NamedLine: Equatable, Sendable {
    public var name: String
    public var line: LineSpec
}

/// What one event does (`actions.EVENT`).
public struct EventBinding: Equatable, Sendable {
    public var event: String
    public var actions: [Action]

    /// Every event a profile can bind, as events name themselves (`EventKinds`).
    public static var names: [String] { EventKinds.bindingNames }
}

public struct LineSpec: Equatable, Sendable {
    /// The line's name as the Pi names it, e.g. "GPIO17".
    public var name: String?
    /// Or: the chip's device node and the line's offset.
    public var chip: String?
    public var offset: UInt32?
    /// Whether active means a low level (GPIO_V2_LINE_FLAG_ACTIVE_LOW).
    public var activeLow = false
    /// Inputs: enable the pull-up.
    public var pullUp = false

    /// A short description for messages: "GPIO17" or "/dev/gpiochip0 line 17".
    public var label: String { name ?? "\(chip ?? "?") line \(offset ?? 0)" }
}

/// An output pattern.
public enum Pattern: Equatable, Sendable {
    /// Active for `ms`, then inactive.
    case pulse(ms: Int32)
    /// Active `on` ms, inactive `off` ms, repeating until stopped.
    case cadence(on: Int32, off: Int32)
    /// Active until stopped (`jolt output NAME --on`).
    case steady
    /// `count` beeps of `on` ms with `off` ms between them (`jolt output NAME --beep N`).
    case beeps(on: Int32, off: Int32, count: Int32)

    /// For messages: "a 200 ms pulse", "on until off".
    public var text: String {
        switch self {
        case .pulse(let ms): return "a \(ms) ms pulse"
        case .cadence(let on, let off): return "a cadence of \(on) ms on, \(off) ms off"
        case .steady: return "on until turned off"
        case .beeps(let on, let off, let n): return n == 1 ? "1 beep of \(on) ms" : "\(n) beeps of \(on) ms, \(off) ms apart"
        }
    }
}

/// One action bound to an event.
public enum Action: Equatable, Sendable {
    /// Print the event on stdout (human on a terminal, JSON lines otherwise or with --json).
    case stdout
    /// Drive a named output with a pattern.
    case output(String, Pattern)
    /// Run a program (no shell), event fields in the environment, killed after `timeoutMillis`.
    case command(argv: [String], timeoutMillis: Int32)

    /// The kinds of action, each declared here once: the key that names it in a profile, how it
    /// is written and what it does. The loader, its messages and docs/config.md read them; the
    /// switches over `Kind` and `Action` make the compiler ask for its reading and its running.
    public enum Kind: String, CaseIterable, Sendable {
        case stdout, output, command

        /// How a profile writes it, for messages.
        public var form: String {
            switch self {
            case .stdout: return #"{"stdout": true}"#
            case .output: return #"{"output": NAME, "pulse_ms": N | "cadence": {…}}"#
            case .command: return #"{"command": [PROGRAM, ARG…]}"#
            }
        }

        /// What it does, for docs/config.md.
        public var meaning: String {
            switch self {
            case .stdout: return "`true`: print the event (human text on a terminal, JSON lines otherwise or with `--json`)."
            case .output: return "Drive the named output with `pulse_ms` or `cadence`."
            case .command: return "Run a program, no shell: `[\"/usr/bin/logger\", \"shake\"]`. The event is in its environment (`JOLT_EVENT`, `JOLT_JSON`, …); its output goes to the log."
            }
        }
    }
}

/// The alarm section.
public struct AlarmConfig: Equatable, Sendable {
    /// The alarm's settings (grace, maximum, triggers).
    public var settings = AlarmSettings()
    /// Arm as soon as Jolt starts (after the grace period).
    public var armedAtStart = false
    /// The output that sounds (an `outputs` name), if any.
    public var output: String?
    /// The sounding pattern.
    public var cadence = Pattern.cadence(on: 500, off: 500)
    /// An input (an `inputs` name) that arms when active and disarms when inactive: a key switch.
    public var keySwitch: String?
    /// Where the alarm's state is kept across restarts (nil: `AlarmStore.directory`'s default).
    public var stateDirectory: String?
    /// A walk test (`mode: "test"`): armed as ever, but what would trigger it is announced (a
    /// `walk_test` event with its reason and margin, a chirp) and nothing sounds.
    public var walkTest = false
    /// Chirps on the alarm's output: a short one each second of the grace period, one when it
    /// starts watching, two when disarmed.
    public var chirp = false
    /// The chip's check when the alarm is armed (its WHO_AM_I, its self-test, its noise at rest):
    /// a failure refuses an arm command ("refuse"), is only warned of ("warn"), or the check is
    /// not made ("off"). Armed at start, a failure is warned of and it arms all the same.
    public var selfTest = "refuse"
    /// An alarm that only reports (events, MQTT) and sounds nothing, said on purpose (`silent`):
    /// without it, an alarm with nothing to sound is refused.
    public var silent = false
}

/// The control socket.
public struct ControlConfig: Equatable, Sendable {
    /// Its path (nil: the default, see `ControlSocket.defaultPath`).
    public var socket: String?
    /// Its file mode: who may arm and disarm (owner and group by default).
    public var mode: UInt32 = 0o660
}

extension BoardProfile {
    package static func parseLine(_ r: ObjectReader, input: Bool) throws(JoltError) -> LineSpec {
        var l = LineSpec()
        l.name = try r.string("line")
        l.chip = try r.string("chip")
        l.offset = try r.integer("offset", 0...1023).map { UInt32($0) }
        if let a = try r.choice("active", ["high", "low"]) { l.activeLow = a == "low" }
        if input, let b = try r.choice("bias", ["none", "pull-up"]) { l.pullUp = b == "pull-up" }
        try r.finish()
        if l.name == nil && (l.chip == nil || l.offset == nil) {
            throw JoltError(.config, "\(r.file):\(r.line): \(r.path): give \"line\" (a name like \"GPIO17\") or both \"chip\" and \"offset\"")
        }
        if l.name != nil && (l.chip != nil || l.offset != nil) {
            throw JoltError(.config, "\(r.file):\(r.line): \(r.path): give either \"line\" or \"chip\" and \"offset\", not both")
        }
        if let c = l.chip, !c.hasPrefix("/dev/gpiochip") {
            throw r.fail("chip", r.node("chip"), "must be a GPIO chip device like \"/dev/gpiochip0\" (found \"\(c)\")")
        }
        return l
    }

    package static func parseLines(_ r: ObjectReader?, input: Bool) throws(JoltError) -> [NamedLine] {
        guard let r else { return [] }
        var out: [NamedLine] = []
        for m in r.members {
            let o = try ObjectReader(file: r.file, path: r.fieldPath(m.key), node: m.value)
            _ = r.node(m.key)
            out.append(NamedLine(name: m.key, line: try parseLine(o, input: input)))
        }
        return out
    }

    package static func parsePattern(_ r: ObjectReader, key: String) throws(JoltError) -> Pattern? {
        let pulse = try r.integer("pulse_ms", 1...600_000, "ms")
        let c = try r.object("cadence")
        if pulse != nil && c != nil {
            throw r.fail(key, nil, "give either \"pulse_ms\" or \"cadence\", not both")
        }
        if let pulse { return .pulse(ms: pulse) }
        guard let c else { return nil }
        let on = try c.integer("on_ms", 1...600_000, "ms") ?? 500
        let off = try c.integer("off_ms", 1...600_000, "ms") ?? 500
        try c.finish()
        return .cadence(on: on, off: off)
    }

    package static func parseActions(_ r: ObjectReader?, outputs: [String]) throws(JoltError) -> [EventBinding]? {
        guard let r else { return nil }
        var out: [EventBinding] = []
        for m in r.members {
            _ = r.node(m.key)
            let path = r.fieldPath(m.key)
            guard EventBinding.names.contains(m.key) else {
                throw JoltError(.config, "\(r.file):\(m.value.line): \(path): unknown event (events: \(EventBinding.names.joined(separator: ", ")))")
            }
            guard case .array(let items) = m.value.value else {
                throw JoltError(.config, "\(r.file):\(m.value.line): \(path): must be a list of actions, like [{\"stdout\": true}]")
            }
            var list: [Action] = []
            for (i, item) in items.enumerated() {
                let a = try ObjectReader(file: r.file, path: "\(path)[\(i)]", node: item)
                list.append(try parseAction(a, outputs: outputs))
            }
            out.append(EventBinding(event: m.key, actions: list))
        }
        return out
    }

    package static func parseAction(_ r: ObjectReader, outputs: [String]) throws(JoltError) -> Action {
        let kinds = Action.Kind.allCases.filter { r.has($0.rawValue) }
        guard kinds.count == 1 else {
            throw JoltError(.config, "\(r.file):\(r.line): \(r.path): an action is one of \(Action.Kind.allCases.map(\.form).joined(separator: ", "))")
        }
        switch kinds[0] {
        case .stdout:
            guard try r.bool("stdout") == true else { throw r.fail("stdout", r.node("stdout"), "must be true") }
            try r.finish()
            return .stdout
        case .output:
            let name = try r.string("output")!
            guard outputs.contains(name) else {
                throw r.fail("output", r.node("output"), "no output named \"\(name)\" in \"outputs\" (have: \(outputs.isEmpty ? "none" : outputs.joined(separator: ", ")))")
            }
            guard let p = try parsePattern(r, key: "output") else {
                throw JoltError(.config, "\(r.file):\(r.line): \(r.path): an output action needs \"pulse_ms\" or \"cadence\"")
            }
            try r.finish()
            return .output(name, p)
        case .command:
            let n = r.node("command")!
            guard case .array(let items) = n.value, !items.isEmpty else {
                throw r.fail("command", n, "must be a list: the program and its arguments, like [\"/usr/bin/logger\", \"shake\"]")
            }
            var argv: [String] = []
            for item in items {
                guard case .string(let s) = item.value, !s.isEmpty else {
                    throw r.fail("command", item, "each element must be a non-empty string")
                }
                argv.append(s)
            }
            let timeout = try r.integer("timeout_ms", 100...3_600_000, "ms") ?? 10_000
            try r.finish()
            return .command(argv: argv, timeoutMillis: timeout)
        }
    }

    /// A list of triggers under `key` (the kinds of `EventKinds.triggers`: ["shake", "flip",
    /// "tamper"]), at least one.
    static func parseTriggers(_ r: ObjectReader, _ key: String) throws(JoltError) -> AlarmTriggers? {
        guard let n = r.node(key) else { return nil }
        let names = EventKinds.triggers.map { "\"\($0.name)\"" }
        guard case .array(let items) = n.value else { throw r.fail(key, n, "must be a list like [\(names.joined(separator: ", "))]") }
        var t = AlarmTriggers()
        for item in items {
            guard case .string(let s) = item.value, let kind = EventKinds.triggers.first(where: { $0.name == s }) else {
                throw r.fail(key, item, "each trigger must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
            }
            t.insert(kind.trigger)
        }
        guard !t.isEmpty else { throw r.fail(key, n, "must name at least one of \(names.joined(separator: ", ")) (an alarm nothing can trigger guards nothing)") }
        return t
    }

    package static func parseAlarm(_ r: ObjectReader?, outputs: [String], inputs: [String]) throws(JoltError) -> AlarmConfig? {
        guard let r else { return nil }
        var a = AlarmConfig()
        if let v = try r.bool("armed_at_start") { a.armedAtStart = v }
        if let m = try r.choice("mode", ["alarm", "test"]) { a.walkTest = m == "test" }
        if let v = try r.bool("chirp") { a.chirp = v }
        if let v = try r.choice("self_test", ["refuse", "warn", "off"]) { a.selfTest = v }
        if let v = try r.bool("silent") { a.silent = v }
        if let v = try r.integer("arming_ms", 0...3_600_000, "ms") { a.settings.armingMillis = v }
        if let v = try r.integer("max_sound_ms", 0...86_400_000, "ms") { a.settings.maxSoundMillis = v }
        if let v = try r.integer("sensor_lost_ms", 0...600_000, "ms") { a.settings.sensorLostMillis = v }
        if let v = try r.integer("entry_ms", 0...600_000, "ms") { a.settings.entryMillis = v }
        if let t = try parseTriggers(r, "triggers") { a.settings.triggers = t }
        if let m = try r.object("modes") {
            a.settings.homeTriggers = try parseTriggers(m, "home")
            a.settings.nightTriggers = try parseTriggers(m, "night")
            try m.finish()
        }
        if let o = try r.string("output") {
            guard outputs.contains(o) else { throw r.fail("output", r.node("output"), "no output named \"\(o)\" in \"outputs\"") }
            a.output = o
        }
        if let p = try parsePattern(r, key: "cadence") { a.cadence = p }
        if let d = try r.string("state_dir") {
            guard !d.isEmpty else { throw r.fail("state_dir", r.node("state_dir"), "must be a folder, like \"/var/lib/jolt\"") }
            a.stateDirectory = d
        }
        if let k = try r.string("key_switch") {
            guard inputs.contains(k) else { throw r.fail("key_switch", r.node("key_switch"), "no input named \"\(k)\" in \"inputs\"") }
            a.keySwitch = k
        }
        if a.chirp && a.output == nil {
            throw r.fail("chirp", r.node("chirp"), "chirps on the alarm's output, and there is none: set \"output\" or remove \"chirp\"")
        }
        try r.finish()
        return a
    }

    package static func parseControl(_ r: ObjectReader?) throws(JoltError) -> ControlConfig {
        var c = ControlConfig()
        guard let r else { return c }
        if let s = try r.string("socket") {
            guard s.hasPrefix("/") else { throw r.fail("socket", r.node("socket"), "must be an absolute path like \"/run/jolt/jolt.sock\"") }
            c.socket = s
        }
        if let m = try r.string("mode") {
            guard let v = UInt32(m, radix: 8), v & ~0o777 == 0, v & 0o600 == 0o600 else {
                throw r.fail("mode", r.node("mode"), "must be an octal file mode the owner can use, like \"0660\" (found \"\(m)\")")
            }
            guard v & 0o007 == 0 else {
                throw r.fail("mode", r.node("mode"), "must not let others (\"o\") arm or disarm: use \"0660\" or \"0600\"")
            }
            c.mode = v
        }
        try r.finish()
        return c
    }
}
