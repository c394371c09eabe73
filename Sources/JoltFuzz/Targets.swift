#if canImport(Glibc)
import Glibc
#endif
import CLinux
import JoltApp
import JoltBoard
import JoltConfig
import JoltSupport
import JoltChips
import JoltCore
import JoltDrivers
import JoltTrace

/// The fuzz targets: what libFuzzer drives (through the fuzz-* executables, built with
/// `-sanitize=fuzzer`) and what the tests replay (every committed input under Tests/Fuzz). Each
/// takes arbitrary bytes and must neither crash nor break the promises checked here; a broken
/// promise is a `fatalError`, which the fuzzer reports as a crash with its input.
public enum FuzzTargets {
    /// The trace reader, whole: the bytes as a file (through a memfd), read to the end.
    /// Promises: an error is one line naming the file; accepted samples have increasing times
    /// and values within the format's limits.
    public static func trace(_ data: UnsafeRawBufferPointer) {
        let fd = jolt_memfd_create("jolt-fuzz-trace")
        guard fd >= 0 else { fatalError("memfd_create failed") }
        defer { close(fd) }
        var off = 0
        while off < data.count {
            let n = write(fd, data.baseAddress! + off, data.count - off)
            guard n > 0 else { fatalError("write to memfd failed") }
            off += n
        }
        lseek(fd, 0, SEEK_SET)
        let path = "/proc/self/fd/\(fd)"
        var read: [Sample] = []
        var failure: String?
        do throws(JoltError) {
            let f = try TraceFile(path: path)
            guard (12_500...1_000_000).contains(f.rateMilliHz) else { fatalError("rate \(f.rateMilliHz) mHz accepted") }
            var last = Int64.min
            while let s = try f.next() {
                guard s.t > last else { fatalError("time \(s.t) after \(last) accepted") }
                last = s.t
                for v in [s.accel.x, s.accel.y, s.accel.z] where Int64(v.magnitude) > TraceParser.maxAccelMilliG {
                    fatalError("acceleration \(v) mg accepted")
                }
                read.append(s)
            }
        } catch {
            check(error, names: path)
            failure = error.message
        }
        // The bulk reader `jolt replay` uses (rows read in one pass) gives the same samples and
        // the same error as reading line by line.
        var bulk: [Sample] = []
        var bulkFailure: String?
        do throws(JoltError) {
            try TraceFile(path: path).forEach { (s) throws(JoltError) in bulk.append(s) }
        } catch {
            bulkFailure = error.message
        }
        guard bulk == read && bulkFailure == failure else {
            fatalError("forEach read \(bulk.count) samples (\(bulkFailure ?? "no error")), next() \(read.count) (\(failure ?? "no error"))")
        }
    }

    /// The board profile loader. Promises: an error is one config-error line naming the file.
    public static func config(_ data: UnsafeRawBufferPointer) {
        do {
            let b = try BoardProfile.parse(Array(data), file: "fuzz.json")
            guard b.rateMilliHz >= 12_500 && b.rateMilliHz <= 1_000_000 else { fatalError("rate \(b.rateMilliHz) accepted") }
        } catch {
            guard error.code == .config else { fatalError("a bad board is a config error, not \(error.code)") }
            check(error, names: "fuzz.json")
        }
    }

    /// Every chip in the registry against a chip that answers anything: identify, reset,
    /// configure (with and without its FIFO, on a full I2C or an SMBus-sized adapter), then
    /// polls, with bus errors where the bytes say. Promises: no crash, no hang, decoded values
    /// within what 16 bits can mean, no more readings from one poll than a FIFO holds.
    public static func drivers(_ data: UnsafeRawBufferPointer) {
        guard let first = data.first else { return }
        let bus = FuzzBus(data, maxRead: first & 1 == 0 ? 1 << 16 : 32)
        var frames: [ChipSample] = []
        var delay = NoDelay()
        for chip in ChipRegistry.all {
            let settings = SensorSettings(rateMilliHz: chip.info.rates.nearest(to: 100_000), fifo: first & 2 == 0)
            guard let sensor = try? ChipSensor(chip, bus: bus, busName: "fuzz", address: chip.info.addresses[0], settings: settings) else {
                fatalError("\(chip.name) refuses its own rate nearest 100 Hz")
            }
            _ = try? sensor.start(delay: &delay)
            for _ in 0..<4 {
                frames.removeAll(keepingCapacity: true)
                _ = try? sensor.poll(into: &frames)
                // What the FIFO holds, and the reading in the output registers beside it.
                guard frames.count <= chip.info.fifoDepth + 1 else { fatalError("\(frames.count) readings from one \(chip.name) poll") }
                for f in frames { checkRange(f, gyro: chip.info.hasGyro) }
            }
        }
    }

    static func check(_ error: JoltError, names what: String) {
        guard !error.message.isEmpty, !error.message.contains("\n") else { fatalError("not one line: \(error.message)") }
        guard error.message.contains(what) else { fatalError("does not name \(what): \(error.message)") }
    }

    /// ±32768 counts at the most sensitive scales: 16384 counts/g (MPU6050 ±2 g), 131 counts per
    /// °/s; the ADXL345 at full resolution, 256 counts/g.
    static func checkRange(_ s: ChipSample, gyro: Bool) {
        for v in [s.ax, s.ay, s.az] where v.magnitude > 128_001 { fatalError("acceleration \(v) mg decoded") }
        for v in [s.gx, s.gy, s.gz] where v.magnitude > 2_000_001 { fatalError("rate \(v) mdps decoded") }
        if !gyro && (s.gx != 0 || s.gy != 0 || s.gz != 0) { fatalError("an accelerometer decoded a rotation") }
    }
}

/// A bus whose answers come from the fuzzer's bytes: for each transaction one control byte (a
/// multiple of 13 fails it, with a kind from the next byte), then the bytes to read.
final class FuzzBus: I2CBus {
    let bytes: [UInt8]
    var at = 0
    let maxReadLength: Int
    var transactions = 0

    init(_ data: UnsafeRawBufferPointer, maxRead: Int) {
        bytes = Array(data.dropFirst())
        maxReadLength = maxRead
    }

    func next() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        transactions += 1
        // Out of input: the chip goes quiet, so that every loop in a driver ends.
        if at >= bytes.count && transactions > 10_000 { throw I2CError(.noAcknowledge) }
        let ctl = next()
        if ctl % 13 == 0 && ctl != 0 {
            let kinds: [I2CErrorKind] = [.noAcknowledge, .bus, .timeout, .arbitrationLoss, .unsupported, .other(16)]
            throw I2CError(kinds[Int(next()) % kinds.count])
        }
        if read.count > maxReadLength { throw I2CError(.unsupported) }
        for i in 0..<read.count { read[i] = next() }
    }
}

struct NoDelay: Delay {
    mutating func delay(milliseconds: UInt32) {}
}
