import JoltJSON
import Testing

/// What a reload says it changed (`reloaded FILE: …` in the journal).
@Suite struct JSONChangesTests {
    func parse(_ s: String) throws -> JSON { try JSONParser.parse(Array(s.utf8)).value }

    @Test("changed, added and removed values are named by their dotted path; equal documents give nothing")
    func paths() throws {
        let old = try parse(#"{ "rate_hz": 100, "detection": { "tamper": { "tilt_deg": 10, "move_ms": 120 } }, "alarm": { "key_switch": "key" } }"#)
        let new = try parse(#"{ "rate_hz": 100, "detection": { "tamper": { "tilt_deg": 25, "move_ms": 120 }, "sensitivity": "high" }, "alarm": {} }"#)
        #expect(JSON.changes(from: old, to: new) == ["detection.tamper.tilt_deg 10 → 25", "detection.sensitivity (added)", "alarm.key_switch (removed)"])
        #expect(JSON.changes(from: old, to: old).isEmpty)
        // Whitespace and key order inside an object do not count; a list is compared whole.
        #expect(JSON.changes(from: try parse(#"{"a":1,"b":[1,2]}"#), to: try parse(#"{ "b": [1, 2], "a": 1 }"#)).isEmpty)
        #expect(JSON.changes(from: try parse(#"{"b":[1,2]}"#), to: try parse(#"{"b":[2,1]}"#)) == ["b [1,2] → [2,1]"])
        let long = String(repeating: "x", count: 60)
        #expect(JSON.changes(from: try parse(#"{"n":"a"}"#), to: try parse("{\"n\":\"\(long)\"}")) == ["n \"a\" → \"" + String(repeating: "x", count: 36) + "…"])
    }
}
