import FootstepStore
import Foundation

/// Writes the content of an evidence bundle into a directory:
///
/// ```
/// README.txt        what is here and how to check it
/// export.json       the RangeExport of the period (footstepctl import restores it)
/// integrity.txt     the hash chain and file checks at the time of bundling
/// report/           the reports (PDF, HTML, CSV)
/// clips/            every exported event's clip, as recorded
/// clips/marks/      the clip of every exported diary mark
/// audio/            the full recordings of the period (--include-audio)
/// MANIFEST.sha256   SHA-256 of every other file (sha256sum format)
/// ```
struct BundleWriter {
    static let exportName = "export.json"
    static let reportDirectory = "report"

    let directory: String
    let export: RangeExport
    /// Lines for integrity.txt and README.txt, gathered while copying.
    private(set) var notes: [String] = []
    /// Files the store recorded a SHA-256 for: bundle path → recorded SHA-256.
    private(set) var recorded: [String: String] = [:]
    /// Told what is being copied, a line at a time (`footstepctl bundle` prints it on standard error).
    let progress: (String) -> Void

    init(directory: String, export: RangeExport, progress: @escaping (String) -> Void = { _ in }) {
        self.directory = directory
        self.export = export
        self.progress = progress
    }

    func writeExport() throws {
        try ExportJSONEncoder().encode(export).write(to: URL(fileURLWithPath: path(Self.exportName)), options: .atomic)
    }

    /// Copies every exported event's clip to `clips/` and every diary mark's to
    /// `clips/marks/`; a missing clip is noted, not fatal.
    mutating func copyClips() throws {
        var taken: Set<String> = []
        for event in export.sessions.flatMap(\.events) {
            guard let clip = event.clipPath else { continue }
            var name = (clip as NSString).lastPathComponent
            if !taken.insert(name).inserted {
                name = "event\(event.id)-\(name)"
                taken.insert(name)
            }
            if try copy(clip, to: "clips/\(name)", what: "clip of event \(event.id)"), let sha = event.clipSha256 {
                recorded["clips/\(name)"] = sha
            }
        }
        for (index, mark) in export.diary.enumerated() {
            guard let clip = mark.clipPath else { continue }
            let name = "clips/marks/\((clip as NSString).lastPathComponent)"
            if try copy(clip, to: name, what: "clip of the diary mark of \(mark.at) (#\(index + 1))"), let sha = mark.clipSha256 {
                recorded[name] = sha
            }
        }
    }

    /// Copies the period's closed audio files that retention has not deleted to `audio/`.
    mutating func copyAudio() throws {
        let files = export.sessions.flatMap(\.audioFiles)
        for (index, file) in files.enumerated() {
            guard file.prunedAt == nil else {
                notes.append("audio file \(file.id) (\(file.path)) was deleted by retention on \(file.prunedAt!); not included")
                continue
            }
            let name = "audio/\((file.path as NSString).lastPathComponent)"
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            progress("copying audio file \(index + 1) of \(files.count): \(name)" + (bytes.map { " (\(HumanFormat.bytes(Int64($0))))" } ?? ""))
            guard try copy(file.path, to: name, what: "audio file \(file.id)") else { continue }
            if let sha = file.sha256 {
                recorded[name] = sha
            } else {
                notes.append("\(name) was still being recorded: the copy holds the audio up to the time of bundling")
            }
        }
    }

    /// Writes integrity.txt: the chain check of the source database and, for each copied
    /// clip and audio file, whether it still matches the SHA-256 recorded when it was written.
    mutating func writeIntegrity(chain: ChainReport, manifest: [BundleManifest.Entry]) throws {
        var lines = ["footstepd evidence bundle: integrity at the time of bundling", ""]
        lines.append(chain.description)
        lines.append("")
        let hashes = Dictionary(manifest.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var matching = 0
        for (path, sha) in recorded.sorted(by: { $0.key < $1.key }) {
            if hashes[path] == sha {
                matching += 1
            } else {
                notes.append("\(path) does NOT match the SHA-256 recorded when it was written (\(sha))")
            }
        }
        lines.append("\(matching) of \(recorded.count) copied clip and audio file(s) match the SHA-256 recorded when they were written.")
        lines += notes.isEmpty ? [] : [""] + notes
        try (lines.joined(separator: "\n") + "\n").write(toFile: path("integrity.txt"), atomically: true, encoding: .utf8)
    }

    func writeReadme(reportNote: String?) throws {
        let range = export.range
        let events = export.sessions.reduce(0) { $0 + $1.events.count }
        let text = """
            footstepd evidence bundle
            =========================

            Period:    \(range.from) to \(range.to) (UTC)
            Sessions:  \(export.sessions.map { "\($0.session.id) \"\($0.session.title)\"" }.joined(separator: ", "))
            Events:    \(events)
            Made:      \(export.exportedAt) by footstepd \(export.appVersion)

            Contents
              report/          the evidence report (PDF to print, HTML to read and listen, CSV of every event)\(reportNote.map { "\n                               NOTE: \($0)" } ?? "")
              clips/           the audio clip of each event, as recorded
              audio/           the full recordings of the period, if included
              export.json      every event with its time, type, levels, notes and hash-chain fields
                               (ISO-8601 UTC times; `footstepctl import export.json` restores it)
              integrity.txt    the database's hash-chain check and file checks when the bundle was made
              MANIFEST.sha256  the SHA-256 of every file above

            Checking that nothing was changed
              In this directory:  sha256sum -c MANIFEST.sha256
              With footstepd:     footstepctl verify --bundle <this directory or .zip>
                                  (also recomputes the hash of every event in export.json)
              Each event's "hash" is the SHA-256 of its fields and of the previous event's hash
              (format: footstepd.event.v1, documented in footstepd's EventHasher).

            """
        try text.write(toFile: path("README.txt"), atomically: true, encoding: .utf8)
    }

    /// Writes MANIFEST.sha256: `hashed` (files already hashed) plus the files named in `adding`.
    func writeManifest(hashed: [BundleManifest.Entry], adding: [String]) throws {
        let added = try adding.map { BundleManifest.Entry(path: $0, sha256: try FileChecksum.sha256(ofFileAt: path($0))) }
        try BundleManifest(entries: hashed + added).text.write(
            toFile: path(BundleManifest.fileName), atomically: true, encoding: .utf8)
    }

    func path(_ relative: String) -> String { "\(directory)/\(relative)" }

    /// Copies `source` to `relative`; false (and a note) if the source is missing.
    private mutating func copy(_ source: String, to relative: String, what: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: source) else {
            notes.append("\(what) is missing from the store: \(source)")
            printError("footstepctl bundle: warning: \(what) is missing: \(source)")
            return false
        }
        let target = path(relative)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: target)
        return true
    }
}
