import FootstepTesting
import Foundation
import Testing

/// Evidence stays with the daemon's user and group whatever umask footstepd is
/// started with: under umask 022 the database and the audio used to be 0644,
/// readable (and copyable) by any local user.
@Suite("Daemon file modes", .serialized)
struct DaemonFileModeTests {
    @Test func evidenceIsNeverWorldReadableWhateverTheUmask() throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        // A state directory left open by an earlier run or by hand is closed again.
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let previous = umask(0o022)
        defer { umask(previous) }
        let run = try DaemonTestSupport.runFootstepd([
            "--state-dir", state, "--source", "demo:walking:seed=3,duration=4", "--speed", "100",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let entries = try FileManager.default.subpathsOfDirectory(atPath: state)
        #expect(entries.contains { $0.hasSuffix(".flac") }, "audio was written: \(entries)")
        #expect(entries.contains("footstepd.db"))
        for entry in [""] + entries {
            let path = entry.isEmpty ? state : "\(state)/\(entry)"
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            #expect(mode & 0o007 == 0, "\(path) is \(String(mode, radix: 8)): others can reach it")
            if isDirectory { #expect(mode == 0o750, "\(path) is \(String(mode, radix: 8))") }
        }
    }
}
