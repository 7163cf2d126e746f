import FootstepClassifier
import FootstepStore
import Foundation

/// Groups a session's stored footsteps into gait bouts as they are stored,
/// or settled when they were reported provisionally (in onset order, but for
/// steps gait context settles late; each with its current type), keeping the
/// ids and times of the steps so the bout row and its links can be written
/// when it closes.
struct BoutRecorder {
    /// A closed bout with its wall-clock extent and its steps.
    struct Bout {
        var bout: GaitBout
        var startedAt: Date
        var endedAt: Date
        var eventIds: [Int64]

        /// The row that stores it in `sessionId` (its steps are linked by `eventIds`).
        func record(sessionId: Int64) -> BoutRecord {
            BoutRecord(
                sessionId: sessionId, startedAt: startedAt, endedAt: endedAt, steps: bout.steps,
                cadence: bout.cadence.isFinite ? bout.cadence : 0, dominantType: bout.dominantType,
                kind: bout.gait == .running ? .running : .walking)
        }
    }

    private var tracker = GaitBoutTracker()
    private var steps: [(id: Int64, timestamp: Date, end: Date)] = []
    private var lastOnset: Double?

    /// Adds a stored footstep; returns the bout this step closed, if one long enough did.
    mutating func add(_ event: EventRecord, sampleRate: Int) -> Bout? {
        guard let id = event.id else { return nil }
        let onset = Double(event.frameOffset) / Double(sampleRate)
        var closedSteps: [(id: Int64, timestamp: Date, end: Date)] = []
        if let lastOnset, onset - lastOnset >= GaitBoutTracker.maximumInterval {
            closedSteps = steps
            steps.removeAll()
        }
        lastOnset = max(lastOnset ?? onset, onset)  // a step settled late joins the open bout
        let closed = tracker.add(onset: onset, type: event.currentType)
        steps.append((id, event.timestamp, event.timestamp.addingTimeInterval(event.duration)))
        return closed.map { Self.bout($0, steps: closedSteps) }
    }

    /// Ends the session: the open bout, if long enough.
    mutating func finish() -> Bout? {
        defer {
            steps.removeAll()
            lastOnset = nil
        }
        return tracker.finish().map { Self.bout($0, steps: steps) }
    }

    private static func bout(_ bout: GaitBout, steps: [(id: Int64, timestamp: Date, end: Date)]) -> Bout {
        Bout(
            bout: bout, startedAt: steps.map(\.timestamp).min() ?? Date(), endedAt: steps.map(\.end).max() ?? Date(),
            eventIds: steps.map(\.id))
    }
}
