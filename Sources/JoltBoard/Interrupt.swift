import JoltActions
import JoltConfig
import JoltLinux
import JoltSupport

/// The chip's INT pin as `jolt run`'s loop waits on it (`int` in the board profile): a GPIO line
/// whose rising edges the kernel queues (`ChardevInterrupt`), or a simulated chip's pin, which
/// says when it will rise.
package protocol InterruptPin: AnyObject {
    /// For messages: "int (GPIO4)".
    var label: String { get }
    /// The descriptor that is readable once the pin has risen; nil for a simulated pin.
    var descriptor: Int32? { get }
    /// A simulated pin: the first time in (`now`, `deadline`] (run clock, µs) at which it rises,
    /// its chip caught up to then; nil when it does not. A real pin: nil.
    func nextRise(after now: Int64, until deadline: Int64) -> Int64?
    /// Takes the rises waiting (those that woke the loop, and any since): how many.
    func take(now: Int64) -> Int
    func release()
}

/// The INT pin on the GPIO character device: an input requested for rising edges (the chips are
/// set up active high; `"active": "low"` inverts it for a board with an inverter between).
package final class ChardevInterrupt: InterruptPin {
    package let line: GPIOLine
    package let label: String

    package init(_ spec: InterruptLine) throws(JoltError) {
        (line, label) = try ChardevOutput.request("int", spec.line, output: false, risingEdges: true)
    }

    package var descriptor: Int32? { line.eventDescriptor }
    package func nextRise(after now: Int64, until deadline: Int64) -> Int64? { nil }
    package func take(now: Int64) -> Int { line.takeEdges().count }
    package func release() { line.release() }
}
