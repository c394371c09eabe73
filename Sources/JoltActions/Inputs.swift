import JoltLinux
import JoltConfig
import JoltCore
import JoltJSON
import JoltSupport
import JoltTrace

/// An input line Jolt reads (a key switch).
package protocol InputLine: AnyObject {
    var label: String { get }
    /// The line's logical level: true = active.
    func get() throws(JoltError) -> Bool
    func release()
}

/// A GPIO input on the Linux GPIO character device.
package final class ChardevInput: InputLine {
    package let line: GPIOLine
    package let label: String

    package init(name: String, spec: LineSpec) throws(JoltError) {
        (line, label) = try ChardevOutput.request(name, spec, output: false)
    }

    package func get() throws(JoltError) -> Bool {
        do { return try line.get() } catch {
            throw JoltError(.ioError, "GPIO line \(label): reading it failed: \(error) (\(error.name))")
        }
    }

    package func release() { line.release() }
}

