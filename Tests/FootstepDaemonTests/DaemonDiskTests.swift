import FootstepAudio
import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import Testing

/// A small tmpfs, mounted for the test when we may (root with CAP_SYS_ADMIN):
/// a real file system that really fills up.
final class SmallFileSystem {
    let path: String

    /// Mounts a tmpfs of `bytes` at `directory/fs`, or returns nil when mounting is not allowed.
    init?(in directory: String, bytes: Int) {
        path = "\(directory)/fs"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard getuid() == 0, mount("tmpfs", path, "tmpfs", 0, "size=\(bytes)") == 0 else { return nil }
    }

    deinit { umount2(path, Int32(MNT_DETACH)) }

    var freeBytes: Int64 {
        var info = statvfs()
        statvfs(path, &info)
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Fills the file system until `leaving` bytes are free; returns the filler's path.
    func fill(leaving bytes: Int64) throws -> String {
        let filler = "\(path)/filler"
        let size = max(0, freeBytes - bytes)
        let descriptor = open(filler, O_CREAT | O_WRONLY, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 64 * 1024)
        var written: Int64 = 0
        while written < size {
            let count = write(descriptor, chunk, Int(min(Int64(chunk.count), size - written)))
            guard count > 0 else { break }
            written += Int64(count)
        }
        return filler
    }
}

@Suite("Daemon disk: reserve, full disk, retention", .serialized)
struct DaemonDiskTests {
    static let canMount: Bool = {
        let directory = NSTemporaryDirectory() + "/footstepd-mount-probe-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return SmallFileSystem(in: directory, bytes: 1 << 20) != nil
    }()

    @Test(.enabled(if: canMount, "needs root to mount a tmpfs"))
    func belowTheReserveAudioStopsEventsGoOnAndAudioResumesWhenSpaceReturns() async throws {
        let directory = try TemporaryDirectory()
        let fs = try #require(SmallFileSystem(in: directory.path, bytes: 12 << 20))
        let state = "\(fs.path)/state"
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav  // 32 kB/s at 16 kHz
        configuration.retention.minimumFreeBytes = 3 << 20
        configuration.retention.maximumAudioBytes = 0
        configuration.recording.clipBefore = 0.5
        configuration.recording.clipAfter = 0.5
        var options = DaemonOptions(stateDirectory: state, speed: 10)
        options.diskCheckInterval = 0.1
        let filler = try fs.fill(leaving: (3 << 20) + (600 << 10))
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "stomping:seed=12,duration=80"), options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }

        // 600 kB above the reserve at 320 kB/s: low within a few seconds.
        #expect(await waitUntil(5) { daemon.status.diskLow })
        let low = daemon.status
        #expect(!low.audioWriting)
        #expect(low.lastError?.contains("below the reserve") == true)
        #expect(low.line.contains("disk space low"))
        #expect((low.diskFreeBytes ?? .max) < 3 << 20)
        let eventsWhenLow = low.storedEvents
        #expect(await waitUntil(3) { daemon.status.storedEvents > eventsWhenLow + 3 })

        unlink(filler)
        #expect(await waitUntil(2) { !daemon.status.diskLow && daemon.status.audioWriting })
        try await running.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count >= 2)
        // Audio stopped for a while: a hole of seconds between two files.
        let holes = zip(files, files.dropFirst()).map { $1.startFrame - ($0.startFrame + $0.frames) }
        #expect((holes.max() ?? 0) >= 16000, "\(holes)")
        // ... recorded as a gap with its cause, from the end of one file to the start of the next.
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count >= 1)
        #expect(gaps.allSatisfy { $0.reason == "audio not written: free disk space below the reserve" })
        if let gap = gaps.first, let before = files.last(where: { $0.startedAt < gap.startedAt }),
            let after = files.first(where: { $0.startedAt >= gap.endedAt.addingTimeInterval(-0.01) })
        {
            #expect(abs(gap.startedAt.timeIntervalSince(before.endsAt)) < 0.2)
            #expect(abs(gap.endedAt.timeIntervalSince(after.startedAt)) < 0.2)
        }
        #expect(files.allSatisfy { DaemonTestSupport.decodedFrames($0.path) == $0.frames })
        // Events of the stretch without audio are stored, without an audio file; the
        // others have their clips.
        let events = try DaemonTestSupport.events(database, session: session.id!)
        let unfiled = events.filter { $0.audioFileId == nil }
        #expect(unfiled.count >= 3)
        #expect(events.filter { $0.clipPath != nil }.count >= events.count / 3)
        #expect(try database.verifyChain().isIntact)
    }

    @Test(.enabled(if: canMount, "needs root to mount a tmpfs"))
    func aFullDiskSuspendsAudioWritingUntilSpaceReturns() async throws {
        let directory = try TemporaryDirectory()
        let fs = try #require(SmallFileSystem(in: directory.path, bytes: 8 << 20))
        let state = "\(fs.path)/state"
        // Start the store first, so the database exists before the disk fills.
        _ = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav
        configuration.retention.minimumFreeBytes = 0  // no reserve: the write itself fails (ENOSPC)
        configuration.recording.clipBefore = 0.5
        configuration.recording.clipAfter = 0.5
        var options = DaemonOptions(stateDirectory: state, speed: 10)
        options.audioRetryInterval = 0.2
        options.diskCheckInterval = 0.2
        let filler = try fs.fill(leaving: 900 << 10)
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "stomping:seed=13,duration=60"), options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }

        #expect(await waitUntil(5) { !daemon.status.audioWriting })
        #expect(daemon.status.lastError?.contains("cannot write audio file") == true)
        unlink(filler)
        #expect(await waitUntil(3) { daemon.status.audioWriting })
        // The error is over: status no longer shows it.
        #expect(daemon.status.lastError == nil)
        try await running.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try DaemonTestSupport.integrityCheck(database) == "ok")
        let session = try #require(try database.sessions().first?.session)
        #expect(session.status == .completed)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count >= 2)
        #expect(files.allSatisfy { $0.closedAt != nil })
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count >= 1)
        #expect(gaps.allSatisfy { $0.reason.hasPrefix("audio not written: cannot write audio file") }, "\(gaps.map(\.reason))")
        // The file written after the space returned is complete.
        let last = try #require(files.last)
        #expect(DaemonTestSupport.decodedFrames(last.path) == last.frames)
        #expect(last.frames > 16000)
    }

    /// The disk full at a stop: what the store refused goes to the pending journal (the daemon's reserve makes
    /// room for it), the stop says so and reports it; the next start stores every one of those events into its
    /// session, and removes the journal.
    @Test(.enabled(if: canMount, "needs root to mount a tmpfs"))
    func eventsTheStoreRefusedAtAStopAreKeptAndStoredAtTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        let fs = try #require(SmallFileSystem(in: directory.path, bytes: 10 << 20))
        var filler = ""
        try await Self.keepWhatTheStoreRefusesAtAStop(
            state: "\(fs.path)/state", seed: 14,
            refuse: { state in
                #expect(FileManager.default.fileExists(atPath: "\(state)/\(PendingJournal.reserveName)"))
                filler = try fs.fill(leaving: 0)
            },
            allow: { _ in try FileManager.default.removeItem(atPath: filler) })
    }

    /// Whether this machine can make a file immutable (`chattr +i`: root, on a file system with the flag, such
    /// as ext4): writes through descriptors already open then fail too, as a chmod does not stop for root.
    static let canMakeImmutable: Bool = {
        let directory = NSTemporaryDirectory() + "/footstepd-chattr-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = "\(directory)/probe"
        guard FileManager.default.createFile(atPath: file, contents: Data()), (try? chattr("+i", [file])) == true else {
            return false
        }
        return (try? chattr("-i", [file])) == true
    }()

    @discardableResult
    static func chattr(_ flag: String, _ paths: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag] + paths
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// The database file made read-only under a running footstepd (immutable, with its write-ahead log): the
    /// events it refuses are kept in the pending journal at the stop and stored at the next start.
    @Test(.enabled(if: canMakeImmutable, "needs root and a file system with chattr +i (ext4)"))
    func eventsAReadOnlyDatabaseRefusedAreKeptAndStoredAtTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        var frozen: [String] = []
        defer { if !frozen.isEmpty { _ = try? Self.chattr("-i", frozen) } }
        try await Self.keepWhatTheStoreRefusesAtAStop(
            state: directory.appending("state"), seed: 15,
            refuse: { state in
                frozen = ["\(state)/footstepd.db", "\(state)/footstepd.db-wal"]
                    .filter { FileManager.default.fileExists(atPath: $0) }
                #expect(frozen.count == 2, "the database is in WAL mode")
                let made = try Self.chattr("+i", frozen)
                #expect(made)
            },
            allow: { _ in
                let undone = try Self.chattr("-i", frozen)
                #expect(undone)
                frozen = []
            })
    }

    /// Runs footstepd on `state` until it has stored a few events, makes its store refuse every write
    /// (`refuse`), stops it, and checks that what was refused is in the pending journal, said at the stop;
    /// then gives the store back (`allow`) and checks that the next start stores all of it and removes the journal.
    static func keepWhatTheStoreRefusesAtAStop(
        state: String, seed: Int, refuse: (String) throws -> Void, allow: (String) throws -> Void
    ) async throws {
        _ = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        var configuration = DaemonConfiguration()
        configuration.retention.minimumFreeBytes = 0
        configuration.recording.clipBefore = 0
        configuration.recording.clipAfter = 0
        var options = DaemonOptions(stateDirectory: state, speed: 20)
        options.audioRetryInterval = 60
        let collector = LogCollector()
        let logger = Logger(label: "footstepd-test") { _ in collector }
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "stomping:seed=\(seed),duration=600"), options: options,
            logger: logger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(10) { daemon.status.storedEvents > 2 })
        // From now on no event can be written.
        try refuse(state)
        #expect(await waitUntil(10) {
            collector.entries.contains { $0.message.hasPrefix("cannot store") && $0.message.contains("events") }
        })
        await group.triggerGracefulShutdown()
        try await running.value

        let kept = try #require(
            collector.entries.first { $0.metadata["footstep.journaled_events"] != nil }, "no journal line says what was kept")
        #expect(kept.level == .critical && kept.message.contains("pending.jsonl"))
        #expect(!collector.entries.contains { $0.message.contains("could not be stored and are lost") })
        let journaled = Int(kept.metadata["footstep.journaled_events"] ?? "") ?? 0
        #expect(journaled > 0)
        #expect(daemon.recordsLeftAside >= journaled)
        let journal = PendingJournal(directory: state)
        let pending = try journal.read()
        #expect(pending.events.count == journaled && pending.damaged == 0)

        // The store again; the next start stores them first.
        try allow(state)
        let session = try #require(pending.events.first?.sessionId)
        let before = try FootstepDatabase.open(path: "\(state)/footstepd.db").events(EventFilter(sessionId: session, limit: 10_000)).items
        let again = LogCollector()
        let (nextGroup, next) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=2,duration=5"), options: options,
            logger: Logger(label: "footstepd-test") { _ in again }, handleSignals: false, controlSocket: false)
        try await nextGroup.run()
        #expect(next.recordsLeftAside == 0)
        #expect(again.entries.contains { $0.metadata["footstep.replayed_events"] == "\(journaled)" })
        #expect(!journal.exists)
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let after = try database.events(EventFilter(sessionId: session, limit: 10_000)).items
        #expect(after.count == before.count + journaled, "\(after.map { ($0.frameOffset, $0.notes) })")
        // Each once: start-up recovery, which reanalyses the end of a session whose end the store refused,
        // finds the replayed events already stored.
        let offsets = Set(after.map(\.frameOffset))
        #expect(offsets.count == after.count, "an event stored twice")
        #expect(pending.events.allSatisfy { offsets.contains($0.frameOffset) })
        #expect(try database.verifyChain().isIntact)
    }

    @Test func retentionDeletesTheOldestAudioButNeverClips() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav
        configuration.recording.rollInterval = 1
        configuration.retention.maximumAudioBytes = 100_000  // about 3 s of 16 kHz WAV
        configuration.retention.minimumFreeBytes = 0
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=14,duration=12"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        try await group.run()
        // A later start applies retention to what the last session left.
        let (again, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=15,duration=1"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        try await again.run()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let files = try database.audioFiles(session: session.id!)
        let pruned = files.filter { $0.prunedAt != nil }
        let kept = files.filter { $0.prunedAt == nil }
        #expect(!pruned.isEmpty)
        // Oldest first: every pruned file is older than every kept one.
        #expect(pruned.map(\.startedAt).max()! < kept.map(\.startedAt).min()!)
        for file in pruned {
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(file.sha256 != nil)
        }
        #expect(try database.retainedAudioBytes() <= 100_000)
        #expect(kept.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        // Clips survive, unchanged.
        let events = try DaemonTestSupport.events(database, session: session.id!)
        #expect(events.count > 5)
        for event in events {
            let path = database.resolve(try #require(event.clipPath))
            #expect(event.clipSha256 == (try FileChecksum.sha256(ofFileAt: path)))
        }
        // Deleting the session hands back every clip and audio path to remove.
        let deletion = try database.deleteSession(session.id!)
        #expect(Set(deletion.clipPaths) == Set(events.compactMap(\.clipPath).map(database.resolve)))
        #expect(Set(deletion.audioPaths) == Set(files.map(\.path)))
    }

    @Test func aMarkKeepsItsOwnClipAndRetentionThenDeletesTheFullFiles() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav
        configuration.recording.bitDepth = .pcm24
        configuration.recording.rollInterval = 1
        configuration.retention.maximumAudioBytes = 0
        configuration.retention.minimumFreeBytes = 0
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=14,duration=12"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        try await group.run()
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count >= 10)
        // recording.bit_depth reaches the files and the event clips.
        #expect(files.allSatisfy { AudioSampleEncoding(ofFileAt: $0.path) == .pcm24 })
        let clipPaths = try DaemonTestSupport.events(database, session: session.id!).compactMap(\.clipPath).map(database.resolve)
        #expect(!clipPaths.isEmpty)
        #expect(clipPaths.allSatisfy { AudioSampleEncoding(ofFileAt: $0) == .pcm24 })
        // A mark 6 s into the session: its window (±60 s) holds the whole 12 s.
        let mark = try database.addDiaryEntry(.mark, at: session.startedAt.addingTimeInterval(6), text: "now")
        #expect(try database.retainedAudioFiles().isEmpty)

        // The next start cuts the clip, then retention (now 100 kB) may delete the full files.
        configuration.retention.maximumAudioBytes = 100_000
        let (again, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=15,duration=1"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        try await again.run()

        let entry = try #require(try database.diaryEntries().first { $0.id == mark.id })
        #expect(entry.clipPath == "clips/marks/mark-\(mark.id!).wav", "stored relative to the state directory")
        let path = database.resolve(try #require(entry.clipPath))
        #expect(path.hasSuffix("/clips/marks/mark-\(mark.id!).wav"))
        #expect(entry.clipSha256 == (try FileChecksum.sha256(ofFileAt: path)))
        #expect(AudioSampleEncoding(ofFileAt: path) == .pcm24, "the mark's clip keeps the recording's bit depth")
        let clip = try AudioFileSource(path: path)
        let seconds = Double(try #require(clip.frameCount)) / Double(clip.format.sampleRate)
        let recorded = Double(files.reduce(0) { $0 + $1.frames }) / 16_000
        #expect(abs(seconds - recorded) < 0.1, "the clip holds \(seconds) s of the \(recorded) s recorded")
        #expect(try database.marksAwaitingClip().isEmpty)
        #expect(try database.audioFiles(session: session.id!).contains { $0.prunedAt != nil })
        #expect(try database.verifyEvidence().isIntact)

        // An altered mark clip is caught.
        try Data("not the clip".utf8).write(to: URL(fileURLWithPath: path))
        let report = try database.verifyEvidence()
        #expect(report.fileProblems.map(\.file.kind) == [.markClip])
        #expect(report.description.contains("clip of diary mark \(mark.id!) was altered"))
    }
}
