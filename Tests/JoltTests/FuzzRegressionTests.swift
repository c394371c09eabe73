import Foundation
import JoltFuzz
import JoltTestSupport
import Testing

@Suite("Fuzz seeds and past crashes, replayed")
struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] {
        let dir = packageRoot + "/Tests/Fuzz/" + target
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().map { dir + "/" + $0 }
    }

    static let targets: [(String, @Sendable (UnsafeRawBufferPointer) -> Void)] = [
        ("trace", FuzzTargets.trace), ("config", FuzzTargets.config), ("drivers", FuzzTargets.drivers),
    ]

    @Test("every committed input of every target keeps its promises (a broken one stops the test run)", arguments: ["trace", "config", "drivers"])
    func replay(target: String) throws {
        let files = Self.inputs(target)
        #expect(files.count >= 3, "\(target): \(files.count) inputs")
        let run = Self.targets.first { $0.0 == target }!.1
        for f in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: f))
            data.withUnsafeBytes { run($0) }
        }
    }

    @Test("the trace target holds a real recording and the config target every board file")
    func realInputs() throws {
        let trace = try Data(contentsOf: URL(fileURLWithPath: testData + "/wrist-imu/s1_003_TRAP.csv"))
        trace.withUnsafeBytes { FuzzTargets.trace($0) }
        for b in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/boards") where b.hasSuffix(".json") {
            let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/boards/" + b))
            data.withUnsafeBytes { FuzzTargets.config($0) }
        }
    }
}
