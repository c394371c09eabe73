import JoltLinux
import JoltJSON
import JoltActions
import JoltBuildInfo
import JoltConfig
import JoltCore
import JoltMQTT
import JoltSupport
import JoltTrace

/// Decides whether a remote command's code may be tried at all, and counts the wrong ones:
/// after 5 wrong codes every remote command is locked out for a minute, then for twice as long
/// after each further lockout (at most a day), counted across connections and — with a state
/// folder — across restarts. A right code clears the count. Codes are compared in constant time.
///
/// A lockout runs on the monotonic clock (`Sys.monotonicMicros`): a step of the wall clock
/// neither shortens nor lengthens it. The counts are saved by a `SaveQueue`, on a thread of its
/// own, so that a wrong code never holds up the sampling thread that judges it; a lockout is
/// saved with what is left of it, and a restart serves that again in full (a restart never
/// shortens a lockout; `stop` saves what is left at a clean stop).
package final class RemoteGuard {
    package static let triesBeforeLockout = 5
    package static let firstLockoutMicros: Int64 = 60_000_000
    package static let longestLockoutMicros: Int64 = 86_400_000_000

    package private(set) var failures = 0
    package private(set) var lockouts = 0
    /// When the lockout ends, monotonic µs.
    package private(set) var lockedUntil: Int64 = 0
    /// Tries refused while locked out (counted, not logged one by one).
    package private(set) var refusedWhileLocked = 0
    package let path: String?
    private let saves: SaveQueue?

    /// `directory`: where the counts survive a restart (the alarm's state folder), if any;
    /// `writer`: how they reach the disk (a test gives a slow one).
    package init(directory: String?, writer: @escaping SaveQueue.Writer = RemoteGuard.durable, now: Int64 = Sys.monotonicMicros()) {
        path = directory.map { $0 + "/remote-commands.json" }
        saves = path.flatMap { try? SaveQueue(path: $0, what: "the remote-command counts", writer: writer) }
        load(now: now)
    }

    /// The real disk: the file replaced atomically and durably.
    @Sendable package static func durable(_ path: String, _ text: String) throws(JoltError) {
        try AtomicFile.write(path, text, newMode: 0o640)
    }

    /// Saves what is left of a lockout at `now` and waits for the disk (at the way out).
    package func stop(now: Int64 = Sys.monotonicMicros()) {
        if lockedFor(now: now) != nil { save(now: now) }
        saves?.stop()
    }

    /// When locked out at `now` (monotonic µs), how long is left.
    package func lockedFor(now: Int64) -> Int64? { now < lockedUntil ? lockedUntil - now : nil }

    /// A wrong (or missing) code at `now`. Returns the lockout's length when this one starts one.
    package func failed(now: Int64) -> Int64? {
        failures += 1
        defer { save(now: now) }
        guard failures >= Self.triesBeforeLockout else { return nil }
        failures = 0
        lockouts += 1
        var length = Self.firstLockoutMicros
        for _ in 1..<lockouts where length < Self.longestLockoutMicros { length *= 2 }
        length = min(length, Self.longestLockoutMicros)
        lockedUntil = now + length
        return length
    }

    /// A try while locked out.
    package func refusedLocked() { refusedWhileLocked += 1 }

    /// The right code: the slate is clean.
    package func succeeded(now: Int64 = Sys.monotonicMicros()) {
        guard failures != 0 || lockouts != 0 else { return }
        failures = 0
        lockouts = 0
        save(now: now)
    }

    /// Whether `given` is `expected`, in time that does not depend on where they differ.
    package static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        var diff = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    /// The saved counts; a lockout saved with what was left of it starts again at `now`.
    private func load(now: Int64) {
        guard let path, let bytes = try? readFile(path, what: "remote command state", missingHint: "", limit: 4096),
              let node = try? JSONParser.parse(bytes), case .object(let o) = node.value else { return }
        func int(_ k: String) -> Int64? { if case .number(let n)? = o.first(where: { $0.key == k })?.value.value { return Int64(n) }; return nil }
        failures = Int(int("failures") ?? 0)
        lockouts = Int(int("lockouts") ?? 0)
        // A file from before the lockout was kept as what is left: its wall-clock end.
        let left = int("lockout_left_us") ?? (int("locked_until_unix_us").map { $0 - WallClock.nowMicros() } ?? 0)
        if left > 0 { lockedUntil = now + min(left, Self.longestLockoutMicros) }
    }

    private func save(now: Int64) {
        guard let saves else { return }
        let left = max(0, lockedUntil - now)
        let state: JSON = ["failures": .int(failures), "lockouts": .int(lockouts), "lockout_left_us": .int(left),
                           "locked_until_unix_us": .int(left > 0 ? WallClock.nowMicros() + left : 0)]
        saves.save(state.text + "\n")
    }
}
