#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Time and waiting.
extension Sys {
    /// The monotonic clock, µs (`clock_gettime(CLOCK_MONOTONIC)`).
    public static func monotonicMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// The wall clock, µs since 1970 (`clock_gettime(CLOCK_REALTIME)`).
    public static func wallMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// A wall-clock time as ISO 8601 in UTC: "2026-11-30T18:00:00Z" (`gmtime_r`).
    public static func utcText(_ micros: Int64) -> String {
        var t = time_t(micros / 1_000_000)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))T\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec))Z"
    }

    /// Sleeps `micros` (`nanosleep`, resumed after signals).
    public static func sleep(micros: Int64) {
        guard micros > 0 else { return }
        var req = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int((micros % 1_000_000) * 1000))
        var rem = timespec()
        while nanosleep(&req, &rem) != 0 && errno == EINTR { req = rem }
    }

    /// Waits until one of `fds` is ready or `timeoutMicros` passes (nil: forever), rounded up to
    /// whole milliseconds. Returns the number of ready descriptors (0 on timeout). The
    /// corresponding call is `poll`.
    public static func poll(_ fds: inout [pollfd], timeoutMicros: Int64?) throws(Errno) -> Int {
        let ms: Int32 = timeoutMicros.map { Int32(clamping: (max($0, 0) + 999) / 1000) } ?? -1
        let r: Int32 = fds.withUnsafeMutableBufferPointer { b in
            Glibc.poll(b.baseAddress, nfds_t(b.count), ms)
        }
        if r < 0 {
            let e = Errno.current
            if e == .interrupted { return 0 }
            throw e
        }
        return Int(r)
    }
}

/// Signals delivered through a file descriptor (`signalfd`), so that the main loop sees them
/// in `poll` with everything else, and no code runs in a signal handler.
public final class SignalChannel {
    /// The descriptor to poll.
    public let fd: Int32

    /// Blocks `signals` for the calling thread (and threads it creates after this) and opens a
    /// signalfd for them. Create it before starting any thread.
    public init(_ signals: [Int32]) throws(Errno) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        if fd < 0 { throw Errno.current }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// Blocks `signals` for the calling thread now, before a `SignalChannel` exists: a signal
    /// that arrives while a command starts up then waits for the channel instead of killing the
    /// process before it can put its outputs in their safe state.
    public static func block(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The next pending signal, or nil.
    public func next() -> Int32? {
        var info = signalfd_siginfo()
        let n = withUnsafeMutableBytes(of: &info) { b in Glibc.read(fd, b.baseAddress, b.count) }
        guard n == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(info.ssi_signo)
    }
}
