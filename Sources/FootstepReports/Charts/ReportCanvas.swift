import FootstepCore
import Foundation

/// A colour for charts, as 0…1 RGB.
struct ReportColour: Sendable, Equatable {
    let red: Double
    let green: Double
    let blue: Double
    /// `#rrggbb` (kept: the SVG canvas writes it for every element).
    let hex: String

    /// From `#rrggbb`.
    init(hex: String) {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        self.init(red: Double((value >> 16) & 0xff) / 255, green: Double((value >> 8) & 0xff) / 255, blue: Double(value & 0xff) / 255)
    }

    init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
        hex = String(format: "#%02x%02x%02x", Int(red * 255 + 0.5), Int(green * 255 + 0.5), Int(blue * 255 + 0.5))
    }

    static let text = ReportColour(hex: "#222222")
    static let muted = ReportColour(hex: "#666666")
    static let grid = ReportColour(hex: "#dddddd")
    static let footstep = ReportColour(hex: "#d62728")
    static let other = ReportColour(hex: "#7f7f7f")
    static let laeq = ReportColour(hex: "#1f77b4")
    static let lafMax = ReportColour(hex: "#aec7e8")
    static let la90 = ReportColour(hex: "#2ca02c")
    static let warning = ReportColour(hex: "#b35900")
    /// The shading of time not recorded.
    static let unrecorded = ReportColour(hex: "#ececec")

    /// One colour per footstep type (stacked bars, legends).
    static func type(_ type: FootstepType) -> ReportColour {
        switch type {
        case .heelStrike: return ReportColour(hex: "#4e79a7")
        case .stomping: return ReportColour(hex: "#e15759")
        case .running: return ReportColour(hex: "#f28e2b")
        case .shuffling: return ReportColour(hex: "#59a14f")
        case .unknown: return ReportColour(hex: "#b0b0b0")
        }
    }

    /// Footstep types in the order charts stack them.
    static let typeOrder: [FootstepType] = [.stomping, .heelStrike, .running, .shuffling, .unknown]

    /// A perceptual dark-blue → yellow map for spectrograms, `value` 0…1.
    static func heat(_ value: Float) -> (UInt8, UInt8, UInt8) {
        let stops: [(Double, Double, Double)] = [
            (0.05, 0.03, 0.2), (0.25, 0.15, 0.5), (0.6, 0.2, 0.5), (0.95, 0.45, 0.25), (0.99, 0.9, 0.3),
        ]
        let x = Double(max(0, min(1, value))) * Double(stops.count - 1)
        let i = min(stops.count - 2, Int(x))
        let f = x - Double(i)
        func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8(max(0, min(255, (a + (b - a) * f) * 255))) }
        return (mix(stops[i].0, stops[i + 1].0), mix(stops[i].1, stops[i + 1].1), mix(stops[i].2, stops[i + 1].2))
    }
}

/// Where a text's x coordinate is.
enum TextAnchor: Sendable {
    case start
    case middle
    case end
}

/// A drawing surface for charts: SVG markup (HTML) or a cairo context (PDF).
/// Coordinates are points, origin top left, y down.
protocol ReportCanvas: AnyObject {
    func rectangle(x: Double, y: Double, width: Double, height: Double, fill: ReportColour, tooltip: String?)
    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: ReportColour, width: Double)
    func polyline(_ points: [(Double, Double)], colour: ReportColour, width: Double)
    func text(_ text: String, x: Double, y: Double, size: Double, colour: ReportColour, anchor: TextAnchor, bold: Bool)
    /// A heat map of `values` (columns × rows, 0…1, row 0 at the bottom) filling the rectangle.
    func heatmap(_ values: [[Float]], x: Double, y: Double, width: Double, height: Double)
}

extension ReportCanvas {
    func rectangle(x: Double, y: Double, width: Double, height: Double, fill: ReportColour) {
        rectangle(x: x, y: y, width: width, height: height, fill: fill, tooltip: nil)
    }

    func text(_ text: String, x: Double, y: Double, size: Double = 9, colour: ReportColour = .text, anchor: TextAnchor = .start) {
        self.text(text, x: x, y: y, size: size, colour: colour, anchor: anchor, bold: false)
    }
}
