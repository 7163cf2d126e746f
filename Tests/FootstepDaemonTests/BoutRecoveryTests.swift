import FootstepCore
import FootstepStore
import FootstepTesting
import Foundation
import Testing

@testable import FootstepDaemon

/// The gait bout a kill left open: its steps were stored, the bout was in
/// the recorder's memory. Start-up stores it from the stored footsteps after
/// the last stored bout, with their current labels.
@Suite struct BoutRecoveryTests {
    @Test func theBoutsAKillLeftOpenAreStoredWithTheirSteps() throws {
        let directory = try TemporaryDirectory()
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let rate = 16000
        let session = try database.createSession(startedAt: startedAt, device: "demo", sampleRate: rate)
        func event(at seconds: Double, _ kind: EventKind = .footstep) -> NewEvent {
            let frame = Int64(seconds * Double(rate))
            return NewEvent(
                sessionId: session.id!, frameOffset: frame,
                timestamp: NewEvent.timestamp(anchor: startedAt, frameOffset: frame, sampleRate: rate),
                measurements: EventMeasurements(
                    duration: 0.2, kind: kind, type: kind == .footstep ? .heelStrike : .unknown, confidence: 0.9,
                    intensity: .medium, laMax: 50, peakDBFS: -20, sel: 45))
        }
        // A stored 4-step bout; then a knock, a lone step, and a 5-step walk the kill caught open,
        // whose third step was stored as `other` and settled a footstep at start-up.
        let stored = [1.0, 1.6, 2.2, 2.8].map { event(at: $0) }
        let storedIds = try database.appendEvents(stored)
        let first = try database.appendBout(
            BoutRecord(
                sessionId: session.id!, startedAt: stored[0].timestamp, endedAt: stored[3].timestamp.addingTimeInterval(0.2),
                steps: 4, cadence: 5 / 3, dominantType: .heelStrike, kind: .walking),
            eventIds: storedIds)
        let laterIds = try database.appendEvents(
            [event(at: 5, .other), event(at: 8)] + [10.0, 10.5, 11.0, 11.5, 12.0].map { event(at: $0, $0 == 11 ? .other : .footstep) })
        try database.reviseTypes(
            [NewTypeRevision(frameOffset: 11 * Int64(rate), kind: .footstep, type: .heelStrike, confidence: 0.7)],
            sessionId: session.id!, reason: TailRecovery.labelReason)

        let recovery = BoutRecovery(database: database, logger: DaemonTestSupport.quietLogger)
        #expect(try recovery.recover(session: session.id!, sampleRate: rate) == 1)
        let bouts = try database.bouts(session: session.id!).items
        #expect(bouts.map(\.steps) == [4, 5])
        #expect(bouts.first?.id == first.id)
        let walk = try #require(bouts.last)
        #expect(walk.startedAt == NewEvent.timestamp(anchor: startedAt, frameOffset: 10 * Int64(rate), sampleRate: rate))
        #expect(walk.kind == .walking && walk.dominantType == .heelStrike)
        let linked = try database.events(ids: laterIds).filter { $0.boutId == walk.id }.map(\.frameOffset)
        #expect(linked == [10.0, 10.5, 11.0, 11.5, 12.0].map { Int64($0 * Double(rate)) })
        #expect(try database.events(ids: storedIds).allSatisfy { $0.boutId == first.id })
        // A second start-up finds the walk stored.
        #expect(try recovery.recover(session: session.id!, sampleRate: rate) == 0)
        #expect(try database.bouts(session: session.id!).items.count == 2)
    }
}
