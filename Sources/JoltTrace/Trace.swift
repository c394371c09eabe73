import JoltCore

// jolt-trace v1: the CSV that `jolt record` writes and `jolt replay` reads.
//
//   # jolt-trace v1
//   # rate_hz: 50
//   t,ax,ay,az,gx,gy,gz
//   0.00,-1.0836,-0.0186,-0.0273,23.57,-91.85,-142.59
//
// - lines starting with `#` are comments; `# key: value` comments are metadata (`rate_hz` is
//   the nominal output data rate; others are kept as they are);
// - the first other line is the header: column names among t, ax, ay, az, gx, gy, gz in any
//   order; t, ax, ay, az are required, gx, gy, gz come all three or not at all; other names are
//   ignored (later versions may add columns);
// - then one sample per line: t in seconds, strictly increasing; a in g; g in degrees per second.

/// A problem in a trace, with the line it is on (1-based; 0 when it is about the whole file).
public struct TraceError: Error, Equatable, Sendable {
    /// The line number, 1-based (0: the file as a whole).
    public var line: Int
    /// What is wrong, in words.
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// What a trace's comments and header say about it.
public struct TraceHeader: Equatable, Sendable {
    /// The nominal output data rate from `# rate_hz:`, milli-hertz; nil when absent.
    public var rateMilliHz: Int32?
    /// Whether the trace has gx, gy, gz columns.
    public var hasGyro = false
    /// The chip's full-scale range from `# range_g:`, mg; nil when absent.
    public var rangeMilliG: Int32?
    /// Every `# key: value` comment, in order.
    public var metadata: [(key: String, value: String)] = []
    /// The column names as written.
    public var columns: [String] = []

    public init() {}

    public static func == (a: TraceHeader, b: TraceHeader) -> Bool {
        a.rateMilliHz == b.rateMilliHz && a.hasGyro == b.hasGyro && a.rangeMilliG == b.rangeMilliG
            && a.columns == b.columns && a.metadata.map(\.key) == b.metadata.map(\.key)
            && a.metadata.map(\.value) == b.metadata.map(\.value)
    }
}

/// Parses a jolt-trace v1 text one line at a time, to samples in the core's units.
///
/// No allocation per row: a row is read in place from the caller's bytes.
public struct TraceParser: Sendable {
    @usableFromInline enum Field: UInt8, Sendable { case t, ax, ay, az, gx, gy, gz, ignored }

    /// Largest acceleration accepted, mg (±1000 g: far past any chip; beyond is corrupt data).
    public static let maxAccelMilliG: Int64 = 1_000_000
    /// Largest rotation rate accepted, mdps (±100,000 °/s).
    public static let maxRateMdps: Int64 = 100_000_000

    /// What the comments and header said so far.
    public private(set) var header = TraceHeader()
    /// `# key: value` comments not kept because the metadata reached `maxMetadataBytes`.
    public private(set) var droppedComments = 0
    var metadataBytes = 0
    /// The most metadata kept (keys and values), bytes.
    public static let maxMetadataBytes = 256 << 10
    @usableFromInline var fields: [Field] = []
    @usableFromInline var lastT: Int64 = .min
    @usableFromInline var lastTLine = 0
    /// Whether the header row has been read.
    public private(set) var sawHeader = false
    /// Number of samples parsed.
    public private(set) var samples = 0

    public init() {}

    /// What one line held.
    public enum Line: Equatable, Sendable {
        case blank, comment, header, sample(Sample)
    }

    /// Parses one line (without its newline; a trailing CR is ignored). `number` is its 1-based
    /// line number, for errors. `terminated` promises that the byte just after the line can be
    /// read and is not a digit (its newline, or a sentinel): rows are then read by the fast path.
    public mutating func parse(_ line: UnsafeBufferPointer<UInt8>, number: Int, terminated: Bool = false) throws(TraceError) -> Line {
        var end = line.count
        if end > 0 && line[end - 1] == 0x0D { end -= 1 }
        var start = 0
        while start < end && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        if start == end { return .blank }
        if line[start] == 0x23 {
            comment(line, from: start + 1, to: end, number: number)
            return .comment
        }
        if !sawHeader {
            try readHeader(line, from: start, to: end, number: number)
            return .header
        }
        return .sample(try row(line, to: end, number: number, terminated: terminated))
    }

    mutating func comment(_ line: UnsafeBufferPointer<UInt8>, from: Int, to: Int, number: Int) {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: line[from..<to]), as: UTF8.self),
              let colon = text.firstIndex(of: ":")
        else { return }
        let key = trim(text[..<colon])
        let value = trim(text[text.index(after: colon)...])
        guard !key.isEmpty, !key.contains(" ") else { return }
        // Kept within a fixed bound: a trace with megabytes of comments costs no memory.
        if metadataBytes + key.utf8.count + value.utf8.count <= Self.maxMetadataBytes {
            metadataBytes += key.utf8.count + value.utf8.count
            header.metadata.append((key, value))
        } else {
            droppedComments += 1
        }
        if key == "rate_hz", let r = Self.milli(value), r > 0, r <= Int64(Int32.max) {
            header.rateMilliHz = Int32(r)
        } else if key == "range_g", let r = Self.milli(value), r > 0, r <= 1_000_000 {
            header.rangeMilliG = Int32(r)
        }
    }

    static func milli(_ s: String) -> Int64? {
        var u = Array(s.utf8)
        return u.withUnsafeMutableBufferPointer { b in
            try? FixedDecimal.parse(UnsafeBufferPointer(b), from: 0, to: b.count, places: 3)
        }
    }

    func trim(_ s: Substring) -> String {
        var t = s
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }

    mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>, from: Int, to: Int, number: Int) throws(TraceError) {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: line[from..<to]), as: UTF8.self) else {
            throw TraceError(line: number, message: "the header row is not text (expected column names like t,ax,ay,az)")
        }
        var seen: [Field] = []
        var names: [String] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = trim(raw).lowercased()
            let f: Field
            switch name {
            case "t": f = .t
            case "ax": f = .ax
            case "ay": f = .ay
            case "az": f = .az
            case "gx": f = .gx
            case "gy": f = .gy
            case "gz": f = .gz
            case "":
                throw TraceError(line: number, message: "the header row has an empty column name")
            default:
                // Unknown columns are skipped, so later versions can add some; but a header of
                // numbers means the header is missing.
                if name.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true {
                    throw TraceError(line: number, message: "expected a header row naming the columns (t,ax,ay,az[,gx,gy,gz]), found data")
                }
                f = .ignored
            }
            if f != .ignored && seen.contains(f) {
                throw TraceError(line: number, message: "column '\(name)' appears twice in the header")
            }
            seen.append(f)
            names.append(String(raw))
        }
        let missing = [("t", Field.t), ("ax", .ax), ("ay", .ay), ("az", .az)].filter { !seen.contains($0.1) }.map(\.0)
        if !missing.isEmpty {
            throw TraceError(line: number, message: "the header lacks column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")) (need t,ax,ay,az; gx,gy,gz optional)")
        }
        let gyro = [Field.gx, .gy, .gz].filter { seen.contains($0) }.count
        if gyro != 0 && gyro != 3 {
            throw TraceError(line: number, message: "the header has only some of gx,gy,gz: give all three or none")
        }
        header.hasGyro = gyro == 3
        header.columns = names
        fields = seen
        canonical = seen == [.t, .ax, .ay, .az] || seen == [.t, .ax, .ay, .az, .gx, .gy, .gz]
        canonicalGyro = header.hasGyro
        sawHeader = true
    }

    /// Whether the header is exactly t,ax,ay,az or t,ax,ay,az,gx,gy,gz (the common case), so rows
    /// can be read positionally.
    @usableFromInline var canonical = false
    @usableFromInline var canonicalGyro = false

    @usableFromInline
    mutating func row(_ line: UnsafeBufferPointer<UInt8>, to end: Int, number: Int, terminated: Bool) throws(TraceError) -> Sample {
        if canonical && terminated, let s = Self.canonicalRow(line, to: end, gyro: canonicalGyro), s.t > lastT {
            lastT = s.t
            lastTLine = number
            samples += 1
            return s
        }
        return try generalRow(line, to: end, number: number)
    }

    /// The canonical row at `p` that ends with a newline before `stop` (within `maxLine` bytes)
    /// and moves time forward, and where its newline is; nil for anything else (a comment, a
    /// blank line, a CR, a row the general reader must judge: the caller reads it as a line).
    /// The byte at `stop` must be readable and not a digit (a sentinel).
    @inline(__always)
    public mutating func canonicalRow(at p: UnsafePointer<UInt8>, stop: UnsafePointer<UInt8>, number: Int, maxLine: Int) -> (Sample, UnsafePointer<UInt8>)? {
        guard canonical && sawHeader else { return nil }
        var q = p
        guard let s = Self.fields(&q, stop, gyro: canonicalGyro), q < stop, q.pointee == 0x0A,
              p.distance(to: q) <= maxLine, s.t > lastT
        else { return nil }
        lastT = s.t
        lastTLine = number
        samples += 1
        return (s, q)
    }

    @usableFromInline
    mutating func generalRow(_ line: UnsafeBufferPointer<UInt8>, to end: Int, number: Int) throws(TraceError) -> Sample {
        var s = Sample(t: 0, accel: .zero)
        var column = 0
        var start = 0
        let n = fields.count
        while true {
            var stop = start
            while stop < end && line[stop] != 0x2C { stop += 1 }
            guard column < n else {
                throw TraceError(line: number, message: "row has more than the header's \(n) columns")
            }
            let f = fields[column]
            if f != .ignored {
                let places = f == .t ? 6 : 3
                let v: Int64
                do {
                    v = try FixedDecimal.parse(line, from: start, to: stop, places: places)
                } catch {
                    throw fieldError(error, line, start, stop, column, number)
                }
                switch f {
                case .t: s.t = v
                case .ax, .ay, .az:
                    guard v.magnitude <= Self.maxAccelMilliG else {
                        throw TraceError(line: number, message: "column \(header.columns[column]): \(Self.show(line, start, stop)) g is out of range (|a| ≤ 1000 g)")
                    }
                    if f == .ax { s.accel.x = Int32(v) } else if f == .ay { s.accel.y = Int32(v) } else { s.accel.z = Int32(v) }
                case .gx, .gy, .gz:
                    guard v.magnitude <= Self.maxRateMdps else {
                        throw TraceError(line: number, message: "column \(header.columns[column]): \(Self.show(line, start, stop)) °/s is out of range (≤ 100000 °/s)")
                    }
                    if f == .gx { s.gyro.x = Int32(v) } else if f == .gy { s.gyro.y = Int32(v) } else { s.gyro.z = Int32(v) }
                case .ignored: break
                }
            }
            column += 1
            if stop >= end { break }
            start = stop + 1
        }
        guard column == n else {
            throw TraceError(line: number, message: "row has \(column) column\(column == 1 ? "" : "s"), the header has \(n)")
        }
        if s.t <= lastT {
            throw TraceError(line: number, message: "time does not increase: t=\(Self.seconds(s.t)) after t=\(Self.seconds(lastT)) on line \(lastTLine)")
        }
        lastT = s.t
        lastTLine = number
        samples += 1
        return s
    }

    func fieldError(_ e: FixedDecimal.Failure, _ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ stop: Int, _ column: Int, _ number: Int) -> TraceError {
        let name = header.columns[column].trimmingSpaces
        let shown = Self.show(line, start, stop)
        switch e {
        case .malformed:
            return TraceError(line: number, message: "column \(name): '\(shown)' is not a number")
        case .outOfRange:
            return TraceError(line: number, message: "column \(name): \(shown) is out of range")
        }
    }

    /// The field's text for an error message: at most 40 bytes, invalid UTF-8 replaced.
    static func show(_ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ stop: Int) -> String {
        let cut = min(stop, start + 40)
        let s = String(decoding: UnsafeBufferPointer(rebasing: line[start..<cut]), as: UTF8.self)
        return cut < stop ? s + "…" : s
    }

    /// Microseconds as seconds text, for messages.
    public static func seconds(_ t: Int64) -> String {
        TraceWriter.decimal(t, places: 6, trim: true)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
