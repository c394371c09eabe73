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
/// the disk. With `send` (`mqtt.evidence_max_kib`), the writer thread also hands the trace, at
/// most that many bytes, to the MQTT link.
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
    var capture: (path: String, samples: [Sample], until: Int64, trigger: Int64, about: [(String, String)])?
    var writer: PThread?
    /// Files written (this run).
    package private(set) var written = 0
    /// The wall-clock second the last file was named for, and how many were named in it.
    var lastStamp = ""
    var sameStamp = 0
    /// Whether the last trigger found the folder unwritable (said once a spell).
    var warnedUnwritable = false
    /// Where each trace goes once written, and its largest size in bytes (set before the run).
    package var send: (maxBytes: Int, to: @Sendable (String) -> Void)?

    /// Seconds kept before and after a trigger.
    package static let windowMicros: Int64 = 10_000_000

    package init(directory: String, rateMilliHz: Int32, gyro: Bool, keep: Int = 20) {
        self.directory = directory
        self.keep = keep
        self.rateMilliHz = rateMilliHz
        self.gyro = gyro
        periodMicros = Units.periodMicros(rateMilliHz: rateMilliHz)
        ring = Array(repeating: Sample(t: 0, accel: .zero), count: Int(Self.windowMicros / periodMicros) + 1)
        // A trace whose write a kill or a power cut interrupted before its rename: never evidence.
        for name in (try? Files.list(directory)) ?? [] where name.contains(".tmp-") {
            Files.remove(directory + "/" + name)
            Log.info("removed \(directory)/\(name), a trace whose writing was cut short")
        }
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
    package func triggered(at t: Int64, wallMicros: Int64, why: String) -> String? {
        if let c = capture {
            capture!.until = t + Self.windowMicros
            return c.path
        }
        // A folder Jolt cannot write (a read-only card, the wrong owner) keeps no evidence: the
        // event names no file that will never be written, and the journal says why, once.
        if let why = Self.unwritable(directory) {
            if !warnedUnwritable { Log.warning("alarm: no evidence is kept: \(why)") }
            warnedUnwritable = true
            return nil
        }
        warnedUnwritable = false
        let path = directory + "/alarm-" + fileStamp(wallMicros) + ".csv"
        var before: [Sample] = []
        before.reserveCapacity(2 * ring.count + 1)
        let start = count == ring.count ? head : 0
        for i in 0..<count { before.append(ring[(start + i) % ring.count]) }
        capture = (path, before, t + Self.windowMicros, t,
                   [("evidence", "the alarm triggered at \(EventRecord.seconds(t)) s: \(why)"), ("trigger_t", EventRecord.seconds(t)),
                    ("utc", WallClock.iso8601(wallMicros))])
        return path
    }

    /// The name's time: the wall clock's second, "2026-12-04T05-35-18Z". A second capture in the
    /// same second as the one before (simulated time, a short `max_sound_ms`) must not overwrite
    /// it: it gets "_0002", and so on, which sort after it and before the next second.
    func fileStamp(_ wallMicros: Int64) -> String {
        let stamp = WallClock.iso8601(wallMicros).replacingOccurrences(":", "-")
        guard stamp == lastStamp else {
            lastStamp = stamp
            sameStamp = 1
            return stamp
        }
        sameStamp += 1
        let n = String(sameStamp)
        return stamp + "_" + String(repeating: "0", count: Swift.max(4 - n.count, 0)) + n
    }

    /// Why no file can be written in `directory` (nil: one can): the folder, or the folder it
    /// would be made in, not writable by this process.
    static func unwritable(_ directory: String) -> String? {
        if Files.exists(directory) {
            return Files.isWritable(directory) ? nil : "\(directory) is not writable by this process (\(Errno.current.name)): check its owner and that the card is not read-only"
        }
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? "."
        return Files.isWritable(parent.isEmpty ? "/" : parent) ? nil
            : "\(directory) does not exist and \(parent) is not writable by this process (\(Errno.current.name)): check its owner and that the card is not read-only"
    }

    /// Hands the capture to a writer thread.
    func finish() {
        guard let c = capture else { return }
        capture = nil
        writer?.join()
        let (rate, gyro, keep, dir, send) = (rateMilliHz, self.gyro, keep, directory, send)
        written += 1
        writer = PThread {
            let rows = c.samples.map { TraceWriter.row($0, gyro: gyro) }
            Self.write(c.path, rows, about: c.about, rateMilliHz: rate, gyro: gyro, keep: keep, directory: dir)
            guard let send else { return }
            if let text = Self.capped(c.samples, rows: rows, trigger: c.trigger, about: c.about, rateMilliHz: rate, gyro: gyro, maxBytes: send.maxBytes) {
                send.to(text)
            } else {
                Log.warning("mqtt: the evidence \(c.path) was not sent: not even its header fits in mqtt.evidence_max_kib (raise it)")
            }
        }
    }

    /// Writes what is captured so far (the run is ending), and waits for the writer.
    package func close() {
        finish()
        writer?.join()
        writer = nil
    }

    /// Writes the trace of `rows` (`TraceWriter.row`, one a sample) to `path`, then keeps the
    /// newest `keep` files.
    static func write(_ path: String, _ rows: [String], about: [(String, String)], rateMilliHz: Int32, gyro: Bool, keep: Int, directory: String) {
        let text = TraceWriter.header(rateMilliHz: rateMilliHz, gyro: gyro, metadata: about) + rows.joined()
        do throws(Errno) { try Files.makeDirectory(directory) } catch {
            Log.warning("alarm: cannot keep the evidence in \(path): cannot create \(directory) (\(error.name))")
            return
        }
        do {
            try AtomicFile.write(path, text, newMode: 0o640)
            Log.info("alarm: evidence in \(path) (\(rows.count) samples)")
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

extension EvidenceRecorder {
    /// The trace of `samples` as a jolt-trace of at most `maxBytes`: whole when it fits, else
    /// the readings nearest the trigger, as many after it as before, with a header line that
    /// says what was left out; nil when not even the header fits. `rows`: the samples' rows,
    /// when they are already made.
    static func capped(_ samples: [Sample], rows given: [String]? = nil, trigger: Int64, about: [(String, String)], rateMilliHz: Int32, gyro: Bool, maxBytes: Int) -> String? {
        let rows = given ?? samples.map { TraceWriter.row($0, gyro: gyro) }
        let whole = TraceWriter.header(rateMilliHz: rateMilliHz, gyro: gyro, metadata: about)
        if whole.utf8.count + rows.reduce(0, { $0 + $1.utf8.count }) <= maxBytes { return whole + rows.joined() }
        // The note's numbers take at most 60 bytes more than the template's.
        let note = "kept %B s before the trigger and %A s after (of %b and %a), to fit mqtt.evidence_max_kib"
        let budget = maxBytes - whole.utf8.count - "# trimmed: ".utf8.count - note.utf8.count - 60
        let start = samples.firstIndex { $0.t >= trigger } ?? samples.count
        var lo = start, hi = start, used = 0
        var grew = budget > 0
        while grew {
            grew = false
            if hi < rows.count && used + rows[hi].utf8.count <= budget { used += rows[hi].utf8.count; hi += 1; grew = true }
            if lo > 0 && used + rows[lo - 1].utf8.count <= budget { lo -= 1; used += rows[lo].utf8.count; grew = true }
        }
        guard hi > lo, let first = samples.first, let last = samples.last else { return nil }
        let kept = "kept \(EventRecord.seconds(max(trigger - samples[lo].t, 0))) s before the trigger and \(EventRecord.seconds(max(samples[hi - 1].t - trigger, 0))) s after (of \(EventRecord.seconds(max(trigger - first.t, 0))) and \(EventRecord.seconds(max(last.t - trigger, 0)))), to fit mqtt.evidence_max_kib"
        let header = TraceWriter.header(rateMilliHz: rateMilliHz, gyro: gyro, metadata: about + [("trimmed", kept)])
        return header + rows[lo..<hi].joined()
    }
}

extension String {
    fileprivate func replacingOccurrences(_ a: Character, _ b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}
