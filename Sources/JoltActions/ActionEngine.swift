#if canImport(Glibc)
import Glibc
#endif
import JoltLinux
import JoltConfig
import JoltCore
import JoltJSON
import JoltSupport
import JoltTrace

/// Carries out actions: drives output patterns, runs commands, prints events. Single-threaded
/// and told the time, so that its logic can be tested step by step; `ActionWorker` runs it on a
/// thread of its own, so that sampling never waits on an action.
package final class ActionEngine {
    /// What the engine is asked to do.
    package enum Job {
        /// An event happened: do these actions.
        case event(EventRecord, [Action])
        /// The alarm started or stopped sounding.
        case alarm(sounding: Bool)
        /// `jolt output`: play a pattern on an output, or (nil) stop what it plays.
        case manual(output: String, Pattern?)
    }

    package let outputs: [String: OutputLine]
    package let alarmOutput: String?
    package let alarmPattern: Pattern
    package let printer: EventPrinter?
    package let boardName: String
    /// The board profile's file, absolute ("" for a built-in board): a command's `$JOLT_BOARD`,
    /// so that a `jolt` it runs finds the same board.
    package let boardFile: String
    package let log: Logger
    /// What each output plays, phase by phase (a count of beeps is the message); the alarm's
    /// cadence keeps time instead, read off the clock.
    package var players: [String: SteppedPattern] = [:]
    package var alarmPlayer: PatternPlayer?
    package var levels: [String: Bool] = [:]
    package var failedLines: Set<String> = []
    package var children: [(process: ChildProcess, deadline: Int64, output: [UInt8], killedAt: Int64?)] = []
    /// Commands not started because too many were running.
    package private(set) var droppedCommands = 0
    package static let maxChildren = 8

    package init(outputs: [String: OutputLine], alarmOutput: String?, alarmPattern: Pattern, printer: EventPrinter?, boardName: String, boardFile: String = "", log: Logger = .standard) {
        self.log = log
        self.outputs = outputs
        self.alarmOutput = alarmOutput
        self.alarmPattern = alarmPattern
        self.printer = printer
        self.boardName = boardName
        self.boardFile = boardFile
        for name in outputs.keys { levels[name] = false }
    }

    package func handle(_ job: Job, now: Int64) {
        switch job {
        case .event(let record, let actions):
            for a in actions {
                switch a {
                case .stdout:
                    printer?.print(record)
                case .output(let name, let pattern):
                    players[name] = SteppedPattern(pattern: pattern, start: now)
                case .command(let argv, let timeout):
                    start(argv, record: record, timeout: timeout, now: now)
                }
            }
        case .alarm(let sounding):
            alarmPlayer = sounding ? PatternPlayer(pattern: alarmPattern, start: now) : nil
        case .manual(let name, let pattern):
            players[name] = pattern.map { SteppedPattern(pattern: $0, start: now) }
        }
        tick(now: now)
    }

    /// The level each output should have now.
    package func desired(_ name: String, now: Int64) -> Bool {
        if name == alarmOutput, let a = alarmPlayer { return a.level(at: now) ?? false }
        if let l = players[name]?.level(at: now) { return l }
        players[name] = nil
        return false
    }

    /// Brings every output to its level for `now`, and looks after running commands.
    package func tick(now: Int64) {
        for (name, line) in outputs {
            let want = desired(name, now: now)
            guard levels[name] != want else { continue }
            do {
                try line.set(want)
                levels[name] = want
                failedLines.remove(name)
            } catch {
                // Reported once per failure spell, retried on the next tick.
                if !failedLines.contains(name) { log.error(error.message) }
                failedLines.insert(name)
            }
        }
        tendChildren(now: now)
    }

    /// When something next changes (an edge, a command's deadline), µs.
    package func nextDeadline(now: Int64) -> Int64? {
        var next: Int64?
        func take(_ t: Int64) { next = min(next ?? t, t) }
        for (name, p) in players where !(name == alarmOutput && alarmPlayer != nil) && p.player.pattern != .steady { take(p.phaseEnd) }
        if let a = alarmPlayer { take(a.nextEdge(after: now)) }
        for c in children { take(c.killedAt.map { $0 + 1_000_000 } ?? c.deadline) }
        if !failedLines.isEmpty { take(now + 1_000_000) }
        return next
    }

    /// Descriptors to poll: the running commands' output pipes.
    package var pollFDs: [Int32] { children.map { $0.process.output } }

    package func start(_ argv: [String], record: EventRecord, timeout: Int32, now: Int64) {
        guard children.count < Self.maxChildren else {
            droppedCommands += 1
            log.warning("command \(argv[0]) not run for \(record.bindingName): \(Self.maxChildren) commands still running (\(droppedCommands) dropped so far)")
            return
        }
        // $JOLT_BOARD is what every jolt command reads as its board profile: the file, never the
        // name (a `jolt output buzzer --beep 1` run by an action finds the running jolt's board).
        var env = ["JOLT_EVENT=\(record.bindingName)", "JOLT_T=\(EventRecord.seconds(record.t))", "JOLT_JSON=\(record.json)", "JOLT_BOARD_NAME=\(boardName)"]
        if !boardFile.isEmpty { env.append("JOLT_BOARD=\(boardFile)") }
        // The variant under its JSON key, as its kind declares it (EventKinds): JOLT_PHASE=began,
        // JOLT_STATE=face_down, JOLT_STATE=triggered.
        let (kind, variant) = record.declared
        if let key = kind.variantKey, let variant { env.append("JOLT_\(key.uppercased())=\(variant)") }
        if let p = record.peakMilliG { env.append("JOLT_PEAK_G=\(EventRecord.g(p))") }
        for key in ["PATH", "HOME", "LANG", "TZ"] {
            if let v = Environment.value(key) { env.append("\(key)=\(v)") }
        }
        do {
            let p = try ChildProcess(argv: argv, environment: env)
            children.append((p, now + Int64(timeout) * 1000, [], nil))
        } catch {
            log.error("command \(argv[0]) for \(record.bindingName) could not start: \(error) (\(error.name)) — check the path and that it is executable")
        }
    }

    package func tendChildren(now: Int64) {
        var i = 0
        while i < children.count {
            var c = children[i]
            _ = c.process.readOutput(into: &c.output)
            while let nl = c.output.firstIndex(of: 0x0A) {
                let line = String(decoding: c.output[..<nl], as: UTF8.self)
                c.output.removeSubrange(...nl)
                log.info("command \(c.process.argv[0]): \(line)")
            }
            if c.process.reap() {
                if !c.output.isEmpty { log.info("command \(c.process.argv[0]): \(String(decoding: c.output, as: UTF8.self))") }
                if let s = c.process.status, s != 0 {
                    log.warning("command \(c.process.argv[0]) \(c.killedAt != nil ? "timed out and was stopped" : "exited with status \(s)")")
                }
                children.remove(at: i)
                continue
            }
            if c.killedAt == nil && now >= c.deadline {
                log.warning("command \(c.process.argv[0]) took longer than its timeout: stopping it")
                c.process.terminate()
                c.killedAt = now
            } else if let k = c.killedAt, now >= k + 1_000_000 {
                c.process.terminate(hard: true)
            }
            children[i] = c
            i += 1
        }
    }

    /// The fail-safe: every output inactive, every line released, commands stopped.
    package func shutdown() {
        alarmPlayer = nil
        players.removeAll()
        for (_, line) in outputs {
            try? line.set(false)
            line.release()
        }
        for c in children { c.process.terminate(hard: true) }
        children.removeAll()
    }
}

/// Runs an `ActionEngine` on its own thread. `submit` never blocks on the actions themselves:
/// it queues the job and wakes the thread.
package final class ActionWorker: @unchecked Sendable {
    package let engine: ActionEngine
    package let wake: WakeChannel
    package let lock = Lock()
    package var queue: [ActionEngine.Job] = []
    package var stopping = false
    package var thread: PThread?
    /// Jobs dropped because the queue was full.
    package private(set) var dropped = 0
    package static let maxQueue = 1024
    /// Under `lock`: the outputs whose lines cannot be driven now (tried again each second).
    private var failing: Set<String> = []
    /// The outputs whose lines the action thread cannot drive, as of its last turn.
    package var failedOutputs: Set<String> { lock.with { failing } }

    package init(engine: ActionEngine) throws(JoltError) {
        self.engine = engine
        do { wake = try WakeChannel() } catch { throw JoltError(.software, "cannot create the action thread's wake-up channel: \(error)") }
    }

    package func start() {
        thread = PThread { [self] in self.loop() }
    }

    /// Queues a job for the action thread.
    package func submit(_ job: ActionEngine.Job) {
        let droppedNow = lock.with { () -> Int? in
            guard queue.count < Self.maxQueue else {
                dropped += 1
                return dropped
            }
            queue.append(job)
            return nil
        }
        guard let droppedNow else { return wake.signal() }
        if droppedNow % 100 == 1 { engine.log.warning("actions are falling behind: \(droppedNow) dropped") }
    }

    package func loop() {
        while true {
            let (jobs, stop) = lock.with { () -> ([ActionEngine.Job], Bool) in
                defer { queue.removeAll() }
                return (queue, stopping)
            }
            let now = Sys.monotonicMicros()
            for j in jobs { engine.handle(j, now: now) }
            if stop {
                engine.shutdown()
                return
            }
            engine.tick(now: Sys.monotonicMicros())
            let failed = engine.failedLines
            lock.with { failing = failed }
            let t = Sys.monotonicMicros()
            let timeout = engine.nextDeadline(now: t).map { max($0 - t, 0) }
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)] + engine.pollFDs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = try? Sys.poll(&fds, timeoutMicros: engine.pollFDs.isEmpty ? timeout : min(timeout ?? 100_000, 100_000))
            if fds[0].revents != 0 { wake.drain() }
        }
    }

    /// Stops the thread after the fail-safe: outputs inactive, lines released.
    package func stop() {
        lock.with { stopping = true }
        wake.signal()
        thread?.join()
        thread = nil
    }
}
