import CAlsa
import Glibc

/// Names of the capture PCMs ALSA knows about, for error messages and
/// `footstepctl devices`.
public enum ALSADeviceList {
    /// Capture-capable PCM names from ALSA's name hints (for example
    /// `default`, `hw:CARD=Mic,DEV=0`, `plughw:CARD=Mic,DEV=0`).
    public static func captureDevices() -> [String] {
        calsa_silence_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var names: [String] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let namePointer = snd_device_name_get_hint(hint, "NAME") else { continue }
            let name = String(cString: namePointer)
            free(namePointer)
            if let io = snd_device_name_get_hint(hint, "IOID") {
                let direction = String(cString: io)
                free(io)
                if direction != "Input" { continue }
            }
            if name == "null" { continue }
            names.append(name)
        }
        return names
    }
}
