import JoltCore
import JoltJSON
import JoltLinux

/// The alarm as last saved: what a restart (a crash, `kill -9`, systemd's `Restart=`, a power
/// cut) comes back to.
struct SavedAlarm: Equatable {
    var state: AlarmState
    /// When it entered that state, wall clock (µs since 1970, UTC).
    var sinceWallMicros: Int64
    /// What caused it ("tamper", "disarm", …).
    var cause: String
    /// The tamper detector's reference orientation (gravity, mg), while armed or sounding.
    var reference: Vec3?
}

/// Keeps the alarm's state in `alarm.json` in the state directory (the service's
/// StateDirectory, /var/lib/jolt), written atomically and durably: a temporary file, fsync,
/// rename, fsync of the folder. An operator resets it with `jolt disarm` (or by removing the
/// file, which arms the alarm at the next start: fail-secure).
final class AlarmStore {
    let directory: String
    var path: String { directory + "/alarm.json" }
    /// A failed write is reported once, until one succeeds again.
    private var failing = false

    init(directory: String) {
        self.directory = directory
    }

    /// The folder a board's alarm state lives in: `--state-dir`, else the profile's
    /// `alarm.state_dir`, else systemd's $STATE_DIRECTORY, else /var/lib/jolt for a real board.
    /// A simulated board keeps its state only when told where.
    static func directory(option: String?, board: BoardProfile) -> String? {
        if let o = option, !o.isEmpty { return o }
        if let d = board.alarm?.stateDirectory { return BoardProfile.resolve(d, against: board.file) }
        if let e = Environment.value("STATE_DIRECTORY"), let first = e.split(separator: ":").first, !first.isEmpty {
            return String(first)
        }
        return board.isSimulated ? nil : "/var/lib/jolt"
    }

    /// What the file says: `nil` when there is none; an error message when it cannot be read.
    func load() -> Result<SavedAlarm?, LoadError> {
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
        if (state == .armed || state == .triggered) && reference == nil {
            return .failure(LoadError(message: "\(path): an \(name) alarm with no reference orientation (damaged?)"))
        }
        return .success(SavedAlarm(state: state, sinceWallMicros: sinceWall, cause: cause, reference: reference))
    }

    struct LoadError: Error, Equatable { let message: String }

    /// The file's text.
    static func text(_ s: SavedAlarm) -> String {
        var f: [(String, JSON)] = [("state", .string(EventRecord.alarmName(s.state))), ("since", .string(WallClock.iso8601(s.sinceWallMicros))),
                                   ("since_unix_us", .int(s.sinceWallMicros)), ("cause", .string(s.cause))]
        if let r = s.reference { f.append(("reference_mg", [.int(r.x), .int(r.y), .int(r.z)])) }
        return JSON.members(f).text + "\n"
    }

    /// Saves `s`, durably. A failure is logged (once per spell) and otherwise ignored: the alarm
    /// goes on in memory.
    func save(_ s: SavedAlarm) {
        do {
            try write(Self.text(s))
            if failing { Log.info("alarm state saved again to \(path)") }
            failing = false
        } catch {
            if !failing { Log.error("cannot save the alarm state: \(error.message) (a restart would fall back to armed)") }
            failing = true
        }
    }

    private func write(_ text: String) throws(JoltError) {
        do { try Files.makeDirectory(directory) } catch {
            throw JoltError(.cannotCreate, "\(directory): cannot create the state folder (\(error.name))")
        }
        try AtomicFile.write(path, text, newMode: 0o640)
    }
}
