import FootstepAPI
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// `footstepctl ui` as a child process against a real daemon: its guard (token,
/// Host, Origin) through curl, and its pages in headless Chromium driven by
/// Selenium (`scripts/dashboard-browser-test.py`).
enum Dashboard {
    /// A running `footstepctl ui` and the URL it printed.
    struct Process {
        let pid: pid_t
        let url: String
        var port: Int { Int(url.split(separator: ":")[2].prefix { $0.isNumber })! }
        var base: String { "http://127.0.0.1:\(port)" }
        var token: String { String(url.split(separator: "=").last!) }

        /// Starts it (as nobody with `asNobody`) and waits for its URL.
        init(socket: String, stateDirectory: String, output: String, asNobody: Bool = false) async throws {
            let command = [BuiltProduct.path("footstepctl"), "ui", "--socket", socket, "--state-dir", stateDirectory]
            pid = asNobody
                ? try Subprocess.spawn(
                    "/usr/bin/setpriv",
                    ["--reuid=\(Curl.nobody)", "--regid=\(Curl.nobody)", "--clear-groups"] + command, output: output)
                : try Subprocess.spawn(command[0], Array(command.dropFirst()), output: output)
            var url: String?
            for _ in 0..<200 where url == nil {
                try await Task.sleep(for: .milliseconds(50))
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                url = text.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map {
                    String($0.prefix { !$0.isWhitespace })
                }
            }
            guard let url else {
                Subprocess.end(pid)
                throw Subprocess.LaunchError(
                    description: "footstepctl ui printed no URL: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
            }
            self.url = url
        }

        func stop() { Subprocess.end(pid, signal: SIGINT) }
    }

    static var browserIsAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && (try? Subprocess.run(
                "/usr/bin/env", ["python3", "-c", "import selenium"], environment: ProcessInfo.processInfo.environment).status) == 0
    }

    /// Where the screenshots go: `.build/test-output/dashboard`.
    static var outputDirectory: String {
        let build = URL(fileURLWithPath: BuiltProduct.path("footstepctl")).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return build.appendingPathComponent("test-output/dashboard").path
    }

    /// The browser script's JSON (it runs with TZ=UTC: `nightStart` is UTC).
    static func browse(_ role: String, url: String, nightStart: Date, output: String) async throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/dashboard-browser-test.py").path
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let result = try await Subprocess.runOffPool(
            "/usr/bin/env",
            ["python3", script, role, "--url", url, "--night-start", formatter.string(from: nightStart), "--out", output],
            environment: environment)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] else {
            throw Subprocess.LaunchError(description: "the browser script failed (\(result.status)): \(result.stderr)")
        }
        return object
    }
}

@Suite("Dashboard guard", .serialized, .enabled(if: Curl.isAvailable, "needs curl"))
struct DashboardGuardTests {
    /// `curl` against the dashboard with `headers`; (status, body).
    static func curl(_ url: String, _ headers: [String] = [], method: String = "GET") throws -> (Int, String) {
        let arguments = ["-s", "-X", method, "-o", "-", "-w", "\n%{http_code}", url] + headers.flatMap { ["-H", $0] }
        let result = try Subprocess.run("/usr/bin/curl", arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test func aWrongOrMissingTokenAForeignHostOrOriginGets403AndNoData() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(2)
        let directory = try TemporaryDirectory(prefix: "dashboard-guard")
        let ui = try await Dashboard.Process(
            socket: daemon.socketPath, stateDirectory: daemon.stateDirectory, output: directory.appending("ui.out"))
        defer { ui.stop() }
        let cookie = "Cookie: footstepd_ui_\(ui.port)=\(ui.token)"

        // The printed URL: the token becomes a cookie and leaves the address bar.
        let first = try Subprocess.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", ui.url]).stdout
        #expect(first.hasPrefix("HTTP/1.1 303"))
        #expect(first.contains("set-cookie: footstepd_ui_\(ui.port)=\(ui.token); Path=/; HttpOnly; SameSite=Strict")
            || first.contains("Set-Cookie: footstepd_ui_\(ui.port)=\(ui.token); Path=/; HttpOnly; SameSite=Strict"))
        #expect(try Self.curl(ui.base + "/", [cookie]).0 == 200)
        let status = try Self.curl(ui.base + "/api/status", [cookie])
        #expect(status.0 == 200 && status.1.contains("\"state\""))

        for (url, headers, why) in [
            (ui.base + "/api/status", [], "no token"),
            (ui.base + "/api/status?token=" + String(repeating: "0", count: 64), [], "a wrong token"),
            (ui.base + "/api/status", ["Cookie: footstepd_ui_\(ui.port)=\(String(ui.token.reversed()))"], "a wrong cookie"),
            (ui.base + "/api/status", [cookie, "Host: footsteps.example:\(ui.port)"], "a foreign Host"),
            (ui.base + "/api/status", [cookie, "Origin: http://evil.example"], "a foreign Origin"),
        ] {
            let (code, body) = try Self.curl(url, headers)
            #expect(code == 403, "\(why)")
            #expect(body.contains("\"forbidden\"") && !body.contains("\"state\""), "\(why): \(body)")
        }
        // A change must come from the dashboard's page: a POST without Origin is refused, nothing stored.
        let post = try Self.curl(
            ui.base + "/api/reviews", [cookie, "Content-Type: application/json"], method: "POST")
        #expect(post.0 == 403)
        // It listens on loopback only.
        let listening = try Subprocess.run("/usr/bin/ss", ["-Hltn", "sport = :\(ui.port)"]).stdout
        #expect(listening.contains("127.0.0.1:\(ui.port)") && !listening.contains("0.0.0.0:\(ui.port)"))
        try await daemon.stop()
    }
}

@Suite(
    "Dashboard in a real browser", .serialized,
    .enabled(if: Dashboard.browserIsAvailable && Curl.canDropPrivileges, "needs chromium, chromium-driver, selenium, root"))
struct DashboardBrowserTests {
    /// The review loop of issue 68 in headless Chromium: the night's events, a clip played, a bout rejected and an
    /// event relabelled with the keyboard, the reviews stored under the right uid, seen again after a reload, and a
    /// report that leaves the rejected events out and lists them; screenshots in `.build/test-output/dashboard`.
    @Test func aNightIsReviewedInTheBrowserAndItsReportLeavesTheRejectedOut() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(30)
        let directory = try TemporaryDirectory(prefix: "dashboard")
        let ui = try await Dashboard.Process(
            socket: daemon.socketPath, stateDirectory: daemon.stateDirectory, output: directory.appending("ui.out"))
        defer { ui.stop() }
        let first = try #require(try daemon.database.events(EventFilter(limit: 1)).items.first)
        let seen = try await Dashboard.browse(
            "admin", url: ui.url, nightStart: first.timestamp.addingTimeInterval(-120), output: Dashboard.outputDirectory)
        print("dashboard (debug build, \(seen["events_shown"] ?? 0) events): first page \(seen["first_page_s"] ?? 0) s, "
            + "night \(seen["night_load_s"] ?? 0) s, after reload \(seen["reload_night_load_s"] ?? 0) s, Now \(seen["now_load_s"] ?? 0) s")

        #expect((seen["events_shown"] as? Int ?? 0) >= 30)
        #expect((seen["clip_duration"] as? Double ?? 0) > 1)
        let bout = try #require(seen["bout"] as? Int)
        let boutEvents = try #require(seen["bout_events"] as? [Int]).map(Int64.init)
        let relabelled = try #require((seen["relabelled"] as? Int).map(Int64.init))
        #expect(!boutEvents.isEmpty)
        let reload = try #require(seen["after_reload"] as? [String: Any])
        #expect(reload["bout_rejected"] as? Bool == true)
        #expect(reload["relabelled"] as? String == "stomping" && reload["relabelled_review"] as? String == "confirmed")
        #expect(seen["report_lists_rejected"] as? Bool == true)
        #expect((seen["report_rejected_ids"] as? [Int])?.map(Int64.init) == boutEvents)
        #expect((seen["phone_overflow_px"] as? Int ?? 99) <= 0)
        #expect((seen["console_errors"] as? [String]) == [], "\(seen["console_errors"] ?? [])")
        for page in ["night.png", "night-reviewed.png", "now.png", "reports.png", "night-phone.png"] {
            #expect(FileManager.default.fileExists(atPath: Dashboard.outputDirectory + "/" + page), "\(page)")
        }

        // Through the API: the reviews are stored, under the uid of the user who ran footstepctl ui.
        let rejected = try await daemon.curl("GET", "/v1/events?review=rejected&limit=1000")
        let rejectedIds = try rejected.decode(PageResponse<EventResponse>.self).items.map(\.id)
        #expect(Set(boutEvents).isSubset(of: Set(rejectedIds)))
        let reviews = try daemon.database.revisions(ofEvents: boutEvents + [relabelled]).filter { $0.verdict != nil }
        #expect(reviews.count == boutEvents.count + 1)
        #expect(reviews.allSatisfy { $0.reviewerUid == Int64(getuid()) && $0.reviewer == AccessPolicy.user(uid: getuid())?.name })
        #expect(try daemon.database.events(EventFilter(limit: 10_000)).items.filter { $0.boutId == Int64(bout) }
            .allSatisfy { $0.reviewVerdict == .rejected })
        #expect(try daemon.database.verifyRevisions().isIntact)

        // The Reports page's evidence bundle: its manifest covers the export, which carries the reviews.
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let from = formatter.string(from: first.timestamp.addingTimeInterval(-120))
        let to = formatter.string(from: Date().addingTimeInterval(120))
        let zip = directory.appending("bundle.zip")
        let download = try Subprocess.run("/usr/bin/curl", [
            "-s", "-X", "POST", "-o", zip, "-w", "%{http_code}", "-H", "Cookie: footstepd_ui_\(ui.port)=\(ui.token)",
            "-H", "Origin: \(ui.base)", "\(ui.base)/api/report?from=\(from)&to=\(to)&format=bundle",
        ])
        #expect(download.stdout == "200")
        let check = try Subprocess.run(
            "/usr/bin/env", [
                "python3", "-c",
                """
                hashlib, json, sys, zipfile = map(__import__, ("hashlib", "json", "sys", "zipfile"))
                z = zipfile.ZipFile(sys.argv[1])
                names = {n.split('/', 1)[-1]: n for n in z.namelist()}
                manifest = dict(reversed(l.split('  ', 1)) for l in z.read(names['MANIFEST.sha256']).decode().splitlines())
                export = z.read(names['export.json'])
                assert manifest['export.json'] == hashlib.sha256(export).hexdigest()
                verdicts = [r.get('verdict') for s in json.loads(export)['sessions'] for r in s['revisions']]
                print(verdicts.count('rejected'), verdicts.count('confirmed'))
                """, zip,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(check.stdout == "\(boutEvents.count) 1\n", "\(check.stderr)")
        try await daemon.stop()
    }

    /// A reader (nobody, in the read group only) sees the night; its review is refused with the daemon's
    /// "needs membership of the group" message and nothing is stored.
    @Test func aReadersBrowserIsToldItNeedsTheAdminGroupAndNothingIsStored() async throws {
        let daemon = try APITestDaemon(configure: { $0.socket.readGroup = "nogroup" })
        chmod(daemon.directory.path, 0o755)
        try await daemon.start()
        try await daemon.waitForEvents(5)
        let directory = try TemporaryDirectory(prefix: "dashboard-reader")
        chmod(directory.path, 0o777)
        let ui = try await Dashboard.Process(
            socket: daemon.socketPath, stateDirectory: daemon.stateDirectory, output: directory.appending("ui.out"),
            asNobody: true)
        defer { ui.stop() }
        let first = try #require(try daemon.database.events(EventFilter(limit: 1)).items.first)
        let seen = try await Dashboard.browse(
            "reader", url: ui.url, nightStart: first.timestamp.addingTimeInterval(-120), output: Dashboard.outputDirectory)
        #expect(seen["toast_class"] as? String == "bad")
        #expect((seen["toast"] as? String)?.contains("needs membership of the group 'footstepd-test-none'") == true, "\(seen)")
        #expect(seen["review_after"] as? String == "")
        let events = try daemon.database.events(EventFilter(limit: 10_000)).items
        #expect(try daemon.database.revisions(ofEvents: events.compactMap(\.id)).allSatisfy { $0.verdict == nil })
        try await daemon.stop()
    }
}
