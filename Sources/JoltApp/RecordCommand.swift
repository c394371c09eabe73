#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltDrivers
import JoltLinux
import JoltTrace

/// `jolt record`: capture a jolt-trace v1 file from the chip (or the simulated board), in the
/// board's axes (mount and offsets applied), as `jolt run` sees it.
enum RecordCommand {
    static func run(board: BoardProfile, seconds: Int64, output: String, fast: Bool, trace: String?, out: OutputStream) throws(JoltError) {
        let hw = try Hardware.open(board, trace: trace)
        if fast && hw.sim == nil { throw JoltError(.usage, "--fast runs simulated time; this board is real hardware") }
        let clock = RunClock(virtual: fast, sim: hw.sim?.clock)
        var delay = ClockDelay(clock: clock)
        let sensor = hw.sensor
        do { try sensor.start(delay: &delay) } catch { throw chipError(error, sensor, bus: hw.busName) }

        let fd: Int32
        if output == "-" {
            fd = 1
        } else {
            do {
                fd = try Sys.open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            } catch {
                switch error {
                case .accessDenied, .permitted: throw JoltError(.noPermission, "\(output): permission denied (choose a folder you can write to)")
                case .noEntry: throw JoltError(.cannotCreate, "\(output): the folder does not exist")
                default: throw JoltError(.cannotCreate, "\(output): cannot create: \(error) (\(error.name))")
                }
            }
        }
        defer { if fd != 1 { Sys.close(fd) } }
        let file = OutputStream(fd: fd)
        let meta: [(String, String)] = [
            ("source", "jolt record, \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName)"),
            ("board", board.file.isEmpty ? board.name : board.file),
            ("range_g", "\(sensor.rangeMilliG / 1000)"),
        ]
        file.write(TraceWriter.header(rateMilliHz: sensor.rateMilliHz, gyro: sensor.hasGyro, metadata: meta))
        let period = sensor.periodMicros
        let total = seconds * 1_000_000
        let interval = sensor.usesFIFO ? min(Int64(board.fifoPollMillis) * 1000, sensor.maxPollMicros) : period
        let progress = OutputStream.standardError.isTerminal && output != "-"
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
                let s = board.mount.apply(Sample(t: index * period, accel: Vec3(f.ax, f.ay, f.az), gyro: Vec3(f.gx, f.gy, f.gz)))
                file.write(TraceWriter.row(s, gyro: sensor.hasGyro))
                index += 1
            }
            if file.broken { throw JoltError(.ioError, "\(output): write failed") }
            if progress {
                let tenth = index * period / 100_000
                if tenth != lastShown {
                    lastShown = tenth
                    let done = Int(min(index * period * 30 / total, 30))
                    OutputStream.standardError.write("\rrecording \(EventRecord.seconds(tenth * 100_000)) / \(seconds) s [\(String(repeating: "=", count: done))\(String(repeating: " ", count: 30 - done))]")
                    OutputStream.standardError.flush()
                }
            }
            if let sim = hw.sim, sim.exhausted, frames.isEmpty { break }
            next += interval
        }
        if progress { OutputStream.standardError.write("\n") }
        file.flush()
        if file.broken { throw JoltError(.ioError, "\(output): write failed") }
        Log.info("recorded \(index) samples (\(EventRecord.seconds(index * period)) s at \(hz(sensor.rateMilliHz)) Hz) to \(output)")
    }
}
