import FootstepCore
import FootstepStore
import Foundation
import Logging

/// Stores the gait bouts a kill left open. The daemon's `BoutRecorder` holds a
/// session's open bout in memory until a later step or the session's end
/// closes it, so a kill loses that bout, and the steps start-up recovery
/// appends or relabels (``TailRecovery``) were never grouped at all. Start-up
/// groups an interrupted session's stored footsteps after the last step of
/// its last stored bout, with their current labels and in onset order, as
/// the recorder would have, and stores the bouts with their steps linked.
struct BoutRecovery {
    let database: FootstepDatabase
    let logger: Logger

    /// Stores the bouts of `session`'s footsteps after its last stored bout; returns how many.
    func recover(session sessionId: Int64, sampleRate: Int) throws -> Int {
        let from = try database.lastBoutStepFrame(session: sessionId).map { $0 + 1 } ?? 0
        var recorder = BoutRecorder()
        var bouts: [BoutRecorder.Bout] = []
        for event in try database.events(session: sessionId, fromFrame: from, kind: .footstep) {
            if let bout = recorder.add(event, sampleRate: sampleRate) { bouts.append(bout) }
        }
        if let bout = recorder.finish() { bouts.append(bout) }
        for bout in bouts {
            try database.appendBout(bout.record(sessionId: sessionId), eventIds: bout.eventIds)
        }
        if !bouts.isEmpty {
            logger.notice(
                "session \(sessionId): \(bouts.count) gait bouts left open by the interruption stored",
                metadata: ["footstep.session": "\(sessionId)"])
        }
        return bouts.count
    }
}
