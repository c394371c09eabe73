import JoltTrace
import JoltJSON
import JoltChips
import JoltCore
import JoltDrivers
import JoltLinux
import JoltSupport

/// Reads one JSON object of a configuration file, field by field, and reports problems with
/// the file, the line and the field's path: `boards/kiosk.json:12: detection.shake.threshold_g:
/// must be between 0.1 and 16 g (found 40)`. Keys nobody asked for are unknown keys, reported by
/// `finish()`.
package final class ObjectReader {
    package let file: String
    package let path: String
    package let line: Int
    package let members: [(key: String, value: JSONNode)]
    package var used: [String] = []

    package init(file: String, path: String, node: JSONNode) throws(JoltError) {
        self.file = file
        self.path = path
        line = node.line
        guard case .object(let m) = node.value else {
            throw JoltError(.config, "\(file):\(node.line): \(path.isEmpty ? "the file" : path): must be an object ({…}), found \(node.value.typeName)")
        }
        members = m
    }

    package func fieldPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    package func fail(_ key: String, _ node: JSONNode?, _ message: String) -> JoltError {
        JoltError(.config, "\(file):\(node?.line ?? line): \(fieldPath(key)): \(message)")
    }

    /// The member's node, marking the key as known.
    package func node(_ key: String) -> JSONNode? {
        if !used.contains(key) { used.append(key) }   // a key read twice is listed once
        let n = members.first { $0.key == key }?.value
        if let n, let s = SchemaRecorder.current { s.record(fieldPath(key), "", n) }
        return n
    }

    /// Tells the schema recorder, when one listens, what kind of value `key` takes.
    package func describe(_ key: String, _ kind: String) {
        if let s = SchemaRecorder.current, members.contains(where: { $0.key == key }) { s.record(fieldPath(key), kind, nil) }
    }

    /// Whether the object has this key (without marking it).
    package func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    /// A key that no longer does anything: a profile naming it still loads, with a warning that
    /// says what replaced it, and its value is not read.
    package func retired(_ key: String, replacedBy: String) {
        if let s = SchemaRecorder.current {
            // The docs' sample names every key: this one is recorded, not warned of.
            s.record(fieldPath(key), "any (ignored)", nil)
            _ = node(key)
            return
        }
        guard let n = node(key) else { return }
        Log.warning("\(file):\(n.line): \(fieldPath(key)) is no longer used (\(replacedBy) replaced it): remove it")
    }

    /// Reports the first key that no reader asked for.
    package func finish() throws(JoltError) {
        for m in members where !used.contains(m.key) {
            var hint = ""
            // A known key that starts with the unknown one (rate → rate_hz) is the likeliest;
            // otherwise the nearest by edit distance, if it is near.
            func score(_ k: String) -> Int { k.hasPrefix(m.key) || m.key.hasPrefix(k) ? 0 : Self.distance(k, m.key) }
            if let near = used.min(by: { score($0) < score($1) }), score(near) <= 3 {
                hint = " (did you mean \(near)?)"
            } else if !used.isEmpty {
                hint = " (known keys: \(used.joined(separator: ", ")))"
            }
            throw JoltError(.config, "\(file):\(m.value.line): \(fieldPath(m.key)): unknown key\(hint)")
        }
    }

    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var prev = row[0]
            row[0] = i
            if b.isEmpty { continue }
            for j in 1...b.count {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return row[b.count]
    }

    /// A nested object, or nil when absent.
    package func object(_ key: String) throws(JoltError) -> ObjectReader? {
        guard let n = node(key) else { return nil }
        describe(key, "object")
        return try ObjectReader(file: file, path: fieldPath(key), node: n)
    }

    /// A string, or nil when absent.
    package func string(_ key: String) throws(JoltError) -> String? {
        guard let n = node(key) else { return nil }
        guard case .string(let s) = n.value else { throw fail(key, n, "must be a string, found \(n.value.typeName)") }
        describe(key, "string")
        return s
    }

    /// One of `choices`, or nil when absent.
    package func choice(_ key: String, _ choices: [String]) throws(JoltError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            let near = choices.min { Self.distance($0, s) < Self.distance($1, s) }.flatMap { Self.distance($0, s) <= 2 ? $0 : nil }
            throw fail(key, node(key), "must be one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), found \"\(s)\"\(near.map { " (did you mean \"\($0)\"?)" } ?? "")")
        }
        describe(key, "one of " + choices.map { "`\"\($0)\"`" }.joined(separator: ", "))
        return s
    }

    /// true or false, or nil when absent.
    package func bool(_ key: String) throws(JoltError) -> Bool? {
        guard let n = node(key) else { return nil }
        guard case .bool(let b) = n.value else { throw fail(key, n, "must be true or false, found \(n.value.typeName)") }
        describe(key, "`true` or `false`")
        return b
    }

    /// A number × 10^places, exactly, checked against `range` (in the same scaled units);
    /// nil when absent. `unit` is for messages.
    package func fixed(_ key: String, places: Int, range: ClosedRange<Int64>, unit: String) throws(JoltError) -> Int64? {
        guard let n = node(key) else { return nil }
        let v = try Self.fixed(n, places: places, range: range, unit: unit) { m throws(JoltError) in fail(key, n, m) }
        describe(key, "number, \(Self.rangeText(range, places: places, unit: unit))")
        return v
    }

    package static func fixed(_ n: JSONNode, places: Int, range: ClosedRange<Int64>, unit: String, fail: (String) throws(JoltError) -> JoltError) throws(JoltError) -> Int64 {
        guard case .number(let text) = n.value else { throw try fail("must be a number\(unit.isEmpty ? "" : " (\(unit))"), found \(n.value.typeName)") }
        let lo = TraceWriter.decimal(range.lowerBound, places: places, trim: true)
        let hi = TraceWriter.decimal(range.upperBound, places: places, trim: true)
        let u = unit.isEmpty ? "" : " " + unit
        var bytes = Array(text.utf8)
        let v = bytes.withUnsafeMutableBufferPointer { b in
            try? FixedDecimal.parse(UnsafeBufferPointer(b), from: 0, to: b.count, places: places)
        }
        guard let v, range.contains(v) else {
            throw try fail("must be between \(Self.clean(lo)) and \(Self.clean(hi))\(u) (found \(text))")
        }
        return v
    }

    package static func clean(_ s: String) -> String { s.hasSuffix(".0") ? String(s.dropLast(2)) : s }

    /// "0.05 to 16 g": a range in the file's units, for the configuration reference.
    package static func rangeText(_ range: ClosedRange<Int64>, places: Int, unit: String) -> String {
        let lo = clean(TraceWriter.decimal(range.lowerBound, places: places, trim: true))
        let hi = clean(TraceWriter.decimal(range.upperBound, places: places, trim: true))
        return "\(lo) to \(hi)\(unit.isEmpty ? "" : " " + unit)"
    }

    /// A number in milli-units as Int32 (e.g. g → mg), checked against `range` given in the
    /// file's units × 1000.
    package func milli(_ key: String, _ range: ClosedRange<Int64>, _ unit: String) throws(JoltError) -> Int32? {
        try fixed(key, places: 3, range: range, unit: unit).map { Int32($0) }
    }

    /// A whole number checked against `range`.
    package func integer(_ key: String, _ range: ClosedRange<Int64>, _ unit: String = "") throws(JoltError) -> Int32? {
        guard let n = node(key) else { return nil }
        guard case .number(let text) = n.value, !text.contains("."), !text.contains("e"), !text.contains("E") else {
            if case .number(let t) = n.value { throw fail(key, n, "must be a whole number\(unit.isEmpty ? "" : " (\(unit))"), found \(t)") }
            throw fail(key, n, "must be a whole number\(unit.isEmpty ? "" : " (\(unit))"), found \(n.value.typeName)")
        }
        let v = try fixed(key, places: 0, range: range, unit: unit).map { Int32($0) }
        describe(key, "whole number, \(Self.rangeText(range, places: 0, unit: unit))")
        return v
    }
}

/// Listens to the loader while it reads a profile and keeps, for each key it asked for, the kind
/// of value it accepted: the loader's own schema, from which docs/config.md is written (and a
/// test checks that every key the loader reads is documented). Only the task that installs it
/// (`SchemaRecorder.$current.withValue`) is heard.
package final class SchemaRecorder: @unchecked Sendable {
    @TaskLocal package static var current: SchemaRecorder?

    /// Normalized key path ("outputs.NAME.line", "actions.EVENT[].command") → kind ("" for a
    /// value the loader checks by hand: a list, a code, a path).
    package private(set) var kinds: [String: String] = [:]
    /// The key paths in the order the loader first asked for them.
    package private(set) var order: [String] = []

    package func record(_ path: String, _ kind: String, _ node: JSONNode?) {
        let p = Self.normalize(path)
        if kinds[p] == nil {
            order.append(p)
            var k = kind
            if k.isEmpty, let node {
                switch node.value {
                case .array: k = "list"
                case .string: k = "string"
                case .number: k = "number"
                case .bool: k = "`true` or `false`"
                case .object: k = "object"
                default: k = ""
                }
            }
            kinds[p] = k
        } else if !kind.isEmpty {
            kinds[p] = kind
        }
    }

    /// Indices become `[]`; output and input names become NAME; action events become EVENT.
    package static func normalize(_ path: String) -> String {
        var out = ""
        var skipping = false
        for c in path {
            if c == "[" { skipping = true; out += "[]"; continue }
            if skipping { if c == "]" { skipping = false }; continue }
            out.append(c)
        }
        var parts = out.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 2, parts[0] == "outputs" || parts[0] == "inputs" { parts[1] = "NAME" }
        if parts.first == "actions", parts.count >= 2 {
            // Event names hold dots ("shake.began"): everything up to the list index is the event.
            let rest = parts.dropFirst().joined(separator: ".")
            if let bracket = rest.firstIndex(of: "[") {
                return "actions.EVENT" + rest[bracket...]
            }
            return "actions.EVENT"
        }
        return parts.joined(separator: ".")
    }
}
