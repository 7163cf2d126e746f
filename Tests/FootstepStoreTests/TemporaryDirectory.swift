import Foundation
import FootstepCore
import FootstepStore
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` with a fresh directory made by mkdtemp(3), removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array((NSTemporaryDirectory() + "/footstepstore-test.XXXXXX").utf8CString)
    let path: String = try template.withUnsafeMutableBufferPointer { buffer in
        guard let result = mkdtemp(buffer.baseAddress!) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed: errno \(errno)"])
        }
        return String(cString: result)
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A fixed start time (2025-03-01 22:00:00 UTC) so tests are reproducible.
let referenceStart = Date(timeIntervalSince1970: 1_740_866_400)

/// A deterministic event: the i-th step of a session at 16 kHz, 0.7 s apart.
func makeEvent(
    session: Int64, index: Int, sampleRate: Int = 16_000, start: Date = referenceStart,
    type: FootstepType? = nil, kind: EventKind = .footstep, audioFileId: Int64? = nil
) -> NewEvent {
    let frame = Int64(index) * Int64(sampleRate) * 7 / 10
    let types = FootstepType.allCases
    return NewEvent(
        sessionId: session, audioFileId: audioFileId, frameOffset: frame,
        timestamp: NewEvent.timestamp(anchor: start, frameOffset: frame, sampleRate: sampleRate),
        measurements: EventMeasurements(
            duration: 0.12, kind: kind, type: type ?? types[index % types.count],
            confidence: Double(index % 10) / 10 + 0.05, intensity: Intensity.allCases[index % 3],
            laMax: 40 + Double(index % 17) * 0.7, lcMax: index % 5 == 0 ? nil : 50.25, peakDBFS: -26.5, sel: 37.125,
            backgroundLA: 28.4))
}

/// Opens a store at `dir/footstepd.db` with one recording session.
func makeStoreWithSession(in dir: String, title: String = "upstairs") throws -> (FootstepDatabase, SessionRecord) {
    let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
    let session = try store.createSession(
        startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "Europe/London", title: title)
    return (store, session)
}

/// Runs raw SQL on the database file through a separate connection, as someone with
/// an sqlite3 shell would.
func tamper(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
    try queue.close()
}

/// Async variant of `withTemporaryDirectory`.
func withTemporaryDirectoryAsync<T>(_ body: (String) async throws -> T) async throws -> T {
    var template = Array((NSTemporaryDirectory() + "/footstepstore-test.XXXXXX").utf8CString)
    let path: String = try template.withUnsafeMutableBufferPointer { buffer in
        guard let result = mkdtemp(buffer.baseAddress!) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed: errno \(errno)"])
        }
        return String(cString: result)
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
