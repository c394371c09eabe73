/// Where a trace's readings came from, as its header says.
extension TraceHeader {
    /// Whether the trace may hold taps folded into one-sample spikes: recorded at 50 Hz or below
    /// (`rateMilliHz`), and not by Jolt, whose readings are filtered (`jolt record`'s `# source:
    /// jolt record`, an alarm's evidence with its `# trigger_t:`, the corpus's `# category:`).
    public func mayAlias(rateMilliHz: Int32) -> Bool {
        guard rateMilliHz <= 50_000 else { return false }
        return !metadata.contains { m in
            (m.key == "source" && m.value.hasPrefix("jolt ")) || m.key == "trigger_t" || m.key == "category"
        }
    }
}
