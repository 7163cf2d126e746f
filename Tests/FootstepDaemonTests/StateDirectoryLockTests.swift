import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// One footstepd per state directory: a second daemon started on the state
/// directory of a running one (with another socket, so the socket's own lock
/// does not stop it) refuses before start-up recovery, names the holder's pid
/// and socket, and exits 75; the first daemon's session goes on and ends completed.
@Suite("One footstepd per state directory", .serialized)
struct StateDirectoryLockTests {
    @Test(.enabled(if: DaemonTestSupport.footstepdPath != nil, "footstepd is not built"))
    func aSecondDaemonOnTheSameStateDirectoryRefusesAndTheFirstRecordsOn() throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let first = try DaemonTestSupport.spawnReadyFootstepd(
            ["--state-dir", state, "--socket", directory.appending("first.sock"),
             "--source", "demo:walking:seed=1,duration=600", "--speed", "4"],
            in: directory.path)
        var firstRunning = true
        defer {
            if firstRunning {
                kill(first, SIGKILL)
                _ = DaemonTestSupport.wait(first)
            }
        }

        let second = try DaemonTestSupport.runFootstepd(
            ["--state-dir", state, "--socket", directory.appending("second.sock"),
             "--source", "demo:walking:seed=2,duration=2", "--speed", "100"])
        #expect(second.status == 75)
        #expect(
            second.standardError.contains(
                "another footstepd (pid \(first), socket \(directory.appending("first.sock"))) is using the state directory"),
            "\(second.standardError)")

        // The first daemon was not disturbed: one session, still recording; after a clean stop, completed.
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try database.sessions().map(\.session.status) == [.recording])
        kill(first, SIGTERM)
        #expect(DaemonTestSupport.wait(first) == 0)
        firstRunning = false
        #expect(try database.sessions().map(\.session.status) == [.completed])
        #expect(try database.verifyChain().isIntact)

        // Once it has stopped, the directory is free again.
        let third = try DaemonTestSupport.runFootstepd(
            ["--state-dir", state, "--socket", directory.appending("third.sock"),
             "--source", "demo:walking:seed=3,duration=2", "--speed", "100"])
        #expect(third.status == 0, "\(third.standardError)")
        #expect(try database.sessions().count == 2)
    }

    @Test func aDaemonErrorSaysWhatToDoAndOnlyABusyStateDirectoryExits75() {
        let busy = DaemonError.stateDirectoryInUse(directory: "/var/lib/footstepd", lock: "/var/lib/footstepd/footstepd.lock", holder: 42, socket: nil)
        #expect(busy.exitCode == 75)
        #expect(busy.description.hasPrefix("another footstepd (pid 42) is using the state directory /var/lib/footstepd"))
        #expect(busy.description.contains("--state-dir"))
        let unknown = DaemonError.stateDirectoryInUse(directory: "/s", lock: "/s/footstepd.lock", holder: nil, socket: nil)
        #expect(unknown.description.hasPrefix("another footstepd is using"))
        for other in [DaemonError.shuttingDown, .captureFailed("x"), .modelUnloadable("y"), .stateDirectoryUnusable(path: "/s", reason: "z")] {
            #expect(other.exitCode == 1, "\(other)")
        }
        #expect(DaemonError.modelUnloadable("cannot read m.json").description == "cannot read m.json (detection.model)")
    }
}
