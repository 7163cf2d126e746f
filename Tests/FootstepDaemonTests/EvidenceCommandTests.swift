import FootstepCore
import FootstepStore
import FootstepTesting
import Foundation
import GRDB
import Testing

/// `footstepctl export`, `import`, `bundle` and `verify` as a user runs them: the built
/// binary on a real SQLite store with real clip files.
@Suite("footstepctl export, import, bundle, verify", .serialized)
struct EvidenceCommandTests {
    static let start = Date(timeIntervalSince1970: 1_795_816_800)  // 2026-11-27 22:00:00 UTC

    /// A closed session of 30 events (notes on some), clips for three of them.
    static func makeStore(in directory: TemporaryDirectory) throws -> (path: String, session: Int64, clips: [Int64: String]) {
        let path = directory.appending("state/footstepd.db")
        let database = try FootstepDatabase.open(path: path)
        let session = try database.createSession(
            startedAt: start, device: "synthetic:night", sampleRate: 16_000, timeZone: "Europe/London", title: "night 1",
            notes: "flat 2, bedroom")
        let id = session.id!
        var events: [NewEvent] = []
        for i in 0..<30 {
            let seconds = Double(i) * 2.5 + 0.001
            let note = i % 7 == 0 ? "thud, \"loud\"" : ""
            events.append(
                NewEvent(
                    sessionId: id, frameOffset: Int64(i) * 40_000, timestamp: start.addingTimeInterval(seconds),
                    measurements: EventMeasurements(
                        duration: 0.2, kind: .footstep, type: .heelStrike, confidence: 0.5 + Double(i) / 100.0,
                        intensity: .medium, laMax: 40 + Double(i) / 3.0, peakDBFS: -20, sel: 33.3), notes: note))
        }
        let ids = try database.appendEvents(events)
        // The bout typer named two steps again once their bout had ended.
        try database.reviseTypes(
            [
                NewTypeRevision(frameOffset: 5 * 40_000, type: .stomping, confidence: 0.8),
                NewTypeRevision(frameOffset: 6 * 40_000, type: .stomping, confidence: 0.7),
            ], sessionId: id, reason: "bout typer", at: start.addingTimeInterval(20))
        var clips: [Int64: String] = [:]
        for index in [3, 4, 20] {
            let clip = directory.appending("state/clips/e\(ids[index]).wav")
            try FileManager.default.createDirectory(
                atPath: (clip as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data((0..<800).map { UInt8(truncatingIfNeeded: $0 * index) }).write(to: URL(fileURLWithPath: clip))
            try database.setEventClip(ids[index], path: clip, sha256: try FileChecksum.sha256(ofFileAt: clip))
            clips[ids[index]] = clip
        }
        try database.endSession(id, at: start.addingTimeInterval(120))
        return (path, id, clips)
    }

    static func ctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try BuiltProduct.run("footstepctl", arguments, environment: ["SOURCE_DATE_EPOCH": "1795800000"])
    }

    @Test func exportImportExportGivesTheSameBytesAndASecondImportIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let first = directory.appending("first.json")
        let export = try Self.ctl(["export", "--session", String(store.session), "--database", store.path, "-o", first])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("1 session(s), 30 event(s)"))

        let restored = directory.appending("restored.db")
        let imported = try Self.ctl(["import", first, "--database", restored])
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = directory.appending("second.json")
        #expect(try Self.ctl(["export", "--session", String(store.session), "--database", restored, "-o", second]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))

        let again = try Self.ctl(["import", first, "--database", restored])
        #expect(again.status == 1)
        #expect(again.stderr.contains("session \(store.session) \"night 1\" is already in the database"), "\(again.stderr)")

        // The restored database verifies (clips are still where the original recorded them).
        let verify = try Self.ctl(["verify", "--database", restored])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func aCopyOfTheStateDirectoryVerifiesItsOwnFiles() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        // Paths are stored relative to the state directory.
        let database = try FootstepDatabase.openReadOnly(path: store.path)
        #expect(try database.clipChecksums().map(\.path).allSatisfy { $0.hasPrefix("clips/") })
        let copy = directory.appending("copy")
        try FileManager.default.copyItem(atPath: directory.appending("state"), toPath: copy)
        // The original's clips go away (moved to another machine): the copy still verifies.
        try FileManager.default.removeItem(atPath: directory.appending("state/clips"))
        let intact = try Self.ctl(["verify", "--state-dir", copy])
        #expect(intact.status == 0, "\(intact.stdout)\(intact.stderr)")
        #expect(intact.stdout.contains("files intact: 3 file(s)"), "\(intact.stdout)")
        // And it checks the copy's files, not the original's.
        let (event, clip) = store.clips.min { $0.key < $1.key }!
        let copied = copy + "/clips/" + (clip as NSString).lastPathComponent
        try Data("altered".utf8).write(to: URL(fileURLWithPath: copied))
        let altered = try Self.ctl(["verify", "--state-dir", copy])
        #expect(altered.status == 1)
        #expect(altered.stdout.contains("clip of event \(event) was altered: \(copied)"), "\(altered.stdout)")
    }

    @Test func verifyExitsOneAndNamesTheAlteredClipAndTwoWhenThereIsNoDatabase() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let intact = try Self.ctl(["verify", "--database", store.path])
        #expect(intact.status == 0, "\(intact.stdout)\(intact.stderr)")
        #expect(intact.stdout.contains("hash chain intact: 30 events verified"))
        #expect(intact.stdout.contains("type revisions intact: 2 revisions of 2 events verified"), "\(intact.stdout)")

        let (event, clip) = store.clips.min { $0.key < $1.key }!
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clip))
        bytes[100] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: clip))
        let altered = try Self.ctl(["verify", "--database", store.path])
        #expect(altered.status == 1)
        #expect(altered.stdout.contains("clip of event \(event) was altered: \(clip)"), "\(altered.stdout)")
        let json = try Self.ctl(["verify", "--database", store.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["intact"] as? Bool == false)

        let missing = try Self.ctl(["verify", "--database", directory.appending("nothing.db")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no footstepd database at"))
    }

    @Test func verifyCatchesARewrittenTypeRevisionAndALabelChangedWithoutOne() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let queue = try DatabaseQueue(path: store.path)
        let (revision, revisedEvent) = try queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT id, eventId FROM typeRevision ORDER BY id LIMIT 1")!
            return (row["id"] as Int64, row["eventId"] as Int64)
        }
        let unrevised = try queue.read { try Int64.fetchOne($0, sql: "SELECT MIN(id) FROM event WHERE revisedType IS NULL")! }
        try queue.write { db in
            try db.execute(sql: "UPDATE typeRevision SET confidence = 0.99 WHERE id = ?", arguments: [revision])
            try db.execute(sql: "UPDATE event SET revisedType = 'running' WHERE id = ?", arguments: [unrevised])
        }
        try queue.close()
        let verify = try Self.ctl(["verify", "--database", store.path])
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("revision \(revision) was altered"), "\(verify.stdout)")
        #expect(verify.stdout.contains("event \(unrevised)'s current type does not match its latest revision"), "\(verify.stdout)")
        let json = try Self.ctl(["verify", "--database", store.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let revisions = object?["revisions"] as? [String: Any]
        #expect(revisions?["alteredRevisionIds"] as? [Int64] == [revision])
        // The revised event's confidence no longer matches its (altered) latest revision either.
        #expect(revisions?["mismatchedEventIds"] as? [Int64] == [unrevised, revisedEvent].sorted())
    }

    /// `--from -7d` is a value, not an unknown option (ArgumentParser's default
    /// would refuse a value starting with a dash).
    @Test func relativeTimesWithALeadingDashAreAcceptedAsValues() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let output = directory.appending("recent.json")
        let export = try Self.ctl(["export", "--from", "-7d", "--to", "now", "--database", store.path, "-o", output])
        #expect(export.status == 0, "\(export.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        #expect(object?["format"] as? String == "footstepd.range-export.v1")
        let range = try #require(object?["range"] as? [String: Any])
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let from = try #require((range["from"] as? String).flatMap { fractional.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) })
        #expect(abs(from.timeIntervalSinceNow + 7 * 86_400) < 600, "\(range)")
        let wrong = try Self.ctl(["export", "--from", "-7x", "--to", "now", "--database", store.path, "-o", output])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("-7x"), "\(wrong.stderr)")
    }

    @Test func theDiarySurvivesExportAndImportAndVerifyCatchesAnEdit() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let database = try FootstepDatabase.open(path: store.path)
        try database.addDiaryEntry(.note, at: Self.start.addingTimeInterval(600), duration: 300, text: "Stomping, 5 minutes")
        try database.addDiaryEntry(.mark, at: Self.start.addingTimeInterval(1200), text: "")
        let range = ["--from", "2026-11-27T21:00:00Z", "--to", "2026-11-28T08:00:00Z"]
        let output = directory.appending("range.json")
        #expect(try Self.ctl(["export"] + range + ["--database", store.path, "-o", output]).status == 0)

        let restored = directory.appending("restored/footstepd.db")
        let imported = try Self.ctl(["import", output, "--database", restored])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("2 diary entries"))
        let copy = try FootstepDatabase.open(path: restored)
        #expect(try copy.diaryEntries().map(\.text) == ["Stomping, 5 minutes", ""])
        let verified = try Self.ctl(["verify", "--database", restored])
        #expect(verified.status == 0, "\(verified.stdout)")
        #expect(verified.stdout.contains("diary intact: 2 entries verified"))

        // An edit of the export file is refused; an edit in the database is caught.
        let text = try String(contentsOfFile: output, encoding: .utf8).replacingOccurrences(of: "Stomping, 5 minutes", with: "Nothing")
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        let refused = try Self.ctl(["import", output, "--database", directory.appending("other/footstepd.db")])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("diary entr"), "\(refused.stderr)")
        try DatabaseQueue(path: restored).write { try $0.execute(sql: "UPDATE diaryEntry SET text = 'Nothing' WHERE id = 1") }
        let caught = try Self.ctl(["verify", "--database", restored])
        #expect(caught.status == 1)
        #expect(caught.stdout.contains("diary entry 1 was altered"), "\(caught.stdout)")
    }

    @Test func aZippedBundleVerifiesAndTamperingWithItsDirectoryIsNamed() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        let range = ["--from", "2026-11-27T21:00:00Z", "--to", "2026-11-28T08:00:00Z", "--database", store.path]
        let zip = directory.appending("evidence.zip")
        let zipped = try Self.ctl(["bundle"] + range + ["--report-format", "csv", "-o", zip])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(!zipped.stderr.contains("warning"), "\(zipped.stderr)")
        // Progress, a line a stage, on standard error.
        for stage in ["exported 1 session(s), 30 event(s); copying their clips", "writing the report (csv)",
                      "hashing the bundle's files", "zipping into \(zip)"] {
            #expect(zipped.stderr.contains("footstepctl bundle: \(stage)"), "\(zipped.stderr)")
        }
        let verifyZip = try Self.ctl(["verify", "--bundle", zip])
        #expect(verifyZip.status == 0, "\(verifyZip.stdout)\(verifyZip.stderr)")
        #expect(verifyZip.stdout.contains("export.json: every event matches its hash"))

        let folder = directory.appending("evidence")
        let quiet = try Self.ctl(["bundle"] + range + ["--report-format", "csv", "-o", folder, "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        let listed = try String(contentsOfFile: folder + "/MANIFEST.sha256", encoding: .utf8)
        #expect(listed.contains("  export.json\n") && listed.contains("  README.txt\n") && listed.contains("  clips/"))
        #expect(listed.split(separator: "\n").filter { $0.contains("  clips/") }.count == 3)
        #expect(listed.split(separator: "\n").contains { $0.hasSuffix(".csv") && $0.contains("  report/") })

        // Alter a clip, remove the report CSV, add a file.
        let clip = try #require(listed.split(separator: "\n").first { $0.contains("  clips/") }.map { String($0.dropFirst(66)) })
        let csv = try #require(listed.split(separator: "\n").first { $0.hasSuffix(".csv") }.map { String($0.dropFirst(66)) })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(clip)"))
        bytes[0] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: "\(folder)/\(clip)"))
        try FileManager.default.removeItem(atPath: "\(folder)/\(csv)")
        try "later".write(toFile: "\(folder)/clips/added.wav", atomically: true, encoding: .utf8)
        let tampered = try Self.ctl(["verify", "--bundle", folder])
        #expect(tampered.status == 1)
        #expect(tampered.stdout.contains("file \(clip) was altered"), "\(tampered.stdout)")
        #expect(tampered.stdout.contains("file \(csv) is missing"))
        #expect(tampered.stdout.contains("file clips/added.wav is in the bundle but not in the manifest"))
    }
}
