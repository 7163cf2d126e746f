import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// Every route of the control socket through a real AF_UNIX socket with curl,
/// against a real daemon (demo source, real SQLite file).
@Suite("Control socket routes", .serialized, .enabled(if: Curl.isAvailable, "curl is not installed"))
struct ControlRouteTests {
    @Test func statusAnswersOverTheUnixSocketWithCurl() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        defer { Task { try? await daemon.stop() } }

        let response = try await daemon.curl("GET", "/v1/status")
        #expect(response.status == 200)
        let status = try response.decode(StatusResponse.self)
        #expect(status.state == "recording")
        #expect(status.session?.id == daemon.daemon.status.sessionId)
        #expect(status.version == FootstepVersion.current)
        #expect(status.device?.name.contains("walking") == true)
        #expect(status.capture.deviceUp)
        // Socket mode 0660 once listening.
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        try await daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func sessionsEventsLevelsAndConfigurationAreServed() async throws {
        let daemon = try APITestDaemon(speed: 8)
        try await daemon.start()
        try await daemon.waitForEvents(12)
        let sessionId = try #require(daemon.daemon.status.sessionId)

        let sessions = try await daemon.curl("GET", "/v1/sessions").decode(SessionListResponse.self)
        #expect(sessions.items.map(\.id) == [sessionId])
        #expect(sessions.items.first?.status == "recording")

        let session = try await daemon.curl("GET", "/v1/sessions/\(sessionId)").decode(SessionResponse.self)
        #expect(session.eventCount >= 12)

        let patched = try await daemon.curl("PATCH", "/v1/sessions/\(sessionId)", body: #"{"title":"Upstairs, week 1","notes":"new neighbours"}"#)
        #expect(patched.status == 200)
        #expect(try patched.decode(SessionResponse.self).title == "Upstairs, week 1")
        #expect(try daemon.database.session(sessionId)?.session.notes == "new neighbours")

        // Events: pages of 5 followed by cursor give every stored event once, in time order.
        let stored = try daemon.database.events(EventFilter(sessionId: sessionId, limit: 10_000)).items
        var seen: [EventResponse] = []
        var cursor: String?
        repeat {
            let query = "/v1/events?session=\(sessionId)&limit=5" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await daemon.curl("GET", query).decode(PageResponse<EventResponse>.self)
            seen += page.items
            cursor = page.nextCursor
        } while cursor != nil && seen.count < 10_000
        // The daemon goes on recording: an event stored since may be earlier than
        // some of those read (a step held for its gait context), so compare the stored ones.
        let storedIds = Set(stored.map { $0.id! })
        #expect(seen.count >= stored.count)
        #expect(seen.map(\.id).filter(storedIds.contains) == stored.map { $0.id! })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })

        // Filters: type, kind, min_confidence, from/to.
        let first = try #require(stored.first)
        let byType = try await daemon.curl(
            "GET", "/v1/events?type=\(first.currentType.rawValue)&kind=\(first.currentKind.rawValue)&limit=1000"
        ).decode(PageResponse<EventResponse>.self)
        #expect(
            !byType.items.isEmpty
                && byType.items.allSatisfy { $0.type == first.currentType && $0.kind == first.currentKind })

        // A revised step: its current type, and `revised_from` the type it was stored with.
        let step = try #require(stored.first { $0.kind == .footstep && $0.currentKind == .footstep })
        let newType = try #require([FootstepType.running, .stomping, .shuffling].first { $0 != step.type && $0 != step.currentType })
        let revision = try daemon.database.reviseTypes(
            [NewTypeRevision(frameOffset: step.frameOffset, type: newType, confidence: 0.77)], sessionId: sessionId,
            reason: "test")
        #expect(revision.count == 1)
        let revised = try await daemon.curl("GET", "/v1/events/\(step.id!)")
        let object = try JSONSerialization.jsonObject(with: revised.body) as? [String: Any]
        #expect(object?["type"] as? String == newType.rawValue)
        #expect(object?["confidence"] as? Double == 0.77)
        #expect(object?["revised_from"] as? String == step.type.rawValue)
        // An event without a revision is served without `revised_from`. The daemon goes on settling
        // events (a decision can revise one seconds after it was stored), so the store is read again
        // after the request: an event still unrevised then was unrevised when it was served.
        var servedUnrevised = false
        for candidate in stored where candidate.id != step.id && candidate.revisionHash == nil {
            let plain = try await daemon.curl("GET", "/v1/events/\(candidate.id!)")
            guard try daemon.database.event(candidate.id!)?.revisionHash == nil else { continue }
            #expect(plain.status == 200 && !plain.text.contains("revised_from"))
            servedUnrevised = true
            break
        }
        #expect(servedUnrevised)
        let confident = try await daemon.curl("GET", "/v1/events?min_confidence=0.9&limit=1000").decode(PageResponse<EventResponse>.self)
        #expect(confident.items.allSatisfy { $0.confidence >= 0.9 })
        let from = APIJSON.formatDate(first.timestamp)
        let to = APIJSON.formatDate(first.timestamp.addingTimeInterval(0.001))
        let window = try await daemon.curl("GET", "/v1/events?from=\(from)&to=\(to)").decode(PageResponse<EventResponse>.self)
        #expect(window.items.map(\.id).contains(first.id!))
        // Timestamps are stored to the millisecond; two parsers may differ in the last bits of a Double.
        #expect(window.items.allSatisfy {
            let offset = $0.timestamp.timeIntervalSince(first.timestamp)
            return offset > -0.0005 && offset < 0.0015
        })

        // One event, its notes, its clip.
        let one = try await daemon.curl("GET", "/v1/events/\(first.id!)").decode(EventResponse.self)
        #expect(one.hash == first.hash)
        let noted = try await daemon.curl("PATCH", "/v1/events/\(first.id!)", body: #"{"notes":"door upstairs"}"#)
        #expect(try noted.decode(EventResponse.self).notes == "door upstairs")
        #expect(try daemon.database.verifyChain().isIntact)
        let clip = try await daemon.curl("GET", "/v1/events/\(first.id!)/clip", extra: ["-D", "-"])
        #expect(clip.status == 200)
        #expect(clip.text.lowercased().contains("content-type: audio/"))
        #expect(clip.body.count > 1000)

        // Levels and bouts (the demo at 8x gives level rows every 7.5 s).
        #expect(await waitUntil(20) { daemon.daemon.status.storedLevels > 0 })
        let levels = try await daemon.curl("GET", "/v1/levels?session=\(sessionId)").decode(PageResponse<LevelMinuteResponse>.self)
        #expect(!levels.items.isEmpty)
        #expect(levels.items.allSatisfy { $0.sessionId == sessionId && $0.seconds > 0 })
        let bouts = try await daemon.curl("GET", "/v1/bouts?from=2000-01-01T00:00:00Z")
        #expect(bouts.status == 200)
        _ = try bouts.decode(PageResponse<BoutResponse>.self)

        // The audio files: the session's current one is open.
        let recordings = try await daemon.curl("GET", "/v1/recordings?session=\(sessionId)").decode([RecordingResponse].self)
        #expect(!recordings.isEmpty)
        #expect(recordings.allSatisfy { $0.session == sessionId })
        #expect(recordings.last?.state == "open")
        #expect(try await daemon.curl("GET", "/v1/recordings?session=999999").status == 404)
        #expect(try await daemon.curl("GET", "/v1/recordings?session=x").status == 400)

        // Configuration without secrets, same keys as the file.
        let configuration = try await daemon.curl("GET", "/v1/config").decode(ConfigurationResponse.self)
        #expect(configuration["paths", "state_dir"] == .text(daemon.stateDirectory))
        #expect(configuration["socket", "path"] == .text(daemon.socketPath))
        #expect(configuration.toml.contains("[capture]"))

        // Metrics from the daemon's own registry.
        let metrics = try await daemon.curl("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("footstepd_uptime_seconds"))
        #expect(metrics.text.contains("footstepd_device_up 1"))
        #expect(metrics.text.contains("footstepd_events_today{type=\""))
        try await daemon.stop()
    }

    @Test func recordingControlAndSessionDeletionRemoveEverything() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(2)
        let first = try #require(daemon.daemon.status.sessionId)

        let paused = try await daemon.curl("POST", "/v1/recording/pause")
        #expect(paused.status == 200)
        #expect(try paused.decode(ActionResponse.self).state == "paused")
        #expect(try await daemon.curl("POST", "/v1/recording/pause").status == 409)
        let resumed = try await daemon.curl("POST", "/v1/recording/resume")
        #expect(try resumed.decode(ActionResponse.self).state == "recording")
        #expect(try await daemon.curl("POST", "/v1/recording/start").status == 409)

        // An open session cannot be deleted.
        let open = try await daemon.curl("DELETE", "/v1/sessions/\(first)")
        #expect(open.status == 409)
        #expect(try open.decode(ErrorResponse.self).error.code == "session_open")

        let stopped = try await daemon.curl("POST", "/v1/recording/stop")
        #expect(stopped.status == 200)
        #expect(try stopped.decode(ActionResponse.self).sessionId == nil)
        #expect(try await daemon.curl("POST", "/v1/recording/stop").status == 409)
        #expect(try await daemon.curl("POST", "/v1/recording/resume").status == 409)
        let started = try await daemon.curl("POST", "/v1/recording/start")
        #expect(started.status == 200)
        let second = try #require(try started.decode(ActionResponse.self).sessionId)
        #expect(second != first)

        let files = try daemon.database.audioFiles(session: first).map(\.path)
        let clips = try daemon.database.events(EventFilter(sessionId: first, limit: 10_000)).items.compactMap(\.clipPath)
            .map(daemon.database.resolve)
        #expect(!files.isEmpty)
        let deleted = try await daemon.curl("DELETE", "/v1/sessions/\(first)")
        #expect(deleted.status == 200)
        let report = try deleted.decode(SessionDeletionResponse.self)
        #expect(report.filesDeleted == files.count + clips.count)
        #expect((files + clips).allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(try daemon.database.session(first) == nil)
        #expect(try daemon.database.events(EventFilter(sessionId: first)).items.isEmpty)
        #expect(try await daemon.curl("GET", "/v1/sessions/\(first)").status == 404)
        #expect(try daemon.database.verifyChain().isIntact)
        // Today's counts lose the deleted session's events (they counted them before).
        let status = try await daemon.curl("GET", "/v1/status").decode(StatusResponse.self)
        let today = Calendar.current.startOfDay(for: Date())
        let stored = try daemon.database.eventCountsByType(from: today, to: today.addingTimeInterval(86_400))
        #expect(status.eventsToday.filter { $0.key != "other" }.values.reduce(0, +) == stored.values.reduce(0, +))
        try await daemon.stop()
    }

    @Test func calibrationIsStoredAndApplied() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        let response = try await daemon.curl(
            "POST", "/v1/calibration", body: #"{"offset_db":93.5,"reference_db":94,"method":"calibrator","reference":"Class 1 calibrator"}"#)
        #expect(response.status == 201)
        let calibration = try response.decode(CalibrationResponse.self)
        #expect(calibration.offsetDB == 93.5)
        #expect(calibration.reference.contains("94.0 dB SPL"))
        #expect(try daemon.database.latestCalibration()?.offsetDB == 93.5)
        #expect(daemon.daemon.configuration.levels.calibrationOffset == 93.5)
        #expect(try await daemon.curl("GET", "/v1/config").decode(ConfigurationResponse.self)["levels", "calibration_offset"]?.number == 93.5)
        try await daemon.stop()
    }
}
