#if canImport(Glibc)
import Glibc
#endif
import JoltDrivers
import JoltLinux
import JoltSim

/// The clock a run follows: the monotonic clock (real time), or the simulated clock jumped from
/// deadline to deadline (`--fast`, simulated boards only). Times are µs since the run started.
final class RunClock {
    /// Whether time is simulated and jumps instead of passing.
    let virtual: Bool
    let sim: SimClock?
    let start = Sys.monotonicMicros()

    init(virtual: Bool, sim: SimClock?) {
        self.virtual = virtual && sim != nil
        self.sim = sim
    }

    /// Now, µs since the start. In real time the simulated world is brought up to now too.
    var now: Int64 {
        if virtual { return sim!.now }
        let t = Sys.monotonicMicros() - start
        sim?.now = t
        return t
    }

    /// Lets time pass until `t` (virtual: jumps there).
    func advance(to t: Int64) {
        if virtual {
            if t > sim!.now { sim!.now = t }
        } else {
            Sys.sleep(micros: t - now)
            _ = now
        }
    }
}

/// A driver's delay on the run's clock. With `interrupt` (the signal descriptor), a real-time
/// delay ends early when a signal is pending, so that a stop is never held up by a chip's reset
/// wait; the driver then fails or finishes quickly, and the run loop sees the signal.
struct ClockDelay: Delay {
    let clock: RunClock
    var interrupt: Int32?

    init(clock: RunClock, interrupt: Int32? = nil) {
        self.clock = clock
        self.interrupt = interrupt
    }

    mutating func delay(milliseconds: UInt32) {
        let until = clock.now + Int64(milliseconds) * 1000
        guard let fd = interrupt, !clock.virtual else {
            clock.advance(to: until)
            return
        }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        var now = clock.now
        while now < until {
            _ = try? Sys.poll(&fds, timeoutMicros: until - now)
            if fds[0].revents != 0 { return }
            now = clock.now
        }
    }
}
