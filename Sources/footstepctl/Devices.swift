import ArgumentParser
import FootstepAudio
import Foundation

extension FootstepCtl {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the ALSA capture devices footstepd can record from.",
            discussion: """
                Lists every sound card device with a capture stream, by the name that \
                survives reboots and USB re-enumeration (plughw:CARD=Mic,DEV=0), then the \
                sound servers' PCMs ALSA knows (default, pulse, pipewire). Put one in \
                [capture] device of /etc/footstepd/footstepd.toml.

                Examples:
                  footstepctl devices
                  footstepctl devices --json | jq -r '.[0].name'
                """)

        @Flag(help: "Print a JSON array of {name, description} instead of a table.")
        var json = false

        func run() throws {
            let devices = ALSADeviceList.devices()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(devices), as: UTF8.self))
            } else if devices.isEmpty {
                FileHandle.standardError.write(Data("footstepctl: ALSA lists no capture devices (is a microphone plugged in? does /dev/snd exist?)\n".utf8))
                throw ExitCode(1)
            } else {
                let width = devices.map(\.name.count).max() ?? 0
                for device in devices {
                    print(device.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + device.description)
                }
            }
        }
    }
}
