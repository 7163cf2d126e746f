import FootstepAPI
import FootstepCore
import FootstepStore
import FootstepWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The socket's routes in process (HummingbirdTesting's router framework, no
/// socket, no daemon) over a real SQLite store: statuses, JSON error bodies,
/// paging and writes. Peer credentials, connection limits and the daemon's own
/// backend are tested on the live socket (`ControlAccessTests`,
/// `ControlConnectionGuardTests`, `ControlRouteTests`).
@Suite("Control routes in process")
struct ControlRouterTests {
    static func detail(_ response: TestResponse) throws -> ErrorResponse.Detail {
        try response.decode(ErrorResponse.self).error
    }

    @Test func malformedRequestsGetJSONErrorsNamingTheProblem() async throws {
        let backend = try StoreBackend()
        let (sessionId, events) = try backend.addSession(events: 3)
        try await backend.application().test(.router) { client in
            func send(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil) async throws -> TestResponse {
                try await client.execute(
                    uri: uri, method: method, headers: body == nil ? [:] : [.contentType: "application/json"],
                    body: body.map { ByteBuffer(string: $0) })
            }

            // Unknown route and wrong method.
            let unknown = try await send(.get, "/v1/nothing")
            #expect(unknown.status == .notFound)
            #expect(try Self.detail(unknown).code == "not_found")
            let wrongMethod = try await send(.delete, "/v1/status")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers[.allow]?.contains("GET") == true)
            #expect(try await send(.put, "/v1/sessions/1").status == .methodNotAllowed)
            #expect(try await send(.get, "/v1/recording/start").status == .methodNotAllowed)

            // Bad query values name the parameter.
            for (query, parameter) in [
                ("limit=abc", "limit"), ("limit=0", "limit"), ("limit=100000", "limit"), ("type=dancing", "type"),
                ("kind=x", "kind"), ("from=yesterday", "from"), ("min_confidence=2", "min_confidence"),
                ("cursor=zzz", "cursor"), ("session=-1", "session"), ("colour=red", "colour"),
                ("from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z", "to"),
            ] {
                let response = try await send(.get, "/v1/events?\(query)")
                #expect(response.status == .badRequest, "\(query)")
                let detail = try Self.detail(response)
                #expect(detail.code == "bad_parameter")
                #expect(detail.message.contains("'\(parameter)'"), "\(query): \(detail.message)")
            }
            // Cursors whose arithmetic used to trap the daemon (SIGILL), on every paged route.
            for route in ["/v1/events", "/v1/levels", "/v1/bouts"] {
                for cursor in [
                    "9223372036854775807.1", "-9223372036854775808.1", "253402300800000.1", "-1.1", "1.9223372036854775808",
                ] {
                    let response = try await send(.get, "\(route)?cursor=\(cursor)")
                    #expect(response.status == .badRequest, "\(route)?cursor=\(cursor)")
                    #expect(try Self.detail(response).message.contains("'cursor'"), "\(route)?cursor=\(cursor)")
                }
            }
            #expect(try await send(.get, "/v1/levels?to=soon").status == .badRequest)
            #expect(try await send(.get, "/v1/bouts?limit=-3").status == .badRequest)
            #expect(try await send(.get, "/v1/events/abc").status == .badRequest)

            // Missing resources.
            #expect(try await send(.get, "/v1/sessions/999999").status == .notFound)
            #expect(try await send(.get, "/v1/events/999999").status == .notFound)
            #expect(try await send(.get, "/v1/events/999999/clip").status == .notFound)
            #expect(try await send(.patch, "/v1/events/999999", body: #"{"notes":"x"}"#).status == .notFound)
            #expect(try await send(.delete, "/v1/sessions/999999").status == .notFound)
            let noClip = try await send(.get, "/v1/events/\(events[0])/clip")
            #expect(noClip.status == .notFound)
            #expect(try Self.detail(noClip).code == "clip_unavailable")

            // Bodies: not JSON, wrong shape, too large, control characters.
            let notJSON = try await send(.patch, "/v1/sessions/\(sessionId)", body: "{title")
            #expect(notJSON.status == .badRequest)
            #expect(try Self.detail(notJSON).code == "bad_body")
            #expect(try await send(.patch, "/v1/sessions/\(sessionId)", body: "{}").status == .badRequest)
            #expect(try await send(.patch, "/v1/sessions/\(sessionId)", body: #"{"title":5}"#).status == .badRequest)
            let missing = try await send(.patch, "/v1/events/\(events[0])", body: #"{"note":"typo"}"#)
            #expect(missing.status == .badRequest)
            #expect(try Self.detail(missing).message.contains("notes"))
            let huge = "{\"notes\":\"" + String(repeating: "a", count: 200_000) + "\"}"
            let tooLarge = try await send(.patch, "/v1/events/\(events[0])", body: huge)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try Self.detail(tooLarge).code == "body_too_large")
            #expect(try await send(.patch, "/v1/sessions/\(sessionId)", body: #"{"title":"a\u0007b"}"#).status == .badRequest)
            #expect(try await send(.post, "/v1/calibration", body: #"{"offset_db":"loud","method":"x"}"#).status == .badRequest)
            #expect(try await send(.post, "/v1/calibration", body: #"{"offset_db":500,"method":"x"}"#).status == .badRequest)
            #expect(try await send(.post, "/v1/calibration", body: #"{"offset_db":90,"method":" "}"#).status == .badRequest)

            // A refused action and a reload without a file are conflicts with the daemon's reason.
            let pause = try await send(.post, "/v1/recording/pause")
            #expect(pause.status == .conflict)
            #expect(try Self.detail(pause).message == "not recording")
            let reload = try await send(.post, "/v1/config/reload")
            #expect(reload.status == .conflict)
            #expect(try Self.detail(reload).message.contains("no --config"))
        }
        // Nothing malformed reached the store: only the two writes to rows that do not
        // exist ran (and found nothing); the session and its events are as stored.
        #expect(backend.log.withLock { $0.writes } == 2)
        #expect(backend.log.withLock { $0.calibrations }.isEmpty)
        #expect(try backend.store.session(sessionId)?.session.title == "upstairs")
        #expect(try backend.store.events(ids: events).allSatisfy { $0.notes.isEmpty })
    }

    @Test func pagesFollowTheCursorOverEveryEventOnceAndFiltersUseTheCurrentType() async throws {
        let backend = try StoreBackend()
        let (sessionId, ids) = try backend.addSession(events: 25)
        // The bout typer turns the first heel strike into a stomp.
        let first = try #require(try backend.store.event(ids[0]))
        _ = try backend.store.reviseTypes(
            [NewTypeRevision(frameOffset: first.frameOffset, type: .stomping, confidence: 0.7)], sessionId: sessionId,
            reason: "bout typer")
        try await backend.application().test(.router) { client in
            var seen: [Int64] = []
            var uri = "/v1/events?session=\(sessionId)&limit=7"
            var pages = 0
            while true {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let page = try response.decode(PageResponse<EventResponse>.self)
                seen += page.items.map(\.id)
                pages += 1
                guard let cursor = page.nextCursor, pages < 10 else { break }
                uri = "/v1/events?session=\(sessionId)&limit=7&cursor=\(cursor)"
            }
            #expect(seen == ids)
            #expect(pages == 4)

            let stomps = try await client.execute(uri: "/v1/events?type=stomping", method: .get)
                .decode(PageResponse<EventResponse>.self).items
            // Indices 1, 5, 9 … 21 were stored as stomps (6), and index 0 became one.
            #expect(stomps.count == 7)
            #expect(stomps.first?.id == ids[0])
            #expect(stomps.first?.revisedFrom == "heel_strike")
            #expect(stomps.dropFirst().allSatisfy { $0.revisedFrom == nil })

            let one = try await client.execute(uri: "/v1/events/\(ids[0])", method: .get).decode(EventResponse.self)
            #expect(one.type == .stomping)
            #expect(one.confidence == 0.7)
            #expect(one.hash == first.hash)
        }
    }

    @Test func editsAndDeletionsGoThroughTheBackendsWriter() async throws {
        let backend = try StoreBackend()
        let (sessionId, ids) = try backend.addSession(events: 5)
        try await backend.application().test(.router) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let renamed = try await client.execute(
                uri: "/v1/sessions/\(sessionId)", method: .patch, headers: json,
                body: ByteBuffer(string: #"{"title":"bedroom ceiling","notes":"after the tenant's letter"}"#))
            #expect(renamed.status == .ok)
            #expect(try renamed.decode(SessionResponse.self).title == "bedroom ceiling")
            let noted = try await client.execute(
                uri: "/v1/events/\(ids[2])", method: .patch, headers: json, body: ByteBuffer(string: #"{"notes":"the loud one"}"#))
            #expect(try noted.decode(EventResponse.self).notes == "the loud one")
            // A session still recording is not deleted; once it has ended, it is.
            let open = try await client.execute(uri: "/v1/sessions/\(sessionId)", method: .delete)
            #expect(open.status == .conflict)
            #expect(try Self.detail(open).code == "session_open")
            try backend.store.endSession(sessionId, at: Date(timeIntervalSince1970: 1_740_870_000))
            let deleted = try await client.execute(uri: "/v1/sessions/\(sessionId)", method: .delete)
            #expect(try deleted.decode(SessionDeletionResponse.self).eventsDeleted == 5)
            let gone = try await client.execute(uri: "/v1/sessions/\(sessionId)", method: .get)
            #expect(gone.status == .notFound)
        }
        #expect(backend.log.withLock { $0.writes } == 4)
        #expect(try backend.store.session(sessionId) == nil)
        #expect(try backend.store.verifyChain().isIntact)
    }

    @Test func aMarkWithoutATimeLandsOnTheRecordingsClock() async throws {
        let backend = try StoreBackend()
        try await backend.application().test(.router) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let mark = ByteBuffer(string: #"{"kind":"mark","text":""}"#)
            // Not recording: now.
            let idle = try await client.execute(uri: "/v1/diary", method: .post, headers: json, body: mark)
            #expect(idle.status == .created)
            #expect(abs(try idle.decode(DiaryEntryResponse.self).at.timeIntervalSinceNow) < 10)
            // Recording a night replayed at speed: the time of the audio captured last.
            let replayed = Date(timeIntervalSince1970: 1_764_021_600)  // 2025-11-24 22:00 UTC
            backend.recordingClock.withLock { $0 = replayed }
            let recording = try await client.execute(uri: "/v1/diary", method: .post, headers: json, body: mark)
            #expect(abs(try recording.decode(DiaryEntryResponse.self).at.timeIntervalSince(replayed)) < 0.002)
            // A time given wins.
            let given = try await client.execute(
                uri: "/v1/diary", method: .post, headers: json,
                body: ByteBuffer(string: #"{"kind":"note","text":"door","at":"2025-11-24T21:00:00Z"}"#))
            #expect(try given.decode(DiaryEntryResponse.self).at == replayed.addingTimeInterval(-3600))
        }
        #expect(try backend.store.diaryEntries().map(\.kind) == [.note, .mark, .mark])
    }

    @Test func routesThatNeedTheStoreAnswer503UntilItIsOpen() async throws {
        let backend = try StoreBackend(storeOpen: false)
        try await backend.application().test(.router) { client in
            for uri in ["/v1/events", "/v1/sessions", "/v1/levels", "/v1/events/1"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .serviceUnavailable, "\(uri)")
                #expect(try Self.detail(response).code == "starting", "\(uri)")
            }
            #expect(try await client.execute(uri: "/v1/status", method: .get).status == .ok)
            let action = try await client.execute(uri: "/v1/recording/start", method: .post)
            #expect(try action.decode(ActionResponse.self).state == "recording")
        }
        #expect(backend.log.withLock { $0.actions } == [.start])
    }
}
