#if canImport(Glibc)
import Glibc
#endif
import JoltLinux
import JoltSupport

/// One Jolt per bus: an exclusive lock on a board's device node (`Board.exclusiveNode`, the
/// bus's /dev/i2c-N) for as long as it is held. Two programs configuring one chip would fight
/// over it.
package final class BusLock {
    private var fd: Int32?

    private init(fd: Int32) {
        self.fd = fd
    }

    /// Locks `node`; nil where there is none (a bus that is the process's own).
    package static func take(_ node: String?) throws(JoltError) -> BusLock? {
        guard let node else { return nil }
        do {
            let fd = try Sys.open(node, O_RDONLY)
            if try Sys.tryLock(fd) { return BusLock(fd: fd) }
            Sys.close(fd)
            throw JoltError(.tempFailure, "another jolt is already using \(node): stop it first (systemctl stop jolt) — two programs configuring one chip would fight over it")
        } catch let e as JoltError {
            throw e
        } catch {
            throw JoltError(.unavailable, "\(node): cannot lock: \(error)")
        }
    }

    /// Lets the next Jolt have the bus.
    package func release() {
        if let fd { Sys.close(fd) }
        fd = nil
    }
}
