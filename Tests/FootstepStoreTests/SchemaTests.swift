import Foundation
import FootstepStore
import GRDB
import Testing

@Suite struct SchemaTests {
    @Test func migrationsCreateTheSchemaAndReopeningIsANoOp() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/state/footstepd.db"  // parent directory created on open
            do {
                let store = try FootstepDatabase.open(path: path)
                let tables = try store.reader.read { db in
                    try String.fetchAll(
                        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                }
                #expect(tables == [
                    "audioFile", "bout", "calibration", "chainDeletion", "chainHead", "diaryEntry", "diaryHead", "event",
                    "grdb_migrations", "levelMinute", "outbox", "outboxState", "removedRevision", "revisionHead", "ruleExceedance", "session",
                    "sessionGap", "typeRevision",
                ])
                let triggers = try store.reader.read { db in
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                }
                #expect(triggers == [
                    "outbox_deletion", "outbox_event", "outbox_exceedance", "outbox_gap", "outbox_levels", "outbox_revision",
                    "outbox_sessionChanged", "outbox_sessionStarted", "revisionHead_follows",
                ])
                let indexes = try store.reader.read { db in
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event'")
                }
                #expect(indexes.contains("event_on_timestamp"))
                #expect(indexes.contains("event_on_sessionId_timestamp"))
                #expect(indexes.contains("event_on_type_timestamp"))
                #expect(indexes.contains("event_on_currentType_timestamp"))
                #expect(indexes.contains("event_on_sessionId_frameOffset"))
                let applied = try store.reader.read { db in try FootstepDatabase.migrator.appliedIdentifiers(db) }
                #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"])
                _ = try store.createSession(startedAt: Date(), device: "hw:1", sampleRate: 48_000)
            }
            let schemaBefore = try schemaText(path)
            let reopened = try FootstepDatabase.open(path: path)
            #expect(try reopened.sessions().count == 1)
            #expect(try schemaText(path) == schemaBefore)
            let migrations = try reopened.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") }
            #expect(migrations == 10)
        }
    }

    /// v1 is shipped: its schema must stay byte for byte what the first
    /// databases got (the foreign keys now name their tables so GRDB does not
    /// guess them through its English inflection rules, about 100 ICU regular
    /// expressions; the SQL is unchanged). The digest is of a database made by
    /// the session-6 build.
    @Test func theShippedV1SchemaIsUnchanged() throws {
        try withTemporaryDirectory { dir in
            // Migrated up to v1 only: later migrations add tables and alter `event`.
            let queue = try DatabaseQueue(path: dir + "/footstepd.db")
            try FootstepDatabase.migrator.migrate(queue, upTo: "v1")
            let rows = try queue.read { db in
                try String.fetchAll(db, sql: """
                    SELECT type || '|' || name || '|' || sql FROM sqlite_master
                    WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name
                    """)
            }
            // v1's objects.
            #expect(rows.count == 28)
            let event = try #require(rows.first { $0.hasPrefix("table|event|") })
            #expect(event.contains(#""sessionId" INTEGER NOT NULL REFERENCES "session"("id") ON DELETE CASCADE"#))
            #expect(event.contains(#""audioFileId" INTEGER REFERENCES "audioFile"("id") ON DELETE RESTRICT"#))
            #expect(event.contains(#""boutId" INTEGER REFERENCES "bout"("id") ON DELETE SET NULL"#))
            #expect(rows.contains("index|event_on_boutId|CREATE INDEX \"event_on_boutId\" ON \"event\"(\"boutId\")"))
            var digest = StreamingSHA256()
            digest.update(Data((rows.joined(separator: "\n") + "\n").utf8))
            #expect(digest.hex == "46c6391bf97fee7a0c1459a48397b5d39989db56a55f30be4cd54bd01c11c19c")
        }
    }

    @Test func pageCacheBudgetAppliesToTheWriterAndEveryReader() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let path = dir + "/footstepd.db"
            let bounded = try FootstepDatabase.open(path: path, pageCacheKiB: 512)
            let pool = try #require(bounded.reader as? any DatabaseWriter)
            let writerCache = try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
            #expect(writerCache == -512)
            // Overlapping reads, each holding its connection a moment, run on separate reader connections.
            let readerCaches = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await pool.read { db in
                            usleep(50_000)
                            return try Int.fetchOne(db, sql: "PRAGMA cache_size")
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(readerCaches == [-512, -512, -512])

            let standard = try FootstepDatabase.open(path: path)
            let standardCache = try await standard.reader.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
            #expect(standardCache == -2000)  // SQLite's default, for short-lived tools
        }
    }

    @Test func onDiskDatabaseUsesWALAndForeignKeys() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let (mode, foreignKeys) = try store.reader.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
            }
            #expect(mode == "wal")
            #expect(foreignKeys == 1)
            #expect(FileManager.default.fileExists(atPath: dir + "/footstepd.db-wal"))
        }
    }

    @Test func newerSchemaIsRefusedWithAClearError() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            _ = try FootstepDatabase.open(path: path)
            try tamper(path, "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            #expect(throws: StoreError.schemaTooNew(path: path)) { try FootstepDatabase.open(path: path) }
        }
    }

    @Test func garbageFileIsReportedAsCorrupt() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) { try FootstepDatabase.open(path: path) }
            guard case .corrupt = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(error!.description.contains(path))
        }
    }

    @Test func readOnlyOpenReadsButRefusesWrites() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            try store.appendEvents([makeEvent(session: session.id!, index: 0)])
            let readOnly = try FootstepDatabase.openReadOnly(path: path)
            #expect(try readOnly.verifyChain().isIntact)
            let error = #expect(throws: StoreError.self) { try readOnly.renameSession(session.id!, title: "x") }
            guard case .readOnly = error else {
                Issue.record("expected .readOnly, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func fullDiskIsReportedAsDiskFull() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/small.db"
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = 60") }
            let store = try FootstepDatabase(try DatabaseQueue(path: path, configuration: configuration), path: path)
            let session = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
            let error = #expect(throws: StoreError.self) {
                for batch in 0..<1_000 {
                    try store.appendEvents((0..<50).map { makeEvent(session: session.id!, index: batch * 50 + $0) })
                }
            }
            #expect(error == .diskFull(path: path))
            #expect(error?.description.contains("is full") == true)
            #expect(try store.verifyChain().isIntact)  // the failed batch was rolled back as a whole
        }
    }

    private func schemaText(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").joined(separator: "\n")
        }
    }
}
