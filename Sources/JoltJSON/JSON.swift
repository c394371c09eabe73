/// A parsed JSON value, with the line each value starts on (for error messages).
///
/// Jolt reads its own configuration with this small parser rather than a general one so that
/// every error can name the line and the path of the field (`detection.shake.threshold_g`).
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number, kept as written so integers and decimals convert exactly.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(key: String, value: JSONNode)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The JSON type's name, for messages ("a number", "an object").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true/false"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

/// A JSON value and the line it starts on.
public struct JSONNode: Equatable, Sendable {
    public var value: JSON
    public var line: Int

    public init(value: JSON, line: Int) {
        self.value = value
        self.line = line
    }
}

/// A JSON syntax error at a line and column.
public struct JSONSyntaxError: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String
}

/// Parses JSON text (RFC 8259). Nesting deeper than 64 levels is refused.
public struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0
    var depth = 0

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var p = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is allowed and skipped.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
        p.skipSpace()
        if p.i >= bytes.count { throw p.fail("the file is empty (expected a JSON object)") }
        let v = try p.value()
        p.skipSpace()
        if p.i < bytes.count { throw p.fail("unexpected text after the end of the JSON value") }
        return v
    }

    func fail(_ m: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: i - lineStart + 1, message: m)
    }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A:
                i += 1
                line += 1
                lineStart = i
            default: return
            }
        }
    }

    mutating func value() throws(JSONSyntaxError) -> JSONNode {
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end of file") }
        let at = line
        switch bytes[i] {
        case UInt8(ascii: "{"): return JSONNode(value: try object(), line: at)
        case UInt8(ascii: "["): return JSONNode(value: try array(), line: at)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), line: at)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), line: at)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), line: at)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, line: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(value: .number(try number()), line: at)
        default:
            throw fail("expected a value, found '\(Self.show(bytes[i]))'")
        }
    }

    static func show(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        for c in word.utf8 {
            guard i < bytes.count, bytes[i] == c else { throw fail("expected '\(word)'") }
            i += 1
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 64 { throw fail("nested more than 64 levels deep") }
    }

    mutating func object() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        i += 1
        var members: [(key: String, value: JSONNode)] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
            let k = try string()
            if members.contains(where: { $0.key == k }) { throw fail("key \"\(k)\" appears twice") }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after key \"\(k)\"") }
            i += 1
            members.append((k, try value()))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file inside an object") }
            if bytes[i] == UInt8(ascii: ",") {
                try noTrailingComma(before: "}")
                continue
            }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw fail("expected ',' or '}' in an object")
        }
    }

    mutating func array() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        i += 1
        var items: [JSONNode] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file inside a list") }
            if bytes[i] == UInt8(ascii: ",") {
                try noTrailingComma(before: "]")
                continue
            }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("expected ',' or ']' in a list")
        }
    }

    /// At a comma: steps past it, and refuses one that only closes (`{"a": 1,}`), naming the
    /// comma's own line: the most common slip in a hand-edited profile.
    mutating func noTrailingComma(before close: Unicode.Scalar) throws(JSONSyntaxError) {
        let comma = i, commaLine = line, commaLineStart = lineStart
        i += 1
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: close) else { return }
        (i, line, lineStart) = (comma, commaLine, commaLineStart)
        throw fail("a comma before '\(close)': JSON allows no comma after the last item; remove this comma")
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character inside a string") }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { throw fail("unterminated string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if code >= 0xD800 && code < 0xDC00 {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if code >= 0xDC00 && code < 0xE000 {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("invalid escape '\\\(Self.show(e))'")
                }
                continue
            }
            out.append(c)
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
        return s
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count else { throw fail("unterminated \\u escape") }
            let c = bytes[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 0x41 + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    mutating func number() throws(JSONSyntaxError) -> String {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            var n = 0
            while p.i < p.bytes.count, p.bytes[p.i] >= 0x30, p.bytes[p.i] <= 0x39 { p.i += 1; n += 1 }
            return n
        }
        guard i < bytes.count else { throw fail("malformed number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if digits(&self) == 0 {
            throw fail("malformed number")
        }
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            if digits(&self) == 0 { throw fail("malformed number: digits expected after '.'") }
        }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            if digits(&self) == 0 { throw fail("malformed number: digits expected in the exponent") }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }
}
