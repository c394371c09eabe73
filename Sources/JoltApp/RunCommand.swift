#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltDrivers
import JoltLinux
import JoltSim

/// `jolt run`: open the board, configure the chip, stream samples through the detectors and
/// report what they find, until the simulated motion ends, the time limit passes, or a signal.
final class RunCommand {
    struct Options {
        var json: Bool?
        /// Simulated boards: run as fast as possible on simulated time.
        var fast = false
        /// Stop after this much stream time, µs.
        var limitMicros: Int64?
        /// Simulated boards: loop the motion forever.
        var forever = false
        /// A trace to play on the simulated board.
        var trace: String?
    }

    let board: BoardProfile
    let options: Options
    let out: OutputStream
    let hw: Hardware
    let clock: RunClock
    let printer: EventPrinter
    var signals: SignalChannel?

    /// Figures for the daemon-cost benchmark and the exit log line.
    struct Stats {
        var samples = 0
        var events = 0
        var wakeups = 0
        var overflows = 0
        var streamMicros: Int64 = 0
        var wallMicros: Int64 = 0
    }
    var stats = Stats()

    init(board: BoardProfile, options: Options, out: OutputStream) throws(JoltError) {
        var b = board
        if options.forever { b.sim.loop = true }
        self.board = b
        self.options = options
        self.out = out
        hw = try Hardware.open(b, trace: options.trace)
        if options.fast && hw.sim == nil {
            throw JoltError(.usage, "--fast runs simulated time; \(board.file) is real hardware on \(board.bus)")
        }
        clock = RunClock(virtual: options.fast, sim: hw.sim?.clock)
        printer = EventPrinter(out: out, json: options.json, flushEach: true)
    }

    /// Runs until done; returns normally on a clean stop (end of motion, time limit, signal).
    func run() throws(JoltError) {
        do {
            signals = try SignalChannel([SIGINT, SIGTERM, SIGHUP])
        } catch {
            throw JoltError(.software, "cannot set up signal handling: \(error)")
        }
        var delay = ClockDelay(clock: clock)
        let sensor = hw.sensor
        do {
            try sensor.start(delay: &delay)
        } catch {
            throw chipError(error, sensor, bus: hw.busName)
        }
        var settings = board.detection
        settings.rateMilliHz = sensor.rateMilliHz
        settings.gyro = sensor.hasGyro
        let fifo = sensor.usesFIFO ? "FIFO drained every \(min(Int64(board.fifoPollMillis) * 1000, sensor.maxPollMicros) / 1000) ms" : "read every sample"
        Log.info("\(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName): \(hz(sensor.rateMilliHz)) Hz, ±\(sensor.rangeMilliG / 1000) g\(sensor.hasGyro ? ", ±\(board.gyroRangeDps) °/s" : ""), \(fifo)\(clock.virtual ? ", simulated time" : "")")
        let wallStart = Sys.monotonicMicros()
        try withDetectors(settings, Loop(run: self, settings: settings))
        stats.wallMicros = Sys.monotonicMicros() - wallStart
        Log.info(summary)
    }

    var summary: String {
        let secs = Double(max(stats.streamMicros, 1)) / 1e6
        func rate(_ n: Int) -> String { String(Int((Double(n) / secs).rounded())) }
        return "stopped: \(stats.samples) samples over \(EventRecord.seconds(stats.streamMicros / 1000 * 1000)) s, \(stats.events) events, \(hw.transactions) bus transactions (\(rate(hw.transactions))/s), \(stats.wakeups) wake-ups (\(rate(stats.wakeups))/s)\(stats.overflows > 0 ? ", \(stats.overflows) FIFO overflows" : "")"
    }

    struct Loop: DetectorConsumer {
        let run: RunCommand
        let settings: DetectionSettings

        func consume<D: SampleDetector>(_ d: inout D) throws(JoltError) {
            let r = run
            let sensor = r.hw.sensor
            let period = sensor.periodMicros
            let interval = sensor.usesFIFO ? min(Int64(r.board.fifoPollMillis) * 1000, sensor.maxPollMicros) : period
            let origin = r.hw.sim?.origin ?? 0
            var frames: [ChipSample] = []
            frames.reserveCapacity(128)
            var records: [EventRecord] = []
            var index: Int64 = 0
            var lastPoll = r.clock.now
            var nextPoll = lastPoll + interval
            var fds = [pollfd(fd: r.signals!.fd, events: Int16(POLLIN), revents: 0)]
            while true {
                // Wait for the next poll (or a signal).
                if r.clock.virtual {
                    r.clock.advance(to: nextPoll)
                    _ = try? Sys.poll(&fds, timeoutMicros: 0)
                } else {
                    var now = r.clock.now
                    while now < nextPoll {
                        _ = try? Sys.poll(&fds, timeoutMicros: nextPoll - now)
                        if fds[0].revents != 0 { break }
                        now = r.clock.now
                    }
                }
                if fds[0].revents != 0 {
                    fds[0].revents = 0
                    var stop = false
                    while let sig = r.signals!.next() {
                        if sig == SIGINT || sig == SIGTERM { stop = true }
                    }
                    if stop { break }
                }
                r.stats.wakeups += 1
                let now = r.clock.now
                frames.removeAll(keepingCapacity: true)
                let status: PollStatus
                do {
                    status = try sensor.poll(into: &frames)
                } catch {
                    throw chipError(error, sensor, bus: r.hw.busName)
                }
                if status == .overflow {
                    // Samples were lost: skip the time they covered and start the detectors afresh
                    // rather than join old and new data.
                    let lost = max((now - lastPoll) / period - Int64(frames.count), 1)
                    index += lost
                    d.reset()
                    r.stats.overflows += 1
                    Log.warning("FIFO overflow: about \(lost) samples lost; the FIFO was reset")
                }
                lastPoll = now
                for f in frames {
                    let raw = Sample(t: origin + index * period, accel: Vec3(f.ax, f.ay, f.az), gyro: Vec3(f.gx, f.gy, f.gz))
                    let s = r.board.mount.apply(raw)
                    index += 1
                    r.stats.samples += 1
                    let e = d.update(s)
                    if !e.isEmpty {
                        records.removeAll(keepingCapacity: true)
                        EventBuilder.records(e, at: s.t, detectors: d, settings: settings, into: &records)
                        for rec in records {
                            r.stats.events += 1
                            r.printer.print(rec)
                        }
                    }
                }
                r.stats.streamMicros = index * period
                if let limit = r.options.limitMicros, index * period >= limit { break }
                if let sim = r.hw.sim, sim.exhausted, frames.isEmpty || !sensor.usesFIFO { break }
                nextPoll += interval
                if nextPoll <= r.clock.now - interval { nextPoll = r.clock.now + interval }
            }
        }
    }
}
