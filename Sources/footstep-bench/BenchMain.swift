import Foundation

/// `footstep-bench [stages|api|report|store] ARGS…`: the in-process benchmarks of
/// `make bench`, one subcommand per area. A first argument that is not a
/// subcommand name is taken as `stages FILE` (the original form).
///
/// Each subcommand is an enum in its own file with
/// `static func run(arguments: [String]) async throws` (a synchronous
/// `throws` function fits as well), `arguments` being what follows the
/// subcommand name:
/// - `stages FILE`: `StageBenchmark` (analysis stage costs, this file's owner),
/// - `api …`: `APILatencyBenchmark` (APILatencyBenchmark.swift),
/// - `report …`: `ReportBenchmark` (ReportBenchmark.swift),
/// - `store …`: `StoreBenchmark` (StoreBenchmark.swift),
/// - `collector …`: `CollectorBenchmark` (the fleet collector, CollectorBenchmark.swift),
/// - `fuzz …`: `SocketFuzz` (hostile requests to a running daemon, SocketFuzz.swift).
@main
struct FootstepBench {
    static let usage = "usage: footstep-bench [stages] FILE | api ARGS… | report ARGS… | store ARGS… | collector [SENSORS] [EVENTS] | fuzz --socket PATH …"

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.first ?? ""
        do {
            switch command {
            case "stages":
                arguments.removeFirst()
                try StageBenchmark.run(arguments: arguments)
            case "report":
                arguments.removeFirst()
                try ReportBenchmark.run(arguments: arguments)
            case "api":
                arguments.removeFirst()
                try await APILatencyBenchmark.run(arguments: arguments)
            case "store":
                arguments.removeFirst()
                try StoreBenchmark.run(arguments: arguments)
            case "collector":
                arguments.removeFirst()
                try await CollectorBenchmark.run(arguments: arguments)
            case "fuzz":
                arguments.removeFirst()
                try SocketFuzz.run(arguments: arguments)
            case "", "-h", "--help", "help":
                print(usage)
            default:
                try StageBenchmark.run(arguments: arguments)
            }
        } catch {
            FileHandle.standardError.write(Data("footstep-bench \(command): \(error)\n".utf8))
            exit(1)
        }
    }
}
