import FootstepClient
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// The built `footstepctl` run as a child process against a real daemon:
/// `--json` output parsed back and compared with the store, human output and
/// exit codes checked.
@Suite("footstepctl control commands", .serialized)
struct FootstepctlCommandTests {
    typealias Run = (status: Int32, stdout: String, stderr: String)

    static func ctl(_ arguments: [String], socket: String?, environment: [String: String] = [:]) throws -> Run {
        var environment = environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = environment["COLUMNS"] ?? "120"
        return try BuiltProduct.run("footstepctl", arguments + (socket.map { ["--socket", $0] } ?? []), environment: environment)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ run: Run) throws -> T {
        #expect(run.status == 0, "stderr: \(run.stderr)")
        return try APIJSON.decoder.decode(type, from: Data(run.stdout.utf8))
    }

    // MARK: - Unavailable daemon

    @Test func noDaemonIsOneLineAndExitCode69() throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("control.sock")
        for arguments in [["status"], ["events", "list", "--json"], ["level", "--once"], ["start"]] {
            let run = try Self.ctl(arguments, socket: path)
            #expect(run.status == 69, "\(arguments)")
            #expect(run.stderr == "footstepctl: footstepd is not running (no socket at \(path))\n")
            #expect(run.stdout.isEmpty)
        }
        // FOOTSTEPD_SOCKET is used when --socket is absent.
        let fromEnvironment = try Self.ctl(["status"], socket: nil, environment: ["FOOTSTEPD_SOCKET": path])
        #expect(fromEnvironment.stderr == "footstepctl: footstepd is not running (no socket at \(path))\n")
    }

    @Test func helpDocumentsTheExitCodesAndSocketOption() throws {
        let run = try Self.ctl(["status", "--help"], socket: nil)
        #expect(run.status == 0)
        #expect(run.stdout.contains("69 footstepd not running"))
        #expect(run.stdout.contains("77 permission denied"))
        #expect(run.stdout.contains("--socket <PATH>"))
        #expect(run.stdout.contains("FOOTSTEPD_SOCKET"))
    }

    @Test func configCheckUsesTheDaemonsLoader() throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let bad = directory.appending("bad.toml")
        try "[detection]\nthreshold = \"high\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try Self.ctl(["config", "check", bad], socket: nil)
        #expect(invalid.status == 78)
        #expect(invalid.stderr.contains("detection.threshold"))
        #expect(invalid.stderr.split(separator: "\n").count == 1)

        let good = directory.appending("good.toml")
        try "[detection]\nthreshold = 1.5\n".write(toFile: good, atomically: true, encoding: .utf8)
        let valid = try Self.ctl(["config", "check", good, "--print"], socket: nil)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.hasPrefix("\(good): valid\n"))
        #expect(valid.stdout.contains("threshold = 1.5"))

        let missing = try Self.ctl(["config", "check", directory.appending("none.toml")], socket: nil)
        #expect(missing.status == 66)
    }

    // MARK: - Against a real daemon

    @Test func statusSessionsAndEventsMatchTheStore() async throws {
        try await APITestDaemon.with { daemon in
            try await daemon.waitForEvents(4)
            let socket = daemon.socketPath
            let database = daemon.database
            let session = try #require(try database.sessions().last?.session)

            let status = try Self.decode(StatusResponse.self, try Self.ctl(["status", "--json"], socket: socket))
            #expect(status.session?.id == session.id)
            let human = try Self.ctl(["status"], socket: socket)
            #expect(human.status == 0)
            #expect(human.stdout.contains("state"))
            #expect(human.stdout.contains("session     \(session.id!)"))
            // "today" counts footsteps apart from other impacts (the daemon records on, so
            // the counts may have grown since the JSON status: only the wording is compared).
            let todayLine = try #require(human.stdout.split(separator: "\n").first { $0.hasPrefix("today") })
            #expect(todayLine.contains("footstep"), "\(todayLine)")
            #expect(!todayLine.contains(" other,") && !todayLine.contains(" other)") && !todayLine.hasSuffix(" other"), "\(todayLine)")

            let sessions = try Self.decode(SessionListResponse.self, try Self.ctl(["sessions", "list", "--json"], socket: socket))
            #expect(sessions.items.map(\.id) == (try database.sessions()).map { $0.session.id! })
            let shown = try Self.decode(SessionResponse.self, try Self.ctl(["sessions", "show", "\(session.id!)", "--json"], socket: socket))
            #expect(shown.id == session.id)

            // Pages of 2 followed up to --limit 4: the same events, in the same order, as the store.
            let listed = try Self.decode(
                PageResponse<EventResponse>.self,
                try Self.ctl(["events", "list", "--session", "\(session.id!)", "--limit", "4", "--page-size", "2", "--json"], socket: socket))
            let stored = try database.events(EventFilter(sessionId: session.id, limit: 4)).items
            #expect(listed.items.count == 4)
            #expect(listed.items.map(\.id) == stored.map { $0.id! })
            #expect(listed.items.map(\.hash) == stored.map(\.hash))

            let footsteps = try Self.decode(
                PageResponse<EventResponse>.self, try Self.ctl(["events", "list", "--kind", "footstep", "--json"], socket: socket))
            #expect(footsteps.items.allSatisfy { $0.kind == .footstep })

            let table = try Self.ctl(["events", "list", "--limit", "3"], socket: socket, environment: ["COLUMNS": "60"])
            #expect(table.status == 0)
            let lines = table.stdout.split(separator: "\n")
            #expect(lines.count == 4)  // header + 3 events
            #expect(lines.allSatisfy { $0.count <= 60 })
            #expect(lines.first?.hasPrefix("ID") == true)

            let event = try #require(stored.first)
            let one = try Self.decode(EventResponse.self, try Self.ctl(["events", "show", "\(event.id!)", "--json"], socket: socket))
            #expect(one.hash == event.hash)
        }
    }

    @Test func editsClipsAndPlayerWork() async throws {
        try await APITestDaemon.with { daemon in
            try await daemon.waitForEvents(2)
            let socket = daemon.socketPath
            let database = daemon.database
            let session = try #require(try database.sessions().last?.session)
            let event = try await daemon.firstEventWithClip()

            let renamed = try Self.ctl(["sessions", "rename", "\(session.id!)", "upstairs, night 1"], socket: socket)
            #expect(renamed.status == 0, "\(renamed.stderr)")
            #expect(try database.session(session.id!)?.session.title == "upstairs, night 1")
            let noted = try Self.ctl(["sessions", "note", "\(session.id!)", "mic on the wardrobe", "--json"], socket: socket)
            #expect(try Self.decode(SessionResponse.self, noted).notes == "mic on the wardrobe")
            let eventNote = try Self.ctl(["events", "note", "\(event.id!)", "loud"], socket: socket)
            #expect(eventNote.status == 0)
            #expect(try database.event(event.id!)?.notes == "loud")

            let directory = try TemporaryDirectory(prefix: "fsctl")
            let file = directory.appending("clip.audio")
            let clip = try Self.ctl(["clip", "\(event.id!)", "-o", file], socket: socket)
            #expect(clip.status == 0, "\(clip.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.starts(with: Array("fLaC".utf8)) || bytes.starts(with: Array("RIFF".utf8)))
            let direct = try await ControlClient(socketPath: socket).clip(event.id!)
            #expect(bytes == direct.data)

            // `play` downloads and runs the player on the file (here `true`, which plays nothing).
            let played = try Self.ctl(["play", "\(event.id!)", "--player", "/bin/true"], socket: socket)
            #expect(played.status == 0, "\(played.stderr)")
            let noPlayer = try Self.ctl(["play", "\(event.id!)", "--player", "no-such-player"], socket: socket)
            #expect(noPlayer.status == 69)
            #expect(noPlayer.stderr.hasPrefix("footstepctl: no audio player found"))

            let missing = try Self.ctl(["events", "show", "99999"], socket: socket)
            #expect(missing.status == 66)
            #expect(missing.stderr.hasPrefix("footstepctl: "))
            #expect(missing.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func liveCommandsPrintReadingsAndEvents() async throws {
        try await APITestDaemon.with { daemon in
            let socket = daemon.socketPath
            let once = try Self.ctl(["level", "--once", "--json"], socket: socket)
            let lines = once.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            let reading = try APIJSON.decoder.decode(LiveLevelReading.self, from: Data((lines.first ?? "").utf8))
            #expect(reading.laeqDB.isFinite)

            let meter = try Self.ctl(["level", "--count", "2"], socket: socket)
            #expect(meter.status == 0)
            #expect(meter.stdout.split(separator: "\n").count == 2)
            #expect(meter.stdout.contains("dB(A) uncalibrated"))
            // No band for a level relative to full scale (it read "silent" at any loudness).
            #expect(LevelBand.allCases.allSatisfy { !meter.stdout.contains("  \($0.rawValue)") }, "\(meter.stdout)")

            let watchedLine = try Self.ctl(["watch", "--count", "1"], socket: socket)
            #expect(watchedLine.stdout.contains(" dB(A) rel. "), "\(watchedLine.stdout)")

            // The new event is the last line: a revision of an earlier one may come first.
            let watched = try Self.ctl(["watch", "--count", "1", "--json"], socket: socket)
            #expect(watched.status == 0, "\(watched.stderr)")
            let last = try #require(watched.stdout.split(separator: "\n").last)
            let event = try APIJSON.decoder.decode(EventResponse.self, from: Data(last.utf8))
            #expect(try daemon.database.event(event.id)?.hash == event.hash)
        }
    }

    /// A revision that changes an event's label reaches `watch` as the same
    /// event again: a `revised` line naming the label before and after, not
    /// counted as a new event.
    @Test func watchShowsRevisedLabels() async throws {
        try await APITestDaemon.with(scenario: "mixed:seed=7,duration=120,snr=15", speed: 8) { daemon in
            let watched = try Self.ctl(["watch", "--count", "60"], socket: daemon.socketPath)
            #expect(watched.status == 0, "\(watched.stderr)")
            let lines = watched.stdout.split(separator: "\n").map(String.init)
            let revised = lines.filter { $0.contains("  revised  ") }
            #expect(lines.count - revised.count == 60, "\(watched.stdout)")
            #expect(!revised.isEmpty, "no revision in \(lines.count) lines")
            print("watch: \(revised.count) revised lines among \(lines.count), first: \(revised.first ?? "-")")
            for line in revised {
                // `12:00:03  #41  revised  other → heel_strike  conf 0.72`: the label now is the store's.
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                let idWord = try #require(words.first { $0.hasPrefix("#") }, "\(line)")
                let id = try #require(Int64(idWord.dropFirst()), "\(line)")
                let arrow = try #require(words.firstIndex(of: "→"), "\(line)")
                let stored = try #require(try daemon.database.event(id))
                #expect(words[arrow - 1] != words[arrow + 1], "\(line)")
                #expect(
                    lines.contains { $0.contains("  #\(id)  ") && !$0.contains("  revised  ") }
                        || words[arrow - 1] == Substring(stored.kind.label(stored.type)),
                    "a revision of an event before the watch began names its stored label: \(line)")
            }
        }
    }

    @Test func diaryEntriesAndMarksAreStoredChainedAndListed() async throws {
        try await APITestDaemon.with { daemon in
            let socket = daemon.socketPath
            let added = try Self.ctl(
                ["diary", "add", "Stomping overhead, woke us up", "--at", "10m ago", "--duration", "2m"], socket: socket)
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.hasPrefix("diary entry 1 written: "))
            #expect(added.stdout.contains(" for 2 min"))
            let marked = try Self.ctl(["mark", "jumping again", "--json"], socket: socket)
            let mark = try Self.decode(DiaryEntryResponse.self, marked)
            #expect(mark.kind == "mark")
            #expect(abs(mark.at.timeIntervalSinceNow) < 10)

            let listed = try Self.decode([DiaryEntryResponse].self, try Self.ctl(["diary", "list", "--json"], socket: socket))
            #expect(listed.map(\.text) == ["Stomping overhead, woke us up", "jumping again"])
            #expect(listed.first?.durationSeconds == 120)
            let human = try Self.ctl(["diary", "list"], socket: socket)
            #expect(human.stdout.contains("MARK jumping again"))

            let database = daemon.database
            #expect(try database.verifyDiary().isIntact)
            #expect(try database.verifyDiary().headHash == mark.hash)

            // Bad input is refused with the parameter named, nothing stored.
            let empty = try Self.ctl(["diary", "add", "  "], socket: socket)
            #expect(empty.status == 64)
            let future = try Self.ctl(["diary", "add", "later", "--at", "2099-01-01 00:00"], socket: socket)
            #expect(future.status == 64)
            #expect(future.stderr.contains("--at must not be in the future"))
            #expect(try database.diaryEntries().count == 2)
        }
    }

    @Test func eventsAreConfirmedRejectedAndRelabelledByIdBoutAndRange() async throws {
        try await APITestDaemon.with { daemon in
            let socket = daemon.socketPath
            try await daemon.waitForEvents(6)
            _ = try Self.ctl(["stop"], socket: socket)
            let database = daemon.database
            let events = try database.events(EventFilter(limit: 10_000)).items
            let ids = events.map { $0.id! }

            let rejected = try Self.ctl(["events", "reject", String(ids[0]), String(ids[1]), "--reason", "a door"], socket: socket)
            #expect(rejected.status == 0, "\(rejected.stderr)")
            #expect(rejected.stdout == "2 events rejected by root\n")
            let relabelled = try Self.decode(
                ReviewResponse.self, try Self.ctl(["events", "relabel", "stomping", String(ids[2]), "--json"], socket: socket))
            #expect(relabelled.reviewed == [ids[2]] && relabelled.verdict == .confirmed && relabelled.reviewerUid == 0)
            // A range: every event with its onset in it, one request.
            let from = APIJSON.formatDate(events[3].timestamp)
            let to = APIJSON.formatDate(events[5].timestamp)
            let range = try Self.ctl(["events", "confirm", "--from", from, "--to", to], socket: socket)
            #expect(range.stdout == "2 events confirmed by root\n", "\(range.stderr)")
            let again = try Self.ctl(["events", "confirm", "--from", from, "--to", to], socket: socket)
            #expect(again.stdout == "0 events confirmed by root; 2 already so\n")

            let listed = try Self.decode(
                PageResponse<EventResponse>.self, try Self.ctl(["events", "list", "--review", "rejected", "--json"], socket: socket))
            #expect(listed.items.map(\.id) == [ids[0], ids[1]])
            #expect(listed.items.allSatisfy { $0.review == .rejected })
            let table = try Self.ctl(["events", "list", "--review", "confirmed"], socket: socket)
            #expect(table.stdout.contains("REVIEW") && table.stdout.contains("confirmed"))
            #expect(try database.event(ids[2])?.currentType == .stomping)

            // Bad targets are refused before anything is sent.
            let none = try Self.ctl(["events", "reject"], socket: socket)
            #expect(none.status == 64 && none.stderr.contains("--bout N, or --from and --to"))
            let both = try Self.ctl(["events", "reject", "1", "--bout", "2"], socket: socket)
            #expect(both.status == 64)
            let unknown = try Self.ctl(["events", "relabel", "unknown", "1"], socket: socket)
            #expect(unknown.status == 64 && unknown.stderr.contains("names a footstep type"))
            let missing = try Self.ctl(["events", "reject", "999999"], socket: socket)
            #expect(missing.status != 0 && missing.stderr.contains("999999"))
            #expect(try database.revisions(ofEvents: ids).filter { $0.verdict != nil }.count == 5)
            #expect(try database.verifyRevisions().isIntact)

            // The reviewed events as a dataset: a clip each, labels as reviewed, a manifest sha256sum accepts.
            let directory = try TemporaryDirectory(prefix: "dataset")
            let output = directory.appending("reviews")
            let exported = try Self.ctl(
                ["dataset", "export", "--reviewed", "-o", output, "--state-dir", daemon.stateDirectory, "--json"], socket: nil)
            #expect(exported.status == 0, "\(exported.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any]
            #expect(summary?["clips"] as? Int == 5 && summary?["rejected"] as? Int == 2)
            let check = try Subprocess.run("/bin/sh", ["-c", "cd \"$0\" && sha256sum --quiet -c MANIFEST.sha256", output])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let labels = try String(contentsOfFile: output + "/labels.csv", encoding: .utf8)
                .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            #expect(labels.count == 6)
            let byEvent = Dictionary(uniqueKeysWithValues: labels.dropFirst().map { ($0[11], $0) })
            #expect(byEvent[String(ids[0])]?[3] == "other:rejected" && byEvent[String(ids[0])]?[9] == "a door")
            #expect(byEvent[String(ids[2])]?[3] == "stomping" && byEvent[String(ids[2])]?[6] == "root")
            for row in labels.dropFirst() {
                let truth = try String(contentsOfFile: output + "/truth/event-\(row[11]).csv", encoding: .utf8)
                #expect(truth.hasSuffix(",\(row[3])\n"))
                let seconds = try Subprocess.run("/usr/bin/soxi", ["-D", output + "/" + row[0]])
                #expect(Double(seconds.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > Double(row[1])!)
            }
            let notEmpty = try Self.ctl(["dataset", "export", "--reviewed", "-o", output, "--state-dir", daemon.stateDirectory], socket: nil)
            #expect(notEmpty.status != 0 && notEmpty.stderr.contains("is not empty"), "\(notEmpty.stderr)")
        }
    }

    @Test func recordingControlAndConfiguration() async throws {
        try await APITestDaemon.with(configurationText: "[detection]\nthreshold = 1.5\n") { daemon in
            let socket = daemon.socketPath
            let paused = try Self.decode(ActionResponse.self, try Self.ctl(["pause", "--json"], socket: socket))
            #expect(paused.state == "paused")
            let resumed = try Self.ctl(["resume"], socket: socket)
            #expect(resumed.status == 0)
            #expect(!resumed.stdout.isEmpty)
            let stopped = try Self.decode(ActionResponse.self, try Self.ctl(["stop", "--json"], socket: socket))
            #expect(stopped.action == "stop")
            let database = daemon.database
            let session = try #require(try database.sessions().last?.session)
            #expect(session.status == .completed)

            // Deleting evidence asks first; without a terminal it needs --yes.
            let unconfirmed = try Self.ctl(["sessions", "delete", "\(session.id!)"], socket: socket)
            #expect(unconfirmed.status == 64)
            #expect(try database.session(session.id!) != nil)
            let deleted = try Self.decode(
                SessionDeletionResponse.self, try Self.ctl(["sessions", "delete", "\(session.id!)", "--yes", "--json"], socket: socket))
            #expect(deleted.sessionId == session.id)
            #expect(try database.session(session.id!) == nil)

            let configuration = try Self.decode(ConfigurationResponse.self, try Self.ctl(["config", "show", "--json"], socket: socket))
            #expect(configuration["detection", "threshold"] == .number(1.5))
            let shown = try Self.ctl(["config", "show"], socket: socket)
            #expect(shown.stdout.contains("threshold = 1.5"))
            let reloaded = try Self.ctl(["config", "reload"], socket: socket)
            #expect(reloaded.status == 0, "\(reloaded.stderr)")
        }
    }

    @Test func calibrationIsRefusedWhenTheLevelFluctuates() async throws {
        // Footsteps over quiet background: far more than 3 dB of LAF range.
        try await APITestDaemon.with(source: .demo(scenario: "stomping:duration=60,seed=3"), speed: 1) { daemon in
            let run = try Self.ctl(["calibrate", "--seconds", "2", "--max-range", "0.5"], socket: daemon.socketPath)
            #expect(run.status == 65)
            #expect(run.stderr.contains("the level varied by"))
            #expect(try daemon.database.latestCalibration() == nil)
        }
    }

    @Test func calibrationOfASteadyToneStoresTheOffset() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let tone = directory.appending("tone.wav")
        try SteadyTone.write(path: tone, seconds: 20, amplitude: 0.1)
        try await APITestDaemon.with(source: .file(path: tone), speed: 1) { daemon in
            let run = try Self.ctl(["calibrate", "--seconds", "2", "--json"], socket: daemon.socketPath)
            let stored = try Self.decode(CalibrationResponse.self, run)
            let calibration = try #require(try daemon.database.latestCalibration())
            #expect(calibration.id == stored.id)
            #expect(abs(calibration.offsetDB - stored.offsetDB) < 1e-9)
            // A 1 kHz sine at 0.1 of full scale reads −20 dB(A) uncalibrated, so 94 after calibration.
            let reading = try APIJSON.decoder.decode(
                LiveLevelReading.self, from: Data(try Self.ctl(["level", "--once", "--json"], socket: daemon.socketPath).stdout.utf8))
            #expect(reading.calibrated)
            #expect(abs(reading.laeqDB - 94) < 1, "calibrated tone reads \(reading.laeqDB) dB")
        }
    }

    // MARK: - Permissions

    @Test(.enabled(if: getuid() == 0 && SetprivRunner.isAvailable, "needs root and setpriv"))
    func aUserWhoCannotOpenTheSocketIsToldWhichGroupToJoin() async throws {
        try await APITestDaemon.with { daemon in
            // The directory is traversable; the socket itself is 0660 root:footstepd.
            chmod(daemon.directory.path, 0o755)
            let run = try SetprivRunner.run(["status", "--socket", daemon.socketPath])
            #expect(run.status == 77, "\(run.stderr)")
            #expect(
                run.stderr
                    == "footstepctl: permission denied on \(daemon.socketPath): join the group `footstepd` (sudo usermod -aG footstepd $USER) or use sudo\n")

            // With the socket opened up, the daemon itself refuses the connection at accept (403:
            // this user may not even read) and names the read group; the recording goes on.
            #expect(await waitUntil(10) { daemon.daemon.status.sessionId != nil }, "no session started")
            chmod(daemon.socketPath, 0o666)
            let forbidden = try SetprivRunner.run(["stop", "--socket", daemon.socketPath])
            #expect(forbidden.status == 77)
            #expect(forbidden.stderr.contains("group 'footstepd'") && forbidden.stderr.contains("usermod -aG footstepd"), "\(forbidden.stderr)")
            #expect(try daemon.database.sessions().last?.session.status == .recording)
        }
    }
}

/// Runs the built footstepctl as the unprivileged user 65534 with no groups.
enum SetprivRunner {
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    static func run(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", BuiltProduct.path("footstepctl")] + arguments)
    }
}

/// A 1 kHz sine WAV (a stand-in for an acoustic calibrator on the microphone).
enum SteadyTone {
    static func write(path: String, seconds: Int, amplitude: Double, rate: Int = 16000) throws {
        let frames = seconds * rate
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + frames * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(UInt16(1)); append(UInt32(rate)); append(UInt32(rate * 2))
        append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(frames * 2))
        for n in 0..<frames {
            append(Int16((amplitude * 32767 * sin(2 * Double.pi * 1000 * Double(n) / Double(rate))).rounded()))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
