import JoltFuzz

/// The drivers fuzz target's executable: scripts/fuzz runs it under libFuzzer, a plain build replays files.
@main
struct Fuzz {
    static func main() { FuzzMain.run { FuzzTargets.drivers($0) } }
}
