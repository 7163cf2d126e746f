import FootstepDaemon
import Testing

/// The daemon's states driven by events alone: no threads, no devices.
@Suite("Daemon state machine")
struct DaemonStateMachineTests {
    typealias Event = DaemonStateMachine.Event

    static func run(_ events: [Event]) -> (states: [DaemonStateMachine.State], changes: [DaemonStateMachine.State?]) {
        var machine = DaemonStateMachine()
        var states: [DaemonStateMachine.State] = []
        var changes: [DaemonStateMachine.State?] = []
        for event in events {
            changes.append(machine.handle(event))
            states.append(machine.state)
        }
        return (states, changes)
    }

    @Test func aSessionRecordsPausesResumesAndEnds() {
        let (states, _) = Self.run([.sessionStarted, .paused, .resumed, .sessionEnded, .shutdownRequested])
        #expect(states == [.recording, .paused, .recording, .idle, .stopping])
    }

    @Test func waitingForTheScheduleOrAStartIsIdle() {
        #expect(Self.run([.waiting]).states == [.idle])
        #expect(Self.run([.waiting, .waiting]).changes == [.idle, nil])
        #expect(Self.run([.sessionStarted, .waiting]).states == [.recording, .idle])
    }

    @Test func aLostDeviceComesBackToWhatItInterrupted() {
        #expect(Self.run([.sessionStarted, .deviceLost, .deviceRestored]).states == [.recording, .deviceLost, .recording])
        #expect(
            Self.run([.sessionStarted, .paused, .deviceLost, .deviceRestored]).states
                == [.recording, .paused, .deviceLost, .paused])
    }

    @Test func pausingOrResumingWhileTheDeviceIsLostIsAppliedWhenItReturns() {
        let paused = Self.run([.sessionStarted, .deviceLost, .paused, .deviceRestored])
        #expect(paused.states == [.recording, .deviceLost, .deviceLost, .paused])
        #expect(paused.changes[2] == nil)
        let resumed = Self.run([.sessionStarted, .paused, .deviceLost, .resumed, .deviceRestored])
        #expect(resumed.states.last == .recording)
    }

    @Test func aDeviceThatCannotBeOpenedIsLostUntilTheSessionStarts() {
        #expect(Self.run([.deviceLost, .deviceLost, .sessionStarted]).states == [.deviceLost, .deviceLost, .recording])
        #expect(Self.run([.deviceLost, .waiting]).states == [.deviceLost, .idle])
        // A pause remembered under a lost device does not outlive the session.
        let ended = Self.run([.sessionStarted, .paused, .deviceLost, .sessionEnded, .sessionStarted, .deviceLost, .deviceRestored])
        #expect(ended.states.last == .recording)
    }

    @Test func eventsThatDoNotApplyChangeNothing() {
        #expect(Self.run([.paused]).changes == [nil])
        #expect(Self.run([.resumed]).changes == [nil])
        #expect(Self.run([.deviceRestored]).changes == [nil])
        #expect(Self.run([.sessionStarted, .sessionStarted]).changes == [.recording, nil])
        #expect(Self.run([.sessionStarted, .deviceRestored]).changes == [.recording, nil])
        #expect(Self.run([.waiting, .sessionEnded]).changes == [.idle, nil])
    }

    @Test func stoppingIsFinal() {
        for event: Event in [.waiting, .sessionStarted, .paused, .resumed, .deviceLost, .deviceRestored, .sessionEnded, .shutdownRequested] {
            let (states, changes) = Self.run([.sessionStarted, .shutdownRequested, event])
            #expect(states.last == .stopping)
            #expect(changes[changes.count - 1] == nil)
        }
        for start: [Event] in [[], [.waiting], [.sessionStarted, .paused], [.deviceLost]] {
            #expect(Self.run(start + [.shutdownRequested]).states.last == .stopping)
        }
    }
}
