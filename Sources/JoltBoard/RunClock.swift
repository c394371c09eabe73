#if canImport(Glibc)
import Glibc
#endif
import JoltDrivers
import JoltEngine
import JoltLinux
import JoltActions
import JoltChips
import JoltConfig
import JoltCore
import JoltSupport
import JoltTrace

/// A simulated world as a run's clock sees it (JoltSimBoard's, seen from here without the
/// simulator): its time, which a run keeps up with real time or jumps deadline to deadline; the
/// end of the motion it plays; the stream time its first sample carries; and the stalls it
/// injects, during which the host cannot poll.
package protocol SimulatedWorld: AnyObject {
    var now: Int64 { get set }
    /// The stream time of the first sample, µs: a played recording's first time, else 0.
    var origin: Int64 { get }
    /// Whether the played motion has run out (the chip then repeats its last reading).
    var motionEnded: Bool { get }
    /// Until when the host cannot poll, if an injected stall holds it at `t`.
    func stallEnd(at t: Int64) -> Int64?
}

/// The clock a run follows: the monotonic clock (real time), or the simulated clock jumped from
/// deadline to deadline (`--fast`, simulated boards only). Times are µs since the run started.
package final class RunClock {
    package let sim: SimulatedWorld?
    /// The simulated world whose time jumps instead of passing (`--fast`); nil in real time.
    private let jumping: SimulatedWorld?
    package let start = Sys.monotonicMicros()
    /// A descriptor that ends a real-time delay early when readable (the run's signals).
    package var interrupt: Int32?

    package init(virtual: Bool, sim: SimulatedWorld?) {
        self.sim = sim
        jumping = virtual ? sim : nil
    }

    /// Whether time is simulated and jumps instead of passing.
    package var virtual: Bool { jumping != nil }

    /// Now, µs since the start. In real time the simulated world is brought up to now too.
    package var now: Int64 {
        if let w = jumping { return w.now }
        let t = Sys.monotonicMicros() - start
        sim?.now = t
        return t
    }

    /// The stream time of the first sample, µs: a played recording's first time (so that a
    /// run's times match `jolt replay`'s), else 0.
    package var origin: Int64 { sim?.origin ?? 0 }

    /// Whether the data has run out: a played motion that ended. A real chip's never does.
    package var motionEnded: Bool { sim?.motionEnded ?? false }

    /// Until when the host cannot poll (a simulated stall), if it cannot at `t`.
    package func pollBlocked(at t: Int64) -> Int64? { sim?.stallEnd(at: t) }

    /// Lets time pass until `deadline` or until one of `fds` is readable (`revents` says which).
    /// Simulated time jumps to the deadline, and takes what is readable then.
    package func wait(_ fds: inout [pollfd], until deadline: Int64) {
        if jumping != nil {
            advance(to: deadline)
            _ = try? Sys.poll(&fds, timeoutMicros: 0)
            return
        }
        var t = now
        while t < deadline {
            _ = try? Sys.poll(&fds, timeoutMicros: deadline - t)
            if fds.contains(where: { $0.revents != 0 }) { return }
            t = now
        }
    }

    /// Lets time pass until `t` (virtual: jumps there).
    package func advance(to t: Int64) {
        if let w = jumping {
            if t > w.now { w.now = t }
        } else {
            Sys.sleep(micros: t - now)
            _ = now
        }
    }
}

extension RunClock: EngineClock {
    /// A chip's reset wait. In real time it ends early when a signal is pending on `interrupt`
    /// (the run's signal descriptor), so that a stop is never held up by a reset; the driver
    /// then fails or finishes quickly, and the run loop sees the signal.
    package func delay(milliseconds: UInt32) {
        let until = now + Int64(milliseconds) * 1000
        guard let fd = interrupt else { return advance(to: until) }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        wait(&fds, until: until)
    }
}

/// A driver's delay on the run's clock.
package struct ClockDelay: Delay {
    package let clock: RunClock
    package mutating func delay(milliseconds: UInt32) { clock.delay(milliseconds: milliseconds) }

    package init(clock: RunClock) {
        self.clock = clock
    }
}
