import Foundation

/// The per-file CSV `footstepctl analyze --output DIR` writes, one row per event.
public enum EventCSV {
    /// The header line.
    public static let header = "onset_s,label,confidence,duration_s,la_max,lc_max,peak_dbfs"

    /// The CSV text for `events` (header and one line per event, newline-terminated).
    public static func text(for events: [AnalyzedEvent]) -> String {
        var text = header + "\n"
        for event in events {
            text += String(
                format: "%.3f,%@,%.3f,%.3f,%.1f,%.1f,%.1f\n", event.onsetSeconds, event.label, event.confidence,
                event.duration, event.laMax, event.lcMaxLevel, event.peakDBFS)
        }
        return text
    }

    /// `DIR/<basename without extension>.csv` for the audio file at `path`.
    public static func path(forAudioFile path: String, in directory: String) -> String {
        let name = (path as NSString).lastPathComponent
        let base = (name as NSString).deletingPathExtension
        return (directory as NSString).appendingPathComponent((base.isEmpty ? name : base) + ".csv")
    }
}

extension FileAnalysisResult {
    /// Writes `EventCSV` for this file into `directory`.
    public func writeLabelCSV(into directory: String) throws {
        let destination = EventCSV.path(forAudioFile: path, in: directory)
        try EventCSV.text(for: events).write(toFile: destination, atomically: true, encoding: .utf8)
    }
}
