import FootstepAudio

/// Reads `source` until it ends or throws: the frames it delivered first and
/// its error (nil when it simply ended).
public func readUntilError(_ source: some AudioSource) -> (frames: Int, error: AudioSourceError?) {
    var frames = 0
    var buffer = [Float](repeating: 0, count: 1000 * source.format.channels)
    do {
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { (block) throws(AudioSourceError) in try source.read(into: block) }
            if got == 0 { return (frames, nil) }
            frames += got
        }
    } catch {
        return (frames, error)
    }
}

/// Every sample `source` delivers until its end (interleaved).
public func readToEnd(_ source: some AudioSource) throws -> [Float] {
    var samples: [Float] = []
    var buffer = [Float](repeating: 0, count: 4096 * source.format.channels)
    while true {
        let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
        if frames == 0 { break }
        samples.append(contentsOf: buffer[0..<(frames * source.format.channels)])
    }
    return samples
}
