import FootstepCore
import Foundation

/// What stdout is: its width, whether it is a terminal, whether to use colour.
struct Terminal {
    /// True when stdout is a terminal (redraw in place, colour allowed).
    let isTTY: Bool
    /// Columns available: the terminal's width, else `$COLUMNS`, else 100.
    let width: Int
    /// ANSI colour only on a terminal and when `NO_COLOR` is unset.
    let colour: Bool

    /// The terminal of this process's stdout.
    static var standardOutput: Terminal {
        let environment = ProcessInfo.processInfo.environment
        let isTTY = isatty(STDOUT_FILENO) == 1
        var size = winsize()
        let measured = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : nil
        let width = measured ?? environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 100
        let noColour = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Terminal(isTTY: isTTY, width: max(width, 20), colour: isTTY && !noColour)
    }

    /// ANSI SGR colours used by footstepctl.
    enum Colour: String {
        case blue = "34"
        case green = "32"
        case purple = "35"
        case orange = "38;5;208"
        case red = "31"
        case grey = "90"
        case bold = "1"
    }

    /// `text` in `colour` when colour is on, else unchanged.
    func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// The original meter's colour of a level band.
    static func colour(of band: LevelBand) -> Colour {
        switch band {
        case .silent: .blue
        case .quiet: .green
        case .average: .purple
        case .noisy: .orange
        case .loud: .red
        }
    }

    /// Writes `text` to stdout now (live output must not sit in a buffer).
    static func write(_ text: String) {
        print(text, terminator: "")
        fflush(nil)
    }
}
