import ArgumentParser
import FootstepWire
import Foundation

/// `--json`, shared by every command that lists or shows something.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the daemon's JSON (one document; NDJSON for live commands) instead of text.")
    var json = false

    /// Writes a JSON document as received, ending it with a newline.
    static func printJSON(_ data: Data) {
        var data = data
        if data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
        Terminal.write(String(decoding: data, as: UTF8.self))
    }

    /// Writes `value` encoded as the daemon would encode it.
    static func printJSON(_ value: some Encodable) throws {
        printJSON(try APIJSON.encoder.encode(value))
    }
}
