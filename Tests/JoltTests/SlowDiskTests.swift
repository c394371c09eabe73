import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltLinux
import Testing

/// A disk whose every write takes `millis` (an SD card's fsync at its worst), recording when each
/// began and ended (monotonic µs) and what it wrote.
final class SlowDisk: @unchecked Sendable {
    let millis: Int
    let lock = NSLock()
    private(set) var writes: [(began: Int64, ended: Int64, text: String)] = []
    private var begun = 0

    init(millis: Int) { self.millis = millis }

    var writer: AlarmStore.Writer {
        { [self] path, text throws(JoltError) in
            let began = Sys.monotonicMicros()
            lock.lock()
            begun += 1
            lock.unlock()
            usleep(UInt32(millis * 1000))
            try AlarmStore.durable(path, text)
            lock.lock()
            writes.append((began, Sys.monotonicMicros(), text))
            lock.unlock()
        }
    }

    var seen: [(began: Int64, ended: Int64, text: String)] { lock.lock(); defer { lock.unlock() }; return writes }
    /// Writes begun so far, finished or not.
    var started: Int { lock.lock(); defer { lock.unlock() }; return begun }
}

@Suite("The alarm first, the disk after", .serialized)
struct SlowDiskTests {
    func state(_ s: AlarmState) -> SavedAlarm {
        SavedAlarm(state: s, sinceWallMicros: 1_700_000_000_000_000, cause: "test", reference: s == .armed || s == .triggered ? Vec3(0, 0, 1000) : nil)
    }

    @Test("a save returns at once on a disk that takes 300 ms; a newer state replaces one not yet written; stop writes the last")
    func storeAlone() throws {
        let dir = NSTemporaryDirectory() + "jolt-state-\(UUID())"
        let disk = SlowDisk(millis: 300)
        let store = try AlarmStore(directory: dir, writer: disk.writer)
        let t0 = Sys.monotonicMicros()
        let first = store.save(state(.arming))
        let returned = Sys.monotonicMicros() - t0
        #expect(returned < 100_000, "save took \(returned) µs on a 300 ms disk")
        #expect(first == 1 && store.lastSave == 1 && store.savedThrough == 0)
        #expect(eventually(seconds: 5) { disk.started == 1 }, "the first write never began")
        store.save(state(.armed))
        let last = store.save(state(.triggered))   // replaces the armed state, not yet taken
        #expect(last == 3 && store.savedThrough == 0)
        store.stop()
        #expect(store.savedThrough == 3)
        let texts = disk.seen.map(\.text)
        #expect(texts.count == 2 && texts.first?.contains("\"arming\"") == true && texts.last?.contains("\"triggered\"") == true, "\(texts)")
        #expect(fileState(dir) == "triggered", "\(fileState(dir) ?? "no state file")")
        #expect(store.load() == .success(state(.triggered)))
    }

    @Test("a lift on a disk that takes 500 ms a write: the buzzer's first edge long before the state is on disk, no sample lost, disarm acknowledged once saved")
    func liftOnSlowDisk() throws {
        let sock = socketPath()
        let dir = NSTemporaryDirectory() + "jolt-state-\(UUID())"
        let disk = SlowDisk(millis: 500)
        let board = try BoardProfile.load(path: try kioskBoard(socket: sock))
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: liftTrace())
        o.limitMicros = 5_500_000
        let cmd = try RunCommand(board: board, playing: play, options: o, out: TextOutput.capturing(), outputs: ["buzzer": buzzer],
                                 store: try AlarmStore(directory: dir, writer: disk.writer))
        let t = BackgroundRun(cmd)
        var sounding = false
        let start = Date()
        while !sounding && Date().timeIntervalSince(start) < 5 {
            usleep(20_000)
            sounding = buzzer.isActive
        }
        #expect(sounding, "the lift never sounded the buzzer")
        // Disarm: the reply comes once the disarmed state is on disk, not before.
        let disarm = try ControlClient.request("disarm", socket: sock)
        let acknowledged = Sys.monotonicMicros()
        #expect(says(disarm, state: "disarmed"), "\(disarm)")
        #expect(fileState(dir) == "disarmed", "acknowledged before it was saved: \(fileState(dir) ?? "no state file")")
        let report = try t.report()
        let edge = try #require(buzzer.changes.first { $0.1 }?.0)
        let triggered = try #require(report.triggeredAtWall)
        let write = try #require(disk.seen.first { $0.text.contains("\"triggered\"") })
        let latency = edge - triggered
        print("slow disk (500 ms a write): the buzzer's first edge \(Double(latency) / 1000) ms after the trigger; its state on disk \(Double(write.ended - triggered) / 1000) ms after")
        // On the sampling thread the save came first, and the buzzer waited for it: 500 ms.
        #expect(latency >= 0 && latency < 100_000, "the buzzer sounded \(latency) µs after the trigger")
        #expect(edge < write.ended - 300_000, "the buzzer waited for the disk")
        #expect(disk.seen.contains { $0.text.contains("\"disarmed\"") && $0.ended <= acknowledged })
        // The loop never waited: every sample of the 5.5 s at 100 Hz read, nothing skipped or lost.
        #expect(report.overflows == 0 && report.skipped == 0 && report.chip.faults == 0)
        #expect(report.samples >= 540, "\(report.samples) samples in 5.5 s at 100 Hz")
    }

    @Test("the real binary with fsync slowed to 500 ms: it reports triggered while the file still says armed; disarm is on disk when acknowledged")
    func realFsync() throws {
        let shim = try slowFsyncShim()
        let sock = socketPath()
        let dir = NSTemporaryDirectory() + "jolt-state-\(UUID())"
        let jolt = try BackgroundJolt(["run", "--board", try kioskBoard(socket: sock), "--trace", liftTrace(), "--state-dir", dir],
                                      environment: ["LD_PRELOAD": shim, "JOLT_TEST_FSYNC_MS": "500"])
        defer { _ = jolt.stop() }
        var firstTriggered: String?
        let start = Date()
        while firstTriggered == nil && Date().timeIntervalSince(start) < 15 {
            usleep(30_000)
            if alarmState(sock) == "triggered" {
                firstTriggered = (try? String(contentsOfFile: dir + "/alarm.json", encoding: .utf8)) ?? "(none)"
            }
        }
        let file = try #require(firstTriggered, "never triggered: \(jolt.stderr)")
        // Two fsyncs of 500 ms stand between the trigger and the file saying so.
        #expect(says(file, state: "armed"), "the file said \(file) when jolt first said triggered")
        let disarm = joltBinary(["disarm", "--socket", sock])
        #expect(disarm.code == 0, "\(disarm)")
        #expect(fileState(dir) == "disarmed", "acknowledged before it was saved: \(fileState(dir) ?? "no state file")")
    }

    /// A shared object that makes every fsync sleep $JOLT_TEST_FSYNC_MS first (for LD_PRELOAD),
    /// built with the machine's C compiler.
    func slowFsyncShim() throws -> String {
        let dir = NSTemporaryDirectory() + "jolt-shim-\(UUID())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let source = dir + "/slowfsync.c", object = dir + "/slowfsync.so"
        try """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdlib.h>
        #include <unistd.h>
        int fsync(int fd) {
            static int (*real)(int);
            if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
            const char *ms = getenv("JOLT_TEST_FSYNC_MS");
            if (ms) usleep((useconds_t)atoi(ms) * 1000);
            return real(fd);
        }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = ["-shared", "-fPIC", "-O2", "-o", object, source, "-ldl"]
        try cc.run()
        cc.waitUntilExit()
        #expect(cc.terminationStatus == 0, "cc could not build the fsync shim (gcc: scripts/deps --test)")
        return object
    }
}
