/// Prints events on stdout: human lines, or JSON lines (`--json`, or when stdout is not a
/// terminal, so that a pipe or the journal gets lines a program can read). Flushed per event.
final class EventPrinter {
    let out: TextOutput
    let json: Bool
    let flushEach: Bool

    init(out: TextOutput, json: Bool?, flushEach: Bool) {
        self.out = out
        self.json = json ?? !out.isTerminal
        self.flushEach = flushEach
    }

    func print(_ r: EventRecord) {
        out.write((json ? r.json : r.human) + "\n")
        if flushEach { out.flush() }
    }
}
