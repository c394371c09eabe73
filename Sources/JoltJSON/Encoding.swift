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
