/// Why a session ends: said in the journal and stored with the session (`session.endReason`), so that
/// a report names the stretch until the next session instead of leaving it unexplained.
enum SessionEnd: Sendable, Equatable {
    /// `footstepctl stop` or `POST /v1/stop`.
    case stopCommand
    /// footstepd itself stops (`systemctl stop`, SIGTERM, SIGINT).
    case shutdown
    /// The monitoring schedule's window closed.
    case scheduleClosed
    /// A new calibration applies: the next session measures with it.
    case calibrationChanged
    /// A file or a synthetic scenario came to its end.
    case sourceEnded
    /// The capture thread stopped on an error.
    case captureFailed(String)

    /// The reason in words a reader of the report understands.
    var reason: String {
        switch self {
        case .stopCommand: "stopped on request (footstepctl stop)"
        case .shutdown: "footstepd stopped (systemctl stop or a signal)"
        case .scheduleClosed: "the monitoring window closed (monitoring schedule)"
        case .calibrationChanged: "the calibration changed; the next session measures with it"
        case .sourceEnded: "the audio source ended"
        case let .captureFailed(error): "capture failed: \(error)"
        }
    }
}
