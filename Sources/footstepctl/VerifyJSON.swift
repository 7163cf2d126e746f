import FootstepStore
import Foundation

/// `footstepctl verify --json`: one document, keys sorted.
struct VerifyJSON: Encodable {
    struct Chain: Encodable {
        var checkedEvents: Int
        var headEventId: Int64
        var headHash: String
        var alteredEventIds: [Int64]
        var breaks: [Break]
        var recordedDeletions: Int
    }

    struct Break: Encodable {
        /// eventsMissing, linkRewritten or tailMissing.
        var kind: String
        var afterEventId: Int64?
        var beforeEventId: Int64?
    }

    struct FileProblem: Encodable {
        /// audio or clip.
        var kind: String
        /// Audio file id or event id.
        var ownerId: Int64
        var path: String
        /// altered, missing or unreadable.
        var problem: String
        var actualSHA256: String?
        var recordedSHA256: String
    }

    struct Diary: Encodable {
        var checkedEntries: Int
        var headHash: String
        var alteredEntryIds: [Int64]
        var brokenLinkEntryIds: [Int64]
        var tailMissing: Bool
    }

    struct Revisions: Encodable {
        var checkedRevisions: Int
        var revisedEvents: Int
        var alteredRevisionIds: [Int64]
        var brokenLinkRevisionIds: [Int64]
        var mismatchedEventIds: [Int64]
        var missingRevisionIds: [Int64]
    }

    struct Files: Encodable {
        var checked: Int
        var bytes: Int64
        var problems: [FileProblem]
        var stillOpen: Int
        var pruned: Int
    }

    struct Bundle: Encodable {
        var path: String
        var checkedFiles: Int
        var altered: [String]
        var missing: [String]
        var notInManifest: [String]
        var malformedManifestLines: [Int]
        var alteredExportEventIds: [Int64]?
        /// Diary entries (by the time they describe) of export.json that no longer match their hash.
        var alteredExportDiaryEntries: [String]?
        var alteredExportRevisionIds: [Int64]?
    }

    var intact: Bool
    var database: String?
    var chain: Chain?
    var diary: Diary?
    var revisions: Revisions?
    var files: Files?
    var bundle: Bundle?

    init(database: String, report: EvidenceReport) {
        intact = report.isIntact
        self.database = database
        let chain = report.chain
        self.chain = Chain(
            checkedEvents: chain.checkedEvents, headEventId: chain.headEventId, headHash: chain.headHash,
            alteredEventIds: chain.alteredEvents.map(\.eventId),
            breaks: chain.breaks.map { Break(kind: $0.kind.rawValue, afterEventId: $0.afterEventId, beforeEventId: $0.beforeEventId) },
            recordedDeletions: chain.recordedDeletions.count)
        diary = report.diary.map {
            Diary(
                checkedEntries: $0.checkedEntries, headHash: $0.headHash, alteredEntryIds: $0.alteredEntryIds,
                brokenLinkEntryIds: $0.brokenLinkEntryIds, tailMissing: $0.tailMissing)
        }
        revisions = report.revisions.map {
            Revisions(
                checkedRevisions: $0.checkedRevisions, revisedEvents: $0.revisedEvents,
                alteredRevisionIds: $0.alteredRevisionIds, brokenLinkRevisionIds: $0.brokenLinkRevisionIds,
                mismatchedEventIds: $0.mismatchedEventIds, missingRevisionIds: $0.missingRevisionIds)
        }
        files = Files(
            checked: report.checkedFiles, bytes: report.checkedBytes,
            problems: report.fileProblems.map { problem in
                var item = FileProblem(
                    kind: problem.file.kind.rawValue, ownerId: problem.file.ownerId, path: problem.checkedPath,
                    problem: "", actualSHA256: nil, recordedSHA256: problem.file.sha256)
                switch problem.kind {
                case let .altered(actual):
                    item.problem = "altered"
                    item.actualSHA256 = actual
                case .missing: item.problem = "missing"
                case .unreadable: item.problem = "unreadable"
                }
                return item
            },
            stillOpen: report.openAudioFiles, pruned: report.prunedAudioFiles)
    }

    init(bundle path: String, result: VerifyBundle.Result) {
        intact = result.isIntact
        let report = result.manifest
        bundle = Bundle(
            path: path, checkedFiles: report.checkedFiles, altered: report.altered, missing: report.missing,
            notInManifest: report.unlisted, malformedManifestLines: report.malformedLines,
            alteredExportEventIds: result.alteredExportEvents, alteredExportDiaryEntries: result.alteredExportDiary,
            alteredExportRevisionIds: result.alteredExportRevisions)
    }

    func print() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(self) + Data("\n".utf8))
    }
}
