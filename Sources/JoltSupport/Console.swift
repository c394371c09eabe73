#if canImport(Glibc)
import Glibc
#endif
import JoltLinux
import JoltDrivers

/// Buffered output to a file descriptor (stdout or stderr). Text accumulates until `flush()`
/// or until the buffer passes 64 KiB, so a replay printing many events makes few write calls.
public final class TextOutput: @unchecked Sendable {
    package let fd: Int32
    package var buffer: [UInt8] = []
    /// When capturing (tests), flushed text accumulates here instead of being written.
    public private(set) var captured: [UInt8]?
    /// Whether writes failed (e.g. the reader of a pipe went away).
    public private(set) var broken = false
    /// When set, text goes to this writer's thread instead of being written here (`jolt run`:
    /// no thread that samples or sounds the buzzer ever waits on a reader).
    package private(set) var writer: AsyncWriter?

    /// A stream writing to `fd`.
    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    /// A stream that keeps what is written, for tests.
    public static func capturing() -> TextOutput {
        let s = TextOutput(fd: -1)
        s.captured = []
        return s
    }

    /// The captured text (capturing streams only).
    public var text: String {
        flush()
        return lock.with { String(decoding: captured ?? [], as: UTF8.self) }
    }

    public static let standardOutput = TextOutput(fd: 1)
    public static let standardError = TextOutput(fd: 2)

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { fd >= 0 && Terminal.isTerminal(fd) }

    /// Serialises writers: the sampling thread, the action thread and the MQTT link all log.
    package let lock = Lock()

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
        if let writer {
            writer.enqueue(buffer)
            return
        }
        do {
            try buffer.withUnsafeBytes { b in try Sys.write(fd, b) }
        } catch {
            broken = true
        }
    }

    /// From now on, writes go through a thread of their own, bounded: see `AsyncWriter`.
    package func makeAsync(name: String) {
        lock.with {
            guard captured == nil, writer == nil, fd >= 0 else { return }
            writer = AsyncWriter(fd: fd, name: name)
        }
    }

    /// Whether a write has been stuck for longer than `limit` µs (a reader that stopped).
    package func stuck(now: Int64, limit: Int64) -> Bool { lock.with { writer }?.stuck(now: now, limit: limit) ?? false }

    /// Waits up to `timeout` µs for what is queued to be written (at the end of a run).
    package func drain(timeout: Int64) { lock.with { writer }?.drain(timeout: timeout) }
}

/// Writes a stream's text from a thread of its own, so that no other thread ever waits on its
/// reader: a full pipe nobody reads, a stalled journald, a log shipper that stopped. At most
/// 64 KiB (some 600 events) wait; past that, whole new lines are dropped and counted, and once the reader is
/// back a warning says how many ("12 lines dropped while standard output was blocked").
package final class AsyncWriter: @unchecked Sendable {
    package let fd: Int32
    package let name: String
    package let lock = Lock()
    private var queue: [UInt8] = []
    private var dropped = 0
    private var writing = false
    private var writeStarted: Int64 = 0
    private var failed = false
    private let wake: WakeChannel?
    private var thread: PThread?
    package let capacity: Int
    /// Where the count of dropped lines goes (the log).
    package let report: @Sendable (String) -> Void

    package init(fd: Int32, name: String, capacity: Int = 64 << 10, report: (@Sendable (String) -> Void)? = nil) {
        self.fd = fd
        self.name = name
        self.capacity = capacity
        self.report = report ?? { note in
            if fd == 2 {
                TextOutput.standardError.writer?.enqueue(Array((Log.toJournal ? "<4>\(note)\n" : "jolt: warning: \(note)\n").utf8))
            } else {
                Log.warning(note)
            }
        }
        wake = try? WakeChannel()
        thread = PThread { [self] in self.loop() }
    }

    package func enqueue(_ bytes: [UInt8]) {
        lock.with {
            guard !failed else { return }
            if queue.count + bytes.count > capacity {
                dropped += max(bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, 1)
                return
            }
            queue += bytes
        }
        wake?.signal()
    }

    private func loop() {
        guard let wake else { return }
        while true {
            var p = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            _ = try? Sys.poll(&p, timeoutMicros: nil)
            wake.drain()
            var totalLost = 0
            while true {
                let (chunk, lost) = lock.with { () -> ([UInt8], Int) in
                    defer { queue.removeAll(keepingCapacity: true); dropped = 0 }
                    writing = !queue.isEmpty
                    writeStarted = Sys.monotonicMicros()
                    return (queue, dropped)
                }
                if !chunk.isEmpty {
                    let ok = (try? chunk.withUnsafeBytes { b in try Sys.write(fd, b) }) != nil
                    lock.with {
                        writing = false
                        if !ok { failed = true }
                    }
                }
                totalLost += lost
                if chunk.isEmpty {
                    // The reader has caught up with everything: say once what it missed.
                    if totalLost > 0 { report("\(totalLost) line\(totalLost == 1 ? "" : "s") dropped while \(name) was blocked") }
                    break
                }
            }
        }
    }

    package func stuck(now: Int64, limit: Int64) -> Bool { lock.with { writing && now - writeStarted > limit } }

    package func drain(timeout: Int64) {
        let end = Sys.monotonicMicros() + timeout
        while Sys.monotonicMicros() < end {
            if lock.with({ queue.isEmpty && !writing }) { return }
            Sys.sleep(micros: 2000)
        }
    }
}

/// Log lines on stderr, in a form journald keeps well: one line each, with a `<N>` priority
/// prefix when stderr is the journal (JOURNAL_STREAM set), plain otherwise.
public enum Log {
    package nonisolated(unsafe) static var toJournal: Bool = Environment.value("JOURNAL_STREAM") != nil
    /// When false, `info` lines are dropped (`--quiet`).
    nonisolated(unsafe) public static var verbose = true
    /// When true, nothing is logged (a soak checks and reports the run's faults itself).
    nonisolated(unsafe) public static var silent = false
    /// True while a progress bar holds stderr's last line, unended: a log line clears it first,
    /// so that it starts a line of its own (the bar is drawn again below it).
    nonisolated(unsafe) package static var barShown = false

    package static func line(_ priority: Int, _ tag: String, _ message: String) {
        if silent { return }
        let text = toJournal ? "<\(priority)>\(message)\n" : "jolt: \(tag)\(message)\n"
        TextOutput.standardOutput.flush()
        if barShown {
            barShown = false
            TextOutput.standardError.write("\r\u{1B}[K")
        }
        TextOutput.standardError.write(text)
        TextOutput.standardError.flush()
    }

    /// An error: something failed.
    public static func error(_ m: String) { line(3, "error: ", m) }
    /// A warning: something is off but Jolt carries on.
    public static func warning(_ m: String) { line(4, "warning: ", m) }
    /// Information: what Jolt is doing.
    public static func info(_ m: String) { if verbose { line(6, "", m) } }
}

/// Where a component logs: the process log by default, a test's collector otherwise.
package struct Logger: Sendable {
    package var info: @Sendable (String) -> Void = { Log.info($0) }
    package var warning: @Sendable (String) -> Void = { Log.warning($0) }
    package var error: @Sendable (String) -> Void = { Log.error($0) }
    package static let standard = Logger()
}

/// A count with its noun, singular for one: "1 event", "6 events", "0 faults".
public func counted(_ n: Int, _ noun: String, plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? noun : plural ?? noun + "s")
}
