#if canImport(Glibc)
import Glibc
#endif
import JoltActions
import JoltCore
import JoltLinux
import JoltSupport
import JoltTrace

/// The evidence of each alarm: the readings from 10 s before a trigger to 10 s after, kept as a
/// jolt-trace in `<state directory>/evidence` (mode 0640, the newest `keep`, the oldest
/// removed). `jolt plot --arm` draws one with the trigger's reason; `jolt replay --arm` finds the
/// trigger again. The readings before wait in a ring made once at start (nothing is allocated
/// per sample); a trigger names the file at once (its alarm event carries the path), and the file
/// is written on a thread of its own once the 10 s after have come: the buzzer never waits for
/// the disk.
package final class EvidenceRecorder {
    package let directory: String
    package let keep: Int
    let periodMicros: Int64
    let rateMilliHz: Int32
    let gyro: Bool
    /// The readings of the last `windowMicros`, oldest at `head` once full.
    var ring: [Sample]
    var head = 0, count = 0
    /// A capture after a trigger: its file, what it holds so far, when it is complete, and what
    /// the trace's header says of it.
    var capture: (path: String, samples: [Sample], until: Int64, about: [(String, String)])?
    var writer: PThread?
    /// Files written (this run).
    package private(set) var written = 0

    /// Seconds kept before and after a trigger.
    package static let windowMicros: Int64 = 10_000_000

    package init(directory: String, rateMilliHz: Int32, gyro: Bool, keep: Int = 20) {
        self.directory = directory
        self.keep = keep
        self.rateMilliHz = rateMilliHz
        self.gyro = gyro
        periodMicros = Units.periodMicros(rateMilliHz: rateMilliHz)
        ring = Array(repeating: Sample(t: 0, accel: .zero), count: Int(Self.windowMicros / periodMicros) + 1)
    }

    /// Each sample, on the sampling thread.
    @inline(__always)
    package func add(_ s: Sample) {
        ring[head] = s
        head = head + 1 == ring.count ? 0 : head + 1
        if count < ring.count { count += 1 }
        if capture != nil { extend(s) }
    }

    func extend(_ s: Sample) {
        capture!.samples.append(s)
        if s.t >= capture!.until { finish() }
    }

    /// The alarm triggered at `t` (stream µs; `wallMicros` on the wall clock) for `why`: the
    /// file that will hold its evidence, named now. A trigger while one is being captured
    /// extends that one.
    package func triggered(at t: Int64, wallMicros: Int64, why: String) -> String {
        if let c = capture {
            capture!.until = t + Self.windowMicros
            return c.path
        }
        let name = WallClock.iso8601(wallMicros).replacingOccurrences(":", "-")
        let path = directory + "/alarm-" + name + ".csv"
        var before: [Sample] = []
        before.reserveCapacity(2 * ring.count + 1)
        let start = count == ring.count ? head : 0
        for i in 0..<count { before.append(ring[(start + i) % ring.count]) }
        capture = (path, before, t + Self.windowMicros,
                   [("evidence", "the alarm triggered at \(EventRecord.seconds(t)) s: \(why)"), ("trigger_t", EventRecord.seconds(t)),
                    ("utc", WallClock.iso8601(wallMicros))])
        return path
    }

    /// Hands the capture to a writer thread.
    func finish() {
        guard let c = capture else { return }
        capture = nil
        writer?.join()
        let (rate, gyro, keep, dir) = (rateMilliHz, self.gyro, keep, directory)
        written += 1
        writer = PThread { Self.write(c.path, c.samples, about: c.about, rateMilliHz: rate, gyro: gyro, keep: keep, directory: dir) }
    }

    /// Writes what is captured so far (the run is ending), and waits for the writer.
    package func close() {
        finish()
        writer?.join()
        writer = nil
    }

    static func write(_ path: String, _ samples: [Sample], about: [(String, String)], rateMilliHz: Int32, gyro: Bool, keep: Int, directory: String) {
        var text = TraceWriter.header(rateMilliHz: rateMilliHz, gyro: gyro, metadata: about)
        text.reserveCapacity(samples.count * 64)
        for s in samples { text += TraceWriter.row(s, gyro: gyro) }
        if !Files.exists(directory) { _ = mkdir(directory, 0o750) }
        do {
            try AtomicFile.write(path, text, newMode: 0o640)
            Log.info("alarm: evidence in \(path) (\(samples.count) samples)")
        } catch {
            Log.warning("alarm: cannot keep the evidence in \(path): \(error.message)")
            return
        }
        // The newest `keep`: the names sort by time.
        guard let names = try? Files.list(directory) else { return }
        let kept = names.filter { $0.hasPrefix("alarm-") && $0.hasSuffix(".csv") }.sorted()
        for old in kept.dropLast(keep) { Files.remove(directory + "/" + old) }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ a: Character, _ b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}
