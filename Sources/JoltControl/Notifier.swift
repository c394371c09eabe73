#if canImport(Glibc)
import Glibc
#endif
import JoltJSON
import JoltLinux
import JoltActions
import JoltBuildInfo
import JoltConfig
import JoltCore
import JoltMQTT
import JoltSupport
import JoltTrace

/// systemd's notify protocol, spoken directly (no libsystemd): READY=1 once the chip is
/// configured, STATUS= lines, WATCHDOG=1 from the sampling loop at half the watchdog interval,
/// RELOADING=1 and STOPPING=1.
package final class Notifier {
    package let socket: String?
    /// The watchdog interval, µs (WATCHDOG_USEC), when the service has one for this process.
    package let watchdogMicros: Int64?
    /// When the last WATCHDOG=1 went (monotonic µs); nil before the first.
    package var lastPing: Int64?

    package init() {
        socket = Environment.value("NOTIFY_SOCKET")
        var wd: Int64?
        if let w = Environment.value("WATCHDOG_USEC"), let v = Int64(w), v > 0 {
            let pid = Environment.value("WATCHDOG_PID").flatMap { Int32($0) }
            if pid == nil || pid == ThisProcess.id { wd = v }
        }
        watchdogMicros = wd
    }

    package func send(_ text: String) {
        guard let socket else { return }
        do { try UnixSocket.sendDatagram(text, to: socket) } catch {
            Log.warning("systemd notify socket \(socket): \(error) (\(error.name))")
        }
    }

    /// Pings the watchdog if half its interval has passed (monotonic µs) — called from the
    /// sampling loop, so a stalled loop stops the pings; and not while standard output or error
    /// has been stuck in one write for half the interval, so that a reader that stopped gets the
    /// service restarted (the alarm's saved state then sounds again).
    package func watchdog(now: Int64) {
        guard let w = watchdogMicros else { return }
        if let last = lastPing, now - last < w / 2 { return }
        if TextOutput.standardOutput.stuck(now: now, limit: w / 2) || TextOutput.standardError.stuck(now: now, limit: w / 2) { return }
        lastPing = now
        send("WATCHDOG=1")
    }
}
