/// What this build of Jolt is: its release version and the commit it was built from
/// (`commit` is written by the BuildInfo plugin before each build).
public enum BuildInfo {
    /// The release version (semantic versioning); the Debian package takes its version from it.
    public static let version = "0.2.0"

    /// "0.2.0 (commit 1a2b3c4d5e6f)": what `jolt --version` prints after "jolt ".
    public static var description: String { "\(version) (commit \(commit))" }
}
