import FootstepAPI
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// Authorisation from SO_PEERCRED with a real unprivileged client (curl run
/// through `setpriv` as nobody:nogroup with no supplementary groups).
@Suite(
    "Control socket access control", .serialized,
    .enabled(if: Curl.isAvailable && Curl.canDropPrivileges, "needs root, setpriv and curl"))
struct ControlAccessTests {
    /// Every route that changes state, with a body where it needs one.
    static func stateChangingRoutes(session: Int64, event: Int64) -> [(String, String, String?)] {
        [
            ("POST", "/v1/recording/start", nil), ("POST", "/v1/recording/pause", nil),
            ("POST", "/v1/recording/resume", nil), ("POST", "/v1/recording/stop", nil),
            ("PATCH", "/v1/sessions/\(session)", #"{"title":"hacked","notes":"hacked"}"#),
            ("DELETE", "/v1/sessions/\(session)", nil),
            ("PATCH", "/v1/events/\(event)", #"{"notes":"hacked"}"#),
            ("POST", "/v1/config/reload", nil),
            ("POST", "/v1/calibration", #"{"offset_db":10,"method":"hack"}"#),
            ("POST", "/v1/reviews", #"{"action":"reject","events":[\#(event)],"reason":"hacked"}"#),
        ]
    }

    /// Makes the temporary directory traversable so nobody can reach the socket.
    static func openDirectories(_ daemon: APITestDaemon) {
        chmod(daemon.directory.path, 0o755)
    }

    @Test func aReaderOutsideTheAdminGroupGets403OnEveryStateChangingRouteAndNothingChanges() async throws {
        // The read group is nobody's primary group: the socket is connectable and reads are allowed.
        let daemon = try APITestDaemon(configure: { $0.socket.readGroup = "nogroup" })
        Self.openDirectories(daemon)
        try await daemon.start()
        try await daemon.waitForEvents(2)
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_gid == 65534)

        let status = try await daemon.curl("GET", "/v1/status", asNobody: true)
        #expect(status.status == 200)
        #expect(try await daemon.curl("GET", "/v1/events?limit=5", asNobody: true).status == 200)

        // Freeze the data: stop (as root), then compare before and after.
        #expect(try await daemon.curl("POST", "/v1/recording/stop").status == 200)
        let session = try #require(try daemon.database.sessions().last)
        let sessionId = session.session.id!
        let events = try daemon.database.events(EventFilter(limit: 10_000)).items
        let event = try #require(events.first)
        let calibrations = try daemon.database.calibrations()
        let state = daemon.daemon.status.state

        for (method, path, body) in Self.stateChangingRoutes(session: sessionId, event: event.id!) {
            let response = try await daemon.curl(method, path, body: body, asNobody: true)
            #expect(response.status == 403, "\(method) \(path)")
            let detail = try response.decode(ErrorResponse.self).error
            #expect(detail.code == "forbidden")
            #expect(detail.message.contains("footstepd-test-none"), "\(detail.message)")
        }
        #expect(try daemon.database.sessions().last == session)
        #expect(try daemon.database.events(EventFilter(limit: 10_000)).items == events)
        #expect(try daemon.database.calibrations() == calibrations)
        #expect(daemon.daemon.status.state == state)
        #expect(daemon.daemon.status.sessionId == nil)
        #expect(FileManager.default.fileExists(atPath: try daemon.database.audioFiles(session: sessionId)[0].path))

        // Root may do the same.
        #expect(try await daemon.curl("PATCH", "/v1/events/\(event.id!)", body: #"{"notes":"ok"}"#).status == 200)
        try await daemon.stop()
    }

    @Test func aPeerOutsideBothGroupsCannotEvenRead() async throws {
        let daemon = try APITestDaemon(configure: { $0.socket.readGroup = "users" })
        Self.openDirectories(daemon)
        try await daemon.start(waitForRecording: false)
        // Let every local user connect: the credentials still decide.
        chmod(daemon.socketPath, 0o666)
        for path in ["/v1/status", "/v1/events", "/v1/sessions", "/metrics", "/v1/config"] {
            let response = try await daemon.curl("GET", path, asNobody: true)
            #expect(response.status == 403, "\(path)")
            #expect(try response.decode(ErrorResponse.self).error.message.contains("'users'"))
        }
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        try await daemon.stop()
    }

    @Test func membersOfTheAdminGroupMayChangeState() async throws {
        let daemon = try APITestDaemon(configure: {
            $0.socket.readGroup = "nogroup"
            $0.socket.adminGroup = "nogroup"
        })
        Self.openDirectories(daemon)
        try await daemon.start()
        let response = try await daemon.curl("POST", "/v1/recording/pause", asNobody: true)
        #expect(response.status == 200)
        #expect(daemon.daemon.status.state == .paused)
        try await daemon.stop()
    }

    /// A review names the peer the kernel vouches for: nobody (uid 65534), an admin here, rejects a bout and
    /// relabels an event; the store keeps that uid and name, the listing filters by it, and the counts drop.
    @Test func aReviewIsStoredUnderThePeersUidAndName() async throws {
        let daemon = try APITestDaemon(configure: {
            $0.socket.readGroup = "nogroup"
            $0.socket.adminGroup = "nogroup"
        })
        Self.openDirectories(daemon)
        try await daemon.start()
        try await daemon.waitForEvents(4)
        // Three footsteps to review: the walk's first impacts may be other impacts, and a
        // footstep reported at once may be settled as one later.
        let footsteps = EventFilter(kind: .footstep, limit: 10_000)
        #expect(await waitUntil(30) { ((try? daemon.database.events(footsteps).items.count) ?? 0) >= 8 })
        #expect(try await daemon.curl("POST", "/v1/recording/stop").status == 200)
        let events = try daemon.database.events(footsteps).items
        try #require(events.count >= 3, "\(events.count) footsteps stored")
        let ids = events.prefix(3).map { $0.id! }.sorted()

        let rejected = try await daemon.curl(
            "POST", "/v1/reviews", body: #"{"action":"reject","events":[\#(ids[0]),\#(ids[1])],"reason":"the radio"}"#,
            asNobody: true)
        #expect(rejected.status == 200, "\(String(decoding: rejected.body, as: UTF8.self))")
        let answer = try rejected.decode(ReviewResponse.self)
        #expect(answer.reviewed == [ids[0], ids[1]] && answer.reviewerUid == 65534 && answer.reviewer == "nobody")
        let relabel = try await daemon.curl(
            "POST", "/v1/reviews", body: #"{"action":"relabel","type":"shuffling","events":[\#(ids[2])]}"#, asNobody: true)
        #expect(relabel.status == 200)

        let stored = try daemon.database.revisions(ofEvents: ids).filter { $0.verdict != nil }
        #expect(stored.map(\.reviewerUid) == [65534, 65534, 65534])
        #expect(stored.map(\.reviewer) == ["nobody", "nobody", "nobody"])
        #expect(stored.map(\.reason) == ["the radio", "the radio", ""])
        let listed = try await daemon.curl("GET", "/v1/events?review=rejected", asNobody: true)
        #expect(try listed.decode(PageResponse<EventResponse>.self).items.map(\.id) == [ids[0], ids[1]])
        #expect(try daemon.database.event(ids[2])?.currentType == .shuffling)
        #expect(try daemon.database.verifyRevisions().isIntact)

        // A malformed review is refused, naming what is wrong, and stores nothing.
        for (body, names) in [
            (#"{"action":"relabel","events":[\#(ids[0])]}"#, "type"),
            (#"{"action":"delete","events":[\#(ids[0])]}"#, "action"),
            (#"{"action":"reject","events":[\#(ids[0])],"bout":3}"#, "exactly one target"),
            (#"{"action":"reject","events":[999999]}"#, "999999"),
        ] {
            let response = try await daemon.curl("POST", "/v1/reviews", body: body)
            #expect((400..<500).contains(response.status), "\(body)")
            #expect(try response.decode(ErrorResponse.self).error.message.contains(names), "\(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(try daemon.database.revisions(ofEvents: ids).filter { $0.verdict != nil }.count == 3)
        try await daemon.stop()
    }

    /// Group membership is looked up for every request: a process that holds
    /// the group (a login after `gpasswd -a`) may act, one that dropped its
    /// groups may not, and removing the user from the group takes effect at once
    /// even for a process that still holds it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/groupadd"), "needs groupadd"))
    func aMembershipChangeTakesEffectAtTheNextRequest() async throws {
        let group = "fsd-test-\(getpid() % 100_000)"
        func run(_ tool: String, _ arguments: [String]) throws {
            let result = try Subprocess.run(tool, arguments)
            #expect(result.status == 0, "\(tool) \(arguments): \(result.stderr)")
        }
        try run("/usr/sbin/groupadd", [group])
        defer { try? run("/usr/sbin/groupdel", [group]) }
        let daemon = try APITestDaemon(configure: {
            $0.socket.readGroup = "nogroup"
            $0.socket.adminGroup = group
        })
        Self.openDirectories(daemon)
        try await daemon.start()
        #expect(try await daemon.curl("POST", "/v1/recording/pause", asNobody: true).status == 403)
        try run("/usr/bin/gpasswd", ["-a", "nobody", group])
        let gid = try #require(AccessPolicy.gid(named: group))
        // Added, but this process dropped its groups (setpriv --clear-groups): not an admin.
        #expect(try await daemon.curl("POST", "/v1/recording/pause", asNobody: true).status == 403)
        // A process that holds the group (as a new login would) is.
        #expect(try await daemon.curl("POST", "/v1/recording/pause", asNobody: true, groups: [gid]).status == 200)
        try run("/usr/bin/gpasswd", ["-d", "nobody", group])
        // Removed from the group: refused at once, though the process still holds it.
        #expect(try await daemon.curl("POST", "/v1/recording/resume", asNobody: true, groups: [gid]).status == 403)
        try await daemon.stop()
    }
}
