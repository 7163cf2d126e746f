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

    /// Runs `name arguments…` with this process's environment plus `environment`
    /// and returns its exit status, stdout and stderr.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try Subprocess.run(
            path(name), arguments, environment: ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 })
        return (result.status, result.stdout, result.stderr)
    }
}
