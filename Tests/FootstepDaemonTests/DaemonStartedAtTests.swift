import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// `--started-at`: a file or scenario recorded earlier is placed at the time it was recorded.
@Suite("Recordings placed at their time")
struct DaemonStartedAtTests {
    @Test func aScenarioStartedAtAGivenTimeIsStoredThere() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let startedAt = Date(timeIntervalSince1970: 1_795_816_800)  // 2026-11-27 22:00:00 UTC
        var options = DaemonOptions(stateDirectory: state, speed: 50)
        options.sourceStartedAt = startedAt
        let (group, _) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:duration=20"), options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        try await group.run()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        #expect(session.startedAt == startedAt)
        #expect(abs(try #require(session.endedAt).timeIntervalSince(startedAt) - 20) < 0.5)
        let events = try DaemonTestSupport.events(database, session: session.id!)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.timestamp >= startedAt && $0.timestamp < startedAt.addingTimeInterval(20) })
        let files = try database.audioFiles(session: session.id!)
        #expect(files.first?.startedAt == startedAt)
    }

    @Test func theDemosUnpluggedMicrophoneLeavesAGapOnItsOwnClock() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let startedAt = Date(timeIntervalSince1970: 1_795_816_800)  // 2026-11-27 22:00:00 UTC
        var options = DaemonOptions(stateDirectory: state, speed: 100)
        options.sourceStartedAt = startedAt
        let (group, _) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:duration=60,device_loss=20+15"),
            options: options, logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        try await group.run()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        // The 15 s unplugged, at 20 s in, exactly: the scenario's clock, not the wall clock.
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count == 1)
        let gap = try #require(gaps.first)
        #expect(gap.reason == "capture device lost")
        #expect(abs(gap.startedAt.timeIntervalSince(startedAt) - 20) < 0.01)
        #expect(abs(gap.endedAt.timeIntervalSince(startedAt) - 35) < 0.01)
        #expect(abs(try #require(session.endedAt).timeIntervalSince(startedAt) - 60) < 0.5)
        // The audio of the outage never reached a file or an event.
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 2)
        #expect(files.map(\.frames).reduce(0, +) == 45 * 16_000)
        let events = try DaemonTestSupport.events(database, session: session.id!)
        #expect(!events.isEmpty)
        #expect(!events.contains { $0.timestamp > gap.startedAt.addingTimeInterval(0.1) && $0.timestamp < gap.endedAt })
        #expect(try database.verifyEvidence().isIntact)
    }

    @Test func aDeviceLossMustSayWhenAndHowLong() throws {
        #expect(throws: AudioSourceError.self) { try SourceChoice(parsing: "demo:walking:device_loss=20") }
        #expect(throws: AudioSourceError.self) { try SourceChoice(parsing: "demo:walking:device_loss=20+0") }
        let run = try DaemonTestSupport.runFootstepd(["--source", "demo:night:device_loss=abc", "--check-config"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("device_loss must be START+LENGTH in seconds"), "\(run.standardError)")
    }

    @Test func aMicrophoneCannotBePlacedInThePast() throws {
        let run = try DaemonTestSupport.runFootstepd(["--source", "alsa:default", "--started-at", "2026-11-23T22:00"])
        #expect(run.status == 64)
        #expect(run.standardError.contains("--started-at is for file and demo sources"))
        let bad = try DaemonTestSupport.runFootstepd(["--source", "demo", "--started-at", "last tuesday"])
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("--started-at must look like 2026-11-23T22:00"))
    }
}
