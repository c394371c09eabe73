#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltDrivers
import JoltLinux
import JoltTrace

/// `jolt record`: capture a jolt-trace v1 file from the chip (or the simulated board), in the
/// board's axes (mount and offsets applied), as `jolt run` sees it.
enum RecordCommand {
    static func run(board: BoardProfile, seconds: Int64, output: String, fast: Bool, trace: String?, out: OutputStream) throws(JoltError) {
        let sampler = try Sampler(board: board, fast: fast, trace: trace)
        let sensor = sampler.sensor, hw = sampler.hw

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
        let file = OutputStream(fd: fd)
        let meta: [(String, String)] = [
            ("source", "jolt record, \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName)"),
            ("board", board.file.isEmpty ? board.name : board.file),
            ("range_g", "\(sensor.rangeMilliG / 1000)"),
        ]
        file.write(TraceWriter.header(rateMilliHz: sensor.rateMilliHz, gyro: sensor.hasGyro, metadata: meta))
        let period = sensor.periodMicros
        let count = try sampler.read(micros: seconds * 1_000_000, progress: output == "-" ? nil : "recording") { (f, index) throws(JoltError) in
            let s = board.mount.apply(Sample(t: index * period, accel: Vec3(f.ax, f.ay, f.az), gyro: Vec3(f.gx, f.gy, f.gz)))
            file.write(TraceWriter.row(s, gyro: sensor.hasGyro))
            if file.broken { throw JoltError(.ioError, "\(output): write failed") }
        }
        file.flush()
        if file.broken { throw JoltError(.ioError, "\(output): write failed") }
        Log.info("recorded \(count) samples (\(EventRecord.seconds(count * period)) s at \(hz(sensor.rateMilliHz)) Hz) to \(output)")
    }
}
