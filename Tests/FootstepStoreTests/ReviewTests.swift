import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

/// Reviews: a person confirms, rejects or relabels events, a bout or a time range; each is a revision hashed
/// onto its event, counted out where rejected, verified, exported and imported.
@Suite("Reviews")
struct ReviewTests {
    static let alice = Reviewer(uid: 1000, name: "alice")

    @Test func confirmRejectAndRelabelAreHashedRevisionsThatNameTheReviewer() throws {
        try withTemporaryDirectory { dir in
            let (store, _, events) = try RevisionTests.store(in: dir)
            let at = referenceStart.addingTimeInterval(3600)
            let ids = events.map { $0.id! }

            let confirmed = try store.review(.events([ids[0], ids[1]]), .confirm, by: Self.alice, at: at)
            #expect(confirmed.reviews.map(\.eventId) == [ids[0], ids[1]])
            #expect(confirmed.reviews.allSatisfy { $0.verdict == .confirmed && $0.reviewerUid == 1000 && $0.reviewer == "alice" })
            // A confirm keeps the label; its revision follows the event's own hash.
            #expect(confirmed.reviews[0].type == events[0].type && confirmed.reviews[0].confidence == events[0].confidence)
            #expect(confirmed.reviews[0].previousHash == events[0].hash)
            #expect(RevisionHasher.text(of: confirmed.reviews[0]).hasPrefix("footstepd.revision.v3\n"))
            #expect(RevisionHasher.text(of: confirmed.reviews[0]).contains("\nreviewer=5:alice\n"))

            // Again: nothing changes, nothing is stored.
            let again = try store.review(.events([ids[0]]), .confirm, by: Self.alice, at: at)
            #expect(again.reviews.isEmpty && again.unchangedEventIds == [ids[0]])

            let rejected = try store.review(.events([ids[0], ids[3]]), .reject, by: Self.alice, reason: "the radio", at: at)
            #expect(rejected.reviews.map(\.verdict) == [.rejected, .rejected])
            #expect(rejected.reviews[0].previousHash == confirmed.reviews[0].hash)
            #expect(rejected.reviews[0].reason == "the radio")

            let relabelled = try store.review(.events([ids[4]]), .relabel(.shuffling), by: Self.alice, at: at)
            let event4 = try #require(try store.event(ids[4]))
            #expect(event4.currentType == .shuffling && event4.currentConfidence == 1 && event4.reviewVerdict == .confirmed)
            #expect(relabelled.reviews.first?.previousType == events[4].type)
            // An `other` relabelled is a footstep now.
            try store.review(.events([ids[2]]), .relabel(.running), by: Self.alice, at: at)
            #expect(try store.event(ids[2])?.currentKind == .footstep)

            #expect(try store.event(ids[0])?.reviewVerdict == .rejected)
            #expect(try store.event(ids[5])?.reviewVerdict == nil)
            let report = try store.verifyRevisions()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedRevisions == 6)
        }
    }

    @Test func rejectedFootstepsLeaveCountsAndListingsFilterByReview() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try RevisionTests.store(in: dir)
            let ids = events.map { $0.id! }
            let hour = (referenceStart, referenceStart.addingTimeInterval(3600))
            #expect(try store.eventCountsByType(from: hour.0, to: hour.1) == [.heelStrike: 8])
            try store.review(.events([ids[0], ids[1]]), .reject, by: Self.alice)
            try store.review(.events([ids[3]]), .confirm, by: Self.alice)
            #expect(try store.eventCountsByType(from: hour.0, to: hour.1) == [.heelStrike: 6])
            #expect(try store.session(session)?.footstepCount == 6)
            #expect(try store.events(EventFilter(review: .rejected)).items.map(\.id) == [ids[0], ids[1]])
            #expect(try store.events(EventFilter(review: .confirmed)).items.map(\.id) == [ids[3]])
            #expect(try store.events(EventFilter(review: .unreviewed)).items.count == 9)
            // Reports read the latest review with its reviewer and reason.
            // A confirmed event rejected later by someone else: the latest review is the one reports give.
            try store.review(.events([ids[3]]), .reject, by: Reviewer(uid: 1001, name: "bob"), reason: "a door, not a step")
            var rows: [EventReportRow] = []
            try store.forEachReportEvent(from: hour.0, to: hour.1) { rows.append($0) }
            #expect(rows[3].review == EventReportRow.Review(verdict: .rejected, reviewer: "bob", reason: "a door, not a step"))
            #expect(rows[0].review == EventReportRow.Review(verdict: .rejected, reviewer: "alice", reason: ""))
            #expect(rows[2].review == nil)
            // Nothing is deleted: a rejected event is still listed and still in the chain.
            #expect(try store.events().items.count == 12)
            #expect(try store.verifyChain().isIntact)
        }
    }

    @Test func aBoutAndARangeAreReviewedInOneWrite() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try RevisionTests.store(in: dir)
            let ids = events.map { $0.id! }
            let bout = try store.appendBout(
                BoutRecord(sessionId: session, startedAt: events[4].timestamp, endedAt: events[7].timestamp, steps: 4,
                           cadence: 1.4, dominantType: .heelStrike, kind: .walking),
                eventIds: Array(ids[4...7]))
            let boutReview = try store.review(.bout(bout.id!), .relabel(.stomping), by: Self.alice, reason: "boots")
            #expect(boutReview.reviews.map(\.eventId) == Array(ids[4...7]))
            // A range: the onsets in [from, to), whatever their kind.
            let range = try store.review(
                .range(from: events[8].timestamp, to: events[11].timestamp), .reject, by: Self.alice, reason: "the radio")
            #expect(range.reviews.map(\.eventId) == Array(ids[8...10]))
            #expect(try store.events(EventFilter(review: .rejected)).items.map(\.id) == Array(ids[8...10]))
            #expect(try store.verifyRevisions().isIntact)
        }
    }

    @Test func aMissingEventAnUnknownTypeAndAnEmptyRangeAreRefusedAndNothingIsStored() throws {
        try withTemporaryDirectory { dir in
            let (store, _, events) = try RevisionTests.store(in: dir)
            #expect(throws: StoreError.eventNotFound(9999)) {
                try store.review(.events([events[0].id!, 9999]), .reject, by: Self.alice)
            }
            #expect(try store.event(events[0].id!)?.reviewVerdict == nil)
            #expect(throws: StoreError.self) { try store.review(.events([events[0].id!]), .relabel(.unknown), by: Self.alice) }
            #expect(throws: StoreError.self) { try store.review(.bout(77), .confirm, by: Self.alice) }
            let late = referenceStart.addingTimeInterval(86_400)
            #expect(throws: StoreError.self) {
                try store.review(.range(from: late, to: late.addingTimeInterval(60)), .reject, by: Self.alice)
            }
            #expect(try store.verifyRevisions().checkedRevisions == 0)
        }
    }

    @Test func anAlteredReviewAndAVerdictSetByHandAreNamed() throws {
        try withTemporaryDirectory { dir in
            let (store, _, events) = try RevisionTests.store(in: dir)
            let path = dir + "/footstepd.db"
            let stored = try store.review(.events([events[0].id!]), .confirm, by: Self.alice, reason: "heard it")
            let id = try #require(stored.reviews.first?.id)

            // The reviewer's name changed: the review's hash no longer matches.
            try tamper(path, "UPDATE typeRevision SET reviewer = 'bob' WHERE id = ?", [id])
            var report = try store.verifyRevisions()
            #expect(report.alteredRevisionIds == [id])
            try tamper(path, "UPDATE typeRevision SET reviewer = 'alice' WHERE id = ?", [id])
            // The verdict turned: altered too.
            try tamper(path, "UPDATE typeRevision SET verdict = 'rejected' WHERE id = ?", [id])
            #expect(try store.verifyRevisions().alteredRevisionIds == [id])
            try tamper(path, "UPDATE typeRevision SET verdict = 'confirmed' WHERE id = ?", [id])
            #expect(try store.verifyRevisions().isIntact)

            // An event rejected by hand, with no review behind it.
            try tamper(path, "UPDATE event SET reviewVerdict = 'rejected' WHERE id = ?", [events[5].id!])
            report = try store.verifyRevisions()
            #expect(report.mismatchedEventIds == [events[5].id!])
            #expect(try store.verifyEvidence().isIntact == false)
        }
    }

    @Test func anExportCarriesReviewsAndAnImportKeepsThem() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try RevisionTests.store(in: dir)
            try store.review(.events([events[0].id!]), .reject, by: Self.alice, reason: "a door")
            try store.review(.events([events[1].id!]), .relabel(.running), by: Self.alice)
            try store.endSession(session, at: referenceStart.addingTimeInterval(600))
            let export = try store.exportSession(session, appVersion: "1")
            #expect(export.revisions.compactMap(\.verdict) == ["rejected", "confirmed"])
            #expect(export.revisions.allSatisfy { $0.hashMatches })
            #expect(export.events.first?.reviewVerdict == "rejected")

            let target = try FootstepDatabase.inMemory()
            try target.importExports([export], source: "export.json")
            #expect(try target.event(events[0].id!)?.reviewVerdict == .rejected)
            #expect(try target.events(EventFilter(review: .rejected)).items.count == 1)
            #expect(try target.verifyRevisions().isIntact)

            // A review edited in the file is refused.
            var edited = export
            edited.revisions[0].reviewer = "mallory"
            let other = try FootstepDatabase.inMemory()
            #expect(throws: ImportError.self) { try other.importExports([edited], source: "edited.json") }
            #expect(try other.events().items.isEmpty)
        }
    }
}
