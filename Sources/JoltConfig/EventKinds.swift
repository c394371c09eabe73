import JoltCore

/// One kind of event Jolt reports, declared once: what its JSON line says (`"event"`, and the key
/// and names of its variants), the action bindings made from them (`actions.shake.began`), how a
/// person reads it, what MQTT keeps retained for it, and its Home Assistant event entity. The
/// event records (JoltActions), the configuration's bindings and docs/config.md (here), MQTT
/// and Home Assistant discovery (JoltControl) all read it from `EventKinds.all`.
public struct EventKind: Sendable {
    /// The `"event"` value: "shake".
    public let name: String
    /// The JSON key of its variant ("phase", "state") and the variants, in order; none for a kind
    /// without variants.
    public let variantKey: String?
    public let variants: [String]
    /// Bindings besides `name.variant` ("alarm.cleared").
    public let extraBindings: [String]
    /// How a person reads it: the words before the variant ("shake", "flip:"), or the whole line
    /// of a kind without variants.
    public let says: String
    /// MQTT: a retained topic (under the device's) and the variants that set it "ON" and "OFF"
    /// (nil: the kind itself, for a kind without variants).
    public let retained: (topic: String, on: [String?], off: [String?])?
    /// Home Assistant: an event entity of this title (the variants its event types), and whether
    /// only a board with an alarm has it.
    public let entity: (title: String, alarmOnly: Bool)?
    /// The alarm trigger it is, named by `alarm.triggers` and `alarm.modes`; empty for a kind
    /// that cannot trigger the alarm.
    public let trigger: AlarmTriggers

    public init(_ name: String, variantKey: String? = nil, variants: [String] = [], extraBindings: [String] = [], says: String,
                retained: (topic: String, on: [String?], off: [String?])? = nil, entity: (title: String, alarmOnly: Bool)? = nil,
                trigger: AlarmTriggers = []) {
        self.name = name
        self.variantKey = variantKey
        self.variants = variants
        self.extraBindings = extraBindings
        self.says = says
        self.retained = retained
        self.entity = entity
        self.trigger = trigger
    }

    /// The action bindings it answers to: `shake.began`, …, or its name alone.
    public var bindings: [String] { (variants.isEmpty ? [name] : variants.map { name + "." + $0 }) + extraBindings }

    /// Its Home Assistant event types: the variants, or its name.
    public var eventTypes: [String] { variants.isEmpty ? [name] : variants }
}

/// A state MQTT keeps retained for events, "ON" or "OFF" under the device's topics, and the Home
/// Assistant binary sensor that shows it. The kinds that move it name it (`EventKind.retained`).
public struct RetainedState: Sendable {
    /// The topic under the device's, which is also the sensor's object id: "shake".
    public let topic: String
    /// The sensor's title, and how Home Assistant shows it (its device class or icon, its
    /// category), in the order of its configuration.
    public let title: String
    public let look: [(key: String, value: String)]
    /// Whether only a board with an alarm has it (then the alarm's state turns it off); else it
    /// is off whenever MQTT connects.
    public let alarmOnly: Bool

    public init(_ topic: String, title: String, look: [(key: String, value: String)], alarmOnly: Bool = false) {
        self.topic = topic
        self.title = title
        self.look = look
        self.alarmOnly = alarmOnly
    }
}

/// Every kind of event, in the order the docs list them.
public enum EventKinds {
    public static let shake = EventKind("shake", variantKey: "phase", variants: ["began", "ended", "cancelled"], says: "shake",
                                        retained: ("shake", on: ["began"], off: ["ended", "cancelled"]), entity: ("Shake", false),
                                        trigger: .shake)
    public static let flip = EventKind("flip", variantKey: "state", variants: ["face_down", "face_up"], says: "flip:",
                                       retained: ("face_down", on: ["face_down"], off: ["face_up"]), entity: ("Flip", false),
                                       trigger: .flip)
    public static let tamper = EventKind("tamper", says: "tamper: moved from where it was armed",
                                         retained: ("tamper", on: [nil], off: []), entity: ("Tamper", true), trigger: .tamper)
    public static let alarm = EventKind("alarm", variantKey: "state", variants: ["triggered", "armed", "arming", "disarmed", "pending"],
                                        extraBindings: ["cleared"].map { "alarm." + $0 }, says: "alarm")
    public static let walkTest = EventKind("walk_test", says: "walk test: would trigger", entity: ("Walk test", true))
    public static let fault = EventKind("fault", says: "fault", retained: ("problem", on: [nil], off: []))
    public static let recovered = EventKind("recovered", says: "recovered", retained: ("problem", on: [], off: [nil]))

    public static let all = [shake, flip, tamper, alarm, walkTest, fault, recovered]

    /// The kinds that can trigger the alarm, in order.
    public static var triggers: [EventKind] { all.filter { !$0.trigger.isEmpty } }

    /// The names of the triggers in `t`, in order: ["shake", "tamper"].
    public static func triggerNames(_ t: AlarmTriggers) -> [String] {
        triggers.filter { t.contains($0.trigger) }.map(\.name)
    }

    /// Every binding a profile's `actions` may name.
    public static var bindingNames: [String] { all.flatMap(\.bindings) }

    /// The states MQTT keeps retained for events, each once, in the order Home Assistant
    /// discovery lists their sensors; every `retained` topic above is one of them.
    public static let states = [
        RetainedState("tamper", title: "Tamper", look: [("device_class", "tamper")], alarmOnly: true),
        RetainedState("problem", title: "Sensor problem", look: [("device_class", "problem"), ("entity_category", "diagnostic")]),
        RetainedState("shake", title: "Shaking", look: [("device_class", "vibration")]),
        RetainedState("face_down", title: "Face down", look: [("icon", "mdi:flip-vertical")]),
    ]
}
