import GRDB

extension FootstepDatabase {
    /// The schema migrations, in order. Append new ones ("v2", …); never edit a shipped one.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createV1Schema)
        migrator.registerMigration("v2", migrate: createV2Diary)
        migrator.registerMigration("v3", migrate: createV3Revisions)
        migrator.registerMigration("v4", migrate: createV4MarkClips)
        migrator.registerMigration("v5", migrate: createV5KindRevisions)
        migrator.registerMigration("v6", migrate: createV6Outbox)
        migrator.registerMigration("v7", migrate: createV7RevisionHead)
        migrator.registerMigration("v8", migrate: createV8Reviews)
        migrator.registerMigration("v9", migrate: createV9RuleExceedances)
        migrator.registerMigration("v10", migrate: createV10SessionEndReason)
        return migrator
    }

    /// v1: sessions, gaps, audio files, events with the hash chain, level minutes,
    /// bouts, calibrations, chain tombstones and the chain head.
    ///
    /// Foreign keys name their table (`inTable:`): without it GRDB finds the
    /// table through its English inflection rules, about 100 regular
    /// expressions compiled by ICU on a new database (ICU code the daemon
    /// otherwise does not run, kept resident). The SQL is the same
    /// (`SchemaTests.theShippedV1SchemaIsUnchanged`).
    private static func createV1Schema(_ db: Database) throws {
        try db.create(table: "session") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("startedAt", .datetime).notNull()
            t.column("endedAt", .datetime)
            t.column("status", .text).notNull()
                .check { ["recording", "paused", "completed", "interrupted"].contains($0) }
            t.column("title", .text).notNull().defaults(to: "")
            t.column("notes", .text).notNull().defaults(to: "")
            t.column("device", .text).notNull()
            t.column("sampleRate", .integer).notNull().check { $0 > 0 }
            t.column("channels", .integer).notNull().check { $0 > 0 }
            t.column("timeZone", .text).notNull()
        }
        try db.create(index: "session_on_startedAt", on: "session", columns: ["startedAt"])
        try db.create(index: "session_on_status", on: "session", columns: ["status"])

        try db.create(table: "sessionGap") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            t.column("startedAt", .datetime).notNull()
            t.column("endedAt", .datetime).notNull()
            t.column("reason", .text).notNull()
        }

        try db.create(table: "audioFile") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            t.column("path", .text).notNull().unique()
            t.column("startedAt", .datetime).notNull()
            t.column("startFrame", .integer).notNull().check { $0 >= 0 }
            t.column("frames", .integer).notNull().check { $0 >= 0 }
            t.column("sampleRate", .integer).notNull().check { $0 > 0 }
            t.column("channels", .integer).notNull().check { $0 > 0 }
            t.column("format", .text).notNull().check { ["flac", "wav"].contains($0) }
            t.column("sha256", .text)
            t.column("closedAt", .datetime)
            t.column("bytes", .integer).notNull().check { $0 >= 0 }
            t.column("prunedAt", .datetime)
        }
        try db.create(index: "audioFile_on_sessionId_startedAt", on: "audioFile", columns: ["sessionId", "startedAt"])

        try db.create(table: "bout") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            t.column("startedAt", .datetime).notNull()
            t.column("endedAt", .datetime).notNull()
            t.column("steps", .integer).notNull().check { $0 >= 0 }
            t.column("cadence", .double).notNull()
            t.column("dominantType", .text).notNull()
            t.column("kind", .text).notNull().check { ["walking", "running"].contains($0) }
        }
        try db.create(index: "bout_on_startedAt", on: "bout", columns: ["startedAt"])

        try db.create(table: "event") { t in
            t.autoIncrementedPrimaryKey("id")
            // Evidence fields (hashed, see EventHasher).
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            // RESTRICT: removing an audio file row must never take evidence with it (retention
            // marks files pruned instead; deleteSession removes events explicitly first).
            t.belongsTo("audioFile", inTable: "audioFile", onDelete: .restrict)
            t.column("frameOffset", .integer).notNull()
            t.column("timestamp", .datetime).notNull()
            t.column("duration", .double).notNull()
            t.column("kind", .text).notNull()
            t.column("type", .text).notNull()
            t.column("confidence", .double).notNull()
            t.column("intensity", .text).notNull()
            t.column("laMax", .double).notNull()
            t.column("lcMax", .double)
            t.column("peakDBFS", .double).notNull()
            t.column("sel", .double).notNull()
            t.column("backgroundLA", .double)
            // Annotations (not hashed).
            t.column("notes", .text).notNull().defaults(to: "")
            t.belongsTo("bout", inTable: "bout", onDelete: .setNull)
            t.column("clipPath", .text)
            t.column("clipSha256", .text)
            // Chain.
            t.column("hash", .text).notNull().unique()
            t.column("previousHash", .text).notNull()
        }
        try db.create(index: "event_on_timestamp", on: "event", columns: ["timestamp"])
        try db.create(index: "event_on_sessionId_timestamp", on: "event", columns: ["sessionId", "timestamp"])
        try db.create(index: "event_on_type_timestamp", on: "event", columns: ["type", "timestamp"])

        try db.create(table: "levelMinute") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            t.column("startedAt", .datetime).notNull()
            t.column("seconds", .double).notNull().check { $0 > 0 }
            t.column("laeq", .double).notNull()
            t.column("lceq", .double).notNull()
            t.column("lafMax", .double).notNull()
            t.column("lafMin", .double).notNull()
            t.column("la10", .double).notNull()
            t.column("la90", .double).notNull()
        }
        try db.create(index: "levelMinute_on_startedAt", on: "levelMinute", columns: ["startedAt"])
        try db.create(index: "levelMinute_on_sessionId_startedAt", on: "levelMinute", columns: ["sessionId", "startedAt"])

        try db.create(table: "calibration") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("measuredAt", .datetime).notNull().indexed()
            t.column("offsetDB", .double).notNull()
            t.column("method", .text).notNull()
            t.column("reference", .text).notNull()
        }

        try db.create(table: "chainDeletion") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("deletedAt", .datetime).notNull()
            t.column("sessionId", .integer).notNull()
            t.column("sessionTitle", .text).notNull()
            t.column("firstEventId", .integer).notNull()
            t.column("lastEventId", .integer).notNull()
            t.column("eventCount", .integer).notNull()
            t.column("previousHash", .text).notNull().indexed()
            t.column("lastHash", .text).notNull()
            t.column("reason", .text).notNull()
        }

        // One row: the hash and id of the last event ever appended (even if later deleted),
        // so appends link to it and verification detects a truncated tail.
        try db.create(table: "chainHead") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("lastEventId", .integer).notNull()
            t.column("lastHash", .text).notNull()
        }
        try db.execute(
            sql: "INSERT INTO chainHead (id, lastEventId, lastHash) VALUES (1, 0, ?)",
            arguments: [EventHasher.genesisHash])
    }

    /// v2: the diary (notes and marks of the person complaining), chained like
    /// the events but on its own chain (``DiaryHasher``), and its head.
    private static func createV2Diary(_ db: Database) throws {
        try db.create(table: "diaryEntry") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("kind", .text).notNull().check { ["note", "mark"].contains($0) }
            t.column("at", .datetime).notNull().indexed()
            t.column("duration", .double).check { $0 == nil || $0 >= 0 }
            t.column("text", .text).notNull()
            t.column("writtenAt", .datetime).notNull()
            t.column("previousHash", .text).notNull()
            t.column("hash", .text).notNull().unique()
        }
        try db.create(table: "diaryHead") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("lastEntryId", .integer).notNull()
            t.column("lastHash", .text).notNull()
        }
        try db.execute(
            sql: "INSERT INTO diaryHead (id, lastEntryId, lastHash) VALUES (1, 0, ?)", arguments: [EventHasher.genesisHash])
    }

    /// v3: type revisions (``TypeRevisionRecord``), appended and hashed onto the
    /// event they revise; the event row repeats the latest one (outside its hash) so
    /// queries filter and count by the current type through one indexed expression.
    private static func createV3Revisions(_ db: Database) throws {
        try db.create(table: "typeRevision") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("event", inTable: "event", onDelete: .cascade).notNull()
            t.column("revisedAt", .datetime).notNull()
            t.column("previousType", .text).notNull()
            t.column("type", .text).notNull()
            t.column("confidence", .double).notNull()
            t.column("reason", .text).notNull()
            t.column("previousHash", .text).notNull()
            t.column("hash", .text).notNull().unique()
        }
        try db.alter(table: "event") { t in
            t.add(column: "revisedType", .text)
            t.add(column: "revisedConfidence", .double)
            t.add(column: "revisionHash", .text)
        }
        // Revisions find their event by onset frame within its session.
        try db.create(index: "event_on_sessionId_frameOffset", on: "event", columns: ["sessionId", "frameOffset"])
        try db.execute(
            sql: "CREATE INDEX event_on_currentType_timestamp ON event(COALESCE(revisedType, type), timestamp)")
    }

    /// v4: a mark's clip (the audio around it, cut so retention can delete the
    /// full file it lies in): its path and SHA-256, outside the diary's hash like
    /// an event's clip.
    private static func createV4MarkClips(_ db: Database) throws {
        try db.alter(table: "diaryEntry") { t in
            t.add(column: "clipPath", .text)
            t.add(column: "clipSha256", .text)
        }
    }

    /// v5: revisions of an event's kind (a provisional `other` settled as a
    /// footstep, a lone footstep as `other`): each revision names the kind
    /// before and after it (`footstep` for the type revisions before v5), and
    /// the event row repeats the latest kind beside the latest type.
    private static func createV5KindRevisions(_ db: Database) throws {
        try db.alter(table: "typeRevision") { t in
            t.add(column: "previousKind", .text).notNull().defaults(to: "footstep")
            t.add(column: "kind", .text).notNull().defaults(to: "footstep")
        }
        try db.alter(table: "event") { t in
            t.add(column: "revisedKind", .text)
        }
    }

    /// v6: the outbox of what MQTT publishes (``OutboxEntry``). Triggers queue
    /// a row in the very transaction that stores an event, a revision, a
    /// tombstone, a session's start or end, a gap or a level row, while
    /// `outboxState.enabled` is 1 (``FootstepDatabase/setOutbox(enabled:)``);
    /// the publisher removes a row once the broker has acknowledged it.
    private static func createV6Outbox(_ db: Database) throws {
        try db.create(table: "outbox") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("topic", .text).notNull()
                .check { ["event", "revision", "deletion", "session", "gap", "levels"].contains($0) }
            t.column("recordId", .integer).notNull()
            t.column("sessionId", .integer)
            // A session's status when the row was queued (its start and its end are two rows).
            t.column("detail", .text)
            t.column("queuedAt", .datetime).notNull()
        }
        try db.create(table: "outboxState") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("enabled", .boolean).notNull()
            t.column("dropped", .integer).notNull()
        }
        try db.execute(sql: "INSERT INTO outboxState (id, enabled, dropped) VALUES (1, 0, 0)")
        try createOutboxTriggers(db, outboxTriggers)
    }

    /// What queues an outbox row, by topic: the trigger's name, its event and the row's values.
    private typealias OutboxTrigger = (name: String, event: String, values: String)

    /// The outbox triggers of v6.
    private static let outboxTriggers: [OutboxTrigger] = [
        ("event", "INSERT ON event", "'event', NEW.id, NEW.sessionId, NULL"),
        ("revision", "INSERT ON typeRevision",
         "'revision', NEW.id, (SELECT sessionId FROM event WHERE id = NEW.eventId), NULL"),
        ("deletion", "INSERT ON chainDeletion", "'deletion', NEW.id, NEW.sessionId, NULL"),
        ("sessionStarted", "INSERT ON session", "'session', NEW.id, NEW.id, NEW.status"),
        ("sessionChanged", "UPDATE OF status ON session", "'session', NEW.id, NEW.id, NEW.status"),
        ("gap", "INSERT ON sessionGap", "'gap', NEW.id, NEW.sessionId, NULL"),
        ("levels", "INSERT ON levelMinute", "'levels', NEW.id, NEW.sessionId, NULL"),
    ]

    /// Creates triggers that queue an outbox row while `outboxState.enabled` is 1.
    private static func createOutboxTriggers(_ db: Database, _ triggers: [OutboxTrigger]) throws {
        let queued = "strftime('%Y-%m-%d %H:%M:%f', 'now')"
        let enabled = "(SELECT enabled FROM outboxState WHERE id = 1)"
        for trigger in triggers {
            let unchanged = trigger.name == "sessionChanged" ? " AND NEW.status IS NOT OLD.status" : ""
            try db.execute(
                sql: """
                    CREATE TRIGGER outbox_\(trigger.name) AFTER \(trigger.event)
                    WHEN \(enabled)\(unchanged)
                    BEGIN
                        INSERT INTO outbox (topic, recordId, sessionId, detail, queuedAt)
                        VALUES (\(trigger.values), \(queued));
                    END
                    """)
        }
    }

    /// v7: the label revisions' head, like the event chain's and the diary's: `revisionHead` holds the id of
    /// the last revision ever stored (a trigger moves it), and `removedRevision` every revision id that left the
    /// store with a deleted session (its tombstone's id), so that ``FootstepDatabase/verifyRevisions()`` names a
    /// revision removed any other way. Revisions already missing when it runs (deleted with a session before
    /// v7) are recorded as removed without a tombstone.
    private static func createV7RevisionHead(_ db: Database) throws {
        try db.create(table: "revisionHead") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("lastRevisionId", .integer).notNull()
        }
        try db.create(table: "removedRevision") { t in
            t.primaryKey("revisionId", .integer)
            t.column("chainDeletionId", .integer)
        }
        let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM typeRevision") ?? 0
        try db.execute(sql: "INSERT INTO revisionHead (id, lastRevisionId) VALUES (1, ?)", arguments: [last])
        if last > 0 {
            try db.execute(
                sql: """
                    WITH RECURSIVE ids(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM ids WHERE n < ?)
                    INSERT INTO removedRevision (revisionId, chainDeletionId)
                    SELECT n, NULL FROM ids WHERE n NOT IN (SELECT id FROM typeRevision)
                    """, arguments: [last])
        }
        try db.execute(
            sql: """
                CREATE TRIGGER revisionHead_follows AFTER INSERT ON typeRevision
                BEGIN
                    UPDATE revisionHead SET lastRevisionId = MAX(lastRevisionId, NEW.id) WHERE id = 1;
                END
                """)
    }

    /// v8: reviews (a person confirms, rejects or relabels an event) are revisions with a verdict and the
    /// reviewer's uid and name; the event row repeats its latest verdict (`reviewVerdict`, outside its hash)
    /// so that counts leave rejected events out through one column.
    private static func createV8Reviews(_ db: Database) throws {
        try db.alter(table: "typeRevision") { t in
            t.add(column: "verdict", .text).check { $0 == nil || ["confirmed", "rejected"].contains($0) }
            t.add(column: "reviewerUid", .integer)
            t.add(column: "reviewer", .text)
        }
        try db.alter(table: "event") { t in
            t.add(column: "reviewVerdict", .text)
        }
    }

    /// v9: noise rules exceeded as they happen (``RuleExceedanceRecord``), queued for MQTT like the
    /// rest: the outbox is rebuilt with `exceedance` among its topics (rows, ids and sequence kept).
    private static func createV9RuleExceedances(_ db: Database) throws {
        try db.create(table: "ruleExceedance") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("session", inTable: "session", onDelete: .cascade).notNull()
            t.column("rule", .text).notNull()
            t.column("metric", .text).notNull()
            t.column("startedAt", .datetime).notNull()
            t.column("value", .double).notNull()
            t.column("threshold", .double).notNull()
            t.column("cause", .text).notNull()
            t.column("eventId", .integer).references("event", onDelete: .setNull)
            t.column("levelMinuteId", .integer).references("levelMinute", onDelete: .setNull)
            t.column("key", .text).notNull().unique()
        }
        try db.create(index: "ruleExceedance_on_startedAt", on: "ruleExceedance", columns: ["startedAt"])

        for trigger in outboxTriggers { try db.execute(sql: "DROP TRIGGER outbox_\(trigger.name)") }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")
        try db.create(table: "outboxV9") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("topic", .text).notNull()
                .check { ["event", "revision", "deletion", "session", "gap", "levels", "exceedance"].contains($0) }
            t.column("recordId", .integer).notNull()
            t.column("sessionId", .integer)
            t.column("detail", .text)
            t.column("queuedAt", .datetime).notNull()
        }
        try db.execute(
            sql: """
                INSERT INTO outboxV9 (id, topic, recordId, sessionId, detail, queuedAt)
                SELECT id, topic, recordId, sessionId, detail, queuedAt FROM outbox
                """)
        try db.drop(table: "outbox")
        try db.rename(table: "outboxV9", to: "outbox")
        if let sequence {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'outbox'", arguments: [sequence])
            try db.execute(
                sql: "INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox', ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox')",
                arguments: [sequence])
        }
        try createOutboxTriggers(
            db, outboxTriggers + [("exceedance", "INSERT ON ruleExceedance", "'exceedance', NEW.id, NEW.sessionId, NULL")])
    }

    /// v10: why a session ended (`session.endReason`), so that the reports' coverage names the stretches
    /// between sessions: stopped, outside the monitoring window, footstepd stopped or killed.
    private static func createV10SessionEndReason(_ db: Database) throws {
        try db.alter(table: "session") { t in
            t.add(column: "endReason", .text)
        }
    }
}
