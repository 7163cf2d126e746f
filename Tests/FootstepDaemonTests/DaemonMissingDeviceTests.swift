import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// A microphone absent at start: footstepd is up and says so (READY=1 with a
/// "device lost" status), keeps retrying, and stops cleanly; systemd does not
/// time its start out and restart it in a loop.
@Suite("A microphone absent at start")
struct DaemonMissingDeviceTests {
    @Test(.enabled(if: DaemonTestSupport.footstepdPath != nil, "footstepd is not built"))
    func theDaemonIsReadyAndSaysTheDeviceIsLostThenStopsCleanly() throws {
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(directory: directory.path)
        let (pid, _) = try DaemonTestSupport.spawnFootstepd(
            ["--state-dir", directory.appending("state"), "--socket", directory.appending("control.sock"),
             "--source", "alsa:hw:CARD=NoSuchMicrophone,DEV=0"],
            captureStandardError: false, notifySocket: notify.path)
        var messages: [String] = []
        let deadline = Date(timeIntervalSinceNow: 30)
        while !messages.contains(where: { $0.split(separator: "\n").contains("READY=1") }),
            let message = notify.receive(timeout: max(0, deadline.timeIntervalSinceNow))
        {
            messages.append(message)
        }
        let ready = messages.first { $0.split(separator: "\n").contains("READY=1") }
        #expect(ready != nil, "no READY=1 within 30 s: \(messages)")
        #expect(ready?.contains("STATUS=device-lost") == true, "\(ready ?? "")")
        // Still retrying, not exited.
        #expect(kill(pid, 0) == 0)
        kill(pid, SIGTERM)
        #expect(DaemonTestSupport.wait(pid) == 0)
        // No session was started without audio.
        let database = try FootstepDatabase.open(path: directory.appending("state/footstepd.db"))
        #expect(try database.sessions().isEmpty)
    }
}
