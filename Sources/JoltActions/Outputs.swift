import JoltLinux
import JoltConfig
import JoltCore
import JoltJSON
import JoltSupport
import JoltTrace

/// An output line Jolt drives (a buzzer, a LED).
package protocol OutputLine: AnyObject {
    /// For messages: "buzzer (GPIO17)".
    var label: String { get }
    /// Drives the line: true = active.
    func set(_ active: Bool) throws(JoltError)
    /// Sets the line inactive and hands it back.
    func release()
}

/// A GPIO output on the Linux GPIO character device.
package final class ChardevOutput: OutputLine {
    package let line: GPIOLine
    package let label: String

    package init(name: String, spec: LineSpec) throws(JoltError) {
        (line, label) = try Self.request(name, spec, output: true)
    }

    /// The line a board names, requested as an output or an input, with its label for messages;
    /// a failure says which line and what to do.
    package static func request(_ name: String, _ spec: LineSpec, output: Bool, risingEdges: Bool = false) throws(JoltError) -> (GPIOLine, String) {
        let label = "\(name) (\(spec.label))"
        let address = try locate(spec, what: name)
        do {
            return (try GPIOLine(address, output: output, activeLow: spec.activeLow, pullUp: spec.pullUp, risingEdges: risingEdges), label)
        } catch {
            throw Self.error(error, what: label)
        }
    }

    package static func locate(_ spec: LineSpec, what: String) throws(JoltError) -> GPIOLineAddress {
        if let chip = spec.chip, let offset = spec.offset { return GPIOLineAddress(chip: chip, offset: offset) }
        do {
            return try GPIO.find(name: spec.name ?? "", chips: GPIO.chips())
        } catch {
            throw ChardevOutput.error(error, what: "\(what) (\(spec.label))")
        }
    }

    package static func error(_ e: GPIOError, what: String) -> JoltError {
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

    package func set(_ active: Bool) throws(JoltError) {
        do { try line.set(active) } catch {
            throw JoltError(.ioError, "GPIO line \(label): setting it \(active ? "active" : "inactive") failed: \(error) (\(error.name))")
        }
    }

    package func release() { line.release() }
}


/// Plays a pattern on a line from a start time: the level at any time, and when it next changes.
package struct PatternPlayer: Equatable {
    package let pattern: Pattern
    package let start: Int64

    package init(pattern: Pattern, start: Int64) {
        self.pattern = pattern
        self.start = start
    }

    /// The level at `t` (µs); nil once a pulse is over.
    package func level(at t: Int64) -> Bool? {
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

    /// Plays the pattern through `set`, one phase after another, each for its full length from
    /// when it was set: `wait` sleeps that long (forever for nil) and says false when a signal
    /// ended the wait early. A late wake-up stretches the pattern and never skips an edge, so
    /// five beeps are five however busy the machine (levels read off the clock would merge two
    /// beeps whose gap the process slept through). A steady level has no next edge: a wait that
    /// ends with no signal waits again.
    package func play(set: (Bool) throws(JoltError) -> Void, wait: (Int64?) -> Bool) throws(JoltError) {
        var steps = SteppedPattern(pattern: pattern, start: start), now = start, current: Bool?
        while let want = steps.level(at: now) {
            if want != current {
                try set(want)
                current = want
            }
            let end = steps.phaseEnd
            guard wait(end == .max ? nil : end - now) else { return }
            if end != .max { now = end }
        }
    }

    /// The next time after `t` at which the level changes.
    package func nextEdge(after t: Int64) -> Int64 {
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

/// A pattern played by a thread that wakes when it can (the action thread, and `jolt output`
/// through `PatternPlayer.play`): one phase after another, each held its full length from when
/// its level was set. A wake-up later than a phase's end moves on to the next phase only, so a late thread
/// stretches the pattern and never skips an edge: two chirps stay two, however busy the Pi.
package struct SteppedPattern: Equatable {
    package let player: PatternPlayer
    /// The pattern's time of the phase being played, and when its level was set (µs).
    package private(set) var phase: Int64
    package private(set) var setAt: Int64

    package init(pattern: Pattern, start: Int64) {
        player = PatternPlayer(pattern: pattern, start: start)
        phase = start
        setAt = start
    }

    /// When the phase being played ends: its length after its level was set.
    package var phaseEnd: Int64 {
        player.pattern == .steady ? .max : setAt + (player.nextEdge(after: phase) - phase)
    }

    /// The level at `now`, moved on to the next phase when this one has been held its length;
    /// nil once the pattern is over.
    package mutating func level(at now: Int64) -> Bool? {
        if now >= phaseEnd {
            phase = player.nextEdge(after: phase)
            setAt = now
        }
        return player.level(at: phase)
    }
}
