import Foundation
import FootstepStore
import GRDB
import Testing

@Suite struct AudioFileTests {
    @Test func audioFilesAreTrackedClosedAndPrunedWithoutLosingEvents() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            let id = session.id!
            let first = try store.addAudioFile(
                sessionId: id, path: dir + "/1.flac", startedAt: referenceStart, startFrame: 0, sampleRate: 16_000,
                format: .flac)
            let second = try store.addAudioFile(
                sessionId: id, path: dir + "/2.wav", startedAt: referenceStart.addingTimeInterval(14_400),
                startFrame: 230_400_000, sampleRate: 16_000, format: .wav)
            #expect(try store.unclosedAudioFiles().map(\.id) == [first.id, second.id])
            try store.updateAudioFileFrames(second.id!, frames: 16_000, bytes: 32_044)
            try store.appendEvents([makeEvent(session: id, index: 1, audioFileId: first.id!)])
            #expect(throws: StoreError.self) { try store.markAudioFilePruned(first.id!) }  // still open

            // The file's checksum as the writer would compute it on close.
            try Data("RIFF….".utf8).write(to: URL(fileURLWithPath: first.path))
            let sha = try FileChecksum.sha256(ofFileAt: first.path)
            try store.closeAudioFile(first.id!, sha256: sha, frames: 230_400_000, bytes: 9)
            #expect(throws: StoreError.self) { try store.closeAudioFile(first.id!, sha256: sha, frames: 1, bytes: 1) }
            #expect(throws: StoreError.self) { try store.closeAudioFile(second.id!, sha256: "not-a-hash", frames: 1, bytes: 1) }
            let listed = try store.audioFileChecksums()
            // Stored relative to the store's directory; resolved, the file itself.
            #expect(listed.map(\.path) == ["1.flac"])
            #expect(listed.map { store.resolve($0.path) } == [first.path])
            #expect(try FileChecksum.sha256(ofFileAt: store.resolve(listed[0].path)) == listed[0].sha256)
            #expect(try store.audioFiles(session: id).map(\.format) == [.flac, .wav])
            #expect(try store.unclosedAudioFiles().map(\.id) == [second.id])

            // A raw delete of an audio file row that events point to is refused by SQLite.
            #expect(throws: DatabaseError.self) { try tamper(path, "DELETE FROM audioFile WHERE id = ?", [first.id!]) }
            // Retention marks the file pruned: the event and the chain stay.
            try store.markAudioFilePruned(first.id!, at: referenceStart.addingTimeInterval(86_400 * 30))
            #expect(try store.audioFileChecksums().isEmpty)
            #expect(try store.audioFile(first.id!)?.prunedAt != nil)
            #expect(try store.events().items.first?.audioFileId == first.id)
            #expect(try store.verifyChain().isIntact)
        }
    }
}
