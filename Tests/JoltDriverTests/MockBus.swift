import JoltDrivers
import Testing

/// An expectation-list I2C bus, after embedded-hal-mock: the test lists the exact transactions
/// it expects, each with its reply or an injected error; anything else is recorded as a test
/// issue naming the call, and `done()` checks that nothing expected is left.
final class MockI2C: I2CBus {
    enum Expect: CustomStringConvertible {
        /// A write of `bytes` to `address`.
        case write(UInt8, [UInt8])
        /// A write of `bytes` then a read answered with `reply`.
        case writeRead(UInt8, [UInt8], reply: [UInt8])
        /// Any transaction with `address` and these written bytes, failing with `kind`.
        case fail(UInt8, [UInt8], I2CErrorKind)

        var description: String {
            switch self {
            case .write(let a, let b): return "write(0x\(String(a, radix: 16)), \(hexList(b)))"
            case .writeRead(let a, let b, let r): return "writeRead(0x\(String(a, radix: 16)), \(hexList(b)), reply \(hexList(r)))"
            case .fail(let a, let b, let k): return "fail(0x\(String(a, radix: 16)), \(hexList(b)), \(k))"
            }
        }
    }

    var expected: [Expect]
    var maxRead = 1 << 16
    let location: SourceLocation

    init(_ expected: [Expect], sourceLocation: SourceLocation = #_sourceLocation) {
        self.expected = expected
        location = sourceLocation
    }

    var maxReadLength: Int { maxRead }

    func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let w = Array(write)
        let call = read.count > 0 ? "writeRead(0x\(String(address, radix: 16)), \(hexList(w)), read \(read.count))" : "write(0x\(String(address, radix: 16)), \(hexList(w)))"
        guard !expected.isEmpty else {
            Issue.record("unexpected \(call): no more transactions were expected", sourceLocation: location)
            throw I2CError(.bus)
        }
        let e = expected.removeFirst()
        switch e {
        case .write(let a, let b):
            if a != address || b != w || read.count != 0 { Issue.record("expected \(e), got \(call)", sourceLocation: location) }
        case .writeRead(let a, let b, let reply):
            if a != address || b != w || read.count != reply.count { Issue.record("expected \(e), got \(call)", sourceLocation: location) }
            for i in 0..<min(read.count, reply.count) { read[i] = reply[i] }
        case .fail(let a, let b, let kind):
            if a != address || b != w { Issue.record("expected \(e), got \(call)", sourceLocation: location) }
            throw I2CError(kind)
        }
    }

    /// Checks that every expected transaction happened.
    func done(sourceLocation: SourceLocation = #_sourceLocation) {
        if !expected.isEmpty { Issue.record("transactions still expected: \(expected)", sourceLocation: sourceLocation) }
        checked = true
    }

    private var checked = false

    /// A mock handed to a driver and never looked at again is checked as it goes: whatever it
    /// still expected is an issue at the line that made it.
    deinit {
        if !checked && !expected.isEmpty { Issue.record("transactions still expected when the bus was released: \(expected)", sourceLocation: location) }
    }
}

func hexList(_ b: [UInt8]) -> String { "[" + b.map { "0x" + String($0, radix: 16) }.joined(separator: ", ") + "]" }

/// A delay that only counts.
struct CountingDelay: Delay {
    var total: UInt32 = 0
    mutating func delay(milliseconds: UInt32) { total += milliseconds }
}
