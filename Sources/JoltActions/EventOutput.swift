import JoltConfig
import JoltCore
import JoltJSON
import JoltLinux
import JoltSupport
import JoltTrace
/// Prints events on stdout: human lines, or JSON lines (`--json`, or when stdout is not a
/// terminal, so that a pipe or the journal gets lines a program can read). Flushed per event.
package final class EventPrinter {
    package let out: TextOutput
    package let json: Bool
    package let flushEach: Bool

    package init(out: TextOutput, json: Bool?, flushEach: Bool) {
        self.out = out
        self.json = json ?? !out.isTerminal
        self.flushEach = flushEach
    }

    package func print(_ r: EventRecord) {
        out.write((json ? r.json : r.human) + "\n")
        if flushEach { out.flush() }
    }
}
