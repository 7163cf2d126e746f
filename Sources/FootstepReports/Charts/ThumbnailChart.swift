import Foundation

/// The waveform and spectrogram thumbnails of a loud event's clip.
enum ThumbnailChart {
    /// The clip's envelope with the onset marked.
    static func waveform(_ thumbnail: AudioThumbnail, on canvas: ReportCanvas, x: Double, y: Double, width: Double, height: Double) {
        canvas.rectangle(x: x, y: y, width: width, height: height, fill: ReportColour(hex: "#f4f4f4"))
        let middle = y + height / 2
        let peak = max(0.01, thumbnail.envelope.map { max(-$0.min, $0.max) }.max() ?? 0.01)
        let count = Double(max(1, thumbnail.envelope.count))
        for (index, column) in thumbnail.envelope.enumerated() {
            let cx = x + width * (Double(index) + 0.5) / count
            let top = middle - Double(column.max / peak) * height / 2 * 0.95
            let bottom = middle - Double(column.min / peak) * height / 2 * 0.95
            canvas.line(cx, top, cx, max(bottom, top + 0.3), colour: .laeq, width: max(0.3, width / count))
        }
        if thumbnail.seconds > 0 {
            let ox = x + width * thumbnail.onsetSeconds / thumbnail.seconds
            canvas.line(ox, y, ox, y + height, colour: .footstep, width: 0.6)
        }
        canvas.text(String(format: "%.1f s, peak %.0f dBFS", thumbnail.seconds, 20 * log10(Double(peak))), x: x + 2, y: y + 7, size: 5.5, colour: .muted, anchor: .start)
    }

    /// The clip's spectrogram, 0 Hz at the bottom.
    static func spectrogram(_ thumbnail: AudioThumbnail, on canvas: ReportCanvas, x: Double, y: Double, width: Double, height: Double) {
        canvas.heatmap(thumbnail.spectrogram, x: x, y: y, width: width, height: height)
        let white = ReportColour(hex: "#ffffff")
        guard let low = thumbnail.frequencies.first, let high = thumbnail.frequencies.last, high > low else { return }
        for mark in [50.0, 100, 200, 500, 1000, 2000] where mark > low && mark < high {
            let my = y + height * (1 - log(mark / low) / log(high / low))
            canvas.line(x, my, x + 3, my, colour: white, width: 0.4)
            canvas.text(mark >= 1000 ? "\(Int(mark / 1000)) kHz" : "\(Int(mark)) Hz", x: x + 4, y: my + 2, size: 5, colour: white, anchor: .start, bold: false)
        }
    }
}
