import JoltActions
import JoltConfig
import JoltLinux
import JoltSupport
import JoltBoard
import JoltChips
import JoltCore
import JoltDrivers
import JoltMotion
import JoltSim
import JoltTrace

/// A simulated output (the simulated board's buzzer): it keeps its level and history, and says
/// each change on the log, so the buzzer can be followed in a terminal.
package final class SimOutput: OutputLine {
    package let label: String
    package let lock = Lock()
    package private(set) var level = false
    /// (monotonic µs, level) for each change.
    package private(set) var history: [(Int64, Bool)] = []
    package var released = false

    package init(name: String, spec: LineSpec) {
        label = "\(name) (simulated \(spec.label))"
    }

    package func set(_ active: Bool) throws(JoltError) {
        let changed = lock.with { () -> Bool in
            guard active != level else { return false }
            level = active
            history.append((Sys.monotonicMicros(), active))
            return true
        }
        if changed { Log.info("line \(label): \(active ? "active" : "inactive")") }
    }

    package func release() {
        try? set(false)
        lock.with { released = true }
    }

    package var isActive: Bool { lock.with { level } }
    package var isReleased: Bool { lock.with { released } }
    package var changes: [(Int64, Bool)] { lock.with { history } }
}

/// A simulated input: a level that tests (and the simulated board) set.
package final class SimInput: InputLine {
    package let label: String
    package let lock = Lock()
    private var level = false

    package init(name: String, spec: LineSpec) {
        label = "\(name) (simulated \(spec.label))"
    }

    package func get() throws(JoltError) -> Bool { lock.with { level } }
    package func set(_ v: Bool) { lock.with { level = v } }
    package func release() {}
}
