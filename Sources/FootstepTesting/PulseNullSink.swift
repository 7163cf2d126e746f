import Foundation

/// A real, clocked capture device without a sound card: a private
/// PulseAudio server with a null sink, captured from its monitor through
/// ALSA's `pulse` plugin. Killing the server is what unplugging a USB
/// microphone looks like to ALSA (`snd_pcm_readi` fails with -EIO).
public final class PulseNullSink: @unchecked Sendable {
    /// The ALSA PCM name defined by `configurationText`.
    public let pcmName = "footstepdroom"
    public let directory: TemporaryDirectory
    private var process: Process?

    /// True when the `pulseaudio` binary is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") }

    public init(sampleRate: Int = 16000) throws {
        directory = try TemporaryDirectory(prefix: "footstepd-pulse")
        chmod(directory.path, 0o700)
        let script = """
            load-module module-native-protocol-unix
            load-module module-null-sink sink_name=room rate=\(sampleRate) channels=1
            set-default-source room.monitor
            """
        try script.write(toFile: directory.appending("room.pa"), atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// The ALSA configuration text defining `pcmName`.
    public var configurationText: String {
        """
        pcm.\(pcmName) {
            type pulse
            server "unix:\(directory.path)/pulse/native"
            device "room.monitor"
        }
        """
    }

    /// Starts the server and waits (up to 10 s) until its socket accepts clients.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pulseaudio")
        process.arguments = [
            "--daemonize=no", "-n", "-F", directory.appending("room.pa"), "--exit-idle-time=-1",
            "--log-target=file:\(directory.appending("pulse.log"))",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["HOME"] = directory.path
        process.environment = environment
        try process.run()
        self.process = process
        let socket = directory.appending("pulse/native")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }
        usleep(200_000)
        guard FileManager.default.fileExists(atPath: socket) else {
            stop()
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: socket])
        }
    }

    /// Kills the server at once (SIGKILL), like a device vanishing.
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
        try? FileManager.default.removeItem(atPath: directory.appending("pulse"))
    }
}
