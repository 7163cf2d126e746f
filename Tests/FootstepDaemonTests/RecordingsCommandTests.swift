import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// `footstepctl recordings list|export` on the files a real daemon run rolled.
@Suite("footstepctl recordings", .serialized)
struct RecordingsCommandTests {
    /// 150 s of a walk rolled every minute: three or four WAV files in one session.
    static func record(in directory: TemporaryDirectory) async throws -> String {
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.recording.rollInterval = 60
        configuration.recording.audioFormat = .wav
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:duration=150"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger, handleSignals: false,
            controlSocket: false)
        try await group.run()
        return state
    }

    @Test func listShowsEveryFileAndExportCopiesARangeAcrossARoll() async throws {
        let directory = try TemporaryDirectory()
        let state = try await Self.record(in: directory)
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session.id)
        let files = try database.audioFiles(session: session)
        try #require(files.count >= 3)

        let listed = try BuiltProduct.run("footstepctl", ["recordings", "list", "--state-dir", state, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = try APIJSON.decoder.decode([RecordingResponse].self, from: Data(listed.stdout.utf8))
        #expect(lines.map(\.id) == files.map(\.id!))
        #expect(lines.allSatisfy { $0.state == "closed" && $0.session == session })
        for (line, file) in zip(lines, files) {
            #expect(line.sha256 == (try FileChecksum.sha256(ofFileAt: file.path)))
            #expect(abs(line.durationSeconds - Double(file.frames) / 16000) < 0.001)
        }
        let table = try BuiltProduct.run("footstepctl", ["recordings", "--state-dir", state])
        #expect(table.status == 0)
        #expect(table.stdout.contains("\(files.count) file(s)"), "\(table.stdout)")

        // 30 s before the third file's start to 20 s after it (the second file is a whole minute,
        // the third at least 30 s): one file out of two.
        let boundary = files[2].startedAt
        let from = Date(timeIntervalSince1970: (boundary.timeIntervalSince1970 - 30).rounded(.up))
        let to = Date(timeIntervalSince1970: (boundary.timeIntervalSince1970 + 20).rounded(.down))
        let formatter = ISO8601DateFormatter()
        let output = directory.appending("landing.wav")
        let exported = try BuiltProduct.run(
            "footstepctl",
            ["recordings", "export", "--state-dir", state, "--from", formatter.string(from: from), "--to", formatter.string(from: to), "-o", output])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("from 2 file(s)"), "\(exported.stdout)")
        let frames = try #require(DaemonTestSupport.decodedFrames(output))
        #expect(abs(Double(frames) / 16000 - to.timeIntervalSince(from)) < 0.01, "\(frames) frames")

        let nothing = try BuiltProduct.run(
            "footstepctl",
            ["recordings", "export", "--state-dir", state, "--from", "2001-01-01T00:00:00Z", "--to", "2001-01-01T01:00:00Z", "-o", output])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("no audio was recorded then"), "\(nothing.stderr)")
        let mp3 = try BuiltProduct.run(
            "footstepctl", ["recordings", "export", "--state-dir", state, "--from", "1h ago", "--to", "now", "-o", "x.mp3"])
        #expect(mp3.status != 0)
        #expect(mp3.stderr.contains(".flac or .wav"), "\(mp3.stderr)")

        // A whole-minute file gone (as retention or a lost disk leaves it): the export joins the files on either
        // side, and says where, on standard output and in the file's comment. The range starts 10 s into the file
        // before, so that file must be longer than that: the first is not when the recording began within 10 s of a
        // minute (then there are four files, and the second and third are whole minutes).
        let removed = files[0].frames > 11 * 16000 ? 1 : 2
        try #require(files.count > removed + 1)
        try FileManager.default.removeItem(atPath: files[removed].path)
        let joinedFrom = Date(timeIntervalSince1970: (files[removed].startedAt.timeIntervalSince1970 - 10).rounded(.up))
        let joinedTo = Date(timeIntervalSince1970: (files[removed + 1].startedAt.timeIntervalSince1970 + 10).rounded(.down))
        let joinedOutput = directory.appending("joined.wav")
        let joined = try BuiltProduct.run(
            "footstepctl",
            ["recordings", "export", "--state-dir", state, "--from", formatter.string(from: joinedFrom),
             "--to", formatter.string(from: joinedTo), "-o", joinedOutput])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout.contains("the file joins audio across 1 stretch(es) not recorded"), "\(joined.stdout)")
        #expect(joined.stdout.contains("at 0:00:"), "\(joined.stdout)")
        let joinedFrames = try #require(DaemonTestSupport.decodedFrames(joinedOutput))
        let missing = Double(files[removed].frames) / 16000
        #expect(abs(Double(joinedFrames) / 16000 - (joinedTo.timeIntervalSince(joinedFrom) - missing)) < 0.01)
        // The WAV's LIST/INFO ICMT chunk holds the comment as text.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: joinedOutput))
        #expect(bytes.range(of: Data("1 join(s) over audio not recorded".utf8)) != nil)
    }
}
