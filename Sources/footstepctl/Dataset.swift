import ArgumentParser
import FootstepAudio
import FootstepConfiguration
import FootstepCore
import FootstepStore
import Foundation

extension FootstepCtl {
    struct Dataset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the events a person reviewed as a training dataset: clips, labels, manifest.",
            subcommands: [Export.self])
    }
}

extension FootstepCtl.Dataset {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export every reviewed event's clip with the reviewed label.",
            discussion: """
                Reads footstepd's database read-only (the daemon may be running) and writes into DIR:

                  clips/event-ID.flac|wav   the clip the daemon kept, or one cut from the recording
                                            (--before/--after around the onset) while it still exists
                  truth/event-ID.csv        onset_s,offset_s,label of the clip, as the training tools read
                                            truth: the reviewed type for a confirmed footstep,
                                            other:rejected for a rejected event, other:confirmed for a
                                            confirmed other impact
                  labels.csv                one row per clip: clip, onset_s, offset_s, label, detected
                                            (the label it was stored with), verdict, reviewer,
                                            reviewer_uid, reviewed_at, reason, session, event_id, time_utc
                  MANIFEST.sha256           SHA-256 of every file (sha256sum -c MANIFEST.sha256 checks it)

                An event whose audio is gone (pruned, never kept) is counted and left out.

                Examples:
                  footstepctl dataset export --reviewed -o flat-2-reviews
                  footstepctl dataset export --reviewed --from "2026-12-01" --to "2026-12-08" -o week
                """)

        @Flag(help: "Export the events a person confirmed, rejected or relabelled (required: the only dataset so far).")
        var reviewed = false
        @Option(name: .shortAndLong, help: "The directory to write (created; must be empty if it exists).", completion: .directory)
        var output: String
        @Option(parsing: .unconditional, help: ArgumentHelp("Only events from this time (\(TimeArgument.help)).", valueName: "TIME"))
        var from: TimeArgument?
        @Option(parsing: .unconditional, help: ArgumentHelp("Only events before this time.", valueName: "TIME"))
        var to: TimeArgument?
        @Option(help: ArgumentHelp("Seconds of audio before the onset in a clip cut from the recording.", valueName: "S"))
        var before = DaemonConfiguration().recording.clipBefore
        @Option(help: ArgumentHelp("Seconds of audio after the onset in a clip cut from the recording.", valueName: "S"))
        var after = DaemonConfiguration().recording.clipAfter
        @Flag(help: "Print a JSON summary instead of a line.") var json = false
        @OptionGroup var store: StoreLocationOptions

        func validate() throws {
            guard reviewed else { throw ValidationError("Say which events: --reviewed (those a person reviewed).") }
            guard (0...30).contains(before), (0.5...60).contains(after) else {
                throw ValidationError("--before must be 0 to 30 s and --after 0.5 to 60 s.")
            }
            if let from, let to, to.date <= from.date { throw ValidationError("--to must be after --from.") }
        }

        func run() throws {
            let database = try store.openReadOnly()
            let writer = try ReviewedDatasetWriter(directory: output, before: before, after: after)
            var filter = EventFilter(from: from?.date, to: to?.date, limit: EventFilter.maximumLimit)
            var reviewed: [EventRecord] = []
            for state in [ReviewState.confirmed, .rejected] {
                filter.review = state
                filter.after = nil
                repeat {
                    let page = try database.events(filter)
                    reviewed += page.items
                    filter.after = page.nextCursor
                } while filter.after != nil
            }
            reviewed.sort { ($0.timestamp, $0.id!) < ($1.timestamp, $1.id!) }
            let summary = try writer.write(reviewed, database: database)
            if json {
                let object: [String: Any] = [
                    "directory": output, "clips": summary.clips, "without_audio": summary.withoutAudio,
                    "confirmed": summary.confirmed, "rejected": summary.rejected,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            var line = "\(summary.clips) reviewed event\(summary.clips == 1 ? "" : "s") written to \(output) "
                + "(\(summary.confirmed) confirmed, \(summary.rejected) rejected)"
            if summary.withoutAudio > 0 { line += "; \(summary.withoutAudio) left out: their audio is gone" }
            print(line)
        }
    }
}

/// Writes reviewed events as clips, truth files, an index and a manifest (`footstepctl dataset export`).
struct ReviewedDatasetWriter {
    let directory: String
    let before: Double
    let after: Double

    struct Summary {
        var clips = 0
        var withoutAudio = 0
        var confirmed = 0
        var rejected = 0
    }

    /// The columns of `labels.csv`.
    static let header = [
        "clip", "onset_s", "offset_s", "label", "detected", "verdict", "reviewer", "reviewer_uid", "reviewed_at",
        "reason", "session", "event_id", "time_utc",
    ]

    /// Creates `directory` (refusing one with files in it: a dataset is written whole).
    init(directory: String, before: Double, after: Double) throws {
        self.directory = directory
        self.before = before
        self.after = after
        let manager = FileManager.default
        if let existing = try? manager.contentsOfDirectory(atPath: directory), !existing.isEmpty {
            throw ValidationError("\(directory) is not empty: write the dataset into a new directory.")
        }
        for folder in ["", "/clips", "/truth"] {
            try manager.createDirectory(atPath: directory + folder, withIntermediateDirectories: true)
        }
    }

    func write(_ events: [EventRecord], database: FootstepDatabase) throws -> Summary {
        var summary = Summary()
        let reviews = Dictionary(
            try database.revisions(ofEvents: events.compactMap(\.id)).filter { $0.verdict != nil }.map { ($0.eventId, $0) },
            uniquingKeysWith: { _, latest in latest })
        var rows = [Self.header.joined(separator: ",")]
        var sessionFiles: [Int64: [AudioFileRecord]] = [:]
        for event in events {
            guard let id = event.id, let review = reviews[id], let verdict = review.verdict else { continue }
            let files = try sessionFiles[event.sessionId] ?? database.audioFiles(session: event.sessionId)
            sessionFiles[event.sessionId] = files
            guard let clip = try clip(of: event, database: database, files: files) else {
                summary.withoutAudio += 1
                continue
            }
            let label: String
            switch (verdict, event.currentKind) {
            case (.rejected, _): label = "other:rejected"
            case (.confirmed, .other): label = "other:confirmed"
            case (.confirmed, .footstep): label = event.currentType.rawValue
            }
            let offset = clip.onset + max(0, event.measurements.duration)
            try "onset_s,offset_s,label\n\(Self.seconds(clip.onset)),\(Self.seconds(offset)),\(label)\n"
                .write(toFile: "\(directory)/truth/event-\(id).csv", atomically: true, encoding: .utf8)
            rows.append([
                clip.name, Self.seconds(clip.onset), Self.seconds(offset), label,
                event.measurements.kind.label(event.measurements.type), verdict.rawValue, Self.quote(review.reviewer ?? ""),
                review.reviewerUid.map(String.init) ?? "", ISO8601DateFormatter().string(from: review.revisedAt),
                Self.quote(review.reason), String(event.sessionId), String(id),
                ISO8601DateFormatter().string(from: event.timestamp),
            ].joined(separator: ","))
            summary.clips += 1
            if verdict == .rejected { summary.rejected += 1 } else { summary.confirmed += 1 }
        }
        try (rows.joined(separator: "\n") + "\n").write(toFile: directory + "/labels.csv", atomically: true, encoding: .utf8)
        let manifest = BundleManifest(entries: try BundleManifest.hashDirectory(directory))
        try manifest.text.write(toFile: directory + "/" + BundleManifest.fileName, atomically: true, encoding: .utf8)
        return summary
    }

    /// The event's clip written under `clips/`, with the onset's place in it; nil when no audio of it is left.
    private func clip(of event: EventRecord, database: FootstepDatabase, files: [AudioFileRecord]) throws
        -> (name: String, onset: Double)?
    {
        let id = event.id!
        let live = files.filter { $0.prunedAt == nil && FileManager.default.fileExists(atPath: $0.path) }
        let rate = files.first?.sampleRate ?? 16_000
        let frames = ClipExtractor.eventFrames(
            onsetFrame: event.frameOffset, duration: event.measurements.duration, before: before, after: after,
            sampleRate: rate)
        let onset = Double(event.frameOffset - frames.lowerBound) / Double(rate)
        if let stored = event.clipPath {
            let path = database.resolve(stored)
            if FileManager.default.fileExists(atPath: path) {
                let name = "clips/event-\(id).\((path as NSString).pathExtension)"
                try FileManager.default.copyItem(atPath: path, toPath: "\(directory)/\(name)")
                // The daemon cut it `clip_before` ahead of the onset, as this cut would be.
                return (name, onset)
            }
        }
        // No file left that holds the event: its audio is gone. Any other failure (writing DIR) is the user's to see.
        guard let first = live.first,
            live.contains(where: { $0.startFrame < frames.upperBound && $0.startFrame + $0.frames > frames.lowerBound })
        else { return nil }
        let name = "clips/event-\(id).\(first.format.fileExtension)"
        try ClipExtractor.extract(
            from: live.map { ClipExtractor.Source(path: $0.path, startFrame: $0.startFrame, frames: $0.frames) },
            startFrame: frames.lowerBound, endFrame: frames.upperBound,
            format: AudioFormat(sampleRate: first.sampleRate, channels: first.channels), container: first.format,
            to: "\(directory)/\(name)")
        return (name, onset)
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
