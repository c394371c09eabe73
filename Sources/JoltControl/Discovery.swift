import JoltBuildInfo
import JoltJSON
import JoltActions
import JoltConfig
import JoltCore
import JoltLinux
import JoltMQTT
import JoltSupport
import JoltTrace

/// Home Assistant MQTT discovery, every entity from this one place (docs/fleet.md): what a
/// board has gets its configuration; everything else Jolt ever published gets an empty retained
/// payload, which removes the entity (an alarm taken out of the profile, discovery turned off,
/// the "last event" sensor the event entities replaced). Templates are Home Assistant's Jinja2:
/// values go through `tojson`, unknown states render `None` (unknown).
extension MQTTBridge {
    /// Every entity Jolt may publish, as (component, object id).
    package static let allEntities: [(String, String)] = [
        ("alarm_control_panel", "alarm"), ("sensor", "last_command")] + EventKinds.all.filter { $0.entity != nil }.map { ("event", $0.name) } + [
        ("siren", "buzzer"), ("button", "test_buzzer")] + EventKinds.states.map { ("binary_sensor", $0.topic) } + [
        ("binary_sensor", "trouble"), ("sensor", "last_event"), ("sensor", "tilt"), ("sensor", "speed"),
    ]

    /// (topic, retained payload) for every entity: its configuration, or "" to remove it.
    package func discovery(board: BoardProfile, sensor: String) -> [(String, String)] {
        let present = config.discovery ? entities(sensor: sensor) : [:]
        return Self.allEntities.map { component, object in
            let topic = "\(config.discoveryPrefix)/\(component)/\(config.device)/\(object)/config"
            return (topic, present[component + "/" + object]?.text ?? "")
        }
    }

    /// The configurations of this board's entities, by "component/object".
    package func entities(sensor: String) -> [String: JSON] {
        let d = config.device
        let device: JSON = ["identifiers": [.string("jolt_" + d)], "name": .string("Jolt " + d), "manufacturer": "Jolt",
                            "model": "Jolt accelerometer alarm", "hw_version": .string(sensor), "sw_version": .string(BuildInfo.description)]
        let origin: JSON = ["name": "Jolt", "sw_version": .string(BuildInfo.version)]
        var out: [String: JSON] = [:]
        func add(_ component: String, _ object: String, _ name: String, _ f: [(String, JSON)]) {
            // Unique across the device's entities; those of the first release kept as they were.
            let id = "jolt_" + d + "_" + object + (component == "event" ? "_event" : "")
            let common: [(String, JSON)] = [("name", .string(name)), ("unique_id", .string(id)), ("object_id", .string(id)), ("qos", 1),
                                            ("availability_topic", .string(availabilityTopic)), ("payload_available", "online"),
                                            ("payload_not_available", "offline"), ("device", device), ("origin", origin)]
            out[component + "/" + object] = .members(common + f)
        }
        if hasAlarm { add("alarm_control_panel", "alarm", "Alarm", alarmPanel()) }
        add("sensor", "last_command", "Last command", [
            ("state_topic", .string(resultTopic)), ("entity_category", "diagnostic"), ("icon", "mdi:console"),
            ("value_template", "{% if value_json.ok %}{{ value_json.command }}: done{% else %}{{ (value_json.command ~ ': ' ~ value_json.error)[:250] }}{% endif %}"),
            ("json_attributes_topic", .string(resultTopic)),
            // Home Assistant keeps no attribute called "state": the alarm's goes as alarm_state.
            ("json_attributes_template", "{{ {'command': value_json.command, 'ok': value_json.ok, 'error': value_json.error | default(none), 'alarm_state': value_json.state | default(none)} | tojson }}"),
        ])
        // An event entity for each kind that declares one (EventKinds).
        for k in EventKinds.all {
            guard let e = k.entity, hasAlarm || !e.alarmOnly else { continue }
            add("event", k.name, e.title, eventEntity(k.name, field: k.variantKey, types: k.eventTypes))
        }
        if buzzer != nil {
            add("siren", "buzzer", "Buzzer", [
                ("command_topic", .string(setTopic)),
                ("command_template", "{\"command\": \"siren\", \"state\": \"on\"{% if duration is defined %}, \"duration\": {{ duration | int }}{% endif %}}"),
                ("command_off_template", "{\"command\": \"siren\", \"state\": \"off\"}"),
                ("support_duration", true), ("support_volume_set", false), ("optimistic", true),
            ])
            add("button", "test_buzzer", "Test buzzer", [
                ("command_topic", .string(setTopic)), ("payload_press", "{\"command\": \"test_buzzer\"}"), ("entity_category", "diagnostic"),
                ("icon", "mdi:bell-ring"),
            ])
        }
        // A binary sensor for each state the events keep retained (EventKinds.states).
        for s in EventKinds.states where hasAlarm || !s.alarmOnly {
            add("binary_sensor", s.topic, s.title, [("state_topic", .string(base + "/" + s.topic)), ("payload_on", "ON"), ("payload_off", "OFF")]
                + s.look.map { ($0.key, .string($0.value)) })
        }
        if hasAlarm { add("binary_sensor", "trouble", "Alarm trouble", troubleSensor()) }
        add("sensor", "tilt", "Tilt", [("state_topic", .string(measuresTopic)), ("value_template", "{{ value_json.tilt_deg }}"), ("unit_of_measurement", "°"),
                                       ("state_class", "measurement"), ("suggested_display_precision", 1), ("icon", "mdi:angle-acute")])
        if hasAlarm {
            // As the armed alarm judges it: unknown while it does not watch.
            add("sensor", "speed", "Movement speed", [("state_topic", .string(measuresTopic)), ("unit_of_measurement", "mm/s"), ("state_class", "measurement"),
                                                      ("value_template", "{{ value_json.speed_mm_s if value_json.speed_mm_s is defined else None }}"), ("icon", "mdi:speedometer")])
        }
        return out
    }

    /// On while the alarm cannot keep its word (its state not saved, an output or the sensor
    /// out), with what is wrong as its `problems` attribute.
    package func troubleSensor() -> [(String, JSON)] {
        [("state_topic", .string(troubleTopic)), ("value_template", "{{ value_json.state }}"), ("payload_on", "ON"), ("payload_off", "OFF"),
         ("device_class", "problem"), ("entity_category", "diagnostic"), ("json_attributes_topic", .string(troubleTopic)),
         ("json_attributes_template", "{{ {'problems': value_json.problems} | tojson }}")]
    }

    /// The alarm panel: its state from the state topic, commands with the code as JSON.
    package func alarmPanel() -> [(String, JSON)] {
        var features: [JSON] = ["arm_away"] + armModes.map { .string("arm_" + EventRecord.modeName($0)) }
        if config.remoteTrigger { features.append("trigger") }
        var f: [(String, JSON)] = [
            ("state_topic", .string(stateTopic)),
            ("value_template", "{{ {'disarmed': 'disarmed', 'arming': 'arming', 'armed': 'armed_' ~ (value_json.mode | default('away')), 'pending': 'pending', 'triggered': 'triggered'}.get(value_json.state, 'None') }}"),
            ("command_topic", .string(setTopic)),
            ("command_template", "{\"command\": {{ action | tojson }}, \"code\": {{ code | tojson }}}"),
            ("payload_arm_away", "arm"), ("payload_arm_home", "arm_home"), ("payload_arm_night", "arm_night"), ("payload_disarm", "disarm"), ("payload_trigger", "trigger"), ("supported_features", .list(features)),
            // What last triggered it, why, by how much and when, as the panel's attributes.
            ("json_attributes_topic", .string(stateTopic)),
            ("json_attributes_template", "{% set l = value_json.last_trigger | default({}) %}{{ {'last_trigger': l.text | default(none), 'last_trigger_cause': l.cause | default(none), 'last_trigger_reason': l.reason | default(none), 'last_trigger_mm_s': l.mm_s | default(none), 'last_trigger_deg': l.deg | default(none), 'last_trigger_utc': l.utc | default(none), 'walk_test': value_json.walk_test | default(false), 'sensor_check': (value_json.sensor_check | default({})).text | default(none), 'sensor_check_passed': (value_json.sensor_check | default({})).passed | default(none)} | tojson }}"),
        ]
        if let code = config.commandCode {
            // A numeric keypad for a code of digits, a text field for any other.
            f.append(("code", code.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } ? "REMOTE_CODE" : "REMOTE_CODE_TEXT"))
            f += [("code_arm_required", true), ("code_disarm_required", true), ("code_trigger_required", true)]
        } else {
            f += [("code_arm_required", false), ("code_disarm_required", false), ("code_trigger_required", false)]
        }
        return f
    }

    /// An event entity on the event topic: the events of `kind` become `event_type` (from
    /// `field`, or the kind itself); the others render nothing, which Home Assistant ignores.
    package func eventEntity(_ kind: String, field: String?, types: [String]) -> [(String, JSON)] {
        let type = field.map { "value_json." + $0 } ?? "'\(kind)'"
        return [("state_topic", .string(eventTopic)), ("event_types", .list(types.map { .string($0) })),
                ("value_template", .string("{% if value_json.event == '\(kind)' %}{{ {'event_type': \(type), 't': value_json.t} | tojson }}{% endif %}"))]
    }
}
