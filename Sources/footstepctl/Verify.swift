import ArgumentParser
import FootstepStore
import Foundation

extension FootstepCtl {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prove the evidence unaltered: the event hash chain, audio files, clips, or a bundle.",
            discussion: """
                Without --bundle: reads footstepd's database read-only, recomputes the SHA-256 \
                of every event and checks every link of the chain, then hashes every closed audio \
                file and every event clip and compares them with the SHA-256 recorded when they \
                were written. It names exactly what differs: "event 1234 was altered", "events \
                deleted between id 99 and id 101", "audio file 7 was altered: PATH", "clip of \
                event 1234 is missing: PATH". Deletions made with `footstepctl` are recorded and \
                listed, not reported as tampering.

                With --bundle DIR or --bundle FILE.zip: checks the bundle against its \
                MANIFEST.sha256 (altered, missing, and files not in the manifest) and recomputes \
                the hash of every event in its export.json. (`sha256sum -c MANIFEST.sha256` in \
                the bundle directory checks the files with standard tools.)

                Progress is shown on stderr when it is a terminal.

                Exit status: 0 everything verified; 1 something was altered, added or removed; \
                2 the check could not be done (no database, unreadable bundle); 64 bad usage.

                Examples:
                  footstepctl verify
                  footstepctl verify --database /mnt/copy/footstepd.db --json
                  footstepctl verify --bundle evidence-2026-11.zip
                """)

        @Option(help: "Check this bundle (a directory or a .zip from `footstepctl bundle`) instead of the database.", completion: .file())
        var bundle: String?

        @OptionGroup var store: StoreLocationOptions

        @Option(help: "Resolve relative audio and clip paths against this directory (default: the database's directory).", completion: .directory)
        var baseDir: String?

        @Flag(help: "Print the result as JSON.")
        var json = false

        func run() throws {
            let progress = VerifyProgressLine()
            defer { progress.finish() }
            let intact: Bool
            do {
                if let bundle {
                    let result = try VerifyBundle.check(bundle, progress: progress)
                    progress.finish()
                    intact = result.isIntact
                    if json { try VerifyJSON(bundle: bundle, result: result).print() } else { Self.print(result) }
                } else {
                    let database = try store.openReadOnly()
                    progress.show("checking the hash chain of \(database.path)")
                    let report = try database.verifyEvidence(baseDirectory: baseDir) { step in
                        progress.show("hashing file \(step.files + 1)/\(step.totalFiles) (\(ByteCountFormatter.string(fromByteCount: step.bytes, countStyle: .file)) so far): \(step.currentPath)")
                    }
                    progress.finish()
                    intact = report.isIntact
                    if json { try VerifyJSON(database: database.path, report: report).print() } else { Swift.print(report) }
                }
            } catch {
                progress.finish()
                printError("footstepctl verify: cannot verify: \(error)")
                throw ExitCode(2)
            }
            if !intact { throw ExitCode(1) }
        }

        static func print(_ result: VerifyBundle.Result) {
            Swift.print(result.manifest)
            guard let altered = result.alteredExportEvents else {
                Swift.print("no \(BundleWriter.exportName) in the bundle: event hashes not checked")
                return
            }
            if altered.isEmpty {
                Swift.print("\(BundleWriter.exportName): every event matches its hash")
            } else {
                for id in altered {
                    Swift.print("  event \(id) in \(BundleWriter.exportName) was altered (its fields no longer match its hash)")
                }
            }
            for id in result.alteredExportRevisions ?? [] {
                Swift.print("  type revision \(id) in \(BundleWriter.exportName) was altered (its fields no longer match its hash)")
            }
            if let diary = result.alteredExportDiary {
                for at in diary {
                    Swift.print("  the diary entry of \(at) in \(BundleWriter.exportName) was altered (its fields no longer match its hash)")
                }
            }
        }
    }
}
