import CCairo
import FootstepTesting
import Foundation

/// Runs poppler's command-line tools (pdfinfo, pdftoppm, pdftotext) and inspects PNGs.
enum ReportTools {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `/usr/bin/NAME arguments…`; throws with its stderr on a non-zero exit.
    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> String {
        let result = try Subprocess.run("/usr/bin/\(name)", arguments)
        guard result.status == 0 else {
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// `pdfinfo` fields ("Pages", "Page size").
    static func info(_ pdf: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for line in try run("pdfinfo", [pdf]).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    /// The standard deviation of a PNG's grey levels (0 for a blank page).
    static func greyDeviation(_ png: String) -> Double {
        guard let surface = cairo_image_surface_create_from_png(png), cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return 0 }
        defer { cairo_surface_destroy(surface) }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface), width > 0, height > 0 else { return 0 }
        var sum = 0.0, squares = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let pixel = data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
                let grey = Double((pixel >> 16) & 0xff + (pixel >> 8) & 0xff + pixel & 0xff) / 3
                sum += grey
                squares += grey * grey
            }
        }
        let count = Double(width * height)
        return sqrt(max(0, squares / count - (sum / count) * (sum / count)))
    }
}
