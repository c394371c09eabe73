import JoltActions
import JoltCore
import JoltEngine
import JoltSupport

/// What a run did, as it ended: what `RunCommand.run()` returns. The exit log line is made from
/// it; `soak`, the benchmark and the tests read it rather than the run's parts.
package struct RunReport: Sendable {
    package var samples = 0
    package var events = 0
    package var wakeups = 0
    package var overflows = 0
    /// Samples skipped after failed polls without a FIFO (a gap in the summary).
    package var skipped = 0
    package var transactions = 0
    package var streamMicros: Int64 = 0
    package var wallMicros: Int64 = 0
    /// Whether a played motion or trace ran out (the run ended with it).
    package var motionEnded = false
    /// The chip's health at the end: its phase, faults, retried bus errors, re-probes.
    package var chip: ChipSupervisor
    /// The INT pin's edges by cause; nil when the board wires no pin.
    package var interrupts: InterruptCounts?
    /// The alarm at the end; nil when the board has none.
    package var alarm: AlarmState?
    package var lastTrigger: LastTrigger?
    /// Monotonic time of the last trigger, µs (for the latency to the buzzer).
    package var triggeredAtWall: Int64?
    /// Tampers seen while the alarm was already sounding, since it last triggered.
    package var tamperRepeats = 0

    package init(chip: ChipSupervisor) { self.chip = chip }

    /// "stopped: 6000 samples over 60.000 s, 4 events, …": the log line a run ends with.
    package var summary: String {
        let secs = Double(max(streamMicros, 1)) / 1e6
        func rate(_ n: Int) -> String { String(Int((Double(n) / secs).rounded())) }
        var parts = ["\(counted(samples, "sample")) over \(EventRecord.seconds(streamMicros / 1000 * 1000)) s",
                     counted(events, "event"),
                     "\(counted(transactions, "bus transaction")) (\(rate(transactions))/s)",
                     "\(counted(wakeups, "wake-up")) (\(rate(wakeups))/s)"]
        if overflows > 0 { parts.append(counted(overflows, "FIFO overflow")) }
        if chip.faults > 0 { parts.append(counted(chip.faults, "fault")) }
        if chip.transientErrors > 0 { parts.append("\(counted(chip.transientErrors, "bus error")) retried") }
        if skipped > 0 { parts.append("\(counted(skipped, "sample")) skipped") }
        if let i = interrupts {
            parts.append("INT rose \(counted(i.edges, "time")) (motion \(i.motion), watermark \(i.watermark), reading \(i.dataReady))")
        }
        return "stopped: " + parts.joined(separator: ", ")
    }
}
