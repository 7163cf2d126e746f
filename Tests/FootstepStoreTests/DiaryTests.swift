import Foundation
import FootstepCore
import FootstepStore
import GRDB
import Testing

/// The diary: entries chained by SHA-256, verified, exported and imported,
/// and marks that keep their audio from retention.
@Suite("Diary")
struct DiaryTests {
    static let night = Date(timeIntervalSince1970: 1_795_816_800)  // 2026-11-27 22:00 UTC

    static func fill(_ store: FootstepDatabase) throws -> [DiaryEntryRecord] {
        [
            try store.addDiaryEntry(.note, at: night.addingTimeInterval(3600), duration: 1200, text: "Stomping overhead, woke us up",
                                    writtenAt: night.addingTimeInterval(9 * 3600)),
            try store.addDiaryEntry(.mark, at: night.addingTimeInterval(2 * 3600), text: "", writtenAt: night.addingTimeInterval(2 * 3600)),
            try store.addDiaryEntry(.note, at: night.addingTimeInterval(3 * 3600), text: "Running, \"again\"\nsecond line",
                                    writtenAt: night.addingTimeInterval(10 * 3600)),
        ]
    }

    @Test func entriesChainAndVerify() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let entries = try Self.fill(store)
            #expect(entries[0].previousHash == String(repeating: "0", count: 64))
            #expect(entries[1].previousHash == entries[0].hash)
            #expect(entries[2].previousHash == entries[1].hash)
            let report = try store.verifyDiary()
            #expect(report.isIntact)
            #expect(report.checkedEntries == 3)
            #expect(report.headHash == entries[2].hash)
            #expect(try store.diaryEntries(from: Self.night, to: Self.night.addingTimeInterval(2.5 * 3600)).map(\.id) == [entries[0].id, entries[1].id])
            #expect(try store.verifyEvidence().diary?.isIntact == true)
        }
    }

    @Test func anEditARemovalAndACutTailAreCaught() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let entries = try Self.fill(store)
            let raw = try DatabaseQueue(path: dir + "/footstepd.db")
            try raw.write { try $0.execute(sql: "UPDATE diaryEntry SET text = 'nothing happened' WHERE id = ?", arguments: [entries[0].id]) }
            var report = try store.verifyDiary()
            #expect(report.alteredEntryIds == [entries[0].id!])
            #expect(!report.isIntact)
            #expect(try store.verifyEvidence().isIntact == false)
            #expect(report.description.contains("diary entry \(entries[0].id!) was altered"))

            try raw.write { try $0.execute(sql: "DELETE FROM diaryEntry WHERE id = ?", arguments: [entries[1].id]) }
            report = try store.verifyDiary()
            #expect(report.brokenLinkEntryIds == [entries[2].id!])

            try raw.write { try $0.execute(sql: "DELETE FROM diaryEntry WHERE id = ?", arguments: [entries[2].id]) }
            report = try store.verifyDiary()
            #expect(report.tailMissing)
        }
    }

    @Test func theDiaryTravelsInARangeExportAndAnAlteredOneIsRefused() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let entries = try Self.fill(store)
            let export = try store.exportRange(from: Self.night, to: Self.night.addingTimeInterval(12 * 3600), appVersion: "test")
            #expect(export.diary.count == 3)
            #expect(export.diary.allSatisfy { $0.hashMatches })
            let data = try ExportDocument.range(export).encoded()
            guard case let .range(decoded) = try ExportDocument.decode(data, source: "x.json") else {
                Issue.record("not a range export")
                return
            }
            let target = try FootstepDatabase.open(path: dir + "/restored.db")
            #expect(try target.importDiary(decoded.diary, source: "x.json") == 3)
            // Importing again adds nothing.
            #expect(try target.importDiary(decoded.diary, source: "x.json") == 0)
            let restored = try target.diaryEntries()
            #expect(restored.map(\.text) == entries.sorted { $0.at < $1.at }.map(\.text))
            #expect(restored.map(\.writtenAt).sorted() == entries.map(\.writtenAt).sorted())
            #expect(try target.verifyDiary().isIntact)

            var edited = String(decoding: data, as: UTF8.self)
            edited = edited.replacingOccurrences(of: "Stomping overhead", with: "Quiet night")
            guard case let .range(tampered) = try ExportDocument.decode(Data(edited.utf8), source: "x.json") else { return }
            #expect(throws: ImportError.self) { try FootstepDatabase.open(path: dir + "/other.db").importDiary(tampered.diary, source: "x.json") }
            #expect(try FootstepDatabase.open(path: dir + "/other.db").diaryEntries().isEmpty)
        }
    }

    @Test func retentionNeverOffersAudioNearAMark() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let session = try store.createSession(startedAt: Self.night, device: "test", sampleRate: 16000, timeZone: "UTC")
            var ids: [Int64] = []
            for hour in 0..<3 {
                let file = try store.addAudioFile(
                    sessionId: session.id!, path: dir + "/\(hour).flac", startedAt: Self.night.addingTimeInterval(Double(hour) * 3600),
                    startFrame: Int64(hour) * 3600 * 16000, sampleRate: 16000, format: .flac)
                try store.closeAudioFile(file.id!, sha256: String(repeating: "a", count: 64), frames: 3600 * 16000, bytes: 1000)
                ids.append(file.id!)
            }
            #expect(try store.retainedAudioFiles().map(\.id) == ids)
            // A mark in the middle of the second file protects it alone (the others are 30 min away).
            try store.addDiaryEntry(.mark, at: Self.night.addingTimeInterval(3600 + 1800), text: "now")
            #expect(try store.retainedAudioFiles().map(\.id) == [ids[0], ids[2]])
        }
    }
}
