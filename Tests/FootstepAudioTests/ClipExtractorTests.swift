import CSndfile
import FootstepCore
import FootstepAudio
import FootstepTesting
import Foundation
import Testing

/// Cutting a range out of a session's rolled files: the joins over frames no file holds are found, and the
/// written file says where they are in its comment.
@Suite("Cutting a range out of rolled files")
struct ClipExtractorTests {
    static let format = AudioFormat(sampleRate: 16000, channels: 1)

    /// A WAV of `frames` frames of a constant `value`.
    static func file(_ path: String, frames: Int, value: Float) throws -> String {
        let writer = try AudioFileWriter(path: path, format: format, container: .wav)
        try [Float](repeating: value, count: frames).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        return path
    }

    @Test func joinsAreTheHolesBetweenFilesInsideTheRangeOnly() {
        let sources = [
            ClipExtractor.Source(path: "a", startFrame: 0, frames: 1000),
            ClipExtractor.Source(path: "b", startFrame: 1500, frames: 1000),  // 500 frames missing before it
            ClipExtractor.Source(path: "c", startFrame: 2500, frames: 1000),  // contiguous
            ClipExtractor.Source(path: "d", startFrame: 5000, frames: 1000),  // 1,500 missing before it
        ]
        #expect(ClipExtractor.joins(of: sources, startFrame: 200, endFrame: 5500) == [
            .init(outputFrame: 800, sessionFrame: 1000, missingFrames: 500),
            .init(outputFrame: 2800, sessionFrame: 3500, missingFrames: 1500),
        ])
        // A range that starts inside the first hole, or ends inside the last, has no join there.
        #expect(ClipExtractor.joins(of: sources, startFrame: 1200, endFrame: 4000).isEmpty)
        #expect(ClipExtractor.joins(of: sources, startFrame: 0, endFrame: 1000).isEmpty)
    }

    @Test(arguments: [AudioFileContainer.wav, .flac])
    func theWrittenFileHoldsTheAudioThatExistsAndItsComment(container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let sources = [
            ClipExtractor.Source(path: try Self.file(directory.appending("a.wav"), frames: 1000, value: 0.25), startFrame: 0, frames: 1000),
            ClipExtractor.Source(path: try Self.file(directory.appending("b.wav"), frames: 1000, value: 0.5), startFrame: 3000, frames: 1000),
        ]
        let output = directory.appending("out.\(container.rawValue)")
        let written = try ClipExtractor.extract(
            from: sources, startFrame: 500, endFrame: 3500, format: Self.format, container: container, to: output,
            comment: "1 join(s): at 0:00:00.031 of the file, 2 s not recorded")
        #expect(written == 1000)
        var info = SF_INFO()
        let handle = try #require(sf_open(output, Int32(SFM_READ), &info))
        defer { sf_close(handle) }
        #expect(info.frames == 1000)
        let comment = sf_get_string(handle, Int32(SF_STR_COMMENT)).map { String(cString: $0) }
        #expect(comment == "1 join(s): at 0:00:00.031 of the file, 2 s not recorded")
    }
}
