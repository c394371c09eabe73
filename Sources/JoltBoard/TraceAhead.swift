#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltLinux
import Synchronization
import JoltActions
import JoltChips
import JoltConfig
import JoltDrivers
import JoltEngine
import JoltSupport
import JoltTrace

/// A bounded single-producer, single-consumer ring of samples: the parsing thread pushes, the
/// detecting thread pops, and neither takes a lock. Each side publishes its index with a
/// release store every `batch` samples (and at the end), and reads the other's with an acquire
/// load only when its own view runs out, so the two cores share a cache line a few hundred
/// times an hour of trace, not once a sample. A side with nothing to do yields its core.
package final class SampleRing: @unchecked Sendable {
    package static let capacity = 1 << 14
    package static let batch = 256
    package let slots: UnsafeMutablePointer<Sample>
    /// Samples pushed (the producer's) and popped (the consumer's), ever.
    package let head = Atomic<Int>(0)
    package let tail = Atomic<Int>(0)
    /// Set by the producer when it has pushed its last sample; by the consumer to stop it.
    package let finished = Atomic<Bool>(false)
    package let cancelled = Atomic<Bool>(false)
    /// The producer's error, read by the consumer once `finished` is seen.
    package var failure: JoltError?

    // The producer's own view.
    package var pushed = 0
    package var tailSeen = 0
    // The consumer's own view.
    package var popped = 0
    package var headSeen = 0

    package init() {
        slots = .allocate(capacity: Self.capacity)
    }

    deinit { slots.deallocate() }

    /// Adds one sample, waiting while the ring is full; false once the consumer has stopped.
    @inline(__always)
    package func push(_ s: Sample) -> Bool {
        if pushed - tailSeen == Self.capacity {
            head.store(pushed, ordering: .releasing)
            while true {
                tailSeen = tail.load(ordering: .acquiring)
                if pushed - tailSeen < Self.capacity { break }
                if cancelled.load(ordering: .relaxed) { return false }
                sched_yield()
            }
        }
        (slots + (pushed & (Self.capacity - 1))).initialize(to: s)
        pushed += 1
        if pushed & (Self.batch - 1) == 0 { head.store(pushed, ordering: .releasing) }
        return true
    }

    /// The producer is done (with `error`, when it stopped at one).
    package func finish(_ error: JoltError?) {
        failure = error
        head.store(pushed, ordering: .releasing)
        finished.store(true, ordering: .releasing)
    }

    /// The next sample; nil once the producer has finished and every sample is taken. Throws
    /// the producer's error after the samples it read before it.
    @inline(__always)
    package func pop() throws(JoltError) -> Sample? {
        if popped == headSeen {
            tail.store(popped, ordering: .releasing)
            while true {
                // `finished` first: once it is seen, the head it was published after is final.
                let done = finished.load(ordering: .acquiring)
                headSeen = head.load(ordering: .acquiring)
                if popped < headSeen { break }
                if done {
                    if let failure { throw failure }
                    return nil
                }
                sched_yield()
            }
        }
        let s = slots[popped & (Self.capacity - 1)]
        popped += 1
        if popped & (Self.batch - 1) == 0 { tail.store(popped, ordering: .releasing) }
        return s
    }
}

extension TraceFile {
    /// Every remaining sample, in order, to `body`, as `forEach` gives them, with the reading and
    /// parsing done ahead on a second thread (a bounded ring between the two: memory stays
    /// fixed however long the file). A parse error reaches `body`'s caller after every sample
    /// before it, as with `forEach`; an error from `body` stops the reader. For a file that fits
    /// one read, `forEach` itself: a thread would cost more than it saves.
    public func forEachAhead(_ body: (Sample) throws(JoltError) -> Void) throws(JoltError) {
        guard !eof else { return try forEach(body) }
        let ring = SampleRing()
        nonisolated(unsafe) let file = self
        let reader = PThread {
            do throws(JoltError) {
                try file.forEach { (s) throws(JoltError) in
                    guard ring.push(s) else { throw JoltError(.failure, "stopped") }
                }
                ring.finish(nil)
            } catch {
                ring.finish(error)
            }
        }
        defer {
            ring.cancelled.store(true, ordering: .relaxed)
            reader.join()
        }
        while let s = try ring.pop() { try body(s) }
    }
}
