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
/// The alarm first, the disk after: `save` hands the state to a thread of the store's own
/// (`SaveQueue`) and returns at once, so that neither the buzzer nor the next poll of the chip
/// waits for an SD card's fsync (tens to hundreds of milliseconds). A newer state replaces one
/// not yet written. Each save has a number; `outcome(of:)` says whether the disk holds it, and
/// `written` becomes readable when that changes, so that an arm or a disarm is acknowledged only
/// once it would survive a power cut, and refused with the disk's error when it would not. A
/// failed write is tried again until it succeeds (`trouble` says why meanwhile), and `onDisk` is
/// what a restart would come back to. `stop` writes what is pending before it returns.
package final class AlarmStore: @unchecked Sendable {
    package let directory: String
    package var path: String { directory + "/alarm.json" }
    /// How a state's text reaches the disk (a test gives a slow or a full disk).
    package typealias Writer = SaveQueue.Writer
    private let queue: SaveQueue
    /// Readable when a save is settled, written or failed (the run polls it).
    package var written: WakeChannel { queue.written }
    private let lock = Lock()
    /// Under `lock`: the states asked for and not yet known to be on disk, by number, and the
    /// newest the disk is known to hold.
    private var asked: [(number: UInt64, state: SavedAlarm)] = []
    private var known: SavedAlarm?

    package init(directory: String, writer: @escaping Writer = AlarmStore.durable) throws(JoltError) {
        self.directory = directory
        queue = try SaveQueue(path: directory + "/alarm.json", what: "the alarm state", writer: writer)
    }

    /// The folder a board's alarm state lives in: `--state-dir`, else the profile's
    /// `alarm.state_dir`, else systemd's $STATE_DIRECTORY, else /var/lib/jolt for a board whose
    /// bus the run holds (a real one). Any other (the simulated board) keeps its state only when
    /// told where.
    package static func directory(option: String?, board: BoardProfile, holdsBus: Bool) -> String? {
        if let o = option, !o.isEmpty { return o }
        if let d = board.alarm?.stateDirectory { return BoardProfile.resolve(d, against: board.file) }
        if let e = Environment.value("STATE_DIRECTORY"), let first = e.split(separator: ":").first, !first.isEmpty {
            return String(first)
        }
        return holdsBus ? "/var/lib/jolt" : nil
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
        let saved = SavedAlarm(state: state, sinceWallMicros: sinceWall, cause: cause, reference: reference, mode: mode)
        lock.with { known = saved }
        return .success(saved)
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

    /// Queues `s` to be saved, durably, and returns its number at once.
    @discardableResult
    package func save(_ s: SavedAlarm) -> UInt64 {
        lock.with {
            let n = queue.save(Self.text(s))
            asked.append((n, s))
            return n
        }
    }

    /// Where save `n` stands: on disk, failed (and being tried again), or under way.
    package func outcome(of n: UInt64) -> SaveQueue.Outcome { queue.outcome(of: n) }

    /// The number of the last save the disk holds: every save up to it is settled.
    package var savedThrough: UInt64 { queue.savedThrough }

    /// The number of the last save asked for.
    package var lastSave: UInt64 { queue.lastSave }

    /// Why the alarm's newest state is not on disk, while its writes fail.
    package var trouble: String? { queue.trouble }

    /// What the disk holds as far as this run knows (what a restart would come back to): the
    /// newest state written, else what `load` read; nil when neither.
    package var onDisk: SavedAlarm? {
        let through = queue.savedThrough
        return lock.with {
            if let i = asked.lastIndex(where: { $0.number <= through }) {
                known = asked[i].state
                asked.removeFirst(i + 1)
            }
            return known
        }
    }

    /// Writes what is pending and stops the writer thread (started by the first save).
    package func stop() { queue.stop() }

    /// The real disk: the state folder made if missing, the file replaced atomically and durably.
    @Sendable package static func durable(_ path: String, _ text: String) throws(JoltError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        do throws(Errno) { try Files.makeDirectory(directory) } catch {
            throw JoltError(.cannotCreate, "\(directory): cannot create the state folder (\(error.name))")
        }
        try AtomicFile.write(path, text, newMode: 0o640)
    }
}
