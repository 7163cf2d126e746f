import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// Appends events in one transaction, extending the hash chain.
    ///
    /// For each event in order: validate it (finite levels, confidence 0…1, duration ≥ 0,
    /// open session, audio file of the same session), compute
    /// `hash = SHA-256(serialisation + previousHash)` (see ``EventHasher``) where
    /// `previousHash` is the hash of the event appended just before (the chain head,
    /// across all sessions), insert it, and move the chain head; then record the rules it exceeds
    /// (``checkingRules(_:)``). All or nothing.
    ///
    /// - Parameter recovering: The events were kept aside when the store refused them (the daemon's pending
    ///   journal): their session may have ended since, and they are stored into it all the same.
    /// - Returns: The new ids, in the order given.
    @discardableResult
    public func appendEvents(_ events: [NewEvent], recovering: Bool = false) throws(StoreError) -> [Int64] {
        if events.isEmpty { return [] }
        let normalized = try events.map { (event) throws(StoreError) in try Self.validated(event) }
        return try write { db in
            var openSessions: Set<Int64> = []
            var fileSessions: [Int64: Int64] = [:]
            for event in normalized {
                if !openSessions.contains(event.sessionId) {
                    _ = try recovering ? Self.requireSession(db, event.sessionId) : Self.openSession(db, event.sessionId)
                    openSessions.insert(event.sessionId)
                }
                if let fileId = event.audioFileId {
                    if fileSessions[fileId] == nil {
                        fileSessions[fileId] = try Self.requireAudioFile(db, fileId).sessionId
                    }
                    if fileSessions[fileId] != event.sessionId {
                        throw StoreError.invalidValue(
                            "audio file \(fileId) belongs to session \(fileSessions[fileId]!), not \(event.sessionId)")
                    }
                }
            }

            var previousHash = try Self.chainHead(db).lastHash
            let columns = EventHasher.hashedColumns + ["notes", "hash", "previousHash"]
            let insert = try db.cachedStatement(
                sql: "INSERT INTO event (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            var ids: [Int64] = []
            ids.reserveCapacity(normalized.count)
            for event in normalized {
                let values = EventHasher.values(of: event)
                let hash = EventHasher.hash(values: values, previousHash: previousHash)
                try insert.execute(
                    arguments: StatementArguments(values + [event.notes.databaseValue, hash.databaseValue, previousHash.databaseValue]))
                ids.append(db.lastInsertedRowID)
                previousHash = hash
            }
            try db.execute(
                sql: "UPDATE chainHead SET lastEventId = ?, lastHash = ? WHERE id = 1",
                arguments: [ids.last!, previousHash])
            if let ruleWatch { try Self.recordExceedances(db, events: normalized, ids: ids, watch: ruleWatch) }
            return ids
        }
    }

    /// Replaces an event's notes. Notes are outside the hash: the chain stays valid.
    public func setEventNotes(_ id: Int64, notes: String) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE event SET notes = ? WHERE id = ?", arguments: [notes, id])
            if db.changesCount == 0 { throw StoreError.eventNotFound(id) }
        }
    }

    /// Records the extracted audio clip of an event and its SHA-256 (outside the event
    /// hash; ``clipChecksums()`` lists them for file verification). The path is
    /// stored relative to the state directory (``storedPath(_:)``); read it back
    /// through ``resolve(_:)``.
    public func setEventClip(_ id: Int64, path: String, sha256: String) throws(StoreError) {
        let checksum = try Self.validatedSHA256(sha256)
        let stored = storedPath(path)
        try write { db in
            try db.execute(
                sql: "UPDATE event SET clipPath = ?, clipSha256 = ? WHERE id = ?", arguments: [stored, checksum, id])
            if db.changesCount == 0 { throw StoreError.eventNotFound(id) }
        }
    }

    // MARK: Helpers

    /// The chain head: hash and id of the last event ever appended.
    static func chainHead(_ db: Database) throws -> (lastEventId: Int64, lastHash: String) {
        guard let row = try Row.fetchOne(db, sql: "SELECT lastEventId, lastHash FROM chainHead WHERE id = 1") else {
            return (0, EventHasher.genesisHash)
        }
        return (row["lastEventId"], row["lastHash"])
    }

    /// Checks an event's values and normalises `-0.0` to `0.0` (SQLite does not keep the sign of zero).
    static func validated(_ event: NewEvent) throws(StoreError) -> NewEvent {
        var event = event
        func check(_ name: String, _ value: Double) throws(StoreError) -> Double {
            guard value.isFinite else { throw .invalidValue("event \(name) is \(value), not a finite number") }
            return value == 0 ? 0 : value
        }
        event.duration = try check("duration", event.duration)
        event.confidence = try check("confidence", event.confidence)
        event.laMax = try check("laMax", event.laMax)
        event.peakDBFS = try check("peakDBFS", event.peakDBFS)
        event.sel = try check("sel", event.sel)
        if let value = event.lcMax { event.lcMax = try check("lcMax", value) }
        if let value = event.backgroundLA { event.backgroundLA = try check("backgroundLA", value) }
        guard event.duration >= 0 else { throw .invalidValue("event duration \(event.duration) is negative") }
        guard (0...1).contains(event.confidence) else {
            throw .invalidValue("event confidence \(event.confidence) is outside 0…1")
        }
        guard event.frameOffset >= 0 else { throw .invalidValue("event frame offset \(event.frameOffset) is negative") }
        return event
    }
}
