import FootstepStore
import Foundation
import Logging

/// At start, stores what a stop kept in the pending journal because the store
/// refused it, in the order it was written, into the sessions it belongs to
/// (ended since), then removes the journal. A journal the store still refuses
/// stays where it is and the start fails, saying so: nothing is dropped.
struct PendingReplay {
    let journal: PendingJournal
    let database: FootstepDatabase
    let logger: Logger

    /// - Returns: The events and level minutes stored.
    @discardableResult
    func run() throws -> (events: Int, levels: Int) {
        guard journal.exists else { return (0, 0) }
        let (events, levels, damaged) = try journal.read()
        if damaged > 0 {
            logger.critical("\(damaged) line(s) of \(journal.path) do not match their checksum and are left out")
        }
        do {
            try database.appendEvents(events, recovering: true)
            try database.appendLevels(levels, recovering: true)
        } catch {
            logger.critical("cannot store what \(journal.path) keeps (\(events.count) events, \(levels.count) level minutes): \(error); it stays there")
            throw error
        }
        journal.remove()
        logger.notice(
            "stored \(events.count) events and \(levels.count) level minutes that the store had refused at the last stop (from \(journal.path))",
            metadata: ["footstep.replayed_events": "\(events.count)", "footstep.replayed_levels": "\(levels.count)"])
        return (events.count, levels.count)
    }
}
