import CAlsa

/// An ALSA configuration parsed from text, for opening PCMs defined outside
/// the system's `alsa.conf` (tests define a `file`-plugin PCM this way; no
/// environment variables or files needed).
public final class ALSAConfigurationTree: @unchecked Sendable {
    let handle: OpaquePointer

    /// Parses `text` in `asoundrc` syntax.
    public init(text: String) throws(AudioSourceError) {
        var top: OpaquePointer?
        var rc = snd_config_top(&top)
        guard rc >= 0, let top else {
            throw .invalidParameter("cannot create an ALSA configuration: \(String(cString: snd_strerror(rc)))")
        }
        var input: OpaquePointer?
        let bytes = Array(text.utf8)
        rc = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                snd_input_buffer_open(&input, chars.baseAddress, chars.count)
            }
        }
        guard rc >= 0, let input else {
            snd_config_delete(top)
            throw .invalidParameter("cannot read the ALSA configuration text: \(String(cString: snd_strerror(rc)))")
        }
        rc = snd_config_load(top, input)
        snd_input_close(input)
        guard rc >= 0 else {
            snd_config_delete(top)
            throw .invalidParameter("invalid ALSA configuration: \(String(cString: snd_strerror(rc)))")
        }
        handle = top
    }

    deinit { snd_config_delete(handle) }
}
