/// Writing JSON: every JSON text Jolt writes (event records, control replies, MQTT payloads,
/// saved state, reports) is a `JSON` value rendered by `JSONText.render`, so that escaping
/// lives in one place (`JSONText.quote`). Literals build values in order:
///
///     let reply: JSON = ["ok": true, "output": .string(name), "t": .decimal(seconds)]
extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByStringInterpolation {
    public init(stringLiteral s: String) { self = .string(s) }
    public init(integerLiteral v: Int) { self = .number(String(v)) }
    public init(booleanLiteral b: Bool) { self = .bool(b) }
    public init(arrayLiteral items: JSON...) { self = .array(items.map { JSONNode(value: $0, line: 0) }) }
    public init(nilLiteral: ()) { self = .null }
    /// An object, its members in the order written.
    public init(dictionaryLiteral members: (String, JSON)...) { self = .members(members) }

    /// An object from members in order.
    public static func members(_ m: [(String, JSON)]) -> JSON {
        .object(m.map { (key: $0.0, value: JSONNode(value: $0.1, line: 0)) })
    }

    /// A list.
    public static func list(_ items: [JSON]) -> JSON { .array(items.map { JSONNode(value: $0, line: 0) }) }

    /// An integer.
    public static func int<I: BinaryInteger>(_ v: I) -> JSON { .number(String(v)) }

    /// A number already written as decimal text ("1.25"), kept exactly.
    public static func decimal(_ text: String) -> JSON { .number(text) }

    /// A value, or null.
    public static func optional(_ v: JSON?) -> JSON { v ?? .null }

    /// The compact text.
    public var text: String { JSONText.render(self) }

    /// An object with `key` appended (or replaced); other values are returned unchanged.
    public func adding(_ key: String, _ v: JSON) -> JSON {
        guard case .object(var m) = self else { return self }
        if let i = m.firstIndex(where: { $0.key == key }) { m[i].value = JSONNode(value: v, line: 0) } else { m.append((key, JSONNode(value: v, line: 0))) }
        return .object(m)
    }
}

extension JSON {
    /// What differs between two documents, one entry per changed value, by dotted path:
    /// `detection.tamper.tilt_deg 10 → 25`, `mqtt (added)`, `alarm.key_switch (removed)`.
    /// Lists are compared whole. A reload says this in the log.
    public static func changes(from old: JSON, to new: JSON, at path: String = "") -> [String] {
        let name = path.isEmpty ? "(the whole document)" : path
        guard old != new else { return [] }
        guard case .object(let a) = old, case .object(let b) = new else {
            return ["\(name) \(brief(old)) → \(brief(new))"]
        }
        var out: [String] = []
        for (key, value) in a {
            let sub = path.isEmpty ? key : "\(path).\(key)"
            if let n = b.first(where: { $0.key == key }) {
                out += changes(from: value.value, to: n.value.value, at: sub)
            } else {
                out.append("\(sub) (removed)")
            }
        }
        for (key, _) in b where !a.contains(where: { $0.key == key }) {
            out.append("\(path.isEmpty ? key : "\(path).\(key)") (added)")
        }
        return out
    }

    /// A value short enough for a log line.
    private static func brief(_ v: JSON) -> String {
        let t = v.text
        return t.count <= 40 ? t : String(t.prefix(37)) + "…"
    }
}

extension JSONNode {
    /// An object without `key` (unchanged when it has none).
    public func removing(_ key: String) -> JSONNode {
        guard case .object(let members) = value else { return self }
        return JSONNode(value: .object(members.filter { $0.key != key }), line: line)
    }

    /// The member `key` of an object, if it has one.
    public func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// Building JSON text.
public enum JSONText {
    /// `s` as a JSON string literal, quotes included.
    public static func quote(_ s: String) -> String {
        var out = ""
        quote(s, into: &out)
        return out
    }

    /// Appends `s` as a JSON string literal, quotes included, to `out`. A string with nothing to
    /// escape (no quote, backslash or control character: every key and nearly every value) is
    /// appended whole.
    public static func quote(_ s: String, into out: inout String) {
        out += "\""
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
            out += s
        } else {
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if u.value < 0x20 {
                        let h = String(u.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
        }
        out += "\""
    }

    /// Renders a value (compact, keys in their order).
    public static func render(_ v: JSON) -> String {
        var out = ""
        render(v, into: &out)
        return out
    }

    /// Appends a value, rendered compact with its keys in their order, to `out`.
    public static func render(_ v: JSON, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() {
                if i > 0 { out += "," }
                render(e.value, into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.enumerated() {
                if i > 0 { out += "," }
                quote(m.key, into: &out)
                out += ":"
                render(m.value.value, into: &out)
            }
            out += "}"
        }
    }
}

extension JSONNode {
    /// The value as JSON text, two spaces per level, keys in their order; short lists and
    /// objects of scalars stay on one line, as people write board files.
    public func pretty(indent: Int = 0) -> String {
        let pad = String(repeating: " ", count: indent)
        func scalar(_ v: JSON) -> String? {
            switch v {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .number(let n): return n
            case .string(let s): return JSONText.quote(s)
            default: return nil
            }
        }
        if let s = scalar(value) { return s }
        switch value {
        case .array(let items):
            let inner = items.map { $0.pretty(indent: indent + 2) }
            if !inner.contains(where: { $0.contains("\n") }) && inner.joined(separator: ", ").count <= 60 { return "[" + inner.joined(separator: ", ") + "]" }
            return "[\n" + inner.map { pad + "  " + $0 }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            // Short objects inside others stay on one line, nested ones too ({ "buzzer": { ... } }).
            let inner = members.map { JSONText.quote($0.key) + ": " + $0.value.pretty(indent: indent + 2) }
            if indent > 0 && !inner.contains(where: { $0.contains("\n") }) && inner.joined(separator: ", ").count <= 60 { return "{ " + inner.joined(separator: ", ") + " }" }
            return "{\n" + inner.map { pad + "  " + $0 }.joined(separator: ",\n") + "\n" + pad + "}"
        default:
            return ""
        }
    }

    /// An object with `key` set to `v` (replaced in place, or added at the end).
    public func setting(_ key: String, _ v: JSON) -> JSONNode {
        guard case .object(var members) = value else { return self }
        let node = JSONNode(value: v, line: line)
        if let i = members.firstIndex(where: { $0.key == key }) { members[i].value = node } else { members.append((key, node)) }
        return JSONNode(value: .object(members), line: line)
    }
}
