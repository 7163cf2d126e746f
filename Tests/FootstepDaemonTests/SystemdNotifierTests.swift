import FootstepDaemon
import FootstepTesting
import Foundation
import Logging
import Testing

/// NOTIFY_SOCKET and WATCHDOG_* are process-wide: these tests run one at a time.
@Suite("sd_notify through a real datagram socket", .serialized)
struct SystemdNotifierTests {
    @Test func readyStatusWatchdogAndStoppingArriveVerbatim() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(directory: directory.path)
        setenv("NOTIFY_SOCKET", socket.path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        let notifier = SystemdNotifier()
        #expect(notifier.isEnabled)
        notifier.ready(status: "recording; 0 events today")
        #expect(socket.receive(timeout: 2) == "READY=1\nMAINPID=\(getpid())\nSTATUS=recording; 0 events today")
        notifier.watchdog()
        #expect(socket.receive(timeout: 2) == "WATCHDOG=1")
        notifier.status("line one\nline two")
        #expect(socket.receive(timeout: 2) == "STATUS=line one line two")
        notifier.stopping()
        #expect(socket.receive(timeout: 2) == "STOPPING=1")
    }

    @Test func withoutNotifySocketNothingIsSentAndNothingFails() {
        unsetenv("NOTIFY_SOCKET")
        let notifier = SystemdNotifier()
        #expect(!notifier.isEnabled)
        notifier.ready()
        notifier.watchdog()
    }

    @Test func theWatchdogIntervalComesFromTheEnvironment() {
        setenv("WATCHDOG_USEC", "3000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer {
            unsetenv("WATCHDOG_USEC")
            unsetenv("WATCHDOG_PID")
        }
        #expect(SystemdNotifier().watchdogInterval == .seconds(3))
        setenv("WATCHDOG_PID", "1", 1)
        #expect(SystemdNotifier().watchdogInterval == nil)
    }
}

@Suite("journald field names")
struct JournalLogHandlerTests {
    @Test func metadataKeysBecomeJournalFieldNames() {
        #expect(JournalLogHandler.journalFieldName("footstep.type") == "FOOTSTEP_TYPE")
        #expect(JournalLogHandler.journalFieldName("footstep.level_dba") == "FOOTSTEP_LEVEL_DBA")
        #expect(JournalLogHandler.journalFieldName("_private") == "PRIVATE")
        #expect(JournalLogHandler.journalFieldName("1st") == "F1ST")
    }

    /// journald is used only when stderr is the very stream `JOURNAL_STREAM` names.
    @Test func journalStreamMustNameTheDescriptorItself() throws {
        let directory = try TemporaryDirectory()
        let first = open(directory.appending("a"), O_CREAT | O_WRONLY, 0o600)
        let second = open(directory.appending("b"), O_CREAT | O_WRONLY, 0o600)
        defer { close(first); close(second) }
        var info = stat()
        #expect(fstat(first, &info) == 0)
        let stream = "\(info.st_dev):\(info.st_ino)"
        #expect(JournalLogHandler.descriptor(first, isJournalStream: stream))
        #expect(!JournalLogHandler.descriptor(second, isJournalStream: stream))
        #expect(!JournalLogHandler.descriptor(first, isJournalStream: "\(info.st_dev)"))
        #expect(!JournalLogHandler.descriptor(first, isJournalStream: "x:\(info.st_ino)"))
        #expect(!JournalLogHandler.descriptor(-1, isJournalStream: stream))
    }
}
