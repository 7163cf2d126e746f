import ArgumentParser
import FootstepAudio
import Foundation

extension FootstepCtl {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the ALSA capture devices footstepd can record from.",
            discussion: """
                Names like plughw:CARD=Device,DEV=0 survive USB re-enumeration; put one in \
                [capture] device of /etc/footstepd/footstepd.toml.
                """)

        @Flag(help: "Print a JSON array instead of one name per line.")
        var json = false

        func run() throws {
            let devices = ALSADeviceList.captureDevices()
            if json {
                let data = try JSONEncoder().encode(devices)
                print(String(decoding: data, as: UTF8.self))
            } else if devices.isEmpty {
                FileHandle.standardError.write(Data("footstepctl: ALSA lists no capture devices (is a microphone plugged in?)\n".utf8))
                throw ExitCode(1)
            } else {
                devices.forEach { print($0) }
            }
        }
    }
}
