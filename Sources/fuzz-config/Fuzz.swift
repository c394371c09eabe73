import JoltFuzz

/// The config fuzz target's executable: scripts/fuzz runs it under libFuzzer, a plain build replays files.
@main
struct Fuzz {
    static func main() { FuzzMain.run { FuzzTargets.config($0) } }
}
