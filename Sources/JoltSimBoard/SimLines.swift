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

/// The simulated chip's INT pin: the twin raises it as the chip would (its interrupt registers
/// as the plug-in set them), and the pin says when, stepping the twin one reading at a time, so
/// that the loop sleeps until then (or, on simulated time, jumps there).
package final class SimInterruptPin: InterruptPin {
    package let label: String
    let device: any SimulatedChip
    let stepMicros: Int64
    /// Rises taken so far, and the time of one found and not yet taken.
    var taken = 0
    var pending: Int64?

    package init(spec: InterruptLine, device: any SimulatedChip, stepMicros: Int64) {
        label = "int (simulated \(spec.line.label))"
        self.device = device
        self.stepMicros = max(stepMicros, 1)
    }

    package var descriptor: Int32? { nil }

    package func nextRise(after now: Int64, until deadline: Int64) -> Int64? {
        if let p = pending { return p <= deadline ? p : nil }
        // From reading to reading: the pin can only rise when the chip makes one.
        var t = max(now + 1, device.tap.nextAt)
        while t <= deadline {
            if device.interruptEdges(by: t) > taken {
                pending = t
                return t
            }
            let next = device.tap.nextAt
            t = next > t ? next : t + stepMicros
        }
        return nil
    }

    package func take(now: Int64) -> Int {
        let edges = device.interruptEdges(by: max(now, pending ?? now))
        defer {
            taken = edges
            pending = nil
        }
        return edges - taken
    }

    package func release() {}
}
