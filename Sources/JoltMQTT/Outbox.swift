#if canImport(Glibc)
import Glibc
#endif
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
        try Self.makeDirectories(dir)
        guard let d = opendir(dir) else { throw Errno.current }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".msg") { names.append(name) }
        }
        for name in names.sorted() {
            guard let seq = UInt64(name.dropLast(4)), let bytes = Self.read(dir + "/" + name),
                  let nl = bytes.firstIndex(of: 0x0A) else { continue }
            entries.append(Entry(seq: seq, topic: String(decoding: bytes[..<nl], as: UTF8.self), payload: Array(bytes[(nl + 1)...])))
        }
        while entries.count > self.capacity { drop() }
    }

    static func makeDirectories(_ path: String) throws(Errno) {
        var sofar = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            sofar += "/" + part
            if mkdir(sofar, 0o750) != 0 && errno != EEXIST { throw Errno.current }
        }
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n == 0 { break }
            out += buf[0..<n]
        }
        return out
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
        if entries.count >= capacity { drop() }
        entries.append(e)
        guard let p = path(e.seq) else { return true }
        let tmp = p + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return false }
        let bytes = Array(e.topic.utf8) + [0x0A] + e.payload
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            off += n
        }
        let ok = off == bytes.count && fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, p) == 0 else {
            unlink(tmp)
            return false
        }
        return true
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
        mkdir(q, 0o750)
        let dest = q + "/" + (p.split(separator: "/").last.map(String.init) ?? "\(seq).msg")
        if rename(p, dest) != 0 { unlink(p); return nil }
        return dest
    }

    /// Forgets an event the broker has acknowledged.
    public func remove(seq: UInt64) {
        guard let i = entries.firstIndex(where: { $0.seq == seq }) else { return }
        entries.remove(at: i)
        if let p = path(seq) { unlink(p) }
    }

    private func drop() {
        let e = entries.removeFirst()
        dropped += 1
        if let p = path(e.seq) { unlink(p) }
    }
}
