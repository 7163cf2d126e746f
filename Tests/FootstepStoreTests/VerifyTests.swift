import FootstepCore
import Foundation
import FootstepStore
import FootstepTesting
import GRDB
import Testing

/// Flips one byte of a file in place.
func flipByte(_ path: String, at offset: UInt64) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: offset)
    let byte = try #require(try handle.read(upToCount: 1)?.first)
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data([byte ^ 0x01]))
}

/// `footstepctl verify`'s checks on a store: the chain, every closed audio file and every clip.
@Suite struct VerifyTests {
    @Test func anUntouchedStoreVerifies() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20, files: true)
            var progressCalls = 0
            let report = try fixture.store.verifyEvidence { _ in progressCalls += 1 }
            #expect(report.isIntact, "\(report)")
            #expect(report.chain.checkedEvents == 40)
            #expect(report.checkedFiles == 6)  // 2 audio files + 4 clips
            #expect(report.checkedBytes == 2 * 4096 + 4 * 512)
            #expect(progressCalls == 6)
            #expect(report.description.contains("files intact: 6 file(s)"))
        }
    }

    @Test func oneChangedByteOfAnEventRowNamesThatEvent() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20, files: true)
            let victim = fixture.eventIds[1][5]
            // One character of the stored type: heel_strike → heel_strikf, or the like.
            try tamper(
                fixture.path,
                "UPDATE event SET type = substr(type, 1, length(type) - 1) || 'x' WHERE id = ?", [victim])
            let report = try fixture.store.verifyEvidence()
            #expect(!report.isIntact)
            #expect(report.chain.alteredEvents.map(\.eventId) == [victim])
            #expect(report.chain.breaks.isEmpty)
            #expect(report.fileProblems.isEmpty)
            #expect(report.description.contains("event \(victim) (session \(fixture.sessions[1].id!)) was altered"))
        }
    }

    @Test func aRowDeletedWithSQLNamesTheGap() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20, files: true)
            let ids = fixture.eventIds[0]
            try tamper(fixture.path, "DELETE FROM event WHERE id = ?", [ids[10]])
            let report = try fixture.store.verifyEvidence()
            #expect(!report.isIntact)
            #expect(report.chain.alteredEvents.isEmpty)
            let gap = try #require(report.chain.breaks.first)
            #expect(report.chain.breaks.count == 1)
            #expect(gap.kind == .eventsMissing)
            #expect(gap.afterEventId == ids[9] && gap.beforeEventId == ids[11])
            #expect(report.description.contains("events deleted between id \(ids[9]) and id \(ids[11])"))
        }
    }

    @Test func oneChangedByteOfAnAudioFileOrAClipNamesThatFile() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20, files: true)
            let audio = try #require(try fixture.store.audioFiles(session: fixture.sessions[0].id!).first)
            try flipByte(audio.path, at: 2000)
            let clipEvent = fixture.eventIds[1][9]
            let clip = fixture.store.resolve(try #require(try fixture.store.event(clipEvent)?.clipPath))
            try flipByte(clip, at: 0)

            let report = try fixture.store.verifyEvidence()
            #expect(report.chain.isIntact)
            #expect(report.fileProblems.count == 2)
            let audioProblem = try #require(report.fileProblems.first { $0.file.kind == .audio })
            #expect(audioProblem.file.ownerId == audio.id && audioProblem.checkedPath == audio.path)
            guard case .altered = audioProblem.kind else { Issue.record("\(audioProblem.kind)"); return }
            let clipProblem = try #require(report.fileProblems.first { $0.file.kind == .clip })
            #expect(clipProblem.file.ownerId == clipEvent && clipProblem.checkedPath == clip)
            #expect(report.description.contains("audio file \(audio.id!) was altered: \(audio.path)"))
            #expect(report.description.contains("clip of event \(clipEvent) was altered: \(clip)"))
        }
    }

    @Test func aMissingClipIsNamedAndAPrunedAudioFileIsNot() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20, files: true)
            let clipEvent = fixture.eventIds[0][2]
            let clip = fixture.store.resolve(try #require(try fixture.store.event(clipEvent)?.clipPath))
            try FileManager.default.removeItem(atPath: clip)
            let audio = try #require(try fixture.store.audioFiles(session: fixture.sessions[1].id!).first)
            try FileManager.default.removeItem(atPath: audio.path)
            try fixture.store.markAudioFilePruned(audio.id!)

            let report = try fixture.store.verifyEvidence()
            #expect(report.fileProblems.map(\.file.ownerId) == [clipEvent])
            #expect(report.fileProblems.first?.kind == .missing)
            #expect(report.prunedAudioFiles == 1)
            #expect(report.description.contains("clip of event \(clipEvent) is missing: \(clip)"))
        }
    }
}

/// Bundle manifests in sha256sum format.
@Suite struct BundleManifestTests {
    /// A bundle directory with a manifest.
    static func makeBundle(in dir: String) throws -> String {
        let bundle = dir + "/bundle"
        try EvidenceFixture.writeFile(bundle + "/report/report.html", bytes: 300, seed: 1)
        try EvidenceFixture.writeFile(bundle + "/clips/2025-03-01/e 12.flac", bytes: 700, seed: 2)
        try EvidenceFixture.writeFile(bundle + "/export.json", bytes: 100, seed: 3)
        let manifest = BundleManifest(entries: try BundleManifest.hashDirectory(bundle))
        try manifest.text.write(toFile: bundle + "/" + BundleManifest.fileName, atomically: true, encoding: .utf8)
        return bundle
    }

    static func check(_ bundle: String) throws -> BundleReport {
        let text = try String(contentsOfFile: bundle + "/" + BundleManifest.fileName, encoding: .utf8)
        let present = try BundleManifest.hashDirectory(bundle)
        return BundleManifest(parsing: text).compare(
            with: Dictionary(uniqueKeysWithValues: present.map { ($0.path, $0.sha256) }))
    }

    @Test func sha256sumChecksTheManifest() throws {
        try withTemporaryDirectory { dir in
            let bundle = try Self.makeBundle(in: dir)
            let text = try String(contentsOfFile: bundle + "/MANIFEST.sha256", encoding: .utf8)
            #expect(text.split(separator: "\n").map { String($0.dropFirst(66)) }
                == ["clips/2025-03-01/e 12.flac", "export.json", "report/report.html"])
            let result = try Subprocess.run("/usr/bin/env", ["-C", bundle, "sha256sum", "--strict", "-c", "MANIFEST.sha256"])
            let output = result.stdout + result.stderr
            #expect(result.status == 0, "\(output)")
            #expect(output.contains("export.json: OK"))
            #expect(try Self.check(bundle).isIntact)
        }
    }

    @Test func alteredAddedAndRemovedFilesAreNamed() throws {
        try withTemporaryDirectory { dir in
            let bundle = try Self.makeBundle(in: dir)
            try flipByte(bundle + "/report/report.html", at: 150)
            try FileManager.default.removeItem(atPath: bundle + "/export.json")
            try EvidenceFixture.writeFile(bundle + "/clips/extra.flac", bytes: 10, seed: 9)
            let report = try Self.check(bundle)
            #expect(!report.isIntact)
            #expect(report.altered == ["report/report.html"])
            #expect(report.missing == ["export.json"])
            #expect(report.unlisted == ["clips/extra.flac"])
            #expect(report.checkedFiles == 2)
            #expect(report.description.contains("file clips/extra.flac is in the bundle but not in the manifest"))
        }
    }

    @Test func anEditedManifestLineIsReported() throws {
        let manifest = BundleManifest(parsing: "not a checksum line\n" + String(repeating: "a", count: 64) + "  x\n")
        #expect(manifest.malformedLines == [1])
        #expect(manifest.entries == [.init(path: "x", sha256: String(repeating: "a", count: 64))])
        #expect(!manifest.compare(with: ["x": String(repeating: "a", count: 64)]).isIntact)
    }
}
