#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltCore
import JoltDrivers
import JoltLinux
import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCorpus
import JoltEngine
import JoltJSON
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt record`: capture a jolt-trace v1 file from the chip (or the simulated board), in the
/// board's axes (mount and offsets applied), as `jolt run` sees it — from the running `jolt run`
/// when one holds the board, else read here through `jolt run`'s own loop (`LiveFeed`), so that
/// lost samples leave a gap in the times exactly as in `jolt run`.
final class RecordCommand: LiveView {
    let board: BoardProfile
    let seconds: Int64
    let output: String
    var file: TextOutput?
    var info = LiveFeed.Info()
    var first: Int64?
    var last: Int64 = 0
    var count: Int64 = 0
    var writeFailed = false
    /// When the file was last flushed (stream µs since the first sample): at least every second,
    /// so that a kill or a power cut loses a second of a long recording, not all of it.
    var flushedAt: Int64 = 0
    lazy var bar = output == "-" ? nil : ProgressBar(label: "recording", total: seconds * 1_000_000)

    init(board: BoardProfile, seconds: Int64, output: String) {
        self.board = board
        self.seconds = seconds
        self.output = output
    }

    func run(_ options: LiveFeed.Options) throws(JoltError) {
        let fd: Int32
        if output == "-" {
            fd = 1
        } else {
            do {
                fd = try Sys.open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            } catch {
                switch error {
                case .accessDenied, .permitted: throw JoltError(.noPermission, "\(output): permission denied (choose a folder you can write to)")
                case .noEntry: throw JoltError(.cannotCreate, "\(output): the folder does not exist")
                default: throw JoltError(.cannotCreate, "\(output): cannot create: \(error) (\(error.name))")
                }
            }
        }
        defer { if fd != 1 { Sys.close(fd) } }
        file = TextOutput(fd: fd)
        let end: LiveFeed.End
        do { end = try LiveFeed.run(board: board, options: options, view: self) } catch {
            bar?.finish()
            throw error
        }
        bar?.finish()
        file?.flush()
        if writeFailed || file?.broken == true { throw JoltError(.ioError, "\(output): write failed") }
        guard let first else { throw JoltError(.unavailable, "record: no samples came (\(end == .serverGone ? "the running jolt stopped" : "the chip gave none"))") }
        let period = Units.periodMicros(rateMilliHz: info.rateMilliHz)
        let span = last - first + period
        Log.info("recorded \(count) samples (\(EventRecord.seconds(span)) s at \(hz(info.rateMilliHz)) Hz\(span > count * period ? ", with gaps" : "")) to \(output)")
        switch end {
        case .motionEnded:
            Log.warning("the simulated motion ended after \(EventRecord.seconds(span)) s, before the \(seconds) s asked for: the trace is shorter (a board with \"sim\": {\"at_end\": \"rest\"} lies still instead)")
        case .serverGone:
            Log.warning("the running jolt stopped after \(EventRecord.seconds(span)) s: the trace is shorter than the \(seconds) s asked for")
        case .stopped:
            break
        }
    }

    func started(_ info: LiveFeed.Info) {
        self.info = info
        let meta: [(String, String)] = [
            ("source", "jolt record, \(info.identity) at 0x\(hex(info.address)) on \(info.bus)\(info.attachedTo.map { ", from the running jolt \($0)" } ?? "")"),
            ("board", info.board),
            ("range_g", "\(info.rangeMilliG / 1000)"),
        ]
        file?.write(TraceWriter.header(rateMilliHz: info.rateMilliHz, gyro: info.hasGyro, metadata: meta))
    }

    func sample(_ s: Sample, _ levels: LiveLevels) {
        if first == nil { first = s.t }
        var r = s
        r.t -= first!
        last = s.t
        count += 1
        file?.write(TraceWriter.row(r, gyro: info.hasGyro))
        if r.t - flushedAt >= 1_000_000 {
            file?.flush()
            flushedAt = r.t
        }
        if file?.broken == true { writeFailed = true }
    }

    func event(_ human: String, kind: String) {
        if kind == "fault" || kind == "recovered" { Log.info("record: \(human)") }
    }

    func wake(now: Int64) -> Bool {
        if writeFailed { return true }
        if let first { bar?.show(last - first) }
        return false
    }
}
