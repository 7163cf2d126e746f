import Foundation

/// Runs an executable of this package from the build directory the test
/// bundle lives in (`swift build --build-tests` builds them all).
public enum BuiltProduct {
    /// The absolute path of the product `name` next to the running test bundle.
    public static func path(_ name: String) -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent(name).path
    }

    /// Runs `name arguments…` and returns its exit status, stdout and stderr.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(name))
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently so a full pipe never blocks the child.
        nonisolated(unsafe) var errorData = Data()
        let reader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
