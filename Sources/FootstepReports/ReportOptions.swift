import FootstepCore
import Foundation

/// Paper sizes of the PDF report, in PostScript points (1/72 inch).
public enum ReportPaper: String, Sendable, CaseIterable, Codable {
    case a4
    case letter

    /// Width and height in points: A4 595 × 842, Letter 612 × 792.
    public var size: (width: Double, height: Double) {
        switch self {
        case .a4: return (595, 842)
        case .letter: return (612, 792)
        }
    }
}

/// What a report says about itself and how much it lists.
public struct ReportOptions: Sendable {
    /// Title on the first page.
    public var title: String
    /// Address of the flat and complainant (from the configuration).
    public var address: String
    /// Free notes printed on the title page.
    public var notes: String
    /// Where the data came from ("footstepd store /var/lib/footstepd/footstepd.db").
    public var source: String
    public var generatedAt: Date
    /// footstepd version that produced the report.
    public var softwareVersion: String
    public var paper: ReportPaper
    /// User-defined rules, checked after the standard ones.
    public var rules: [ReportRule]
    /// The most events listed in the PDF and HTML (the loudest when there are more; CSV and JSON list all).
    public var maximumListedEvents: Int
    /// How many of the loudest events get thumbnails and playable clips.
    public var loudestCount: Int

    public init(
        title: String = "Footstep and impact noise report", address: String = "", notes: String = "",
        source: String = "", generatedAt: Date = Date(), softwareVersion: String = "", paper: ReportPaper = .a4,
        rules: [ReportRule] = [], maximumListedEvents: Int = 500, loudestCount: Int = 10
    ) {
        self.title = title
        self.address = address
        self.notes = notes
        self.source = source
        self.generatedAt = generatedAt
        self.softwareVersion = softwareVersion
        self.paper = paper
        self.rules = rules
        self.maximumListedEvents = maximumListedEvents
        self.loudestCount = loudestCount
    }
}
