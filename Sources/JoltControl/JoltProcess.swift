import JoltLinux

/// The `jolt run` processes on this machine, found as `pgrep` finds them: through /proc. A
/// client that reaches no socket uses it to tell "nothing runs" from "a jolt runs that opened
/// no socket" (a simulated board without an alarm or `control.socket`).
package struct JoltProcess: Equatable, Sendable {
    package var pid: Int32
    /// Its command line, arguments joined by spaces.
    package var command: String

    /// Every `jolt run` but this process, oldest pid first. `proc` is for tests.
    package static func all(proc: String = "/proc") -> [JoltProcess] {
        let me = ThisProcess.id
        var found: [JoltProcess] = []
        for name in (try? Files.list(proc)) ?? [] {
            guard let pid = Int32(name), pid != me, let raw = Files.read("\(proc)/\(name)/cmdline") else { continue }
            let args = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if isRun(args) { found.append(JoltProcess(pid: pid, command: args.filter { !$0.isEmpty }.joined(separator: " "))) }
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// `jolt run …`; not `swift run jolt run`, whose child `jolt` is found in its place.
    static func isRun(_ args: [String]) -> Bool {
        guard let first = args.first, first.split(separator: "/").last == "jolt", args.count > 1 else { return false }
        return args[1] == "run"
    }
}
