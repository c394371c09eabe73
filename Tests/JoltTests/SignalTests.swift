import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltMotion
import JoltTestSupport
import Testing

/// One `jolt run` process on the kiosk board, its standard error read line by line with the
/// time each line arrived.
final class RunningJolt: @unchecked Sendable {
    let process = Process()
    let err = Pipe()
    let out = Pipe()
    private let lock = NSLock()
    private var lines: [(Date, String)] = []
    private var partial = ""
    /// Every byte read so far is in `lines` or `partial`; the reader stops once this is set.
    private var stopReading = false
    private let reader = DispatchGroup()

    init(_ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
        process.arguments = args
        process.standardError = err
        process.standardOutput = out
        try process.run()
        let fd = err.fileHandleForReading.fileDescriptor
        reader.enter()
        Thread.detachNewThread { [self] in
            defer { reader.leave() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, 20) > 0
                lock.lock()
                defer { lock.unlock() }
                if stopReading { return }
                guard ready else { continue }
                // Read and filed under the lock: what the pipe no longer holds is in `lines`.
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                append(buffer[0..<n], at: Date())
            }
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>, at now: Date) {
        partial += String(decoding: bytes, as: UTF8.self)
        while let nl = partial.firstIndex(of: "\n") {
            lines.append((now, String(partial[..<nl])))
            partial = String(partial[partial.index(after: nl)...])
        }
    }

    var stderrLines: [(Date, String)] { lock.lock(); defer { lock.unlock() }; return lines }

    /// Waits until a line satisfies `match` (or `timeout` passes); returns it.
    @discardableResult
    func wait(for match: (String) -> Bool, timeout: Double = 10) -> (Date, String)? {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if let l = stderrLines.first(where: { match($0.1) }) { return l }
            if !process.isRunning { return stderrLines.first(where: { match($0.1) }) }
            usleep(2000)
        }
        return nil
    }

    func finish() -> Int32 {
        process.waitUntilExit()
        // jolt has ended, so all it wrote is in the pipe: its last lines are read once the pipe
        // is empty. (Not its end of file: a process started elsewhere in this test run may
        // hold a copy of the write end.)
        let fd = err.fileHandleForReading.fileDescriptor
        #expect(eventually {
            lock.lock(); defer { lock.unlock() }
            var pending: Int32 = 0
            return ioctl(fd, UInt(FIONREAD), &pending) == 0 && pending == 0
        }, "standard error was never read to its last line")
        lock.lock()
        stopReading = true
        lock.unlock()
        reader.wait()
        return process.terminationStatus
    }
}

@Suite("Signals and shutdown")
struct SignalTests {
    struct Trial: CustomTestStringConvertible, Sendable {
        var seed: UInt64
        var testDescription: String { "random trial \(seed)" }
    }

    @Test("SIGTERM, SIGINT or SIGHUP then SIGTERM at a random moment: exit 0, the buzzer inactive at once, lines released", arguments: (1...8).map { Trial(seed: $0) })
    func randomSignal(trial: Trial) throws {
        var rng = JoltMotion.SplitMix64(seed: trial.seed * 7919)
        let sock = socketPath()
        let board = try kioskBoard(socket: sock)
        let jolt = try RunningJolt(["run", "--board", board, "--trace", liftTrace(), "--json"])
        // Odd trials: once the process runs (its first line), wait 0 to 4 s (starting up, armed,
        // sounding). Even ones: once the buzzer sounds, wait 0 to 1.2 s (on or off in its cadence).
        if trial.seed % 2 == 1 {
            #expect(jolt.wait(for: { _ in true }) != nil)
            usleep(UInt32(rng.uniform(0, 4) * 1e6))
        } else {
            #expect(jolt.wait(for: { $0.contains("line buzzer") && $0.hasSuffix(": active") }) != nil)
            usleep(UInt32(rng.uniform(0, 1.2) * 1e6))
        }
        let kind = Int(rng.next() % 3)
        if kind == 2 {
            kill(jolt.process.processIdentifier, SIGHUP)
            #expect(jolt.wait(for: { $0.contains("reloaded") }) != nil, "SIGHUP reloads")
            usleep(UInt32(rng.uniform(0, 0.5) * 1e6))
        }
        // The alarm sounds (its buzzer is on or off in its cadence) once the buzzer was first active.
        let sounding = jolt.stderrLines.contains { $0.1.contains("line buzzer") && $0.1.hasSuffix(": active") }
        let sent = Date()
        kill(jolt.process.processIdentifier, kind == 1 ? SIGINT : SIGTERM)
        let status = jolt.finish()
        #expect(status == 0, "exit status \(status)")
        let lines = jolt.stderrLines
        #expect(lines.contains { $0.1.contains("stopping on a signal") }, "\(lines.map(\.1))")
        let released = try #require(lines.first { $0.1.contains("outputs inactive, lines released: buzzer") }, "\(lines.map(\.1))")
        #expect(lines.filter { $0.1.contains("line buzzer") }.last.map { !$0.1.hasSuffix(": active") } ?? true, "the buzzer's last state is inactive")
        #expect(sounding || trial.seed % 2 == 1, "even trials signal while the alarm sounds")
        if sounding {
            let off = try #require(lines.last { $0.1.contains("line buzzer") && $0.1.hasSuffix("inactive") })
            // Seen through a pipe by a test on a shared 2-core machine: the bound is a third of
            // the service's stop timeout (TimeoutStopSec=15), not the latency, which jolt-bench
            // measures (milliseconds).
            #expect(off.0.timeIntervalSince(sent) < 5.0, "inactive \(off.0.timeIntervalSince(sent)) s after the signal")
        }
        #expect(released.0.timeIntervalSince(sent) < 2.0)
        #expect(!FileManager.default.fileExists(atPath: sock), "the control socket is removed")
    }

    @Test("started from a terminal, run and watch stop when it hangs up (a closed window or SSH session) rather than hold the bus", arguments: [["run"], ["watch", "--plain"]])
    func terminalHangup(command: [String]) throws {
        // The kiosk at rest forever: it never ends by itself.
        var text = try String(contentsOfFile: try kioskBoard(socket: socketPath()), encoding: .utf8)
        text = text.edited("\"motion\": \"lift\"", "\"motion\": \"rest\"")
        let board = tempFile(text, name: "kiosk.json")
        // script(1) gives it a terminal of its own (a new session with a pseudo-terminal); killing
        // script closes the terminal's other end, as a closed window or a dropped SSH session does.
        let term = Process()
        term.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        term.arguments = ["-qfec", (["exec", packageRoot + "/.build/debug/jolt"] + command + ["--board", board]).joined(separator: " "), "/dev/null"]
        let input = Pipe(), output = Pipe()
        term.standardInput = input
        term.standardOutput = output
        term.standardError = output
        let seen = Locked("")
        output.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            seen.withLock { $0 += String(decoding: d, as: UTF8.self) }
        }
        try term.run()
        defer { output.fileHandleForReading.readabilityHandler = nil; try? input.fileHandleForWriting.close() }
        // Its first line comes once it samples (after it noted its terminal).
        #expect(eventually(seconds: 20) { seen.withLock { $0.contains("MPU6050") } }, "\(seen.withLock { $0 })")
        let jolt = try #require(Self.child(of: term.processIdentifier), "jolt under script")
        // Not term.waitUntilExit(): Foundation returns from it only once every process that
        // inherited its watch on script is gone, jolt included.
        kill(term.processIdentifier, SIGKILL)
        #expect(eventually(seconds: 10) { !Self.alive(jolt) }, "jolt \(command[0]) still running after its terminal hung up")
        if Self.alive(jolt) { kill(jolt, SIGKILL) }
    }

    /// The first child of `pid` (from /proc), nil when it has none.
    static func child(of pid: Int32) -> Int32? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return nil }
        return s.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Whether `pid` runs (a zombie whose parent is gone counts as ended).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }
}

/// A value shared with a reader's handler thread.
private final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func withLock<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
