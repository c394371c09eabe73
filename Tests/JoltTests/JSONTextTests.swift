import JoltJSON
import Testing

/// The one JSON encoder: every event line, MQTT payload and state file goes through it.
@Suite struct JSONTextTests {
    @Test("strings are escaped where JSON needs it and nowhere else: quotes, backslashes, control characters; other text as it is")
    func quoting() {
        #expect(JSONText.quote("kiosk-3") == #""kiosk-3""#)
        #expect(JSONText.quote("") == #""""#)
        #expect(JSONText.quote(#"a "b" c"#) == #""a \"b\" c""#)
        #expect(JSONText.quote(#"C:\boards"#) == #""C:\\boards""#)
        #expect(JSONText.quote("one\ntwo\r\tthree") == #""one\ntwo\r\tthree""#)
        #expect(JSONText.quote("bell\u{07}, escape\u{1B}, nul\u{0}") == #""bell\u0007, escape\u001b, nul\u0000""#)
        #expect(JSONText.quote("Küche — 台所 🙂\u{7F}") == "\"Küche — 台所 🙂\u{7F}\"")
        // Appended to what is there already.
        var out = "x="
        JSONText.quote("q\"", into: &out)
        #expect(out == #"x="q\"""#)
    }

    @Test("values render compact with their keys in order, nested to any depth, and read back the same")
    func rendering() throws {
        let text = #"{"t":1.5,"event":"shake","ok":true,"none":null,"list":[1,"two",[],{}],"nested":{"a":{"b":["c\"d"]}}}"#
        let v = try JSONParser.parse(Array(text.utf8)).value
        #expect(JSONText.render(v) == text)
        var out = "["
        JSONText.render(v, into: &out)
        #expect(out == "[" + text)
        #expect(JSONText.render(.array([])) == "[]")
        #expect(JSONText.render(.string("tab\there")) == #""tab\there""#)
        let again = try JSONParser.parse(Array(JSONText.render(v).utf8)).value
        #expect(again == v)
    }
}
