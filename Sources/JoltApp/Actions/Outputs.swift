import JoltLinux

/// An output line Jolt drives (a buzzer, a LED).
protocol OutputLine: AnyObject {
    /// For messages: "buzzer (GPIO17)".
    var label: String { get }
    /// Drives the line: true = active.
    func set(_ active: Bool) throws(JoltError)
    /// Sets the line inactive and hands it back.
    func release()
}

/// A GPIO output on the Linux GPIO character device.
final class ChardevOutput: OutputLine {
    let line: GPIOLine
    let label: String

    init(name: String, spec: LineSpec) throws(JoltError) {
        label = "\(name) (\(spec.label))"
        let address = try ChardevOutput.locate(spec, what: name)
        do {
            line = try GPIOLine(address, output: true, activeLow: spec.activeLow)
        } catch {
            throw ChardevOutput.error(error, what: "\(name) (\(spec.label))")
        }
    }

    static func locate(_ spec: LineSpec, what: String) throws(JoltError) -> GPIOLineAddress {
        if let chip = spec.chip, let offset = spec.offset { return GPIOLineAddress(chip: chip, offset: offset) }
        do {
            return try GPIO.find(name: spec.name ?? "", chips: GPIO.chips())
        } catch {
            throw ChardevOutput.error(error, what: "\(what) (\(spec.label))")
        }
    }

    static func error(_ e: GPIOError, what: String) -> JoltError {
        switch e {
        case .noChips:
            return JoltError(.unavailable, "GPIO line \(what): no GPIO chip (/dev/gpiochip*) on this machine")
        case .notFound(let name, let chips):
            return JoltError(.unavailable, "GPIO line \(what): no line named \(name) on \(chips.joined(separator: ", ")) (Raspberry Pi names are like \"GPIO17\"; or give \"chip\" and \"offset\")")
        case .failed(_, let path, let errno) where errno == .accessDenied || errno == .permitted:
            return JoltError(.noPermission, "permission denied opening \(path) for \(what): add the user to the gpio group (sudo adduser $USER gpio) and log in again")
        case .failed(let call, let path, let errno):
            return JoltError(.unavailable, "GPIO line \(what): \(call) on \(path) failed: \(errno) (\(errno.name))")
        case .busy(let line, let consumer):
            return JoltError(.tempFailure, "GPIO line \(what): \(line) is in use by \(consumer.isEmpty ? "another program" : "\"\(consumer)\"")")
        }
    }

    func set(_ active: Bool) throws(JoltError) {
        do { try line.set(active) } catch {
            throw JoltError(.ioError, "GPIO line \(label): setting it \(active ? "active" : "inactive") failed: \(error) (\(error.name))")
        }
    }

    func release() { line.release() }
}

/// A simulated output (the simulated board's buzzer): it keeps its level and history, and says
/// each change on the log, so the buzzer can be followed in a terminal.
final class SimOutput: OutputLine {
    let label: String
    let lock = Lock()
    private(set) var level = false
    /// (monotonic µs, level) for each change.
    private(set) var history: [(Int64, Bool)] = []
    var released = false

    init(name: String, spec: LineSpec) {
        label = "\(name) (simulated \(spec.label))"
    }

    func set(_ active: Bool) throws(JoltError) {
        let changed = lock.with { () -> Bool in
            guard active != level else { return false }
            level = active
            history.append((Sys.monotonicMicros(), active))
            return true
        }
        if changed { Log.info("line \(label): \(active ? "active" : "inactive")") }
    }

    func release() {
        try? set(false)
        lock.with { released = true }
    }

    var isActive: Bool { lock.with { level } }
    var isReleased: Bool { lock.with { released } }
    var changes: [(Int64, Bool)] { lock.with { history } }
}

/// Plays a pattern on a line from a start time: the level at any time, and when it next changes.
struct PatternPlayer: Equatable {
    let pattern: Pattern
    let start: Int64

    /// The level at `t` (µs); nil once a pulse is over.
    func level(at t: Int64) -> Bool? {
        let e = t - start
        switch pattern {
        case .pulse(let ms):
            return e < Int64(ms) * 1000 ? true : nil
        case .cadence(let on, let off):
            let period = Int64(on + off) * 1000
            return e % period < Int64(on) * 1000
        case .steady:
            return true
        case .beeps(let on, let off, let count):
            let period = Int64(on + off) * 1000
            guard e < period * Int64(count) - Int64(off) * 1000 else { return nil }
            return e % period < Int64(on) * 1000
        }
    }

    /// The next time after `t` at which the level changes.
    func nextEdge(after t: Int64) -> Int64 {
        let e = max(t - start, 0)
        switch pattern {
        case .pulse(let ms):
            return start + Int64(ms) * 1000
        case .cadence(let on, let off), .beeps(let on, let off, _):
            let period = Int64(on + off) * 1000
            let base = e - e % period
            let inPhase = e % period
            return start + (inPhase < Int64(on) * 1000 ? base + Int64(on) * 1000 : base + period)
        case .steady:
            return .max
        }
    }
}
