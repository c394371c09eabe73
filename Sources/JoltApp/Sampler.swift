#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltDrivers
import JoltLinux

/// A configured chip read for a fixed time, reading by reading, with a progress bar on a
/// terminal: what `jolt record` and `jolt calibrate` share.
final class Sampler {
    let board: BoardProfile
    let hw: Hardware
    let clock: RunClock
    var sensor: Sensor { hw.sensor }

    /// Opens the board and configures its chip.
    init(board: BoardProfile, fast: Bool, trace: String?) throws(JoltError) {
        self.board = board
        hw = try Hardware.open(board, trace: trace)
        if fast && hw.sim == nil { throw JoltError(.usage, "--fast runs simulated time; \(board.file) is real hardware on \(board.bus)") }
        clock = RunClock(virtual: fast, sim: hw.sim?.clock)
        var delay = ClockDelay(clock: clock)
        do { try hw.sensor.start(delay: &delay) } catch { throw chipError(error, hw.sensor, bus: hw.busName) }
    }

    /// Calls `body` with each raw reading (chip axes, no offsets) and its index, for `micros` of
    /// readings; returns how many there were. `progress` labels the bar ("recording").
    @discardableResult
    func read(micros total: Int64, progress: String?, _ body: (ChipSample, Int64) throws(JoltError) -> Void) throws(JoltError) -> Int64 {
        let period = sensor.periodMicros
        let interval = sensor.usesFIFO ? min(Int64(board.fifoPollMillis) * 1000, sensor.maxPollMicros) : period
        let show = progress != nil && TextOutput.standardError.isTerminal
        var frames: [ChipSample] = []
        var index: Int64 = 0
        var next = clock.now + interval
        var lastShown: Int64 = -1
        while index * period < total {
            clock.advance(to: next)
            frames.removeAll(keepingCapacity: true)
            let status: PollStatus
            do { status = try sensor.poll(into: &frames) } catch { throw chipError(error, sensor, bus: hw.busName) }
            if status == .overflow { Log.warning("FIFO overflow: samples lost at \(EventRecord.seconds(index * period)) s") }
            for f in frames where index * period < total {
                try body(f, index)
                index += 1
            }
            if show, let label = progress {
                let tenth = index * period / 100_000
                if tenth != lastShown {
                    lastShown = tenth
                    let done = Int(min(index * period * 30 / total, 30))
                    TextOutput.standardError.write("\r\(label) \(EventRecord.seconds(tenth * 100_000)) / \(EventRecord.seconds(total / 100_000 * 100_000)) s [\(String(repeating: "=", count: done))\(String(repeating: " ", count: 30 - done))]")
                    TextOutput.standardError.flush()
                }
            }
            if let sim = hw.sim, sim.exhausted, frames.isEmpty { break }
            next += interval
        }
        if show { TextOutput.standardError.write("\n") }
        return index
    }
}
