#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltLinux
import JoltTrace
import JoltActions
import JoltChips
import JoltConfig
import JoltDrivers
import JoltEngine
import JoltSupport

/// A jolt-trace v1 file read as a stream: 1 MiB at a time, one line at a time, never whole.
public final class TraceFile {
    /// The path as given ("-" is standard input).
    public let path: String
    package let fd: Int32
    package let ownsFD: Bool
    package let buffer: UnsafeMutableRawBufferPointer
    package var start = 0
    package var end = 0
    package var eof = false
    package var lineNumber = 0
    package var parser = TraceParser()
    package var pending: [Sample] = []
    package var pendingIndex = 0

    /// The longest line accepted, bytes. A longer one is corrupt data, not a trace.
    public static let maxLine = 65_536
    package static let chunk = 1 << 20

    /// Opens `path` and reads up to and including the header row (and, when the file does not
    /// say its rate, the first samples, to measure it).
    public init(path: String) throws(JoltError) {
        self.path = path
        if path == "-" {
            fd = 0
            ownsFD = false
        } else {
            do {
                fd = try Sys.open(path, O_RDONLY)
            } catch {
                throw Self.openError(path, error)
            }
            ownsFD = true
        }
        // One byte more than a chunk, for the sentinel after the last line (see nextLine).
        buffer = .allocate(byteCount: Self.chunk + 1, alignment: 16)
        do {
            try readHeader()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        buffer.deallocate()
    }

    package var closed = false
    package func close() {
        if ownsFD && !closed { Sys.close(fd) }
        closed = true
    }

    package static func openError(_ path: String, _ e: Errno) -> JoltError {
        switch e {
        case .noEntry: return JoltError(.noInput, "\(path): no such file (check the path)")
        case .accessDenied, .permitted: return JoltError(.noPermission, "\(path): permission denied (check the file's permissions)")
        default: return JoltError(.noInput, "\(path): cannot open: \(e) (\(e.name))")
        }
    }

    /// What the file's comments and header say.
    public var header: TraceHeader { parser.header }

    /// The output data rate: from `# rate_hz:`, or measured from the first two samples.
    public private(set) var rateMilliHz: Int32 = 0

    /// The current line number, for messages.
    public var line: Int { lineNumber }

    /// `base` set up for the stream this file holds: its rate, whether it carries rotation rates,
    /// the chip's range, and whether taps may be folded into spikes (`TraceHeader.mayAlias`).
    public func detection(_ base: DetectionSettings) -> DetectionSettings {
        var s = base
        s.rateMilliHz = rateMilliHz
        s.gyro = header.hasGyro
        s.rangeMilliG = header.rangeMilliG ?? 0
        s.tamper.mayAlias = header.mayAlias(rateMilliHz: rateMilliHz)
        return s
    }

    package func dataError(_ e: TraceError) -> JoltError {
        JoltError(.dataError, e.line > 0 ? "\(path):\(e.line): \(e.message)" : "\(path): \(e.message)")
    }

    /// The next line's bytes, or nil at end of file.
    package func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(JoltError) -> R) throws(JoltError) -> R? {
        while true {
            if start < end {
                let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                if let nl = memchr(base + start, 0x0A, end - start) {
                    let stop = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                    if stop - start > Self.maxLine {
                        throw JoltError(.dataError, "\(path):\(lineNumber + 1): line is longer than \(Self.maxLine) bytes (not a trace?)")
                    }
                    lineNumber += 1
                    let line = UnsafeBufferPointer(start: base + start, count: stop - start)
                    start = stop + 1
                    return try body(line)
                }
                if eof {
                    lineNumber += 1
                    // The last line has no newline: a zero byte after it is the parser's sentinel.
                    base[end] = 0
                    let line = UnsafeBufferPointer(start: base + start, count: end - start)
                    start = end
                    do { return try body(line) } catch {
                        // A recording stopped mid-write (a kill, a power cut) ends in a row cut
                        // short: left out, and said. A bad row anywhere else is still refused.
                        guard parser.sawHeader else { throw error }
                        Log.warning("\(path):\(lineNumber): the last row is cut short (the recording stopped mid-write): left out")
                        return nil
                    }
                }
            } else if eof {
                return nil
            }
            if end - start > Self.maxLine {
                throw JoltError(.dataError, "\(path):\(lineNumber + 1): line is longer than \(Self.maxLine) bytes (not a trace?)")
            }
            if start > 0 {
                let remaining = end - start
                if remaining > 0 {
                    memmove(buffer.baseAddress!, buffer.baseAddress! + start, remaining)
                }
                start = 0
                end = remaining
            }
            let n: Int
            do {
                n = try Sys.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[end..<Self.chunk]))
            } catch {
                if error.rawValue == EISDIR { throw JoltError(.noInput, "\(path): is a directory, not a trace file") }
                throw JoltError(.ioError, "\(path): read failed: \(error) (\(error.name))")
            }
            if n == 0 { eof = true } else { end += n }
        }
    }

    package func parseLine(_ line: UnsafeBufferPointer<UInt8>) throws(JoltError) -> TraceParser.Line {
        do {
            return try parser.parse(line, number: lineNumber, terminated: true)
        } catch {
            throw dataError(error)
        }
    }

    package func readHeader() throws(JoltError) {
        while !parser.sawHeader {
            guard try nextLine({ (l) throws(JoltError) in try parseLine(l) }) != nil else {
                throw JoltError(.dataError, lineNumber == 0 ? "\(path): the file is empty (expected a jolt-trace v1 header)" : "\(path): no header row (expected a line like t,ax,ay,az)")
            }
        }
        if let r = parser.header.rateMilliHz {
            rateMilliHz = r
        } else {
            // No `# rate_hz:`: measure it from the first two samples.
            while pending.count < 2, let s = try readSample() { pending.append(s) }
            guard pending.count == 2 else {
                throw JoltError(.dataError, "\(path): fewer than two samples and no '# rate_hz:' line: cannot tell the rate")
            }
            let dt = pending[1].t - pending[0].t
            rateMilliHz = Int32(clamping: (1_000_000_000 + dt / 2) / dt)
        }
        let range = DetectionSettings.rateRange
        guard range.contains(rateMilliHz) else {
            throw JoltError(.dataError, "\(path): rate \(TraceWriter.decimal(Int64(rateMilliHz), places: 3, trim: true)) Hz is outside the supported 12.5-1000 Hz")
        }
    }

    package func readSample() throws(JoltError) -> Sample? {
        while true {
            guard let r = try nextLine({ (l) throws(JoltError) in try parseLine(l) }) else { return nil }
            if case .sample(let s) = r { return s }
        }
    }

    /// Every remaining sample, in order, to `body`: the samples `next()` gives, read in bulk. While
    /// a buffer's complete lines are parsed, the file's position and parser are held in locals
    /// (no exclusivity check or closure context per row); refills, the last line and errors go
    /// through `nextLine` as for `next()`. What `jolt replay` reads through.
    @inline(__always)
    public func forEach(_ body: (Sample) throws(JoltError) -> Void) throws(JoltError) {
        while pendingIndex < pending.count {
            pendingIndex += 1
            try body(pending[pendingIndex - 1])
        }
        while true {
            var p = parser
            var at = start
            var n = lineNumber
            let stop = end
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var failure: TraceError?
            // The sentinel the row reader needs after the buffer's last byte (the buffer has one
            // byte more than a chunk).
            base[stop] = 0
            while at < stop {
                let sample: Sample?
                if let (row, nl) = p.canonicalRow(at: base + at, stop: base + stop, number: n + 1, maxLine: Self.maxLine) {
                    // A canonical row, read up to its newline in one pass.
                    n += 1
                    at = UnsafePointer(base).distance(to: nl) + 1
                    sample = row
                } else {
                    guard let nl = memchr(base + at, 0x0A, stop - at) else { break }
                    let lineEnd = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                    if lineEnd - at > Self.maxLine { break }   // nextLine reports it
                    n += 1
                    let line = UnsafeBufferPointer(start: base + at, count: lineEnd - at)
                    let r: TraceParser.Line
                    do { r = try p.parse(line, number: n, terminated: true) } catch { failure = error; break }
                    at = lineEnd + 1
                    if case .sample(let s) = r { sample = s } else { sample = nil }
                }
                if let sample {
                    do { try body(sample) } catch {
                        start = at
                        lineNumber = n
                        parser = p
                        throw error
                    }
                }
            }
            start = at
            lineNumber = n
            parser = p
            if let failure { throw dataError(failure) }
            // A refill, the last line without a newline, or the end.
            guard let r = try nextLine({ (l) throws(JoltError) in try parseLine(l) }) else { return }
            if case .sample(let sample) = r { try body(sample) }
        }
    }

    /// The next sample, or nil at the end of the file.
    @inline(__always)
    public func next() throws(JoltError) -> Sample? {
        if pendingIndex < pending.count {
            pendingIndex += 1
            return pending[pendingIndex - 1]
        }
        return try readSample()
    }
}
