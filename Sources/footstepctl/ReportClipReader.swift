import FootstepAudio
import FootstepReports
import Foundation

/// Reads an event's clip file for the report: mono samples for the thumbnails and the
/// file's bytes for the HTML's playable clip. Missing or unreadable clips give nil
/// (the report then says "clip not available"); nothing here throws.
enum ReportClipReader {
    /// The longest clip read (longer files are cut), seconds.
    static let maximumSeconds = 30.0

    static func audio(for event: ReportEvent) -> ReportAudio? {
        guard let path = event.clip?.path, let source = try? AudioFileSource(path: path) else { return nil }
        defer { source.close() }
        let channels = source.format.channels
        let limit = Int(maximumSeconds * Double(source.format.sampleRate))
        var samples: [Float] = []
        samples.reserveCapacity(min(limit, source.frameCount ?? limit))
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * channels)
        defer { buffer.deallocate() }
        while samples.count < limit, let frames = try? source.read(into: buffer), frames > 0 {
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels { sum += buffer[frame * channels + channel] }
                samples.append(sum / Float(channels))
            }
        }
        guard !samples.isEmpty else { return nil }
        // Clips do not record where the onset lies; mark the peak, which is the impact.
        let peak = samples.indices.max { abs(samples[$0]) < abs(samples[$1]) } ?? 0
        let encoded = try? Data(contentsOf: URL(fileURLWithPath: path))
        let mime = path.lowercased().hasSuffix(".wav") ? "audio/wav" : "audio/flac"
        return ReportAudio(
            samples: samples, sampleRate: source.format.sampleRate, onsetSeconds: Double(peak) / Double(source.format.sampleRate),
            encoded: encoded, mimeType: mime)
    }
}
