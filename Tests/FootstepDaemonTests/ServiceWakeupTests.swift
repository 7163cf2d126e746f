import Foundation
import Testing

@testable import FootstepDaemon

@Suite struct ServiceWakeupTests {
    @Test func aSignalBeforeTheWaitEndsItAtOnceOnce() async {
        let wakeup = ServiceWakeup()
        wakeup.signal()
        wakeup.signal()
        let clock = ContinuousClock()
        let first = await clock.measure { await wakeup.wait(until: .now + .seconds(10)) }
        #expect(first < .seconds(1))
        // Signals coalesce: the second wait runs to its deadline.
        let second = await clock.measure { await wakeup.wait(until: .now + .milliseconds(200)) }
        #expect(second >= .milliseconds(200))
        #expect(second < .seconds(5))
    }

    @Test func aSignalFromAnotherThreadEndsTheWait() async {
        let wakeup = ServiceWakeup()
        Thread {
            Thread.sleep(forTimeInterval: 0.1)
            wakeup.signal()
        }.start()
        let elapsed = await ContinuousClock().measure { await wakeup.wait(until: .now + .seconds(10)) }
        #expect(elapsed >= .milliseconds(90))
        #expect(elapsed < .seconds(5))
    }

    @Test func aLateTimerOfAnEarlierWaitDoesNotEndTheNextOne() async {
        let wakeup = ServiceWakeup()
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            wakeup.signal()
        }.start()
        await wakeup.wait(until: .now + .milliseconds(150))
        // The first wait's timer (150 ms) fires during this one and must not end it.
        let elapsed = await ContinuousClock().measure { await wakeup.wait(until: .now + .milliseconds(400)) }
        #expect(elapsed >= .milliseconds(400))
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let wakeup = ServiceWakeup()
        let task = Task { await wakeup.wait(until: .now + .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let elapsed = await ContinuousClock().measure { await task.value }
        #expect(elapsed < .seconds(5))
    }

    @Test func sessionTimersAreDueOncePerPeriod() {
        let start = ContinuousClock.now
        var timers = SessionTimers(
            flush: .seconds(1), watchdog: nil, status: .seconds(10), housekeeping: .milliseconds(250), now: start)
        #expect(timers.next == start + .milliseconds(250))
        func due(_ chore: SessionTimers.Chore, _ at: Duration) -> Bool { timers.due(chore, at: start + at) }
        #expect(!due(.flush, .milliseconds(900)))
        #expect(due(.flush, .seconds(1)))
        #expect(!due(.flush, .milliseconds(1500)))
        #expect(due(.flush, .seconds(2)))
        #expect(!due(.watchdog, .seconds(60)))  // no watchdog configured
        #expect(due(.housekeeping, .milliseconds(300)))
        #expect(timers.next == start + .milliseconds(550))
    }
}
