import FootstepTesting
import Foundation
import Testing

/// The shipped units pass `systemd-analyze verify` (with ExecStart pointed at a
/// binary that exists here) and the service's exposure rating is at most 2.5.
@Suite("systemd unit files")
struct SystemdUnitTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `arguments` through env(1); its stdout and stderr, one after the other.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try Subprocess.run("/usr/bin/env", arguments, environment: ProcessInfo.processInfo.environment)
        return (result.status, result.stdout + result.stderr)
    }

    /// Copies the units into `directory`, with every ExecStart binary replaced by /bin/true.
    static func staged(in directory: TemporaryDirectory) throws -> [String] {
        let units = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("systemd").path)
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".timer") }
        var paths: [String] = []
        for unit in units.sorted() {
            var text = try String(contentsOf: repository.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
            text = text.replacingOccurrences(of: "/usr/local/bin/footstepd", with: "/bin/true")
                .replacingOccurrences(of: "/usr/local/bin/footstepctl", with: "/bin/true")
                .replacingOccurrences(of: "/usr/local/bin/footstep-collector", with: "/bin/true")
            let path = directory.appending(unit)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        return paths
    }

    @Test func unitsPassSystemdAnalyzeVerifyWithoutWarnings() throws {
        let directory = try TemporaryDirectory()
        let units = try Self.staged(in: directory)
        #expect(units.contains { $0.hasSuffix("footstepd.service") })
        let result = try Self.run(["systemd-analyze", "verify"] + units)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "systemd-analyze printed warnings: \(result.output)")
    }

    @Test func theServiceAllowsTheControlSocketAndALoopbackMetricsPort() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("systemd/footstepd.service"), encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("RuntimeDirectory=footstepd"))  // /run/footstepd/control.sock
        #expect(lines.contains("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"))
        #expect(lines.contains("IPAddressDeny=any"))
        #expect(lines.contains("IPAddressAllow=localhost"))  // metrics on loopback only
    }

    /// `make install` / `make uninstall` into a staging root (DESTDIR): the layout,
    /// units pointing at PREFIX, a configuration kept when it exists, a clean removal.
    @Test func installAndUninstallScriptsStageEverythingAndKeepAnEditedConfiguration() throws {
        let directory = try TemporaryDirectory()
        let bin = directory.appending("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in ["footstepd", "footstepctl"] {
            try "#!/bin/sh\n".write(toFile: "\(bin)/\(tool)", atomically: true, encoding: .utf8)
            chmod("\(bin)/\(tool)", 0o755)
        }
        let root = directory.appending("root")
        let install = Self.repository.appendingPathComponent("scripts/install.sh").path
        let uninstall = Self.repository.appendingPathComponent("scripts/uninstall.sh").path
        let environment = ["DESTDIR=\(root)", "PREFIX=/usr"]
        let first = try Self.run(environment + ["bash", install, bin])
        #expect(first.status == 0, "\(first.output)")
        for path in [
            "usr/bin/footstepd", "usr/bin/footstepctl", "usr/lib/systemd/system/footstepd.service",
            "usr/lib/sysusers.d/footstepd.conf", "usr/lib/tmpfiles.d/footstepd.conf", "etc/footstepd/footstepd.toml",
            "usr/lib/systemd/system/footstep-collector.service",
            "usr/share/doc/footstepd/README.md",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(root)/\(path)"), "\(path) not installed")
        }
        let unit = try String(contentsOfFile: "\(root)/usr/lib/systemd/system/footstepd.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/footstepd "))
        #expect(first.output.contains("no users created, systemd not reloaded"))

        let config = "\(root)/etc/footstepd/footstepd.toml"
        try "[detection]\nthreshold = 2.0\n".write(toFile: config, atomically: true, encoding: .utf8)
        let second = try Self.run(environment + ["bash", install, bin])
        #expect(second.status == 0, "\(second.output)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "[detection]\nthreshold = 2.0\n")
        #expect(FileManager.default.fileExists(atPath: config + ".default"))

        let removed = try Self.run(environment + ["bash", uninstall])
        #expect(removed.status == 0, "\(removed.output)")
        var left: [String] = []
        if let walker = FileManager.default.enumerator(atPath: root) {
            while let path = walker.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory), !isDirectory.boolValue {
                    left.append(path)
                }
            }
        }
        #expect(left == ["etc/footstepd/footstepd.toml"], "left behind: \(left)")
    }

    /// The real binaries installed into a staging root find the model there, not in the build tree
    /// (SwiftPM's `Bundle.module` trapped when it was gone); without it `--check-config` says so and exits 78.
    @Test(.enabled(if: DaemonTestSupport.footstepdPath != nil, "footstepd is not built"))
    func theInstalledDaemonFindsItsModelWithoutTheBuildTree() throws {
        let directory = try TemporaryDirectory()
        let built = (DaemonTestSupport.footstepdPath! as NSString).deletingLastPathComponent
        let root = directory.appending("root")
        let environment = ["DESTDIR=\(root)", "PREFIX=/usr"]
        let install = try Self.run(environment + ["bash", Self.repository.appendingPathComponent("scripts/install.sh").path, built])
        #expect(install.status == 0, "\(install.output)")
        let model = "\(root)/usr/share/footstepd/footstep-model.json"
        #expect(FileManager.default.fileExists(atPath: model))
        let check = [
            "\(root)/usr/bin/footstepd", "--check-config", "--config", "\(root)/etc/footstepd/footstepd.toml",
            "--state-dir", directory.appending("state"), "--socket", directory.appending("control.sock"),
        ]
        let found = try Self.run(check)
        #expect(found.status == 0, "\(found.output)")
        let walk = directory.appending("walk.wav")
        let synth = try Self.run(["\(root)/usr/bin/footstepctl", "synth", "--scenario", "walking", "--duration", "5", "-o", walk])
        #expect(synth.status == 0, "\(synth.output)")
        let analysed = try Self.run(["\(root)/usr/bin/footstepctl", "analyze", walk])
        #expect(analysed.status == 0, "\(analysed.output)")
        #expect(analysed.output.contains("heel_strike") || analysed.output.contains("footstep"), "\(analysed.output)")

        try FileManager.default.removeItem(atPath: model)
        let missing = try Self.run(check)
        #expect(missing.status == 78, "\(missing.output)")
        #expect(missing.output.contains("detection.model_path") && missing.output.contains("not installed"))
    }

    /// `make deb`'s packaging (here from the debug build, the Swift runtime allowed, uncompressed): Debian's
    /// layout, the configuration a conffile, Depends worked out from the libraries, maintainer scripts that create
    /// the user and leave the service disabled, and binaries that run from the extracted tree.
    @Test(.enabled(
        if: DaemonTestSupport.footstepdPath != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-deb"),
        "footstepd is not built, or dpkg-deb is missing"))
    func theDebianPackageHasDebiansLayoutAndItsBinariesRun() throws {
        let directory = try TemporaryDirectory()
        let built = (DaemonTestSupport.footstepdPath! as NSString).deletingLastPathComponent
        let made = try Self.run([
            "ALLOW_SWIFT_RUNTIME=1", "DEB_COMPRESSION=none", "bash",
            Self.repository.appendingPathComponent("scripts/make-deb.sh").path, built, directory.appending("dist"),
        ])
        #expect(made.status == 0, "\(made.output)")
        let package = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(package.hasSuffix("_amd64.deb") || package.hasSuffix("_arm64.deb"), "\(package)")
        let control = try Self.run(["dpkg-deb", "-f", package]).output
        #expect(control.contains("Package: footstepd\n") && control.contains("Version: 0."))
        for library in ["libasound2", "libsqlite3-0", "libsndfile1", "libsystemd0", "libmosquitto1"] {
            #expect(control.contains(library), "Depends lacks \(library): \(control)")
        }
        #expect(!control.contains("swift"))
        let contents = try Self.run(["dpkg-deb", "-c", package]).output
        for path in [
            "./usr/bin/footstepd", "./usr/bin/footstepctl", "./usr/share/footstepd/footstep-model.json",
            "./usr/lib/systemd/system/footstepd.service", "./usr/lib/sysusers.d/footstepd.conf",
            "./usr/lib/tmpfiles.d/footstepd.conf", "./etc/footstepd/footstepd.toml",
        ] {
            #expect(contents.contains(" \(path)\n"), "\(path) is not in the package")
        }
        #expect(contents.contains("root/root"))
        let unpacked = directory.appending("control")
        #expect(try Self.run(["dpkg-deb", "-e", package, unpacked]).status == 0)
        #expect(try String(contentsOfFile: unpacked + "/conffiles", encoding: .utf8) == "/etc/footstepd/footstepd.toml\n")
        let postinst = try String(contentsOfFile: unpacked + "/postinst", encoding: .utf8)
        #expect(postinst.contains("systemd-sysusers footstepd.conf"))
        // Nothing is enabled or started by the package (comments aside).
        let commands = postinst.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        #expect(!commands.contains { $0.contains("enable") || $0.contains("start") })
        for script in ["postinst", "prerm", "postrm"] {
            #expect(try Self.run(["sh", "-n", unpacked + "/" + script]).status == 0, "\(script)")
        }
        // The binaries run from the package's tree and find its model.
        let tree = directory.appending("tree")
        #expect(try Self.run(["dpkg-deb", "-x", package, tree]).status == 0)
        let check = try Self.run([
            "\(tree)/usr/bin/footstepd", "--check-config", "--config", "\(tree)/etc/footstepd/footstepd.toml",
            "--state-dir", directory.appending("state"), "--socket", directory.appending("control.sock"),
        ])
        #expect(check.status == 0, "\(check.output)")
        // Binaries that load the toolchain's Swift runtime are refused for a real package.
        let refused = try Self.run([
            "bash", Self.repository.appendingPathComponent("scripts/make-deb.sh").path, built, directory.appending("refused"),
        ])
        #expect(refused.status != 0 && refused.output.contains("--static-swift-stdlib"))
    }

    @Test(arguments: ["footstepd.service", "footstep-collector.service"])
    func theServiceExposureIsAtMost2Point5(_ unit: String) throws {
        let directory = try TemporaryDirectory()
        _ = try Self.staged(in: directory)
        let result = try Self.run(["systemd-analyze", "security", "--offline=true", directory.appending(unit)])
        let line = result.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect(score != nil, "no exposure line in: \(result.output)")
        #expect((score ?? 10) <= 2.5, "\(line)")
    }
}
