import Foundation

/// A line of the report's diary: a diary entry or mark, a session's title and
/// notes, or an event's notes, shown together in time order.
public struct ReportDiaryItem: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Written with `footstepctl diary add`.
        case note
        /// Set with `footstepctl mark` while it happened.
        case mark
        /// A session's title and notes, at its start.
        case session
        /// Notes added to an event.
        case event
    }

    public var time: Date
    public var kind: Kind
    public var text: String
    /// How long it lasted (diary notes), seconds.
    public var duration: Double?
    /// When it was written (diary notes and marks).
    public var writtenAt: Date?

    public init(time: Date, kind: Kind, text: String, duration: Double? = nil, writtenAt: Date? = nil) {
        self.time = time
        self.kind = kind
        self.text = text
        self.duration = duration
        self.writtenAt = writtenAt
    }
}

extension ReportDocument {
    /// The diary, session notes and event notes in time order.
    var diaryTable: ReportTable? {
        guard !diary.isEmpty else { return nil }
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("When", 1.6, numeric: false), .init("For", 0.8), .init("What", 0.9, numeric: false),
                .init("Text", 5, numeric: false), .init("Written", 1.6, numeric: false),
            ], rows: [])
        for item in diary {
            table.rows.append([
                String(clock.dateTime(item.time).prefix(19)), item.duration.map(ReportDuration.text) ?? "",
                ["note": "diary", "mark": "mark", "session": "session", "event": "event note"][item.kind.rawValue] ?? item.kind.rawValue,
                item.text, item.writtenAt.map { String(clock.dateTime($0).prefix(16)) } ?? "",
            ])
            if item.kind == .mark { table.highlighted.insert(table.rows.count - 1) }
        }
        return table
    }
}
