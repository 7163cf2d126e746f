import FootstepTesting
import Foundation
import Testing

/// The scheduled report units (`footstepd-report.service` + `.timer`) pass
/// `systemd-analyze verify` without warnings, run the right command, fire daily after
/// the night (and catch up after downtime), and the service is at least as tightly
/// sandboxed as the daemon.
@Suite("scheduled report units")
struct ReportUnitTests {
    static let systemd = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd")

    static func unit(_ name: String) throws -> String {
        try String(contentsOf: systemd.appendingPathComponent(name), encoding: .utf8)
    }

    /// Values of `key=` in a unit (all occurrences, in order).
    static func values(_ key: String, in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            line.hasPrefix(key + "=") ? String(line.dropFirst(key.count + 1)) : nil
        }
    }

    /// Copies both units into `directory` with ExecStart's binary replaced by /bin/true
    /// (verify fails when the binary does not exist).
    static func staged(in directory: TemporaryDirectory) throws -> (service: String, timer: String) {
        var paths: [String] = []
        for name in ["footstepd-report.service", "footstepd-report.timer"] {
            let text = try unit(name).replacingOccurrences(of: "/usr/local/bin/footstepctl", with: "/bin/true")
            let path = directory.appending(name)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        return (paths[0], paths[1])
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try SystemdUnitTests.run(arguments)
        return (result.status, result.output)
    }

    @Test func bothUnitsPassSystemdAnalyzeVerifyWithoutWarnings() throws {
        let directory = try TemporaryDirectory()
        let (service, timer) = try Self.staged(in: directory)
        let result = try Self.run(["systemd-analyze", "verify", service, timer])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "systemd-analyze printed warnings: \(result.output)")
    }

    @Test func aTypoInTheServiceIsCaughtByTheSameCheck() throws {
        // The check above can fail: systemd-analyze exits 0 on unknown keys but prints them.
        let directory = try TemporaryDirectory()
        let (service, _) = try Self.staged(in: directory)
        let broken = try String(contentsOfFile: service, encoding: .utf8)
            .replacingOccurrences(of: "Type=oneshot", with: "Type=oneshott")
        try broken.write(toFile: service, atomically: true, encoding: .utf8)
        let result = try Self.run(["systemd-analyze", "verify", service])
        #expect(!result.output.isEmpty)
    }

    @Test func theServiceWritesLastNightsPDFAndHTMLAndKeepsTheLastReports() throws {
        let text = try Self.unit("footstepd-report.service")
        #expect(Self.values("Type", in: text) == ["oneshot"])
        let execStart = try #require(Self.values("ExecStart", in: text).first)
        let words = execStart.split(separator: " ").map(String.init)
        #expect(words.first == "/usr/local/bin/footstepctl")
        #expect(words.dropFirst().first == "report")
        func option(_ name: String) -> String? {
            words.firstIndex(of: name).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
        }
        #expect(option("--period") == "last-night")
        #expect(option("--format") == "pdf,html")
        // Quiet hours, address, notes, directory and keep come from the configuration.
        #expect(option("--config") == "/etc/footstepd/footstepd.toml")
        #expect(option("--output") == nil)
        #expect(Self.values("StateDirectory", in: text) == ["footstepd footstepd/reports"])
        #expect(Self.values("User", in: text) == ["footstepd"])
        #expect(Self.values("ProtectSystem", in: text) == ["strict"])
        #expect(Self.values("PrivateNetwork", in: text) == ["yes"])
    }

    @Test func thePruneStepDeletesOnlyClipsOlderThan30Days() throws {
        let directory = try TemporaryDirectory()
        let prunes = Self.values("ExecStartPost", in: try Self.unit("footstepd-report.service"))
        #expect(prunes.count == 1)
        // "-": a failing prune does not fail the report.
        let prune = try #require(prunes.first)
        #expect(prune.hasPrefix("-/usr/bin/find /var/lib/footstepd/reports "))
        #expect(prune.contains(" -mtime +30") && prune.hasSuffix(" -delete"))
        let old = ["clips/event-12.flac"]
        let recent = ["footstep-report-2026-11-20-night.pdf", "notes.txt", "clips/event-900.flac"]
        try FileManager.default.createDirectory(atPath: directory.appending("clips"), withIntermediateDirectories: true)
        for name in old + recent + ["footstep-report-2026-10-01-night.pdf"] {
            try "x".write(toFile: directory.appending(name), atomically: true, encoding: .utf8)
        }
        let longAgo = Date().addingTimeInterval(-40 * 86_400)
        for name in old + ["footstep-report-2026-10-01-night.pdf"] {
            try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: directory.appending(name))
        }
        let arguments = String(prune.dropFirst()).replacingOccurrences(of: "/var/lib/footstepd/reports", with: directory.path)
            .split(separator: " ").map(String.init)
        let result = try Self.run(arguments)
        #expect(result.status == 0, "\(prune): \(result.output)")
        // Reports themselves are pruned by `footstepctl report` ([reports] keep), not by age.
        let left = try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted()
        #expect(left == (recent + ["footstep-report-2026-10-01-night.pdf", "clips"]).sorted())
        // A report folder without clips (PDF only) is not an error.
        try FileManager.default.removeItem(atPath: directory.appending("clips"))
        #expect(try Self.run(arguments).status == 0)
    }

    @Test func theTimerFiresDailyAfterTheNightAndCatchesUpAfterDowntime() throws {
        let text = try Self.unit("footstepd-report.timer")
        #expect(Self.values("Persistent", in: text) == ["true"])
        #expect(Self.values("Unit", in: text) == ["footstepd-report.service"])
        #expect(Self.values("WantedBy", in: text) == ["timers.target"])
        let calendar = try #require(Self.values("OnCalendar", in: text).first)
        let result = try Self.run(["systemd-analyze", "calendar", calendar])
        #expect(result.status == 0, "\(result.output)")
        // Normalised form: every day at 08:30, i.e. after the default quiet hours (23:00-07:00).
        #expect(result.output.contains("Normalized form: *-*-* 08:30:00"), "\(result.output)")
    }

    @Test func theReportServiceExposureIsAtMost1() throws {
        let directory = try TemporaryDirectory()
        let (service, _) = try Self.staged(in: directory)
        let result = try Self.run(["systemd-analyze", "security", "--offline=true", service])
        let line = result.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect(score != nil, "no exposure line in: \(result.output)")
        #expect((score ?? 10) <= 1.0, "\(line)")
    }
}
