import JoltCore
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltSupport

/// The chip as the alarm found it when it was last armed: its self-test (the datasheet's
/// procedure and limits, with its noise at rest), or why the test could not run (a chip that
/// does not answer, or answers as another part: its WHO_AM_I).
package struct SensorCheck: Equatable {
    package var result: SelfTestResult?
    package var error: String?
    package var wallMicros: Int64

    package init(_ r: Result<SelfTestResult, ChipTestFailure>, wallMicros: Int64) {
        switch r {
        case .success(let s): result = s
        case .failure(let f): error = f.message
        }
        self.wallMicros = wallMicros
    }

    package var passed: Bool { result?.passed == true }

    /// Why it failed, for an owner.
    package var why: String { error ?? result?.failure ?? "" }

    /// "passed: self-test x +559 y +559 z +559 mg (allowed 480..637 mg), noise 2 mg".
    package var text: String {
        if let error { return "could not run: \(error)" }
        return (passed ? "passed" : "FAILED") + ": self-test " + (result?.text ?? "")
    }

    package var jsonValue: JSON {
        .members([("passed", .bool(passed)), ("text", .string(text)), ("utc", .string(WallClock.iso8601(wallMicros)))])
    }
}

extension AlarmController {
    /// Checks the chip before arming, as `alarm.self_test` says; false when the arm must not
    /// go ahead (`refusal` then says why). At start (`starting`) a failure is warned of and the
    /// alarm arms all the same: a kiosk left disarmed by a failing check would be unguarded.
    func checkSensor(starting: Bool) -> Bool {
        refusal = nil
        guard selfTestPolicy != "off", let run = sensorCheck else { return true }
        let c = SensorCheck(run(), wallMicros: WallClock.nowMicros())
        lastCheck = c
        if c.passed {
            Log.info("alarm: sensor check \(c.text)")
            return true
        }
        if selfTestPolicy == "refuse" && !starting {
            refusal = "not armed: the sensor failed its check: \(c.why) (alarm.self_test \"warn\" arms all the same)"
            Log.error("alarm: \(refusal!)")
            return false
        }
        Log.warning("alarm: the sensor failed its check, arming all the same (\(starting ? "armed at start: fail-secure" : "alarm.self_test \"warn\"")): \(c.why)")
        return true
    }

    /// Why the last arm command was refused, once.
    package func takeRefusal() -> String? {
        defer { refusal = nil }
        return refusal
    }
}
