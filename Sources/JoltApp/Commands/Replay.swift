import JoltCore
import JoltEngine
import JoltTrace
import JoltActions
import JoltBaselines
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltCorpus
import JoltDrivers
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt replay`: runs the detectors over recorded traces as fast as they can be read.
public struct ReplayCommand {
    public var files: [String] = []
    public var json = false
    public var board = BoardProfile()
    public var arm = false
    /// Print the samples, in whole numbers, instead of the events.
    public var samples = false

    public init() {}

    /// Runs every file in turn; stops at the first bad file with its error.
    public func run(out: TextOutput) throws(JoltError) {
        for path in files {
            let file = try TraceFile(path: path)
            let settings = file.detection(board.detection)
            if samples {
                try dump(file, settings, out: out)
                continue
            }
            let stats = try withAnyDetectors(settings, Stream(file: file, settings: settings, json: json, arm: arm, out: out))
            if !json {
                out.write("\(path): \(stats.samples) samples, \(EventRecord.seconds((stats.span + 500) / 1000 * 1000)) s at \(TraceWriter.decimal(Int64(file.rateMilliHz), places: 3, trim: true)) Hz, \(stats.events) event\(stats.events == 1 ? "" : "s")\n")
            }
            out.flush()
        }
    }

    /// The samples of `file` in whole numbers, after a line with what the detectors are set up
    /// for: what another build of the core needs to replay it exactly.
    func dump(_ file: TraceFile, _ s: DetectionSettings, out: TextOutput) throws(JoltError) {
        out.write("# jolt samples: rate_mhz=\(s.rateMilliHz) gyro=\(s.gyro ? 1 : 0) range_mg=\(s.rangeMilliG)\(s.tamper.mayAlias ? " may_alias=1" : "")\n")
        try file.forEach { (x) throws(JoltError) in
            out.write("\(x.t) \(x.accel.x) \(x.accel.y) \(x.accel.z) \(x.gyro.x) \(x.gyro.y) \(x.gyro.z)\n")
        }
    }

    struct Stats {
        var samples = 0
        var events = 0
        var span: Int64 = 0
    }

    struct Stream: DetectorConsumer {
        let file: TraceFile
        let settings: DetectionSettings
        let json: Bool
        let arm: Bool
        let out: TextOutput

        func consume<D: SampleDetector>(_ d: inout D) throws(JoltError) -> Stats {
            var stats = Stats()
            var records: [EventRecord] = []
            var first: Int64?
            var last: Int64 = 0
            try file.forEachAhead { (s) throws(JoltError) in
                let e = d.update(s)
                if first == nil {
                    first = s.t
                    if arm { d.armTamper() }
                }
                last = s.t
                stats.samples += 1
                if !e.isEmpty {
                    records.removeAll(keepingCapacity: true)
                    EventBuilder.records(e, at: s.t, detectors: d, settings: settings, into: &records)
                    for var r in records {
                        stats.events += 1
                        if json {
                            r.file = file.path
                            out.write(r.json + "\n")
                        } else {
                            out.write(r.human + "\n")
                        }
                    }
                }
            }
            stats.span = first.map { last - $0 } ?? 0
            return stats
        }
    }
}
