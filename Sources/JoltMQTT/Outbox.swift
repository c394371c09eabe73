import JoltLinux

/// Events waiting to be published, oldest first, kept on disk (one file per event, written
/// whole and renamed into place) so that neither a broker that is away nor a restart of Jolt
/// loses them. Bounded: when full, the oldest is dropped and counted.
public final class Outbox {
    public struct Entry: Equatable {
        public var seq: UInt64
        public var topic: String
        public var payload: [UInt8]
        public init(seq: UInt64, topic: String, payload: [UInt8]) {
            self.seq = seq
            self.topic = topic
            self.payload = payload
        }
    }

    let directory: String?
    public let capacity: Int
    public private(set) var entries: [Entry] = []
    /// Events dropped because the outbox was full.
    public private(set) var dropped = 0

    /// The outbox in `directory` (created if missing; nil: in memory only), with the events a
    /// previous run left there.
    public init(directory: String?, capacity: Int) throws(Errno) {
        self.directory = directory
        self.capacity = max(capacity, 1)
        guard let dir = directory else { return }
        try Files.makeDirectory(dir, parents: true)
        for name in try Files.list(dir).filter({ $0.hasSuffix(".msg") }).sorted() {
            guard let seq = UInt64(name.dropLast(4)), let bytes = Files.read(dir + "/" + name),
                  let nl = bytes.firstIndex(of: 0x0A) else { continue }
            entries.append(Entry(seq: seq, topic: String(decoding: bytes[..<nl], as: UTF8.self), payload: Array(bytes[(nl + 1)...])))
        }
        while entries.count > self.capacity { drop() }
    }

    func path(_ seq: UInt64) -> String? {
        directory.map { d in
            let digits = String(seq)
            return d + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".msg"
        }
    }

    /// Appends an event; false when it could not be written to disk (it is kept in memory).
    @discardableResult
    public func append(_ e: Entry) -> Bool {
        let written = write(e)
        add(e)
        return written
    }

    /// Writes an event's file, durably, and nothing else: it reads only the outbox's folder, so
    /// that it runs outside the lock that the threads publishing events take (an fsync there
    /// would hold up the sampling thread). False when it could not be written.
    public func write(_ e: Entry) -> Bool {
        guard let p = path(e.seq) else { return true }
        return (try? Files.replace(p, with: Array(e.topic.utf8) + [0x0A] + e.payload, mode: 0o640)) != nil
    }

    /// Adds an event whose file is written (`write`), the oldest dropped when full.
    public func add(_ e: Entry) {
        if entries.count >= capacity { drop() }
        entries.append(e)
    }

    /// Moves an event the library refuses to publish (a topic with a wildcard, a payload it
    /// cannot send) out of the way, into `quarantine/` beside the queue, so that the events
    /// after it flow. Returns where it went (nil: memory only).
    @discardableResult
    public func quarantine(seq: UInt64) -> String? {
        guard let i = entries.firstIndex(where: { $0.seq == seq }) else { return nil }
        entries.remove(at: i)
        guard let p = path(seq), let d = directory else { return nil }
        let q = d + "/quarantine"
        try? Files.makeDirectory(q)
        let dest = q + "/" + (p.split(separator: "/").last.map(String.init) ?? "\(seq).msg")
        do { try Files.rename(p, dest) } catch {
            Files.remove(p)
            return nil
        }
        return dest
    }

    /// Forgets an event the broker has acknowledged.
    public func remove(seq: UInt64) {
        guard let i = entries.firstIndex(where: { $0.seq == seq }) else { return }
        entries.remove(at: i)
        if let p = path(seq) { Files.remove(p) }
    }

    private func drop() {
        let e = entries.removeFirst()
        dropped += 1
        if let p = path(e.seq) { Files.remove(p) }
    }
}
