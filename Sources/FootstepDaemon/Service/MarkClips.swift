import FootstepAudio
import FootstepCore
import FootstepStore
import Foundation
import Logging

/// Cuts the clip of each diary mark: the audio from
/// ``FootstepDatabase/markProtectionSeconds`` before the mark to as long after
/// it, out of the full recording, into `<clips>/marks/mark-<id>.<ext>`, with
/// its SHA-256 in the store. Until its clip is cut, retention keeps the full
/// files around a mark; once cut, the clip is kept for good and the full files
/// may go.
///
/// A mark's clip is cut once every file holding its window is closed and the
/// recording has passed the window's end (or its session has ended). A mark
/// with no audio around it (nothing was recorded then) gets no clip.
///
/// - Note: Used by the service's task only, before each retention pass.
struct MarkClips {
    let database: FootstepDatabase
    let clipDirectory: String
    let logger: Logger

    /// Cuts the clips that are due; returns how many were cut.
    @discardableResult
    func cutDue() -> Int {
        let marks: [DiaryEntryRecord]
        do {
            marks = try database.marksAwaitingClip()
        } catch {
            logger.error("cannot read the diary's marks: \(error)")
            return 0
        }
        var cut = 0
        for mark in marks where cutIfDue(mark) { cut += 1 }
        return cut
    }

    /// Cuts one mark's clip if its audio is complete; true when it did.
    private func cutIfDue(_ mark: DiaryEntryRecord) -> Bool {
        let reach = FootstepDatabase.markProtectionSeconds
        let from = mark.at.addingTimeInterval(-reach)
        let to = mark.at.addingTimeInterval(reach)
        do {
            let files = try database.audioFiles(overlapping: from, to)
            guard !files.isEmpty, files.allSatisfy({ $0.closedAt != nil }) else { return false }
            // One session's files share a sample clock: the session holding the mark (or the most audio).
            let bySession = Dictionary(grouping: files, by: \.sessionId)
            let chosen = files.first { $0.startedAt <= mark.at && $0.endsAt > mark.at }?.sessionId
                ?? bySession.max { $0.value.reduce(0) { $0 + $1.frames } < $1.value.reduce(0) { $0 + $1.frames } }!.key
            let sessionFiles = bySession[chosen]!.filter { $0.prunedAt == nil }.sorted { $0.startFrame < $1.startFrame }
            guard let first = sessionFiles.first, let last = sessionFiles.last else { return false }
            if last.endsAt < to, try database.session(chosen)?.session.endedAt == nil { return false }
            guard let range = AudioFileRecord.frames(of: sessionFiles, from: from, to: to) else { return false }
            let rate = Double(first.sampleRate)
            let path = "\(clipDirectory)/marks/mark-\(mark.id!).\(first.format.fileExtension)"
            let frames = try ClipExtractor.extract(
                from: sessionFiles.map { ClipExtractor.Source(path: $0.path, startFrame: $0.startFrame, frames: $0.frames) },
                startFrame: range.lowerBound, endFrame: range.upperBound,
                format: AudioFormat(sampleRate: first.sampleRate, channels: first.channels), container: first.format, to: path)
            try database.setMarkClip(mark.id!, path: path, sha256: try FileChecksum.sha256(ofFileAt: path))
            logger.info(
                "clip of diary mark \(mark.id!) saved: \(path), \(String(format: "%.1f", Double(frames) / rate)) s of session \(chosen)",
                metadata: ["footstep.session": "\(chosen)"])
            return true
        } catch {
            logger.error("cannot cut the clip of diary mark \(mark.id!): \(error); its audio is kept in full")
            return false
        }
    }
}
