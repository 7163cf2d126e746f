import CAlsa
import Glibc

/// The capture devices ALSA offers, for error messages and `footstepctl devices`.
public enum ALSADeviceList {
    /// A PCM one can put in `[capture] device`.
    public struct Device: Sendable, Equatable, Codable {
        /// The name to configure: `plughw:CARD=Mic,DEV=0` for a sound card (stable
        /// across reboots and USB re-enumeration, resampling when needed), or a
        /// sound server's PCM (`default`, `pulse`, `pipewire`).
        public var name: String
        /// What it is: the card's and the device's names, card and device numbers.
        public var description: String
    }

    /// Sound servers' PCMs listed after the cards, in this order, when ALSA knows them.
    static let serverPCMs: [(name: String, description: String)] = [
        ("default", "ALSA's default device"), ("pulse", "PulseAudio (or PipeWire's PulseAudio service)"),
        ("pipewire", "PipeWire"),
    ]

    /// Every sound card device with a capture stream (as `arecord -l` lists
    /// them), then the sound servers' PCMs ALSA's configuration defines.
    /// Rate converters, OSS emulation and other plugins are left out.
    public static func devices() -> [Device] {
        calsa_silence_errors()
        return cardCaptureDevices() + serverDevices()
    }

    /// The names of `devices()`.
    public static func captureDevices() -> [String] { devices().map(\.name) }

    static func cardCaptureDevices() -> [Device] {
        var devices: [Device] = []
        var card: Int32 = -1
        while snd_card_next(&card) >= 0, card >= 0 {
            var control: OpaquePointer?
            guard snd_ctl_open(&control, "hw:\(card)", 0) >= 0, let control else { continue }
            defer { snd_ctl_close(control) }
            var cardInfo: OpaquePointer?
            guard snd_ctl_card_info_malloc(&cardInfo) >= 0, let cardInfo else { continue }
            defer { snd_ctl_card_info_free(cardInfo) }
            guard snd_ctl_card_info(control, cardInfo) >= 0 else { continue }
            let cardId = String(cString: snd_ctl_card_info_get_id(cardInfo))
            let cardName = String(cString: snd_ctl_card_info_get_name(cardInfo))
            var pcmInfo: OpaquePointer?
            guard snd_pcm_info_malloc(&pcmInfo) >= 0, let pcmInfo else { continue }
            defer { snd_pcm_info_free(pcmInfo) }
            var device: Int32 = -1
            while snd_ctl_pcm_next_device(control, &device) >= 0, device >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
                // Fails for a device without a capture stream (an HDMI output).
                guard snd_ctl_pcm_info(control, pcmInfo) >= 0 else { continue }
                let deviceName = String(cString: snd_pcm_info_get_name(pcmInfo))
                devices.append(Device(
                    name: "plughw:CARD=\(cardId),DEV=\(device)",
                    description: "\(cardName): \(deviceName) (card \(card), device \(device))"))
            }
        }
        return devices
    }

    static func serverDevices() -> [Device] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var found: Set<String> = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let namePointer = snd_device_name_get_hint(hint, "NAME") else { continue }
            found.insert(String(cString: namePointer))
            free(namePointer)
        }
        return serverPCMs.filter { found.contains($0.name) }.map { Device(name: $0.name, description: $0.description) }
    }
}
