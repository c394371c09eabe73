#if canImport(Glibc)
import Glibc
#endif
import JoltBaselines
import JoltCore
import JoltMotion
import JoltTrace

/// `jolt replay` end to end over an hour (or `minutes`) of 100 Hz six-axis trace: each run paired
/// with `wc -l` on the same file, one after the other, so that the ratio of the two medians
/// holds on a shared, noisy machine where the absolute rate does not; and parsing alone, in
/// this process.
struct ReplayFigures {
    var samples = 0
    var seconds = Double.nan
    var wcSeconds = Double.nan
    var parseNs = Double.nan
    var ok = true
    /// Samples per second, end to end.
    var rate: Double { Double(samples) / seconds }
    /// Replay's time over wc -l's on the same file.
    var ratioToWc: Double { seconds / wcSeconds }
}

func replayBench(jolt: String, dir: String, minutes: Int, runs: Int) -> ReplayFigures {
    var r = ReplayFigures()
    log("replay: writing \(minutes) min of 100 Hz trace…")
    r.samples = minutes * 60 * 100
    let trace = dir + "/hour.csv"
    let rows = mixedMotion(count: r.samples)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
    text.reserveCapacity(rows.count * 60)
    for s in rows { text += TraceWriter.row(s, gyro: true) }
    let f = fopen(trace, "w")!
    fputs(text, f)
    // On the disk before the clock starts: a replay must not race the file's write-back.
    fflush(f)
    fsync(fileno(f))
    fclose(f)
    // One run first, not counted: the file in the page cache, the program's pages loaded.
    _ = spawn([jolt, "replay", "--json", trace])
    var walls: [Double] = []
    var wcs: [Double] = []
    for _ in 0..<max(runs, 5) {
        let x = spawn([jolt, "replay", "--json", trace])
        if x.status != 0 { r.ok = false; log("replay failed: \(x.err)"); break }
        walls.append(Double(x.wall) / 1e9)
        let w = spawn(["wc", "-l", trace])
        if w.status == 0 { wcs.append(Double(w.wall) / 1e9) }
    }
    if !walls.isEmpty { r.seconds = median(walls) }
    if !wcs.isEmpty { r.wcSeconds = median(wcs) }
    r.parseNs = parseOnly(trace)
    return r
}

/// The trace parser alone over the file's rows, ns per row (best of three).
func parseOnly(_ trace: String) -> Double {
    let fd = open(trace, O_RDONLY)
    var st = stat()
    fstat(fd, &st)
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    _ = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    close(fd)
    var best = Double.infinity
    for _ in 0..<3 {
        let t0 = now()
        var p = TraceParser()
        var n = 0
        bytes.withUnsafeBufferPointer { b in
            var start = 0
            var line = 0
            for i in 0..<b.count where b[i] == 0x0A {
                line += 1
                if case .sample = try? p.parse(UnsafeBufferPointer(rebasing: b[start..<i]), number: line, terminated: true) { n += 1 }
                start = i + 1
            }
        }
        best = min(best, Double(now() - t0) / Double(max(n, 1)))
    }
    return best
}
