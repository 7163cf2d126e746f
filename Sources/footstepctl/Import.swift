import ArgumentParser
import FootstepStore
import Foundation

extension FootstepCtl {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore an export (from `footstepctl export`) into a database, exactly.",
            discussion: """
                Every row keeps its id, values and hashes, in one transaction. Each event's hash \
                is recomputed first: a file whose evidence fields were edited is refused (notes may \
                be edited). Events that the restored ones chain to but that are not in the file \
                (other sessions, outside an exported range) are recorded as chain bridges, so \
                `footstepctl verify` passes on the result and lists them.

                A session that is already in the database is refused; so are events that would \
                come before the end of the database's chain. Import into an empty database (it is \
                created if missing), or import exports oldest first. Do not import into the \
                database of a running daemon.

                Example:
                  footstepctl import session-3.json --database ./restored.db
                """)

        @Argument(help: "The export file (JSON).", completion: .file(extensions: ["json"]))
        var file: String

        @OptionGroup var store: StoreLocationOptions

        func run() throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ImportError.notAnExport(source: file, message: "cannot read it: \(error.localizedDescription)")
            }
            let document = try ExportDocument.decode(data, source: file)
            let database = try FootstepDatabase.open(path: store.path)
            let source = (file as NSString).lastPathComponent
            var diary: [DiaryEntryExport] = []
            if case let .range(range) = document { diary = range.diary }
            // An altered diary is refused before anything is written.
            if let altered = diary.first(where: { !$0.hashMatches }) {
                throw ImportError.diaryAltered(source: source, entries: [altered.at])
            }
            let summary = try database.importExports(document.sessions, source: source)
            let added = try database.importDiary(diary, source: source)
            print("\(store.path): \(summary)" + (diary.isEmpty ? "" : "; \(added) diary entr\(added == 1 ? "y" : "ies")"))
        }
    }
}
