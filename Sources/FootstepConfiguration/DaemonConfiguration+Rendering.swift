import Foundation

extension DaemonConfiguration {
    /// The effective configuration as TOML (what `footstepd --check-config` prints).
    public var renderedTOML: String {
        func q(_ s: String) -> String { "\"\(s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" }
        func n(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d) }
        var lines: [String] = []
        lines += ["[capture]", "device = \(q(capture.device))", "sample_rate = \(capture.sampleRate)",
                  "channels = \(capture.channels)", "format = \(q(capture.sampleFormat.rawValue))",
                  "period_frames = \(capture.periodFrames)", "microphone = \(q(capture.microphone))",
                  "placement = \(q(capture.placement))", ""]
        lines += ["[recording]", "audio_format = \(q(recording.audioFormat.rawValue))",
                  "roll_interval = \(q(n(recording.rollInterval) + "s"))", "clip_before = \(n(recording.clipBefore))",
                  "clip_after = \(n(recording.clipAfter))", "sync_interval = \(n(recording.syncInterval))", ""]
        lines += ["[detection]", "threshold = \(n(detection.threshold))", "min_interval = \(n(detection.minimumInterOnsetInterval))",
                  "min_confidence = \(n(detection.minimumConfidence))", "gait_context = \(detection.gaitContext)"]
        if let model = detection.modelPath { lines.append("model = \(q(model))") }
        lines += ["", "[levels]", "calibration_offset = \(n(levels.calibrationOffset))", "interval = \(n(levels.interval))", ""]
        lines += ["# equalizer: \(equalizer.map(\.count).reduce(0, +)) band(s)", ""]
        lines += ["[schedule]", "# \(schedule)", ""]
        lines += ["[retention]", "max_audio_gb = \(n(Double(retention.maximumAudioBytes) / 1e9))",
                  "max_audio_days = \(retention.maximumAudioDays)", "min_free_mb = \(n(Double(retention.minimumFreeBytes) / 1e6))", ""]
        lines += ["[paths]", "state_dir = \(q(stateDirectory))", ""]
        lines += ["[socket]", "path = \(q(socket.path))", "read_group = \(q(socket.readGroup))", "admin_group = \(q(socket.adminGroup))", ""]
        lines += ["[metrics]", "port = \(metrics.port)", "address = \(q(metrics.address))", ""]
        lines += ["[reports]", "quiet_hours = \(q(reports.quietHours.description))", "address = \(q(reports.address))",
                  "notes = \(q(reports.notes))", "keep = \(reports.keep)"]
        if let directory = reports.directory { lines.append("directory = \(q(directory))") }
        return lines.joined(separator: "\n") + "\n"
    }
}
