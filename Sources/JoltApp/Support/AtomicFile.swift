#if canImport(Glibc)
import Glibc
#endif
import JoltLinux

/// Replacing a file so that a crash or a power cut leaves the old text or the new, never half of
/// either: a temporary file beside it, fsync, rename over it, fsync of the folder. What calibrate
/// and plot write, the alarm's state and the remote-command counts all go through here.
enum AtomicFile {
    /// Replaces the file at `given` with `text`. Through a symbolic link, the file it names is
    /// replaced (the link stays); an existing file keeps its mode and owner (a profile may hold
    /// a password: 0640 stays 0640); a new one gets `newMode`.
    static func write(_ given: String, _ text: String, newMode: mode_t = 0o644) throws(JoltError) {
        var path = given
        var existing = stat()
        if lstat(given, &existing) == 0, existing.st_mode & S_IFMT == S_IFLNK {
            guard let real = realpath(given, nil) else { throw JoltError(.cannotCreate, "\(given): a symbolic link to nothing: give the file itself") }
            path = String(cString: real)
            free(real)
        }
        let keep = stat(path, &existing) == 0
        let tmp = path + ".tmp-\(getpid())"
        let fd: Int32
        do {
            fd = try Sys.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, keep ? existing.st_mode & 0o7777 : newMode)
        } catch {
            switch error {
            case .accessDenied, .permitted: throw JoltError(.noPermission, "\(path): permission denied (choose a folder you can write to, or use sudo)")
            case .noEntry: throw JoltError(.cannotCreate, "\(path): the folder does not exist")
            default: throw JoltError(.cannotCreate, "\(path): cannot create: \(error) (\(error.name))")
            }
        }
        if keep {
            fchmod(fd, existing.st_mode & 0o7777)
            if existing.st_uid != geteuid() || existing.st_gid != getegid() { _ = fchown(fd, existing.st_uid, existing.st_gid) }
        }
        let bytes = Array(text.utf8)
        var ok = (try? bytes.withUnsafeBytes { b in try Sys.write(fd, b) }) != nil
        if fsync(fd) != 0 { ok = false }
        Sys.close(fd)
        guard ok, rename(tmp, path) == 0 else {
            unlink(tmp)
            throw JoltError(.ioError, "\(path): write failed")
        }
        let slash = path.lastIndex(of: "/")
        let dir = open(slash.map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? ".", O_RDONLY | O_DIRECTORY)
        if dir >= 0 {
            fsync(dir)
            Glibc.close(dir)
        }
    }
}
