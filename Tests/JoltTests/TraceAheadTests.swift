import Foundation
import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltTrace
import JoltTestSupport
import Testing

@Suite("Reading a trace ahead on a second thread, and rows read in one pass")
struct TraceAheadTests {
    /// A trace several read buffers long whose rows take every path: canonical rows as the
    /// writer and the corpus write them, comments and blank lines between them, CRLF endings, a
    /// row with a leading space, one with a decimal tail longer than it needs.
    static func mixedTrace(rows: Int) -> (text: String, count: Int) {
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        var count = 0
        for i in 0..<rows {
            let s = Sample(t: Int64(i) * 10_000, accel: Vec3(Int32(i % 2000) - 1000, Int32(i % 7) * 13, 1000 - Int32(i % 311)),
                           gyro: Vec3(Int32(i % 5000) * 3, -Int32(i % 977), Int32(i % 3)))
            switch i % 1000 {
            case 17: text += "# a comment in the middle\n"
            case 18: text += "\n"
            case 19: text += String(TraceWriter.row(s, gyro: true).dropLast()) + "\r\n"; count += 1; continue
            case 20: text += " " + TraceWriter.row(s, gyro: true); count += 1; continue
            case 21: text += String(TraceWriter.row(s, gyro: true).dropLast()) + "0000000001\n"; count += 1; continue
            default: break
            }
            text += i % 3 == 0 ? TraceWriter.compactRow(s, gyro: true) : TraceWriter.row(s, gyro: true)
            count += 1
        }
        return (text, count)
    }

    func sequential(_ path: String) throws -> ([Sample], String?) {
        let f = try TraceFile(path: path)
        var out: [Sample] = []
        do {
            while let s = try f.next() { out.append(s) }
        } catch {
            return (out, error.message)
        }
        return (out, nil)
    }

    func ahead(_ path: String) throws -> ([Sample], String?) {
        let f = try TraceFile(path: path)
        var out: [Sample] = []
        do {
            try f.forEachAhead { (s) throws(JoltError) in out.append(s) }
        } catch {
            return (out, error.message)
        }
        return (out, nil)
    }

    @Test("the same samples as reading line by line, over 2.7 MB of every kind of row")
    func same() throws {
        let (text, count) = Self.mixedTrace(rows: 60_000)
        #expect(text.utf8.count > 2 << 20, "several read buffers")
        let path = tempFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (a, ea) = try sequential(path)
        let (b, eb) = try ahead(path)
        #expect(ea == nil && eb == nil)
        #expect(a.count == count && b.count == count)
        #expect(a == b)
    }

    @Test("a bad row past the first megabytes: every sample before it, then the same error as line by line")
    func errorInOrder() throws {
        var (text, _) = Self.mixedTrace(rows: 60_000)
        let cut = text.index(text.startIndex, offsetBy: text.utf8.count * 2 / 3)
        let nl = try #require(text[cut...].firstIndex(of: "\n"))
        text.insert(contentsOf: "\n0.5,abc,0,1,0,0,0", at: nl)
        let path = tempFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (a, ea) = try sequential(path)
        let (b, eb) = try ahead(path)
        #expect(ea != nil && ea == eb, "\(ea ?? "no error") / \(eb ?? "no error")")
        #expect(a.count > 30_000 && a == b)
    }

    @Test("time going backwards across a read buffer's edge is caught at the same line")
    func backwards() throws {
        var (text, _) = Self.mixedTrace(rows: 60_000)
        text += "0.000001,0,0,1,0,0,0\n"
        let path = tempFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (a, ea) = try sequential(path)
        let (b, eb) = try ahead(path)
        #expect(ea?.contains("time does not increase") == true && ea == eb)
        #expect(a == b)
    }

    @Test("an error from the consumer stops the reader: no hang, the consumer's error comes back")
    func consumerStops() throws {
        let (text, _) = Self.mixedTrace(rows: 60_000)
        let path = tempFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let f = try TraceFile(path: path)
        var n = 0
        var message = ""
        do {
            try f.forEachAhead { (_) throws(JoltError) in
                n += 1
                if n == 40_000 { throw JoltError(.ioError, "output closed") }
            }
        } catch {
            message = error.message
        }
        #expect(n == 40_000 && message == "output closed")
    }

    @Test("jolt replay of a large trace prints what it printed reading line by line (the events of a shaken hour)")
    func replayLarge() throws {
        var g = SignalBuilder(rate: 100)
        for _ in 0..<20 {
            g.rest(40)
            g.shake(freq: 4, amp: 2.5, axis: (1, 0.2, 0), seconds: 1.5)
        }
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in g.samples { text += TraceWriter.row(s, gyro: true) }
        let path = tempFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = jolt(["replay", "--json", path])
        #expect(r.code == .ok, "\(r.error)")
        let began = r.out.split(separator: "\n").filter { $0.contains("\"began\"") }
        #expect(began.count == 20, "\(r.out)")
        // The same file read sample by sample through the detectors.
        let f = try TraceFile(path: path)
        var d = DefaultDetectors(DetectionSettings(sensitivity: .medium, rateMilliHz: 100_000, gyro: true))
        var n = 0
        while let s = try f.next() { if d.update(s).contains(.shakeBegan) { n += 1 } }
        #expect(n == 20)
    }
}
