import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepStore
import Foundation
import Logging

/// Finds what a kill lost of the analysis of audio already on disk: the
/// events the pipeline had detected, or not yet reached, and the labels it
/// had not yet settled. Start-up recovery runs it for each interrupted
/// session after repairing its files: the end of the session's last audio
/// file, from `lead` before its last stored event (what a pending label
/// depends on: the bout and the 5 minutes of footsteps its types are judged
/// against, which hold the minute of sure footsteps the gait context
/// compares with), goes through the same pipeline (model, calibration,
/// equalizer, minimum confidence: `analysis`) to its end, as a clean stop
/// would.
///
/// - **Events**: those it finds that were not stored are appended to the
///   chain with a note saying they were recovered. Events leave the pipeline
///   each within `AnalysisConfiguration.maximumEventDelay` of its onset (in
///   onset order, but for the steps a frame network adds later), and are
///   stored in batches: every onset from that long before the last stored
///   one on is compared with the stored ones.
/// - **Labels**: a stored event whose settlement (gait context, up to
///   `maximumSettlementDelay` after its onset) or bout revision (up to
///   `maximumBoutRevisionDelay` after its bout's last step) could still have
///   been pending at the kill gets the label the tail's analysis ends with,
///   as an appended revision hashed onto the event (``labelReason``), when
///   that differs from its current one. An event whose bout revision was
///   stored keeps its label; one whose settlement was stored only takes a
///   new type of the same kind from its bout.
/// - **Levels**: the level intervals after the session's last stored one (the
///   minute in progress and those not flushed yet) are measured again from
///   the file, on the same grid: from the end of the last stored interval
///   when that lies in this file (or from the file's start when it is the
///   session's only one and no interval was stored), with one interval
///   before it to settle the filters when the file has it.
struct TailRecovery {
    /// Seconds analysed before the last stored event: the stream a footstep's
    /// type depends on (`AnalysisConfiguration.typingContextSeconds`: its
    /// bout and the 5 minutes of footsteps before it, 396 s), as the live
    /// analysis had it, and `warmUp`.
    static let lead = AnalysisConfiguration.typingContextSeconds + warmUp
    /// Seconds at the start of the tail whose stored events keep their labels:
    /// the detector learns the background and the features' onset history
    /// fills (unless the tail starts where the session's file does, as the
    /// live analysis did).
    static let warmUp = 20.0
    /// The most audio analysed, seconds: `lead` and a minute more. The pipeline
    /// delays an event by seconds at most and the store is written every
    /// second, so an event a minute older than the file's end was stored.
    static let longestTail = lead + 60
    /// An event within this of a stored onset is taken to be that one.
    static let sameEventSeconds = 0.05
    /// The note of a recovered event.
    static let note = "recovered at start-up from the audio recorded before an interruption"
    /// The reason of a label the kill kept from being settled, named at start-up.
    static let labelReason = "start-up recovery: the label settled from the audio recorded before an interruption"

    /// What one session's tail gave back.
    struct Recovered: Equatable {
        /// Events appended.
        var events = 0
        /// Stored events whose label was revised.
        var labels = 0
        /// Level intervals appended.
        var levels = 0
    }

    let database: FootstepDatabase
    let analysis: AnalysisConfiguration
    /// Loads the classifier's model (only when there is a tail to analyse).
    let model: () throws -> FootstepModel
    /// Seconds between the daemon's store writes (`DaemonOptions.flushInterval`):
    /// a settlement made that long before the kill may not have been stored.
    var storeInterval: Double = 1
    let logger: Logger

    /// Analyses the tail of `session`'s last audio file, stores the events
    /// after its last stored event, settles the labels the kill left pending
    /// and stores the level intervals it caught.
    func recover(session sessionId: Int64) throws -> Recovered {
        let files = try database.audioFiles(session: sessionId)
        guard let file = files.max(by: { $0.startFrame < $1.startFrame }),
            file.frames > 0, FileManager.default.fileExists(atPath: file.path)
        else { return Recovered() }
        let rate = Double(file.sampleRate)
        let fileEnd = file.startFrame + file.frames
        let lastStored = try database.lastEventFrame(session: sessionId)
        let start = Self.tailStart(fileStart: file.startFrame, fileEnd: fileEnd, lastStored: lastStored, rate: rate)

        let audio = try AudioFileSource(path: file.path)
        try audio.seek(toFrame: Int(start - file.startFrame))
        // Analysed at the analysis rate; the session's frames are the file's.
        let source = try audio.atAnalysisRate()
        defer { source.close() }
        let result = try FileAnalysis.analyse(
            source: source, configuration: analysis, classifier: try FootstepModelClassifier(model: model()))
        let scale = rate / Double(source.format.sampleRate)
        let tail = result.events.map { (frame: start + Int64((Double($0.onsetFrame) * scale).rounded()), event: $0) }
        let same = Int64(Self.sameEventSeconds * rate)
        var recovered = Recovered()
        recovered.labels = try settleLabels(
            session: sessionId, tail: tail, from: start == file.startFrame ? start : start + Int64(Self.warmUp * rate),
            fileEnd: fileEnd, rate: rate)

        // Anything earlier had left the pipeline, and was stored, before the last stored event did.
        let unsettled = lastStored.map { $0 - Int64(analysis.maximumEventDelay * rate) } ?? start
        let stored = try database.eventFrames(session: sessionId, from: unsettled - same)
        let events: [NewEvent] = tail.compactMap { frame, event in
            guard frame >= unsettled, frame < fileEnd, !Self.contains(stored, within: same, of: frame) else { return nil }
            return NewEvent(
                event, sessionId: sessionId, audioFileId: file.id, frameOffset: frame,
                timestamp: NewEvent.timestamp(
                    anchor: file.startedAt, anchorFrame: file.startFrame, frameOffset: frame, sampleRate: file.sampleRate),
                notes: Self.note)
        }
        if !events.isEmpty {
            try database.appendEvents(events)
            recovered.events = events.count
        }
        recovered.levels = try recoverLevels(session: sessionId, file: file, isOnlyFile: files.count == 1)
        if recovered != Recovered() {
            logger.notice(
                "session \(sessionId): \(recovered.events) events recovered, \(recovered.labels) labels settled and \(recovered.levels) level intervals measured from the end of \(file.path)",
                metadata: ["footstep.session": "\(sessionId)"])
        }
        return recovered
    }

    /// The frame the tail's analysis starts at: `lead` before the last stored
    /// event (`lastStored`, when there is one), at most `longestTail` before
    /// the file's end, never before its start.
    static func tailStart(fileStart: Int64, fileEnd: Int64, lastStored: Int64?, rate: Double) -> Int64 {
        var start = fileEnd - Int64(longestTail * rate)
        if let lastStored { start = max(start, min(lastStored, fileEnd) - Int64(lead * rate)) }
        return max(start, fileStart)
    }

    /// Measures the level intervals of `file` (the session's last; `isOnlyFile`
    /// when it is its only one) after the session's last stored one and
    /// appends them; returns how many.
    private func recoverLevels(session sessionId: Int64, file: AudioFileRecord, isOnlyFile: Bool) throws -> Int {
        let rate = Double(file.sampleRate)
        let fileEnd = file.startFrame + file.frames
        // Where the next interval begins: the end of the last stored one, as a frame of this file.
        let next: Int64
        if let last = try database.lastLevelMinute(session: sessionId) {
            next = file.startFrame + Int64((last.endsAt.timeIntervalSince(file.startedAt) * rate).rounded())
        } else if isOnlyFile {
            next = file.startFrame
        } else {
            return 0
        }
        guard next >= file.startFrame, next < fileEnd else { return 0 }
        // One interval before it, when the file has it, settles the weighting filters.
        let interval = Int64(analysis.levelIntervalSeconds * rate)
        let start = next - interval >= file.startFrame ? next - interval : next
        let source = try AudioFileSource(path: file.path)
        defer { source.close() }
        try source.seek(toFrame: Int(start - file.startFrame))
        let minutes = try FileAnalysis.levels(source: source, configuration: analysis).compactMap { levels in
            let frame = start + levels.startFrame
            return frame < next ? nil
                : LevelMinuteRecord(
                    levels, sessionId: sessionId,
                    startedAt: file.startedAt.addingTimeInterval(Double(frame - file.startFrame) / rate),
                    sampleRate: file.sampleRate)
        }
        try database.appendLevels(minutes)
        return minutes.count
    }

    /// Revises the stored events at or after `from` whose settlement or bout
    /// revision may have been pending at the kill (the stream ended at
    /// `fileEnd`) to the label their twin in `tail` ends with; returns how many.
    private func settleLabels(
        session sessionId: Int64, tail: [(frame: Int64, event: AnalyzedEvent)], from: Int64, fileEnd: Int64, rate: Double
    ) throws -> Int {
        // Settlements made this long before the end may not have been stored…
        var pendingFrom = fileEnd - Int64((analysis.maximumSettlementDelay + storeInterval) * rate)
        // …nor the revision of a bout whose last step is this recent: all its steps wait for it
        // (a later bout's first step may have been held too, so an earlier bout can still be open).
        let boutPendingFrom = fileEnd - Int64((analysis.maximumBoutRevisionDelay + storeInterval) * rate)
        let footsteps = tail.filter { $0.event.kind == .footstep }.map(\.frame)
        let gap = Int64(AnalysisConfiguration.boutGap * rate)
        if let last = footsteps.firstIndex(where: { $0 >= boutPendingFrom }) {
            var first = last
            while first > 0 && footsteps[first] - footsteps[first - 1] < gap { first -= 1 }
            pendingFrom = min(pendingFrom, footsteps[first])
        }
        pendingFrom = max(pendingFrom, from)
        let same = Int64(Self.sameEventSeconds * rate)
        let stored = try database.events(session: sessionId, fromFrame: pendingFrom - same)
        guard !stored.isEmpty else { return 0 }
        let revisions = Dictionary(grouping: try database.revisions(ofEvents: stored.map { $0.id! }), by: \.eventId)
        var settled: [NewTypeRevision] = []
        for event in stored {
            guard event.frameOffset >= pendingFrom, let twin = Self.nearest(in: tail, to: event.frameOffset, within: same)
            else { continue }
            let history = revisions[event.id!] ?? []
            // A stored bout revision: nothing was pending.
            if history.contains(where: { $0.reason == RevisionQueue.reason }) { continue }
            // A stored settlement: only the bout's type was pending.
            if !history.isEmpty && twin.kind != event.currentKind { continue }
            guard twin.kind != event.currentKind || twin.type != event.currentType else { continue }
            settled.append(
                NewTypeRevision(
                    frameOffset: event.frameOffset, kind: twin.kind, type: twin.kind == .footstep ? twin.type : .unknown,
                    confidence: twin.confidence))
        }
        return try database.reviseTypes(settled, sessionId: sessionId, reason: Self.labelReason).count
    }

    /// The event of ascending `tail` nearest to `frame`, if within `tolerance`.
    static func nearest(in tail: [(frame: Int64, event: AnalyzedEvent)], to frame: Int64, within tolerance: Int64)
        -> AnalyzedEvent?
    {
        var low = 0
        var high = tail.count
        while low < high {
            let middle = (low + high) / 2
            if tail[middle].frame < frame { low = middle + 1 } else { high = middle }
        }
        let candidates = [low - 1, low].filter { tail.indices.contains($0) && abs(tail[$0].frame - frame) <= tolerance }
        return candidates.min { abs(tail[$0].frame - frame) < abs(tail[$1].frame - frame) }.map { tail[$0].event }
    }

    /// Whether ascending `frames` has one within `tolerance` of `frame`.
    static func contains(_ frames: [Int64], within tolerance: Int64, of frame: Int64) -> Bool {
        var low = 0
        var high = frames.count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle] < frame - tolerance { low = middle + 1 } else { high = middle }
        }
        return low < frames.count && frames[low] <= frame + tolerance
    }
}
