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
