import JoltLinux
import JoltDrivers

/// Replacing a file so that a crash or a power cut leaves the old text or the new, never half of
/// either (`Files.replace`). What calibrate and plot write, the alarm's state and the
/// remote-command counts all go through here.
package enum AtomicFile {
    /// Replaces the file at `given` with `text`. Through a symbolic link, the file it names is
    /// replaced (the link stays); an existing file keeps its mode and owner (a profile may hold
    /// a password: 0640 stays 0640); a new one gets `newMode`.
    package static func write(_ given: String, _ text: String, newMode: UInt32 = 0o644) throws(JoltError) {
        var path = given
        if Files.status(given, followingLinks: false)?.isSymbolicLink == true {
            guard let real = Files.realPath(given) else { throw JoltError(.cannotCreate, "\(given): a symbolic link to nothing: give the file itself") }
            path = real
        }
        let existing = Files.status(path)
        do {
            try Files.replace(path, with: Array(text.utf8), mode: existing?.permissions ?? newMode, owner: existing.map { ($0.uid, $0.gid) })
        } catch {
            switch error {
            case .accessDenied, .permitted: throw JoltError(.noPermission, "\(path): permission denied (choose a folder you can write to, or use sudo)")
            case .noEntry: throw JoltError(.cannotCreate, "\(path): the folder does not exist")
            default: throw JoltError(.ioError, "\(path): write failed: \(error) (\(error.name))")
            }
        }
    }
}
