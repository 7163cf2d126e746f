import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

/// A store with two sessions holding every kind of row: events with notes (quotes,
/// newlines, non-ASCII), bouts, clips, level minutes, gaps, closed audio files and a
/// calibration. Session 2's events come after session 1's in the global chain, so an
/// export of session 2 alone links to events that are not exported.
struct EvidenceFixture {
    let store: FootstepDatabase
    let path: String
    let sessions: [SessionRecord]
    let eventIds: [[Int64]]

    static let sessionStarts = [referenceStart, referenceStart.addingTimeInterval(86_400)]

    init(in dir: String, eventsPerSession: Int = 60, files: Bool = false) throws {
        path = dir + "/footstepd.db"
        store = try FootstepDatabase.open(path: path)
        try store.addCalibration(
            measuredAt: referenceStart.addingTimeInterval(-3600), offsetDB: 93.875, method: "94 dB calibrator",
            reference: "Class 1 calibrator, serial 12/34")
        var sessions: [SessionRecord] = []
        var eventIds: [[Int64]] = []
        for (number, start) in Self.sessionStarts.enumerated() {
            let session = try store.createSession(
                startedAt: start, device: "hw:1,0", sampleRate: 16_000, timeZone: "Europe/London",
                title: "Upstairs \"night \(number + 1)\"", notes: "Bedroom, under flat 3.\nMic on the wardrobe — 2 m up.")
            let id = session.id!
            let audioPath = dir + "/audio/s\(id).flac"
            let audio = try store.addAudioFile(
                sessionId: id, path: audioPath, startedAt: start, startFrame: 0, sampleRate: 16_000, format: .flac)
            precondition(eventsPerSession >= 10, "notes, bouts and clips use the first 10 events")
        var events = (0..<eventsPerSession).map { makeEvent(session: id, index: $0, start: start, audioFileId: audio.id) }
            events[3].notes = "door slam? \u{1F6AA} \"loud\"\tback\\slash"
            let ids = try store.appendEvents(events)
            try store.setEventNotes(ids[7], notes: "woke me up at 3:12")
            try store.appendBout(
                BoutRecord(
                    sessionId: id, startedAt: start.addingTimeInterval(0.7), endedAt: start.addingTimeInterval(4.2),
                    steps: 6, cadence: 1.0 / 0.7, dominantType: .heelStrike, kind: .walking),
                eventIds: Array(ids[1...6]))
            try store.appendLevels(
                (0..<5).map { minute in
                    LevelMinuteRecord(
                        sessionId: id, startedAt: start.addingTimeInterval(Double(minute) * 60), laeq: 31.1 + Double(minute) / 3,
                        lceq: 45.05, lafMax: 52.3, lafMin: 24.9, la10: 35.000000000000004, la90: 27.2)
                })
            try store.addGap(
                sessionId: id, from: start.addingTimeInterval(300.25), to: start.addingTimeInterval(312.5),
                reason: "USB microphone unplugged")
            try Self.writeFile(audioPath, bytes: 4096, seed: UInt8(id))
            try store.closeAudioFile(
                audio.id!, sha256: try FileChecksum.sha256(ofFileAt: audioPath), frames: 16_000 * 60, bytes: 4096,
                closedAt: start.addingTimeInterval(3600.5))
            // Event 1 revised twice, event 4 once (each to a type it does not have).
            let frame = { (index: Int) in Int64(index) * 16_000 * 7 / 10 }
            try store.reviseTypes(
                [
                    NewTypeRevision(frameOffset: frame(1), type: Self.otherType(than: events[1].type), confidence: 0.75),
                    NewTypeRevision(frameOffset: frame(4), type: Self.otherType(than: events[4].type), confidence: 0.6),
                ], sessionId: id, reason: "bout typer", at: start.addingTimeInterval(3.25))
            try store.reviseTypes(
                [NewTypeRevision(frameOffset: frame(1), type: events[1].type, confidence: 0.55)], sessionId: id,
                reason: "bout typer", at: start.addingTimeInterval(9.5))
            for index in [2, 9] {
                let clip = dir + "/clips/s\(id)-e\(ids[index]).flac"
                try Self.writeFile(clip, bytes: 512, seed: UInt8(index))
                try store.setEventClip(ids[index], path: clip, sha256: try FileChecksum.sha256(ofFileAt: clip))
            }
            try store.endSession(id, at: start.addingTimeInterval(3600.5))
            sessions.append(try #require(try store.session(id)).session)
            eventIds.append(ids)
        }
        if !files {
            try FileManager.default.removeItem(atPath: dir + "/audio")
            try FileManager.default.removeItem(atPath: dir + "/clips")
        }
        self.sessions = sessions
        self.eventIds = eventIds
    }

    /// A footstep type that is not `type`.
    static func otherType(than type: FootstepType) -> FootstepType {
        FootstepType.allCases.first { $0 != type && $0 != .unknown }!
    }

    /// Writes `bytes` deterministic bytes, creating the directory.
    static func writeFile(_ path: String, bytes: Int, seed: UInt8) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }).write(to: URL(fileURLWithPath: path))
    }
}

/// Every row of `table` belonging to `sessionId` (or all rows), as column → value, id order.
/// A table's rows as stored, with file paths resolved: an export carries the
/// paths to open (the original store keeps them relative to its directory).
func rows(_ store: FootstepDatabase, _ table: String, session sessionId: Int64? = nil) throws -> [[String: DatabaseValue]] {
    try store.reader.read { db in
        let column = table == "session" ? "id" : "sessionId"
        let sql = "SELECT * FROM \(table)" + (sessionId == nil ? "" : " WHERE \(column) = ?") + " ORDER BY id"
        let arguments: StatementArguments = sessionId.map { [$0] } ?? []
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            Dictionary(uniqueKeysWithValues: row.columnNames.map { name in
                let value = row[name] as DatabaseValue
                guard ["path", "clipPath"].contains(name), let text = String.fromDatabaseValue(value) else { return (name, value) }
                return (name, store.resolve(text).databaseValue)
            })
        }
    }
}

@Suite struct ExportImportTests {
    static let exportedAt = Date(timeIntervalSince1970: 1_741_000_000.25)

    @Test func aSessionRoundTripsExactlyThroughAnEmptyDatabase() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir)
            let second = fixture.sessions[1].id!
            let export = try fixture.store.exportSession(second, appVersion: "9.9.9", exportedAt: Self.exportedAt)
            let bytes = try ExportJSONEncoder().encode(export)

            let target = try FootstepDatabase.open(path: dir + "/restored.db")
            let decoded = try ExportDocument.decode(bytes, source: "s2.json")
            let summary = try target.importExports(decoded.sessions, source: "s2.json")
            #expect(summary.sessionIds == [second])
            #expect(summary.events == 60)
            // The first event links to session 1's last event, which is not in the new database.
            #expect(summary.bridges == 1)

            let again = try ExportJSONEncoder().encode(
                try target.exportSession(second, appVersion: "9.9.9", exportedAt: Self.exportedAt))
            #expect(again == bytes)

            for table in ["session", "event", "audioFile", "bout", "levelMinute", "sessionGap"] {
                let original = try rows(fixture.store, table, session: second)
                #expect(!original.isEmpty, "\(table)")
                #expect(try rows(target, table, session: second) == original, "\(table)")
            }
            // The revisions travel with their events and still hang off them.
            #expect(export.revisions.count == 3)
            #expect(try target.revisions(ofEvents: fixture.eventIds[1]) == fixture.store.revisions(ofEvents: fixture.eventIds[1]))
            let revisions = try target.verifyRevisions()
            #expect(revisions.isIntact, "\(revisions)")
            #expect(revisions.checkedRevisions == 3)
            #expect(try rows(target, "calibration") == rows(fixture.store, "calibration"))

            // The restored events still verify: same hashes, and the hole before them is a recorded bridge.
            let chain = try target.verifyChain()
            #expect(chain.isIntact, "\(chain)")
            #expect(chain.checkedEvents == 60)
            #expect(chain.recordedDeletions.count == 1)
            #expect(chain.recordedDeletions.first?.lastEventId == fixture.eventIds[0].last)
            #expect(chain.headEventId == fixture.eventIds[1].last)
        }
    }

    @Test func bothSessionsImportedOneAfterTheOtherRebuildTheWholeChain() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 20)
            let target = try FootstepDatabase.inMemory()
            for session in fixture.sessions {
                let export = try fixture.store.exportSession(session.id!, appVersion: "1", exportedAt: Self.exportedAt)
                let summary = try target.importExports([export], source: "export.json")
                #expect(summary.bridges == 0)
            }
            for table in ["session", "event", "audioFile", "bout", "levelMinute", "sessionGap", "calibration"] {
                #expect(try rows(target, table) == rows(fixture.store, table), "\(table)")
            }
            let chain = try target.verifyChain()
            #expect(chain.isIntact && chain.recordedDeletions.isEmpty, "\(chain)")
            #expect(chain.headHash == (try fixture.store.verifyChain()).headHash)
        }
    }

    @Test func aRangeExportHoldsEachSessionsRowsInTheRangeAndRoundTrips() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir)
            // From 20 s into session 1 to 10 s into session 2.
            let from = EvidenceFixture.sessionStarts[0].addingTimeInterval(20)
            let to = EvidenceFixture.sessionStarts[1].addingTimeInterval(10)
            let export = try fixture.store.exportRange(from: from, to: to, appVersion: "1", exportedAt: Self.exportedAt)
            #expect(export.sessions.map(\.session.id) == fixture.sessions.map(\.id!))
            let firstTimes = export.sessions[0].events.map(\.timestamp)
            #expect(firstTimes.allSatisfy { $0 >= ExportDate.iso(from) })
            // Steps every 0.7 s: 20.3 … 41.3 s of session 1 (index 29 to 59), 0 … 9.8 s of session 2.
            #expect(export.sessions[0].events.map(\.id) == Array(fixture.eventIds[0][29...]))
            #expect(export.sessions[1].events.map(\.id) == Array(fixture.eventIds[1][0...14]))
            // Session 1's bout is before the range and not referenced: left out. Session 2's is in.
            #expect(export.sessions[0].bouts.isEmpty)
            #expect(export.sessions[1].bouts.count == 1)
            #expect(export.sessions[0].levels.count == 4)  // minutes starting at 60…240 s

            let bytes = try ExportJSONEncoder().encode(export)
            let target = try FootstepDatabase.inMemory()
            let summary = try target.importExports(try ExportDocument.decode(bytes, source: "r.json").sessions, source: "r.json")
            // Holes: before event 30 (the database's start) and none between 60 and 61 (adjacent).
            #expect(summary.bridges == 1)
            let chain = try target.verifyChain()
            #expect(chain.isIntact, "\(chain)")
            let again = try target.exportRange(from: from, to: to, appVersion: "1", exportedAt: Self.exportedAt)
            #expect(try ExportJSONEncoder().encode(again) == bytes)
        }
    }

    @Test func importingASessionThatIsAlreadyThereIsRefusedAndChangesNothing() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 10)
            let export = try fixture.store.exportSession(fixture.sessions[0].id!, appVersion: "1")
            let before = try rows(fixture.store, "event")
            #expect(throws: ImportError.sessionExists(id: fixture.sessions[0].id!, title: fixture.sessions[0].title)) {
                try fixture.store.importExports([export], source: "s1.json")
            }
            #expect(try rows(fixture.store, "event") == before)

            // Into a database whose chain already extends past the exported events.
            let target = try FootstepDatabase.inMemory()
            try target.importExports([try fixture.store.exportSession(fixture.sessions[1].id!, appVersion: "1")], source: "s2")
            let error = #expect(throws: ImportError.self) { try target.importExports([export], source: "s1.json") }
            #expect(error == .chainOrder(firstEventId: fixture.eventIds[0][0], lastEventIdInDatabase: fixture.eventIds[1].last!))
            #expect(error?.description.contains("Nothing was imported") == true)
            #expect(try rows(target, "session").count == 1)
        }
    }

    @Test func anEditedEventFieldIsRefusedButAnEditedNoteIsAccepted() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 10)
            let id = fixture.eventIds[0][4]
            let export = try fixture.store.exportSession(fixture.sessions[0].id!, appVersion: "1")

            var louder = export
            louder.events[4].laMax += 0.1
            let error = #expect(throws: ImportError.self) {
                try FootstepDatabase.inMemory().importExports([louder], source: "edited.json")
            }
            #expect(error == .eventsAltered(source: "edited.json", eventIds: [id]))

            var annotated = export
            annotated.events[4].notes = "added after export"
            let target = try FootstepDatabase.inMemory()
            try target.importExports([annotated], source: "annotated.json")
            #expect(try target.event(id)?.notes == "added after export")
            #expect(try target.verifyChain().isIntact)
        }
    }

    @Test func theFileIsISODatedOrderedAndReadable() throws {
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 10)
            let export = try fixture.store.exportSession(fixture.sessions[0].id!, appVersion: "0.1.0", exportedAt: Self.exportedAt)
            let text = String(decoding: try ExportJSONEncoder().encode(export), as: UTF8.self)
            let lines = text.split(separator: "\n")
            #expect(lines[0] == "{")
            #expect(lines[1] == "  \"format\": \"footstepd.session-export.v1\",")
            #expect(lines[2] == "  \"appVersion\": \"0.1.0\",")
            #expect(lines[3] == "  \"exportedAt\": \"2025-03-03T11:06:40.250Z\",")
            #expect(lines[4] == "  \"range\": null,")
            #expect(text.contains("\"startedAt\": \"2025-03-01T22:00:00.000Z\""))
            #expect(text.contains("\"timestamp\": \"2025-03-01T22:00:01.400Z\""))  // step 2, 1.4 s in
            #expect(text.contains("\"lcMax\": null"))
            // One event per line, then one revision per line.
            let eventLines = lines.filter { $0.hasPrefix("    {\"id\": ") && $0.contains("\"frameOffset\": ") }
            #expect(eventLines.count == 10)
            let revisionLines = lines.filter { $0.hasPrefix("    {\"id\": ") && $0.contains("\"revisedAt\": ") }
            #expect(revisionLines.count == 3)
            #expect(lines.firstIndex(of: "  \"revisions\": [")! > lines.firstIndex(of: eventLines.last!)!)
            #expect(lines[lines.count - 2] == "  ]")
            // Standard JSON: Foundation reads it back to the same value.
            #expect(try JSONDecoder().decode(SessionExport.self, from: Data(text.utf8)) == export)
            #expect(ExportDate.date(fromISO: "2025-03-01T22:00:01.400Z") == referenceStart.addingTimeInterval(1.4))
        }
    }

    @Test func theExportCoversEveryColumnOfTheSchema() throws {
        // A migration that adds a column must extend the export, or this fails.
        try withTemporaryDirectory { dir in
            let fixture = try EvidenceFixture(in: dir, eventsPerSession: 10)
            let export = try fixture.store.exportSession(fixture.sessions[0].id!, appVersion: "1")
            let exported: [String: Set<String>] = [
                "session": try keys(export.session), "event": try keys(export.events[0]),
                "audioFile": try keys(export.audioFiles[0]), "bout": try keys(export.bouts[0]),
                "levelMinute": try keys(export.levels[0]), "sessionGap": try keys(export.gaps[0]),
                "calibration": try keys(export.calibrations[0]), "typeRevision": try keys(export.revisions[0]),
            ]
            for (table, keys) in exported {
                let columns = try fixture.store.reader.read { db in Set(try db.columns(in: table).map(\.name)) }
                #expect(columns == keys, "\(table)")
            }
        }
    }

    /// The JSON keys of a value.
    func keys<T: Encodable>(_ value: T) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: try ExportJSONEncoder().encode(value)) as? [String: Any]
        return Set(object?.keys.map { $0 } ?? [])
    }
}
