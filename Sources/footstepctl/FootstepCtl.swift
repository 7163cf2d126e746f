import ArgumentParser
import FootstepCore

@main
struct FootstepCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footstepctl",
        abstract: "Control footstepd and analyse recordings of footsteps and impact noise.",
        discussion: """
            footstepd listens to a microphone, detects and classifies footsteps and other \
            impact noise, and keeps the evidence. footstepctl talks to it, and can analyse \
            audio files or make synthetic test recordings without a running daemon.

            Examples:
              footstepctl analyze night.flac
              footstepctl analyze --format csv --output results/ *.wav
              footstepctl synth --scenario night --duration 10m -o night.flac --truth night.csv
            """,
        version: FootstepVersion.current,
        subcommands: [Analyze.self, Synth.self, Report.self, Devices.self]
            // Control commands (talk to footstepd over its socket).
            + [Status.self, Start.self, Stop.self, Pause.self, Resume.self, Sessions.self, Events.self]
            + [Clip.self, Play.self, Level.self, Watch.self, Config.self, Calibrate.self, Diary.self, Mark.self, UI.self]
            // Evidence: export, import, bundle, verify, recordings.
            + [Export.self, Import.self, Bundle.self, Verify.self, Recordings.self]
            // The reviewed events as training data.
            + [Dataset.self]
    )

    /// `footstepctl --socket PATH status` as well as `footstepctl status --socket PATH`.
    @OptionGroup(title: "Connection", visibility: .hidden) var connection: ConnectionOptions
}
