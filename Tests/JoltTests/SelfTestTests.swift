import Foundation
@testable import JoltApp
@testable import JoltRun
@testable import JoltBoard
@testable import JoltSimBoard
import JoltChips
@testable import JoltActions
@testable import JoltConfig
import JoltControl
import JoltTestSupport
import JoltCore
import JoltDrivers
import JoltLinux
import JoltSim
import JoltSupport
import Testing

/// A delay that advances a simulated clock.
struct SimClockDelay: Delay {
    let clock: SimClock
    mutating func delay(milliseconds: UInt32) { clock.now += Int64(milliseconds) * 1000 }
}

@Suite("The chip's self-test, and the alarm's check at arming")
struct SelfTestTests {
    /// Each datasheet's self-test, declared again: the range of the test force's pull (mg, x y
    /// z), whether only its size is given, and the register and bits that turn the force on.
    static let datasheet: [String: (limits: [ClosedRange<Int32>], magnitude: Bool, register: UInt8, bits: UInt8)] = [
        // RM-MPU-6000A-00 §4.1: the twin's factory trim A_TEST 16 is 559 mg; ±14 % (PS §6.2).
        "mpu6050": ([480...637, 480...637, 480...637], false, 0x1C, 0xE0),
        // ADXL345 Table 1 at 2.5 V, and Table 14's 3.3 V factors (1.77 x, y; 1.47 z).
        "adxl345": ([200...3717, -3717...(-200), 300...4998], false, 0x31, 0x80),
        // LIS3DH Table 4: 17 … 360 LSb at ±2 g, normal mode, 4 mg a digit.
        "lis3dh": ([68...1440, 68...1440, 68...1440], true, 0x23, 0x06),
        // LSM6DSO: LA_ST 50 … 1700 mg at ±4 g.
        "lsm6dso": ([50...1700, 50...1700, 50...1700], true, 0x14, 0x03),
    ]

    /// The chip's twin at rest on a simulated bus, its sense element good or damaged.
    func rig(_ name: String, damaged: Bool) throws -> (ChipSensor, SimBus, UInt8) {
        let bus = SimBus(clock: SimClock())
        let twin = try #require(SimulatedChips.twin(of: name))
        let chip = try #require(ChipRegistry.named(name))
        let device = twin.init(source: SampleListSource([Sample(t: 0, accel: Vec3(0, 0, 1000))], loop: true))
        if damaged { device.selfTestGainPercent = 5 }
        let address = chip.info.addresses[0]
        bus.attach(device, at: address)
        let rate = chip.info.rates.nearest(to: 100_000)
        let sensor = try ChipSensor(chip, bus: bus, busName: "sim", address: address, settings: SensorSettings(rateMilliHz: rate))
        var delay = SimClockDelay(clock: bus.clock)
        try sensor.start(delay: &delay)
        return (sensor, bus, address)
    }

    @Test("each chip's self-test against its twin: the datasheet's limits, a good part passes, a damaged one fails on every axis, and the force is off after", arguments: ChipRegistry.names)
    func chipSelfTest(name: String) throws {
        let spec = try #require(Self.datasheet[name], "a new chip: declare its datasheet's self-test here")
        for damaged in [false, true] {
            let (sensor, bus, address) = try rig(name, damaged: damaged)
            var delay = SimClockDelay(clock: bus.clock)
            let before = bus.clock.now
            let r = try sensor.selfTest(delay: &delay)
            #expect(r.limits == spec.limits && r.magnitudeOnly == spec.magnitude, "\(name): \(r.limits)")
            #expect(r.passed == !damaged, "\(name) damaged \(damaged): \(r.text)")
            #expect(damaged ? r.failedAxes == [0, 1, 2] : r.failedAxes.isEmpty, "\(name): \(r.text)")
            #expect(r.noiseMilliG <= 5, "\(name): a still twin reads \(r.noiseMilliG) mg of noise")
            #expect(damaged == (r.failure != nil))
            // The chip is measuring again as it was, the force off; the test took under a second.
            var b = bus
            #expect(try b.readRegister(address: address, spec.register) & spec.bits == 0, "\(name): the self-test force is still on")
            #expect(bus.clock.now - before < 1_000_000, "\(name): \(bus.clock.now - before) µs")
            bus.clock.now += 200_000
            var out: [ChipSample] = []
            _ = try sensor.poll(into: &out)
            #expect(!out.isEmpty && out.allSatisfy { abs($0.az - 1000) <= 8 && abs($0.ax) <= 8 }, "\(name): \(out.prefix(3))")
        }
    }

    @Test("the judgement: out of range on one axis, the sign where the datasheet gives one, and a noisy chip")
    func judgement() {
        let ok = SelfTestResult(changeMilliG: [559, 560, 558], limits: Array(repeating: 480...637, count: 3), magnitudeOnly: false, noiseMilliG: 3)
        #expect(ok.passed && ok.text.contains("x +559 y +560 z +558 mg (allowed 480..637 mg), noise 3 mg"))
        var one = ok
        one.changeMilliG[2] = 700
        #expect(!one.passed && one.failedAxes == [2] && one.failure!.contains("z by 700 mg, not 480..637"))
        var sign = SelfTestResult(changeMilliG: [500, 500, 500], limits: [200...3717, -3717...(-200), 300...4998], magnitudeOnly: false, noiseMilliG: 3)
        #expect(sign.failedAxes == [1], "ADXL345's y pulls negative")
        sign.magnitudeOnly = true
        #expect(sign.failedAxes == [1], "a signed range is not met by a magnitude")
        var noisy = ok
        noisy.noiseMilliG = 60
        #expect(!noisy.passed && noisy.failure!.contains("keep the device still"))
    }

    /// Runs the simulated kiosk (its sensor damaged, disarmed at start) for a few seconds, asks
    /// it to arm over its socket, and returns the arm reply (or its refusal) and the status.
    func armDamagedKiosk(policy: String) throws -> (arm: String, status: String) {
        let sock = socketPath()
        var text = try String(contentsOfFile: try kioskBoard(socket: sock), encoding: .utf8)
        text = text.edited("\"at_end\": \"rest\"", "\"at_end\": \"rest\", \"self_test\": \"fail\"")
        text = text.edited("\"armed_at_start\": true", "\"armed_at_start\": false, \"self_test\": \"\(policy)\"")
        let board = try BoardProfile.load(path: tempFile(text, name: "kiosk-damaged.json"))
        var o = RunCommand.Options(json: true)
        o.limitMicros = 3_000_000
        let cmd = try RunCommand(board: board, options: o, out: TextOutput.capturing(), outputs: ["buzzer": SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))])
        let t = BackgroundRun(cmd)
        var reply: String?
        let start = Date()
        while reply == nil && Date().timeIntervalSince(start) < 3 {
            sleepFor(0.05)
            reply = try? ControlClient.request("arm", socket: sock)
        }
        let status = (try? ControlClient.request("status", socket: sock)) ?? ""
        _ = try t.report()
        return (reply ?? "", status)
    }

    @Test("alarm.self_test refuse: a damaged sensor is not armed, the arm command says why, status shows the check")
    func refused() throws {
        let (arm, status) = try armDamagedKiosk(policy: "refuse")
        #expect(arm.contains("\"ok\":false") && arm.contains("not armed: the sensor failed its check: the self-test force moved"), "\(arm)")
        #expect(says(status, state: "disarmed") && status.contains("\"sensor_check\":{\"passed\":false,\"text\":\"FAILED: self-test"), "\(status)")
    }

    @Test("alarm.self_test warn: a damaged sensor arms all the same, with its failed check in status")
    func warned() throws {
        let (arm, status) = try armDamagedKiosk(policy: "warn")
        #expect(json(arm)?["ok"] as? Bool == true && says(arm, state: "arming"), "\(arm)")
        #expect(status.contains("\"sensor_check\":{\"passed\":false"), "\(status)")
    }
}
