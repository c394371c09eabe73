#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says about a path.
public struct FileStatus: Equatable, Sendable {
    public var uid: uid_t
    public var gid: gid_t
    /// Permission bits (0o7777).
    public var permissions: mode_t
    public var isDirectory: Bool
    public var isSymbolicLink: Bool
    public var isSocket: Bool
}

/// Files and folders: the calls above the device nodes, each in one small wrapper, so that
/// nothing above JoltLinux calls the C library for them.
public enum Files {
    /// The status of `path` (of the link itself with `followingLinks: false`), nil if it cannot
    /// be read.
    public static func status(_ path: String, followingLinks: Bool = true) -> FileStatus? {
        var st = stat()
        guard (followingLinks ? stat(path, &st) : lstat(path, &st)) == 0 else { return nil }
        return FileStatus(uid: st.st_uid, gid: st.st_gid, permissions: st.st_mode & 0o7777,
                          isDirectory: st.st_mode & S_IFMT == S_IFDIR, isSymbolicLink: st.st_mode & S_IFMT == S_IFLNK,
                          isSocket: st.st_mode & S_IFMT == S_IFSOCK)
    }

    /// What an open descriptor is: a regular file, a folder, a pipe or a socket (whose reads wait
    /// for a writer), or something else (a device); nil if it cannot be told.
    public static func kind(fd: Int32) -> OpenKind? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO, S_IFSOCK: return .pipe
        default: return .other
        }
    }

    public enum OpenKind: Sendable { case regular, directory, pipe, other }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
    public static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// The names in a folder (without `.` and `..`), unsorted.
    public static func list(_ dir: String) throws(Errno) -> [String] {
        guard let d = opendir(dir) else { throw Errno.current }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes a folder (and the folders above it with `parents`); one that exists is fine.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o750, parents: Bool = false) throws(Errno) {
        var steps = [path]
        if parents {
            var sofar = path.hasPrefix("/") ? "" : "."
            steps = path.split(separator: "/").map { part in
                sofar += "/" + part
                return sofar
            }
        }
        for p in steps where mkdir(p, mode) != 0 && errno != EEXIST { throw Errno.current }
    }

    /// Removes a file; a missing one is fine.
    public static func remove(_ path: String) { unlink(path) }

    /// Renames `from` over `to`, atomically.
    public static func rename(_ from: String, _ to: String) throws(Errno) {
        guard Glibc.rename(from, to) == 0 else { throw Errno.current }
    }

    /// The path with every symbolic link resolved, nil if it leads nowhere.
    public static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// A whole file, nil if it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        guard let fd = try? Sys.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { Sys.close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let n = try? chunk.withUnsafeMutableBytes({ (b) throws(Errno) in try Sys.read(fd, into: b) }) else { return nil }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Replaces `path` with `bytes` so that a crash or a power cut leaves the old content or the
    /// new, never half of either: a temporary file beside it, fsync, rename over it, fsync of
    /// the folder. `mode` and `owner` are given to the new file (an owner is set only when it
    /// differs from the process's).
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t, owner: (uid_t, gid_t)? = nil) throws(Errno) {
        let tmp = path + ".tmp-\(getpid())"
        let fd = try Sys.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        fchmod(fd, mode)
        if let (uid, gid) = owner, uid != geteuid() || gid != getegid() { _ = fchown(fd, uid, gid) }
        var failure: Errno?
        let written: Result<Void, Errno> = bytes.withUnsafeBytes { b in
            do throws(Errno) { try Sys.write(fd, b); return .success(()) } catch { return .failure(error) }
        }
        if case .failure(let e) = written { failure = e }
        if failure == nil && fsync(fd) != 0 { failure = Errno.current }
        Sys.close(fd)
        if failure == nil && Glibc.rename(tmp, path) != 0 { failure = Errno.current }
        if let failure {
            unlink(tmp)
            throw failure
        }
        let slash = path.lastIndex(of: "/")
        let dir = open(slash.map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            Glibc.close(dir)
        }
    }
}

/// Who and where this process is.
public enum ThisProcess {
    public static var id: Int32 { getpid() }
    public static var userID: uid_t { getuid() }
    public static var effectiveUserID: uid_t { geteuid() }

    /// The user id of a user name, if the user exists.
    public static func userID(named name: String) -> uid_t? { getpwnam(name).map { $0.pointee.pw_uid } }

    /// The machine's host name.
    public static var hostName: String? {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A write to a closed pipe or socket fails with EPIPE instead of killing the process.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}
