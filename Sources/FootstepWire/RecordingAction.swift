/// The recording actions of `POST /v1/recording/{action}`.
public enum RecordingAction: String, Sendable, CaseIterable {
    case start, pause, resume, stop
}
