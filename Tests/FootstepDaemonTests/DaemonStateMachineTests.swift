@testable import FootstepDaemon
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

    // MARK: Commands: the machine decides, the service carries out

    typealias Situation = DaemonStateMachine.Situation

    static let open = Situation(session: 7)
    static let between = Situation()

    @Test func aSessionStopsPausesResumesAndRestartsForACalibration() {
        var machine = DaemonStateMachine()
        machine.handle(.sessionStarted)
        #expect(machine.command(.start, in: Self.open) == .reply(.refused("already recording (session 7); nothing to start")))
        #expect(machine.command(.resume, in: Self.open) == .reply(.refused("nothing to resume: the daemon is recording")))
        #expect(machine.command(.pause, in: Self.open) == .setPaused(true))
        #expect(machine.wantsPause)
        machine.handle(.paused)
        #expect(machine.command(.pause, in: Self.open) == .reply(.refused("already paused")))
        #expect(machine.command(.resume, in: Self.open) == .setPaused(false))
        #expect(machine.command(.calibrate(offsetDB: 94), in: Self.open) == .calibrate(offsetDB: 94, restart: true))
        #expect(machine.sessionMustEnd(shuttingDown: false, scheduleOpen: true) == nil)
        #expect(machine.command(.stop, in: Self.open) == .endSession)
        #expect(!machine.wantsSession)
        #expect(machine.sessionMustEnd(shuttingDown: false, scheduleOpen: true) == .stopCommand)
        // Shutting down wins over every other reason.
        #expect(machine.sessionMustEnd(shuttingDown: true, scheduleOpen: false) == .shutdown)
    }

    @Test func betweenSessionsAStartWaitsForTheScheduleOrTheDevice() {
        var machine = DaemonStateMachine()
        machine.handle(.waiting)
        #expect(machine.command(.stop, in: Self.between) == .reply(.refused("nothing to stop: no session is open")))
        #expect(machine.command(.pause, in: Self.between) == .reply(.refused("nothing to pause: no session is recording")))
        #expect(machine.command(.resume, in: Self.between) == .reply(.refused("nothing to resume: the daemon is idle")))
        #expect(machine.command(.calibrate(offsetDB: 90), in: Self.between) == .calibrate(offsetDB: 90, restart: false))
        #expect(machine.command(.start, in: Self.between) == .awaitStart)
        let closed = Situation(scheduleClosed: "22:00-07:00")
        #expect(machine.command(.start, in: closed) == .reply(.waitingForSchedule("22:00-07:00")))
        #expect(machine.wantsSession && !machine.wantsSession(scheduleOpen: false))
        // The device cannot be opened: a start waits for it, a stop ends the wait (once).
        let lost = Situation(deviceError: "no such device")
        #expect(machine.command(.start, in: lost) == .reply(.waitingForDevice("no such device")))
        #expect(machine.command(.stop, in: lost) == .reply(.stopped(session: nil)))
        #expect(!machine.wantsSession)
        #expect(machine.command(.stop, in: lost) == .reply(.refused("nothing to stop: no session is open")))
    }

    @Test func aPauseOutlastsARestartAndAStartClearsIt() {
        var machine = DaemonStateMachine()
        machine.handle(.sessionStarted)
        #expect(machine.command(.pause, in: Self.open) == .setPaused(true))
        machine.handle(.paused)
        // A calibration restarts the session: the next one starts paused.
        #expect(machine.command(.calibrate(offsetDB: 91), in: Self.open) == .calibrate(offsetDB: 91, restart: true))
        machine.handle(.sessionEnded)
        #expect(machine.wantsPause)
        // A stop, then a start: recording again, not paused.
        machine.handle(.sessionStarted)
        #expect(machine.command(.stop, in: Self.open) == .endSession)
        machine.handle(.sessionEnded)
        #expect(machine.command(.start, in: Self.between) == .awaitStart)
        #expect(!machine.wantsPause && machine.wantsSession)
        #expect(machine.sessionMustEnd(shuttingDown: false, scheduleOpen: false) == .scheduleClosed)
    }
}
