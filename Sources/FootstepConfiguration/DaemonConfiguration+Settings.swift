import FootstepAudio
import FootstepCore
import FootstepDSP

extension DaemonConfiguration {
    /// Every key of the configuration file, in the file's order: the one
    /// declaration the parser, the renderers and the shipped
    /// `config/footstepd.toml` come from. Defaults are the struct's.
    public static var settings: [ConfigurationSetting] {
        [
            .string(
                "capture", "device", \.capture.device,
                help: [
                    "ALSA capture device. Prefer a name that survives USB re-enumeration, e.g.",
                    "\"plughw:CARD=Device,DEV=0\" (list them with `footstepctl devices`). \"default\" is the",
                    "system default source.",
                ], check: { $0.isEmpty ? "must not be empty" : nil }),
            .int(
                "capture", "sample_rate", \.capture.sampleRate, range: 8000...96000,
                help: [
                    "Frames per second the device is opened at, 8000-96000. footstepd records at this",
                    "rate, and converts it to 16000 (what its model was trained on) for analysis only.",
                ]),
            .int("capture", "channels", \.capture.channels, range: 1...2, help: ["1 (mono) or 2 (stereo; analysed as the mix of both)."]),
            .choice("capture", "format", \.capture.sampleFormat, help: ["\"S16_LE\" or \"FLOAT_LE\"."]),
            .int("capture", "period_frames", \.capture.periodFrames, range: 0...65536, help: ["Frames per ALSA period; 0 picks about 64 ms."]),
            .string(
                "capture", "microphone", \.capture.microphone,
                help: [
                    "The microphone (make, model, serial) and where it is (room, height, distance",
                    "from the walls): printed on the reports' equipment and calibration page.",
                ]),
            .string("capture", "placement", \.capture.placement, help: []),

            .choice("recording", "audio_format", \.recording.audioFormat, help: ["\"flac\" (lossless, about half the size) or \"wav\"."]),
            .choice(
                "recording", "bit_depth", \.recording.bitDepth,
                help: [
                    "Bits per sample in audio files and clips: \"16\" (about 96 dB of range, more than",
                    "a USB or MEMS microphone gives), \"24\" (half as large again; keeps a quiet",
                    "night's detail at a low capture gain) or \"float\" (the samples as analysed;",
                    "needs audio_format = \"wav\").",
                ]),
            .duration(
                "recording", "roll_interval", \.recording.rollInterval, range: 60...86400,
                help: [
                    "A new audio file every this long, aligned to the wall clock (\"90s\", \"30m\", \"4h\").",
                    "On a live device the sample clock is re-anchored to the wall clock at each",
                    "new file (the drift is written to the journal).",
                ]),
            .double(
                "recording", "clip_before", \.recording.clipBefore, range: 0...30,
                help: [
                    "Seconds of audio kept in each event's clip before and after its onset. Every",
                    "event gets its own small clip file (same format as audio_format) in",
                    "<state_dir>/clips/YYYY-MM-DD/, with its SHA-256 in the database; clips are",
                    "never deleted by retention (deleting a session removes them).",
                ]),
            .double("recording", "clip_after", \.recording.clipAfter, range: 0.5...60, help: []),
            .double(
                "recording", "sync_interval", \.recording.syncInterval, range: 0.1...10,
                help: ["Seconds between flushes of the audio file: at most this much is lost on a power cut."]),

            .double(
                "detection", "threshold", \.detection.threshold, range: 0.1...10,
                help: ["Detector sensitivity: lower finds fainter impacts, higher only clear ones (0.1-10)."]),
            .double(
                "detection", "min_interval", \.detection.minimumInterOnsetInterval, range: 0.02...2,
                help: ["Shortest time between two detected impacts, seconds (0.02-2)."]),
            .double(
                "detection", "min_confidence", \.detection.minimumConfidence, range: 0...1,
                help: ["Below this classifier confidence a footstep's type is reported as \"unknown\"."]),
            .bool(
                "detection", "gait_context", \.detection.gaitContext,
                help: [
                    "Revise the classifier's labels with the neighbouring impacts in view: an",
                    "unsure impact on the beat of the footsteps around it, or in a train of four",
                    "or more regular impacts at a walker's pace, counts as a footstep; a footstep",
                    "of unknown type with fewer than two other footsteps within 1.5 s, or one that",
                    "rings on for 0.6 s or more like a slammed door with none, and in no train,",
                    "counts as other.",
                    "An event whose label its neighbours may change waits for them (at most",
                    "3.45 s with walks, 2.4 s without).",
                ]),
            .bool(
                "detection", "walks", \.detection.walks,
                help: [
                    "With gait context: four or more impacts at a walking or running pace, each",
                    "as loud and sounding like the one before, not machine-exact, and leaning",
                    "towards footsteps on average, are footsteps whatever the classifier says",
                    "of each one. A sure \"other\" is never held back for it.",
                ]),
            .optionalString("detection", "model", \.detection.modelPath, help: ["A classifier model file; empty uses the built-in model."]),

            .double(
                "levels", "calibration_offset", \.levels.calibrationOffset, range: -50...200,
                help: [
                    "dBFS to dB SPL offset; 0 = uncalibrated, relative levels. Set here, it is recorded",
                    "as a calibration without a reference measurement; `footstepctl calibrate`",
                    "measures one against a sound level meter and wins over this value.",
                ]),
            .double(
                "levels", "interval", \.levels.interval, range: 1...3600,
                help: ["Seconds per level row (LAeq, LCeq, LAFmax, LAFmin, LA10, LA90)."]),

            equalizer,
            schedule,

            .bytes(
                "retention", "max_audio_gb", \.retention.maximumAudioBytes, unit: 1e9, range: 0...100_000,
                help: [
                    "Full audio is deleted oldest first beyond these limits (0 = no limit).",
                    "Event clips and the database are always kept.",
                ]),
            .int("retention", "max_audio_days", \.retention.maximumAudioDays, range: 0...36500, help: []),
            .bytes(
                "retention", "min_free_mb", \.retention.minimumFreeBytes, unit: 1e6, range: 0...10_000_000,
                help: [
                    "Below this free space on the state directory, audio and clip writing stops",
                    "(events and levels continue, `footstepctl status` and the journal say so) and",
                    "resumes by itself when space returns. Retention deletes the oldest full audio",
                    "files first; their rows and SHA-256 stay in the database.",
                ]),

            .string("paths", "state_dir", \.stateDirectory, help: ["Database, audio and clips."], check: absolutePath),

            .string(
                "socket", "path", \.socket.path, help: [],
                check: { path in
                    absolutePath(path) ?? (path.utf8.count > 107 ? "is longer than the 107 bytes a Unix socket path may have" : nil)
                }),
            .string(
                "socket", "read_group", \.socket.readGroup,
                help: [
                    "Members of read_group may read status, events and levels;",
                    "members of admin_group may also start, stop, edit and delete.",
                ], check: groupName),
            .string("socket", "admin_group", \.socket.adminGroup, help: [], check: groupName),

            .int(
                "metrics", "port", \.metrics.port, range: 0...65535,
                help: ["TCP port serving only Prometheus /metrics; 0 = off (the socket always serves it)."]),
            .string("metrics", "address", \.metrics.address, help: []),

            .dailyWindow(
                "reports", "quiet_hours", \.reports.quietHours, help: ["Night-time quiet hours used by the reports' rule checks."]),
            .string("reports", "address", \.reports.address, help: ["Printed on the report's title page."]),
            .string("reports", "notes", \.reports.notes, help: []),
            .optionalString(
                "reports", "directory", \.reports.directory,
                help: ["Where the scheduled report writes; empty = <state_dir>/reports."], check: absolutePath),
            .int("reports", "keep", \.reports.keep, range: 1...10000, help: ["Reports kept by the scheduled job."]),

            .bool(
                "mqtt", "enabled", \.mqtt.enabled,
                help: [
                    "Publish every event, revision, deletion, session, gap, level minute and rule exceeded to an",
                    "MQTT broker (topics and payloads: docs/mqtt.md). What is stored is queued in",
                    "the database first and published in order once the broker acknowledges it,",
                    "so a broker or network outage loses nothing; recording never waits for it.",
                ]),
            .string(
                "mqtt", "url", \.mqtt.url, help: ["mqtt://host[:port] (1883) or mqtts://host[:port] (TLS, 8883)."],
                check: brokerURL),
            .string("mqtt", "client_id", \.mqtt.clientId, help: ["Empty: footstepd-<hostname>."]),
            .string("mqtt", "username", \.mqtt.username, help: ["Empty: connect without a username."]),
            .optionalString(
                "mqtt", "password_file", \.mqtt.passwordFile,
                help: ["A file holding the password (one line; never write the password here)."], check: absolutePath),
            .optionalString(
                "mqtt", "ca_file", \.mqtt.caFile,
                help: ["PEM CA certificate for mqtts:// (empty: the system's CAs in /etc/ssl/certs)."], check: absolutePath),
            .optionalString(
                "mqtt", "cert_file", \.mqtt.certificateFile, help: ["Optional client certificate and key (PEM) for mqtts://."],
                check: absolutePath),
            .optionalString("mqtt", "key_file", \.mqtt.keyFile, help: [], check: absolutePath),
            .string(
                "mqtt", "topic_prefix", \.mqtt.topicPrefix, help: ["Empty: footstepd/<hostname>."],
                check: { $0.contains("#") || $0.contains("+") ? "must not contain the wildcards '#' or '+'" : nil }),
            .int("mqtt", "qos", \.mqtt.qos, range: 0...1, help: ["1: a record leaves the queue once acknowledged; 0: once sent."]),
            .duration("mqtt", "keepalive", \.mqtt.keepalive, range: 5...3600, help: []),
            .bool(
                "mqtt", "home_assistant", \.mqtt.homeAssistant,
                help: ["Announce a device with its sensors (and a \"Mark now\" button) to Home Assistant."]),
            .bool(
                "mqtt", "accept_commands", \.mqtt.acceptCommands,
                help: [
                    "Act on <prefix>/command/mark (a diary mark; the payload is its text), .../pause and",
                    ".../resume. Anyone the broker lets publish there can then pause the recording:",
                    "use the broker's ACL to decide who may.",
                ]),
            .int(
                "mqtt", "max_outbox_rows", \.mqtt.maximumOutboxRows, range: 1000...10_000_000,
                help: [
                    "While the broker is away the queue grows; beyond this many rows the oldest",
                    "level minutes are dropped (counted and logged). Events are never dropped.",
                ]),
        ]
    }

    /// The header of the shipped file.
    static let fileHeader = [
        "footstepd configuration. Every setting is shown with its default.",
        "Installed as /etc/footstepd/footstepd.toml; check a change with",
        "  footstepd --check-config --config /etc/footstepd/footstepd.toml",
        "and apply it with `systemctl reload footstepd` (SIGHUP): an invalid file is",
        "reported and the running configuration is kept.",
    ]

    private static func absolutePath(_ path: String) -> String? { path.hasPrefix("/") ? nil : "must be an absolute path" }

    /// A broker URL as `MQTTBroker` reads it.
    private static func brokerURL(_ url: String) -> String? {
        MQTTBroker(url: url) == nil ? "'\(url)' is not a broker URL: write \(MQTTBroker.form)" : nil
    }

    /// A Unix group's name as useradd(8) and systemd-sysusers accept it: an empty one names no group, so no one
    /// but root and the daemon's own user could use the socket.
    private static func groupName(_ name: String) -> String? {
        if name.isEmpty { return "must name a group (e.g. \"footstepd-admin\"); an empty name gives no one access" }
        let allowed = name.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
        let first = name.utf8.first!
        guard allowed, first != UInt8(ascii: "-"), !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")),
            name.utf8.count <= 32
        else {
            return "'\(name)' is not a group name (lower-case letters, digits, '_' and '-', at most 32, not starting "
                + "with a digit or '-')"
        }
        return nil
    }

    /// `[[equalizer.band]]` tables: channel, type, frequency, gain, q.
    private static var equalizer: ConfigurationSetting {
        ConfigurationSetting(
            section: "equalizer", key: "",
            help: [
                "Optional parametric EQ before analysis (off when no band is given), up to 14",
                "bands per channel. type: \"peaking\", \"low_shelf\" or \"high_shelf\"; frequency",
                "from 10 Hz to 7200 Hz (45 % of the 16 kHz analysis rate).",
            ],
            read: { (table, configuration) throws(ConfigurationError) in
                configuration.equalizer = try table.bands(
                    channels: configuration.capture.channels, sampleRate: Double(ResamplingSource.analysisSampleRate))
            },
            render: { configuration in
                configuration.equalizer.enumerated().flatMap { channel, bands in
                    bands.flatMap { band in
                        [
                            "[[equalizer.band]]", "channel = \(channel)", "type = \(TOMLText.quoted(band.kind.rawValue))",
                            "frequency = \(band.frequency)", "gain = \(band.gainDB)", "q = \(band.q)",
                        ]
                    }
                }
            },
            values: { configuration in
                let bands = configuration.equalizer.enumerated().flatMap { channel, bands in
                    bands.map { band in
                        ConfigurationValue.table([
                            "channel": .integer(Int64(channel)), "type": .text(band.kind.rawValue),
                            "frequency": .number(band.frequency), "gain": .number(band.gainDB), "q": .number(band.q),
                        ])
                    }
                }
                return ["band": .list(bands)]
            },
            example: [
                "# [[equalizer.band]]", "# channel = 0", "# type = \"peaking\"", "# frequency = 1000.0", "# gain = 0.0",
                "# q = 1.0",
            ])
    }

    /// `mode` and `windows`: they make one `MonitoringSchedule`.
    private static var schedule: ConfigurationSetting {
        ConfigurationSetting(
            section: "schedule", key: "mode",
            help: [
                "\"always\", or \"windows\" to record only in the windows below: a session starts",
                "when a window opens and ends (completed) when it closes.",
            ],
            read: { (table, configuration) throws(ConfigurationError) in
                let mode = try table.string("mode", default: "always", allowed: ["always", "windows"])
                let windows = try table.stringArray("windows", default: [])
                guard mode == "windows" else {
                    configuration.schedule = .always
                    return
                }
                var parsed: [MonitoringSchedule.Window] = []
                for text in windows {
                    guard let window = MonitoringSchedule.window(parsing: text) else {
                        throw table.error("windows", "'\(text)' is not a window like \"mon-fri 22:00-08:00\" or \"daily 23:00-07:00\"")
                    }
                    parsed.append(window)
                }
                if parsed.isEmpty { throw table.error("windows", "mode \"windows\" needs at least one window") }
                configuration.schedule = .windows(parsed)
            },
            render: { configuration in
                switch configuration.schedule {
                case .always: ["mode = \"always\""]
                case let .windows(windows):
                    ["mode = \"windows\"", "windows = [\(windows.map { TOMLText.quoted($0.description) }.joined(separator: ", "))]"]
                }
            },
            values: { configuration in
                switch configuration.schedule {
                case .always: ["mode": .text("always"), "windows": .list([])]
                case let .windows(windows): ["mode": .text("windows"), "windows": .list(windows.map { .text($0.description) })]
                }
            },
            example: [
                "mode = \"always\"",
                "# Weekly windows \"DAYS HH:MM-HH:MM\"; DAYS like \"mon-fri\", \"sat,sun\" or \"daily\".",
                "# A window past midnight belongs to the day it starts on.",
                "windows = [\"daily 22:00-08:00\"]",
            ])
    }
}
