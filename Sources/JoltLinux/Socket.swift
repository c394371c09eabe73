#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Unix-domain stream sockets for the control channel (`jolt arm`, `disarm`, `status`), and the
/// datagram that speaks systemd's notify protocol.
public enum UnixSocket {
    static func address(_ path: String) throws(Errno) -> (sockaddr_un, socklen_t) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }   // Linux abstract namespace
        let cap = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < cap else { throw Errno(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &addr.sun_path) { b in
            for (i, c) in bytes.enumerated() { b[i] = c }
        }
        let len = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        return (addr, socklen_t(len))
    }

    /// Creates a listening socket at `path` with file mode `mode` (only owner and group may
    /// connect with 0660). A stale socket file (nobody listening) is replaced; a live one is an
    /// error (EADDRINUSE).
    public static func listen(path: String, mode: mode_t) throws(Errno) -> Int32 {
        if let fd = try? connect(path: path) {
            Glibc.close(fd)
            throw Errno(EADDRINUSE)
        }
        // Only a stale socket is replaced: a path that names anything else is never unlinked.
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else { throw Errno(EEXIST) }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        if fd < 0 { throw Errno.current }
        var (addr, len) = try address(path)
        // Create the socket file with no access for others from the start, then set the mode.
        let old = umask(0o177)
        let r = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        umask(old)
        if r < 0 {
            let e = Errno.current
            Glibc.close(fd)
            throw e
        }
        if chmod(path, mode) < 0 || Glibc.listen(fd, 64) < 0 {
            let e = Errno.current
            Glibc.close(fd)
            throw e
        }
        return fd
    }

    /// Connects to the socket at `path` (blocking).
    public static func connect(path: String) throws(Errno) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw Errno.current }
        var (addr, len) = try address(path)
        let r = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, len) }
        }
        if r < 0 {
            let e = Errno.current
            Glibc.close(fd)
            throw e
        }
        return fd
    }

    /// The peer's user and group (`SO_PEERCRED`), as the kernel saw them at connect.
    public static func peer(_ fd: Int32) -> (pid: Int32, uid: uid_t, gid: gid_t)? {
        var pid: Int32 = 0
        var uid: UInt32 = 0, gid: UInt32 = 0
        guard jolt_peercred(fd, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid_t(uid), gid_t(gid))
    }

    /// Accepts a pending connection, non-blocking; nil when none is waiting.
    public static func accept(_ fd: Int32) -> Int32? {
        let c = jolt_accept4(fd, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
        return c >= 0 ? c : nil
    }

    /// Sends one datagram to the socket at `path` (systemd's NOTIFY_SOCKET; `@` is abstract).
    public static func sendDatagram(_ text: String, to path: String) throws(Errno) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw Errno.current }
        defer { Glibc.close(fd) }
        var (addr, len) = try address(path)
        let bytes = Array(text.utf8)
        let r = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bytes.withUnsafeBytes { b in sendto(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), a, len) }
            }
        }
        if r < 0 { throw Errno.current }
    }
}

/// An exclusive advisory lock on an open file (`flock(LOCK_EX | LOCK_NB)`): one Jolt per bus.
extension Sys {
    /// Takes the lock without waiting; false when another process holds it.
    public static func tryLock(_ fd: Int32) throws(Errno) -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        let e = Errno.current
        if e.rawValue == EWOULDBLOCK { return false }
        throw e
    }
}

/// What a non-blocking receive found.
public enum Received: Equatable {
    case data([UInt8])
    /// Nothing now; try later.
    case nothing
    /// The peer closed, or the connection failed.
    case closed
}

extension UnixSocket {
    /// Sends what the socket takes now without blocking or raising SIGPIPE; returns how many
    /// bytes went (0 when it would block), nil when the connection is gone.
    public static func sendNow(_ fd: Int32, _ bytes: [UInt8]) -> Int? {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if n >= 0 { return n }
        return errno == EAGAIN || errno == EINTR ? 0 : nil
    }

    /// Sends all of `bytes`, blocking as needed (up to the socket's send timeout).
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }

    /// Reads what is there, up to `max` bytes, on a non-blocking socket.
    public static func receive(_ fd: Int32, max: Int = 512) -> Received {
        var chunk = [UInt8](repeating: 0, count: max)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n > 0 { return .data(Array(chunk[0..<n])) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return .nothing }
        return .closed
    }

    /// Reads until a newline, the end, or the receive timeout; what came.
    public static func receiveLine(_ fd: Int32) -> [UInt8] {
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !reply.contains(0x0A) {
            guard let n = try? chunk.withUnsafeMutableBytes({ (b) throws(Errno) in try Sys.read(fd, into: b) }), n > 0 else { break }
            reply += chunk[0..<n]
        }
        return reply
    }

    /// Blocking reads give up after `micros`.
    public static func setReceiveTimeout(_ fd: Int32, micros: Int64) {
        var tv = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads no longer block.
    public static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Closes a socket (or any descriptor).
    public static func close(_ fd: Int32) { Sys.close(fd) }
}

/// The user database, as far as the control socket needs it.
public enum Users {
    /// A user's name, or "uid N".
    public static func name(of uid: uid_t) -> String {
        getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
    }

    /// Whether the user `uid` is in the group `gid` (as primary or supplementary group).
    public static func isMember(uid: uid_t, of gid: gid_t) -> Bool {
        guard let pw = getpwuid(uid) else { return false }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(pw.pointee.pw_name, pw.pointee.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(pw.pointee.pw_name, pw.pointee.pw_gid, &groups, &count) >= 0 else { return false }
        }
        return groups.prefix(Int(count)).contains(gid)
    }

    /// The process's effective group.
    public static var effectiveGroupID: gid_t { getegid() }
}

/// The process's environment.
public enum Environment {
    public static func value(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
