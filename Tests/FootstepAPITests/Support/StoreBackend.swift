@testable import FootstepAPI
import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization

/// A ``ControlBackend`` over a real SQLite store in a temporary directory, for
/// router tests that need no capture: reads go to the store, writes run on the
/// caller's task (one test, one writer) and are counted, recording actions are
/// answered from a small state of their own. The daemon's own backend
/// (`DaemonControlBackend`) is tested on the live socket.
final class StoreBackend: ControlBackend {
    let directory: TemporaryDirectory
    let store: FootstepDatabase
    let storeOpen: Bool
    let liveLevels = LiveBroadcast<LiveLevelReading>()
    let liveEvents = LiveBroadcast<EventRecord>()
    /// Writes run through ``write(_:)``, and recording actions asked for.
    let log = Mutex<(writes: Int, actions: [RecordingAction], calibrations: [Double])>((0, [], []))

    /// - Parameter storeOpen: false answers as a daemon that has not opened its store yet.
    init(storeOpen: Bool = true) throws {
        directory = try TemporaryDirectory()
        store = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        self.storeOpen = storeOpen
    }

    var database: FootstepDatabase? { storeOpen ? store : nil }

    /// What ``recordingTime()`` answers: nil, as when not recording, unless a test sets it.
    let recordingClock = Mutex<Date?>(nil)
    func recordingTime() -> Date? { recordingClock.withLock { $0 } }

    func status() throws -> StatusResponse {
        StatusResponse(
            state: "idle", version: FootstepVersion.current, uptimeSeconds: 1,
            capture: .init(capturedFrames: 0, overruns: 0, xruns: 0, deviceUp: false),
            storage: .init(diskFreeBytes: nil, audioBytes: nil, audioWriting: false))
    }

    func perform(_ action: RecordingAction) async throws -> ActionResponse {
        log.withLock { $0.actions.append(action) }
        guard action == .start else { throw APIError.conflict("not recording") }
        return ActionResponse(action: action.rawValue, state: "recording", sessionId: nil, message: "started")
    }

    func configuration() -> ConfigurationResponse { ConfigurationResponse(DaemonConfiguration(), path: nil) }

    func reloadConfiguration() async throws -> ActionResponse {
        throw APIError.conflict("footstepd runs on built-in defaults (no --config file): there is nothing to reload")
    }

    func write<Result: Sendable>(_ body: @escaping @Sendable (FootstepDatabase) throws -> Result) async throws -> Result {
        guard storeOpen else { throw APIError.unavailable("starting", "the evidence store is not open yet") }
        log.withLock { $0.writes += 1 }
        return try body(store)
    }

    func applyCalibration(offsetDB: Double) async throws { log.withLock { $0.calibrations.append(offsetDB) } }

    func clip(for event: EventRecord) async throws -> ClipFile? { nil }

    /// The socket's routes without peer-credential checks (those need a real
    /// socket: `ControlAccessTests`), in an application for `test(.router)`.
    func application() -> some ApplicationProtocol {
        var logger = Logger(label: "router-test")
        logger.logLevel = .critical
        let server = ControlServer(configuration: ControlServerConfiguration(socketPath: "/nonexistent"), backend: self, logger: logger)
        return Application(router: server.makeRouter(routes: server.allRoutes, authorize: false), logger: logger)
    }

    /// A session of `count` footsteps 0.7 s apart from 2025-03-01 22:00 UTC,
    /// cycling through the four types; returns the session and the events' ids.
    func addSession(events count: Int, title: String = "upstairs") throws -> (session: Int64, events: [Int64]) {
        let start = Date(timeIntervalSince1970: 1_740_866_400)
        let session = try store.createSession(
            startedAt: start, device: "hw:1,0", sampleRate: 16_000, timeZone: "Europe/London", title: title)
        let types: [FootstepType] = [.heelStrike, .stomping, .running, .shuffling]
        let events = (0..<count).map { index in
            let frame = Int64(index) * 16_000 * 7 / 10
            return NewEvent(
                sessionId: session.id!, audioFileId: nil, frameOffset: frame,
                timestamp: NewEvent.timestamp(anchor: start, frameOffset: frame, sampleRate: 16_000),
                measurements: EventMeasurements(
                    duration: 0.12, kind: .footstep, type: types[index % types.count], confidence: 0.8,
                    intensity: .medium, laMax: 45, lcMax: 55, peakDBFS: -20, sel: 40, backgroundLA: 30))
        }
        return (session.id!, try store.appendEvents(events))
    }
}

extension TestResponse {
    /// The body's text.
    var text: String { String(buffer: body) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try APIJSON.decoder.decode(type, from: Data(text.utf8)) }
}
