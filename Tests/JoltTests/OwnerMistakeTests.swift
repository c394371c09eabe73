import Foundation
@testable import JoltConfig
@testable import JoltSupport
import JoltTestSupport
import Testing

@Suite("An owner's mistakes are refused, not run")
struct OwnerMistakeTests {
    func load(_ alarm: String, actions: String = "") throws(JoltError) -> BoardProfile {
        let text = #"{"bus": "sim", "chip": "mpu6050", "outputs": {"buzzer": {"line": "GPIO17"}},"# + actions + #" "alarm": {\#(alarm)}}"#
        return try BoardProfile.parse(Array(text.utf8), file: "kiosk.json")
    }

    @Test("an alarm with nothing to sound is refused at load, with the fix; an output, a bound output or command, or silent on purpose loads")
    func alarmMustSound() throws {
        for (alarm, actions) in [(#""triggers": ["tamper"]"#, ""),
                                 (#""triggers": ["tamper"]"#, #" "actions": {"alarm.triggered": [{"stdout": true}], "shake.began": [{"output": "buzzer", "pulse_ms": 100}]},"#)] {
            do throws(JoltError) {
                _ = try load(alarm, actions: actions)
                Issue.record("an alarm that cannot sound loaded: \(actions)")
            } catch {
                #expect(error.code == .config && error.message.hasPrefix("kiosk.json:1: alarm: nothing sounds"), "\(error.message)")
                #expect(error.message.contains("\"silent\": true") && error.message.contains("\"output\""), "\(error.message)")
            }
        }
        #expect(try load(#""output": "buzzer""#).alarm?.output == "buzzer")
        #expect(try load("", actions: #" "actions": {"alarm.triggered": [{"output": "buzzer", "pulse_ms": 2000}]},"#).alarm != nil)
        #expect(try load("", actions: #" "actions": {"alarm.triggered": [{"command": ["/usr/local/bin/siren"]}]},"#).alarm != nil)
        #expect(try load(#""silent": true"#).alarm?.silent == true)
    }

    @Test("jolt run on the kiosk board less its buzzer and its triggered action: exit 78 before anything starts")
    func kioskWithoutBuzzer() throws {
        var text = try String(contentsOfFile: packageRoot + "/boards/kiosk-alarm.json", encoding: .utf8)
        text = text.edited("    \"output\": \"buzzer\",\n", "")
        text = text.edited("    \"alarm.triggered\": [{ \"stdout\": true }],\n", "")
        let r = joltBinary(["run", "--board", tempFile(text, name: "kiosk-silent.json"), "--fast", "--seconds", "5"])
        #expect(r.code == 78 && r.error.contains("nothing sounds when the alarm triggers"), "\(r)")
    }
}
