#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltJSON
import JoltLinux
import JoltActions
import JoltBuildInfo
import JoltConfig
import JoltMQTT
import JoltSupport
import JoltTrace

/// The alarm as last saved: what a restart (a crash, `kill -9`, systemd's `Restart=`, a power
/// cut) comes back to.
package struct SavedAlarm: Equatable {
    package var state: AlarmState
    /// When it entered that state, wall clock (µs since 1970, UTC).
    package var sinceWallMicros: Int64
    /// What caused it ("tamper", "disarm", …).
    package var cause: String
    /// The tamper detector's reference orientation (gravity, mg), while armed or sounding.
    package var reference: Vec3?
    /// How it was armed ("away" unless armed home or night).
    package var mode: ArmMode = .away

    package init(state: AlarmState, sinceWallMicros: Int64, cause: String, reference: Vec3? = nil, mode: ArmMode = .away) {
        self.state = state
        self.sinceWallMicros = sinceWallMicros
        self.cause = cause
        self.reference = reference
        self.mode = mode
    }
}

/// Keeps the alarm's state in `alarm.json` in the state directory (the service's
/// StateDirectory, /var/lib/jolt), written atomically and durably: a temporary file, fsync,
/// rename, fsync of the folder. An operator resets it with `jolt disarm` (or by removing the
/// file, which arms the alarm at the next start: fail-secure).
///
/// The alarm first, the disk after: `save` hands the state to a thread of the store's own and
/// returns at once, so that neither the buzzer nor the next poll of the chip waits for an SD
/// card's fsync (tens to hundreds of milliseconds). A newer state replaces one not yet written.
/// Each save has a number; `savedThrough` says up to which one the disk holds, and `written`
/// becomes readable when it moves, so that an arm or a disarm is acknowledged only once it
/// would survive a power cut. `stop` writes what is pending before it returns.
package final class AlarmStore: @unchecked Sendable {
    package let directory: String
    package var path: String { directory + "/alarm.json" }
    /// How a state's text reaches the disk (a test gives a slow disk).
    package typealias Writer = @Sendable (_ path: String, _ text: String) throws(JoltError) -> Void
    private let writer: Writer
    /// Readable when `savedThrough` has moved (the run polls it).
    package let written: WakeChannel
    private let wake: WakeChannel
    private let lock = Lock()
    /// Under `lock`: the newest state not yet taken by the writer thread, the last save's
    /// number, the last number the disk holds (written or given up on), whether to stop.
    private var pending: (number: UInt64, state: SavedAlarm)?
    private var numbered: UInt64 = 0
    private var done: UInt64 = 0
    private var stopping = false
    private var thread: PThread?
    /// The writer thread's: a failed write is reported once, until one succeeds again.
    private var failing = false

    package init(directory: String, writer: @escaping Writer = AlarmStore.durable) throws(JoltError) {
        self.directory = directory
        self.writer = writer
        do {
            written = try WakeChannel()
            wake = try WakeChannel()
        } catch {
            throw JoltError(.software, "cannot create the alarm store's wake-up channels: \(error)")
        }
    }

    /// The folder a board's alarm state lives in: `--state-dir`, else the profile's
    /// `alarm.state_dir`, else systemd's $STATE_DIRECTORY, else /var/lib/jolt for a real board.
    /// A simulated board keeps its state only when told where.
    package static func directory(option: String?, board: BoardProfile) -> String? {
        if let o = option, !o.isEmpty { return o }
        if let d = board.alarm?.stateDirectory { return BoardProfile.resolve(d, against: board.file) }
        if let e = Environment.value("STATE_DIRECTORY"), let first = e.split(separator: ":").first, !first.isEmpty {
            return String(first)
        }
        return board.isSimulated ? nil : "/var/lib/jolt"
    }

    /// What the file says: `nil` when there is none; an error message when it cannot be read.
    package func load() -> Result<SavedAlarm?, LoadError> {
        guard Files.status(path) != nil else {
            let e = Errno.current
            return e == .noEntry ? .success(nil) : .failure(LoadError(message: "\(path): cannot read it (\(e.name))"))
        }
        let bytes: [UInt8]
        do { bytes = try readFile(path, what: "alarm state", missingHint: "", limit: 4096) } catch {
            return .failure(LoadError(message: error.message))
        }
        guard let node = try? JSONParser.parse(bytes), case .object(let o) = node.value else {
            return .failure(LoadError(message: "\(path): not a saved alarm state (damaged?)"))
        }
        func field(_ k: String) -> JSON? { o.first { $0.key == k }?.value.value }
        guard case .string(let name)? = field("state"), let state = AlarmState.allCases.first(where: { EventRecord.alarmName($0) == name }),
              case .number(let since)? = field("since_unix_us"), let sinceWall = Int64(since) else {
            return .failure(LoadError(message: "\(path): not a saved alarm state (damaged?)"))
        }
        var cause = ""
        if case .string(let c)? = field("cause") { cause = c }
        var reference: Vec3?
        if case .array(let items)? = field("reference_mg"), items.count == 3 {
            var v: [Int32] = []
            for i in items { if case .number(let n) = i.value, let x = Int32(n), abs(x) <= 32_000 { v.append(x) } }
            if v.count == 3 { reference = Vec3(v[0], v[1], v[2]) }
        }
        if (state == .armed || state == .triggered || state == .pending) && reference == nil {
            return .failure(LoadError(message: "\(path): an \(name) alarm with no reference orientation (damaged?)"))
        }
        var mode = ArmMode.away
        if case .string(let m)? = field("mode") { mode = ArmMode.allCases.first { EventRecord.modeName($0) == m } ?? .away }
        return .success(SavedAlarm(state: state, sinceWallMicros: sinceWall, cause: cause, reference: reference, mode: mode))
    }

    package struct LoadError: Error, Equatable {
        package let message: String
        package init(message: String) { self.message = message }
    }

    /// The file's text.
    package static func text(_ s: SavedAlarm) -> String {
        var f: [(String, JSON)] = [("state", .string(EventRecord.alarmName(s.state))), ("since", .string(WallClock.iso8601(s.sinceWallMicros))),
                                   ("since_unix_us", .int(s.sinceWallMicros)), ("cause", .string(s.cause))]
        if let r = s.reference { f.append(("reference_mg", [.int(r.x), .int(r.y), .int(r.z)])) }
        if s.mode != .away { f.append(("mode", .string(EventRecord.modeName(s.mode)))) }
        return JSON.members(f).text + "\n"
    }

    /// Queues `s` to be saved, durably, and returns its number at once. A failed write is
    /// logged (once per spell) and otherwise ignored: the alarm goes on in memory.
    @discardableResult
    package func save(_ s: SavedAlarm) -> UInt64 {
        let n = lock.with { () -> UInt64 in
            numbered += 1
            pending = (numbered, s)
            return numbered
        }
        if thread == nil { thread = PThread { [self] in self.loop() } }
        wake.signal()
        return n
    }

    /// The number of the last save the disk holds (or that failed, logged): every save up to it
    /// is settled.
    package var savedThrough: UInt64 { lock.with { done } }

    /// The number of the last save asked for.
    package var lastSave: UInt64 { lock.with { numbered } }

    /// Writes what is pending and stops the writer thread (started by the first save).
    package func stop() {
        guard let t = thread else { return }
        lock.with { stopping = true }
        wake.signal()
        t.join()
        thread = nil
    }

    /// The writer thread: each newest state in turn, until stopped with nothing pending.
    private func loop() {
        while true {
            let (next, stop) = lock.with { () -> ((number: UInt64, state: SavedAlarm)?, Bool) in
                defer { pending = nil }
                return (pending, stopping)
            }
            if let next {
                write(next.state)
                lock.with { done = next.number }
                written.signal()
                continue
            }
            if stop { return }
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            _ = try? Sys.poll(&fds, timeoutMicros: nil)
            wake.drain()
        }
    }

    private func write(_ s: SavedAlarm) {
        do {
            try writer(path, Self.text(s))
            if failing { Log.info("alarm state saved again to \(path)") }
            failing = false
        } catch {
            if !failing { Log.error("cannot save the alarm state: \(error.message) (a restart would fall back to armed)") }
            failing = true
        }
    }

    /// The real disk: the state folder made if missing, the file replaced atomically and durably.
    @Sendable package static func durable(_ path: String, _ text: String) throws(JoltError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        do throws(Errno) { try Files.makeDirectory(directory) } catch {
            throw JoltError(.cannotCreate, "\(directory): cannot create the state folder (\(error.name))")
        }
        try AtomicFile.write(path, text, newMode: 0o640)
    }
}
