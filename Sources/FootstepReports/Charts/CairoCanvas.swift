import CCairo
import Foundation

/// Draws charts on a cairo context (the PDF pages), offset by an origin.
///
/// - Note: Not thread-safe; use it from the thread that owns the context.
final class CairoCanvas: ReportCanvas {
    let context: OpaquePointer
    /// The font family for text (DejaVu Sans when installed, else fontconfig's choice).
    let fontFamily: String

    init(context: OpaquePointer, fontFamily: String = "DejaVu Sans") {
        self.context = context
        self.fontFamily = fontFamily
    }

    func colour(_ colour: ReportColour) {
        cairo_set_source_rgb(context, colour.red, colour.green, colour.blue)
    }

    func rectangle(x: Double, y: Double, width: Double, height: Double, fill: ReportColour, tooltip: String?) {
        colour(fill)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
    }

    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour stroke: ReportColour, width: Double) {
        colour(stroke)
        cairo_set_line_width(context, width)
        cairo_move_to(context, x1, y1)
        cairo_line_to(context, x2, y2)
        cairo_stroke(context)
    }

    func polyline(_ points: [(Double, Double)], colour stroke: ReportColour, width: Double) {
        guard let first = points.first, points.count > 1 else { return }
        colour(stroke)
        cairo_set_line_width(context, width)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_move_to(context, first.0, first.1)
        for point in points.dropFirst() { cairo_line_to(context, point.0, point.1) }
        cairo_stroke(context)
    }

    private var currentFont: (size: Double, bold: Bool)?

    func setFont(size: Double, bold: Bool) {
        if let currentFont, currentFont.size == size, currentFont.bold == bold { return }
        currentFont = (size, bold)
        cairo_select_font_face(context, fontFamily, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, size)
    }

    /// Width of `text` in points at the current font.
    func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        setFont(size: size, bold: bold)
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        return extents.x_advance
    }

    func text(_ text: String, x: Double, y: Double, size: Double, colour fill: ReportColour, anchor: TextAnchor, bold: Bool) {
        setFont(size: size, bold: bold)
        var startX = x
        if anchor != .start {
            var extents = cairo_text_extents_t()
            cairo_text_extents(context, text, &extents)
            startX -= anchor == .middle ? extents.x_advance / 2 : extents.x_advance
        }
        colour(fill)
        cairo_move_to(context, startX, y)
        cairo_show_text(context, text)
    }

    func heatmap(_ values: [[Float]], x: Double, y: Double, width: Double, height: Double) {
        guard let surface = HeatmapImage.surface(values) else { return }
        defer { cairo_surface_destroy(surface) }
        let columns = Double(cairo_image_surface_get_width(surface))
        let rows = Double(cairo_image_surface_get_height(surface))
        cairo_save(context)
        cairo_translate(context, x, y)
        cairo_scale(context, width / columns, height / rows)
        cairo_set_source_surface(context, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_BILINEAR)
        cairo_rectangle(context, 0, 0, columns, rows)
        cairo_fill(context)
        cairo_restore(context)
    }
}

/// Spectrogram pixels as a cairo image surface or PNG bytes.
enum HeatmapImage {
    /// An ARGB32 surface, one pixel per value, low rows at the bottom; nil when empty.
    static func surface(_ values: [[Float]]) -> OpaquePointer? {
        let columns = values.count
        let rows = values.first?.count ?? 0
        guard columns > 0, rows > 0, let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(columns), Int32(rows))
        else { return nil }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        for column in 0..<columns {
            for row in 0..<rows {
                let (r, g, b) = ReportColour.heat(values[column][row])
                let offset = (rows - 1 - row) * stride + column * 4
                let pixel = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                data.advanced(by: offset).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee = pixel }
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    /// PNG bytes of the heat map (for the HTML report), nil when empty.
    static func png(_ values: [[Float]]) -> Data? {
        guard let surface = surface(values) else { return nil }
        defer { cairo_surface_destroy(surface) }
        final class Sink { var data = Data() }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, bytes, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                sink.data.append(bytes!, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        return status == CAIRO_STATUS_SUCCESS ? sink.data : nil
    }
}
