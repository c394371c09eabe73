#if canImport(Glibc)
import Glibc
#endif
import JoltLinux
import JoltSupport

/// One small file kept on disk from a thread of its own, so that the thread that asks for a save
/// (the sampling thread) never waits on the disk: `save` hands the newest text over and returns
/// at once, and a newer text replaces one not yet written. Each save has a number, and
/// `outcome(of:)` says whether the disk holds it (or a newer one), whether writing it failed, or
/// whether it is still under way; `written` becomes readable whenever that changes.
///
/// A failed write is tried again, after 0.1 s, then twice as long each time up to 5 s, until it
/// succeeds or a newer text replaces it: a disk that fills and then gets room again ends up
/// holding the newest state, with nobody asking twice. While it fails, `trouble` says why.
///
/// At start the temporary files that an earlier run left when it was killed between writing and
/// renaming (`<name>.tmp-<pid>`, `Files.replace`) are removed.
package final class SaveQueue: @unchecked Sendable {
    package typealias Writer = @Sendable (_ path: String, _ text: String) throws(JoltError) -> Void

    /// Where a save stands.
    package enum Outcome: Equatable {
        case pending
        case saved
        case failed(String)
    }

    package static let firstRetryMicros: Int64 = 100_000
    package static let longestRetryMicros: Int64 = 5_000_000

    package let path: String
    /// What the file holds, for the journal ("the alarm state").
    package let what: String
    /// Readable when a save is settled: written, or failed.
    package let written: WakeChannel
    private let wake: WakeChannel
    private let writer: Writer
    private let lock = Lock()
    /// Under `lock`.
    private var pending: (number: UInt64, text: String)?
    private var numbered: UInt64 = 0
    private var saved: UInt64 = 0
    private var failedThrough: UInt64 = 0
    private var failure: String?
    private var stopping = false
    private var thread: PThread?

    package init(path: String, what: String, writer: @escaping Writer) throws(JoltError) {
        self.path = path
        self.what = what
        self.writer = writer
        do {
            written = try WakeChannel()
            wake = try WakeChannel()
        } catch {
            throw JoltError(.software, "cannot create the wake-up channels that save \(what): \(error)")
        }
        removeStaleTemporaries()
    }

    /// Queues `text` and returns its number at once.
    @discardableResult
    package func save(_ text: String) -> UInt64 {
        let n = lock.with { () -> UInt64 in
            numbered += 1
            pending = (numbered, text)
            return numbered
        }
        if thread == nil { thread = PThread { [self] in self.loop() } }
        wake.signal()
        return n
    }

    /// Where save `n` stands: the disk holds it or a newer one; its write (or a newer one's)
    /// failed and is being tried again; or it is under way.
    package func outcome(of n: UInt64) -> Outcome {
        lock.with {
            if n <= saved { return .saved }
            if let failure, n <= failedThrough { return .failed(failure) }
            return .pending
        }
    }

    /// The number of the last save the disk holds: every save up to it is on disk or replaced by
    /// one that is.
    package var savedThrough: UInt64 { lock.with { saved } }

    /// The number of the last save asked for.
    package var lastSave: UInt64 { lock.with { numbered } }

    /// Why the newest text is not on disk, while its writes fail.
    package var trouble: String? { lock.with { failure } }

    /// Writes what is pending (one more try where writes fail) and stops the writer thread.
    package func stop() {
        guard let t = thread else { return }
        lock.with { stopping = true }
        wake.signal()
        t.join()
        thread = nil
    }

    /// The writer thread: the newest text, tried until written or replaced.
    private func loop() {
        var current: (number: UInt64, text: String)?
        var retry = Self.firstRetryMicros
        while true {
            let (newer, stop) = lock.with { () -> ((number: UInt64, text: String)?, Bool) in
                defer { pending = nil }
                return (pending, stopping)
            }
            if let newer {
                current = newer
                retry = Self.firstRetryMicros
            }
            guard let c = current else {
                if stop { return }
                wait(micros: nil)
                continue
            }
            if write(c) {
                current = nil
                continue
            }
            if stop { return }
            wait(micros: retry)
            retry = min(retry * 2, Self.longestRetryMicros)
        }
    }

    /// One write; the outcome recorded and announced. A failure is logged when a spell of them
    /// begins, and the end of the spell too.
    private func write(_ c: (number: UInt64, text: String)) -> Bool {
        var message: String?
        do { try writer(path, c.text) } catch { message = error.message }
        let wasFailing = lock.with { () -> Bool in
            let was = failure != nil
            if let message {
                failure = message
                failedThrough = c.number
            } else {
                failure = nil
                saved = c.number
            }
            return was
        }
        written.signal()
        if let message, !wasFailing {
            Log.error("cannot save \(what): \(message): trying again every few seconds until it can (jolt status shows the trouble)")
        } else if message == nil && wasFailing {
            Log.info("\(what) is saved again to \(path)")
        }
        return message == nil
    }

    private func wait(micros: Int64?) {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        _ = try? Sys.poll(&fds, timeoutMicros: micros)
        wake.drain()
    }

    /// Removes `<name>.tmp-<pid>` files beside `path` left by another process.
    private func removeStaleTemporaries() {
        guard let slash = path.lastIndex(of: "/") else { return }
        let folder = String(path[..<slash]), prefix = path[path.index(after: slash)...] + ".tmp-"
        guard let names = try? Files.list(folder.isEmpty ? "/" : folder) else { return }
        let mine = prefix + String(ThisProcess.id)
        for name in names where name.hasPrefix(prefix) && name != mine {
            Files.remove(folder + "/" + name)
            Log.info("removed \(folder)/\(name), left by a run that was stopped while saving \(what)")
        }
    }
}
