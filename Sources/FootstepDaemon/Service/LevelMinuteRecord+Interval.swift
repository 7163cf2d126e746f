import FootstepDSP
import FootstepStore
import Foundation

extension LevelMinuteRecord {
    /// The store's row for a level interval of the pipeline that began at
    /// `startedAt`, its levels made storable; nil for an interval without frames.
    init?(_ levels: IntervalLevels, sessionId: Int64, startedAt: Date, sampleRate: Int) {
        let seconds = Double(levels.frames) / Double(sampleRate)
        guard seconds > 0 else { return nil }
        self.init(
            sessionId: sessionId, startedAt: startedAt, seconds: seconds,
            laeq: levels.laeq.storableLevel, lceq: levels.lceq.storableLevel,
            lafMax: levels.lafMax.storableLevel, lafMin: levels.lafMin.storableLevel,
            la10: levels.la10.storableLevel, la90: levels.la90.storableLevel)
    }
}
