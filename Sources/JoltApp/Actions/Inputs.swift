import JoltLinux

/// An input line Jolt reads (a key switch).
protocol InputLine: AnyObject {
    var label: String { get }
    /// The line's logical level: true = active.
    func get() throws(JoltError) -> Bool
    func release()
}

/// A GPIO input on the Linux GPIO character device.
final class ChardevInput: InputLine {
    let line: GPIOLine
    let label: String

    init(name: String, spec: LineSpec) throws(JoltError) {
        label = "\(name) (\(spec.label))"
        let address = try ChardevOutput.locate(spec, what: name)
        do {
            line = try GPIOLine(address, output: false, activeLow: spec.activeLow, pullUp: spec.pullUp)
        } catch {
            throw ChardevOutput.error(error, what: label)
        }
    }

    func get() throws(JoltError) -> Bool {
        do { return try line.get() } catch {
            throw JoltError(.ioError, "GPIO line \(label): reading it failed: \(error) (\(error.name))")
        }
    }

    func release() { line.release() }
}

/// A simulated input: a level that tests (and the simulated board) set.
final class SimInput: InputLine {
    let label: String
    let lock = Lock()
    private var level = false

    init(name: String, spec: LineSpec) {
        label = "\(name) (simulated \(spec.label))"
    }

    func get() throws(JoltError) -> Bool { lock.with { level } }
    func set(_ v: Bool) { lock.with { level = v } }
    func release() {}
}
