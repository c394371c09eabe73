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
package final class RemoteGuard {
    package static let triesBeforeLockout = 5
    package static let firstLockoutMicros: Int64 = 60_000_000
    package static let longestLockoutMicros: Int64 = 86_400_000_000

    package private(set) var failures = 0
    package private(set) var lockouts = 0
    package private(set) var lockedUntil: Int64 = 0
    /// Tries refused while locked out (counted, not logged one by one).
    package private(set) var refusedWhileLocked = 0
    package let path: String?

    /// `directory`: where the counts survive a restart (the alarm's state folder), if any.
    package init(directory: String?) {
        path = directory.map { $0 + "/remote-commands.json" }
        load()
    }

    /// When locked out at `now` (wall µs), how long is left.
    package func lockedFor(now: Int64) -> Int64? { now < lockedUntil ? lockedUntil - now : nil }

    /// A wrong (or missing) code at `now`. Returns the lockout's length when this one starts one.
    package func failed(now: Int64) -> Int64? {
        failures += 1
        defer { save() }
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
    package func succeeded() {
        guard failures != 0 || lockouts != 0 else { return }
        failures = 0
        lockouts = 0
        save()
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

    private func load() {
        guard let path, let bytes = try? readFile(path, what: "remote command state", missingHint: "", limit: 4096),
              let node = try? JSONParser.parse(bytes), case .object(let o) = node.value else { return }
        func int(_ k: String) -> Int64? { if case .number(let n)? = o.first(where: { $0.key == k })?.value.value { return Int64(n) }; return nil }
        failures = Int(int("failures") ?? 0)
        lockouts = Int(int("lockouts") ?? 0)
        lockedUntil = int("locked_until_unix_us") ?? 0
    }

    private func save() {
        guard let path else { return }
        let state: JSON = ["failures": .int(failures), "lockouts": .int(lockouts), "locked_until_unix_us": .int(lockedUntil)]
        let text = state.text + "\n"
        try? AtomicFile.write(path, text, newMode: 0o640)
    }
}
