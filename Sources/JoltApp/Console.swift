#if canImport(Glibc)
import Glibc
#endif
import JoltLinux

/// Buffered output to a file descriptor (stdout or stderr). Text accumulates until `flush()`
/// or until the buffer passes 64 KiB, so a replay printing many events makes few write calls.
public final class OutputStream: @unchecked Sendable {
    let fd: Int32
    var buffer: [UInt8] = []
    /// When capturing (tests), flushed text accumulates here instead of being written.
    public private(set) var captured: [UInt8]?
    /// Whether writes failed (e.g. the reader of a pipe went away).
    public private(set) var broken = false

    /// A stream writing to `fd`.
    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    /// A stream that keeps what is written, for tests.
    public static func capturing() -> OutputStream {
        let s = OutputStream(fd: -1)
        s.captured = []
        return s
    }

    /// The captured text (capturing streams only).
    public var text: String {
        flush()
        return lock.with { String(decoding: captured ?? [], as: UTF8.self) }
    }

    public static let standardOutput = OutputStream(fd: 1)
    public static let standardError = OutputStream(fd: 2)

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { fd >= 0 && isatty(fd) == 1 }

    /// Serialises writers: the sampling thread, the action thread and the MQTT link all log.
    let lock = Lock()

    /// Appends `s` to the buffer.
    public func write(_ s: String) {
        lock.with {
            buffer.append(contentsOf: s.utf8)
            if buffer.count >= 1 << 16 { flushLocked() }
        }
    }

    /// Writes out what is buffered.
    public func flush() { lock.with { flushLocked() } }

    private func flushLocked() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        if captured != nil {
            captured!.append(contentsOf: buffer)
            return
        }
        guard !broken else { return }
        do {
            try buffer.withUnsafeBytes { b in try Sys.write(fd, b) }
        } catch {
            broken = true
        }
    }
}

/// Log lines on stderr, in a form journald keeps well: one line each, with a `<N>` priority
/// prefix when stderr is the journal (JOURNAL_STREAM set), plain otherwise.
public enum Log {
    nonisolated(unsafe) static var toJournal: Bool = getenv("JOURNAL_STREAM") != nil
    /// When false, `info` lines are dropped (`--quiet`).
    nonisolated(unsafe) public static var verbose = true
    /// When true, nothing is logged (a soak checks and reports the run's faults itself).
    nonisolated(unsafe) public static var silent = false

    static func line(_ priority: Int, _ tag: String, _ message: String) {
        if silent { return }
        let text = toJournal ? "<\(priority)>\(message)\n" : "jolt: \(tag)\(message)\n"
        OutputStream.standardOutput.flush()
        OutputStream.standardError.write(text)
        OutputStream.standardError.flush()
    }

    /// An error: something failed.
    public static func error(_ m: String) { line(3, "error: ", m) }
    /// A warning: something is off but Jolt carries on.
    public static func warning(_ m: String) { line(4, "warning: ", m) }
    /// Information: what Jolt is doing.
    public static func info(_ m: String) { if verbose { line(6, "", m) } }
}

/// Where a component logs: the process log by default, a test's collector otherwise.
struct Logger: Sendable {
    var info: @Sendable (String) -> Void = { Log.info($0) }
    var warning: @Sendable (String) -> Void = { Log.warning($0) }
    var error: @Sendable (String) -> Void = { Log.error($0) }
    static let standard = Logger()
}
