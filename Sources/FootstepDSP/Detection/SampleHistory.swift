/// The most recent samples of a mono stream, addressed by absolute frame
/// number. Preallocated; writing and copying never allocate.
public struct SampleHistory: ~Copyable {
    private let storage: UnsafeMutableBufferPointer<Float>
    private let mask: Int
    /// Frames written since the start of the stream (the next frame's number).
    public private(set) var endFrame: Int64 = 0

    /// Keeps at least `minimumCapacity` frames.
    public init(minimumCapacity: Int) {
        var capacity = 1024
        while capacity < minimumCapacity { capacity *= 2 }
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
        mask = capacity - 1
    }

    deinit { storage.deallocate() }

    /// How many frames are kept.
    public var capacity: Int { storage.count }

    /// The oldest frame still available.
    public var startFrame: Int64 { max(0, endFrame - Int64(storage.count)) }

    /// Appends `samples` (at most two contiguous copies around the ring's end).
    public mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        guard var source = samples.baseAddress, !samples.isEmpty else { return }
        var remaining = samples.count
        var first = endFrame
        if remaining > storage.count {
            // Only the newest `capacity` samples can be kept.
            source += remaining - storage.count
            first += Int64(remaining - storage.count)
            remaining = storage.count
        }
        var index = Int(first & Int64(mask))
        while remaining > 0 {
            let n = min(remaining, storage.count - index)
            (storage.baseAddress! + index).update(from: source, count: n)
            source += n
            remaining -= n
            index = (index + n) & mask
        }
        endFrame += Int64(samples.count)
    }

    /// Appends one sample.
    public mutating func append(_ sample: Float) {
        storage[Int(endFrame & Int64(mask))] = sample
        endFrame += 1
    }

    /// Copies frames `[from, from + output.count)` into `output`; frames not
    /// (or no longer) in the history are zero.
    public func copy(from: Int64, into output: UnsafeMutableBufferPointer<Float>) {
        pieces(from: from, into: output) { source, target, _, count in target.update(from: source, count: count) }
    }

    /// Fills `output` with frames `[from, from + output.count)` each times
    /// its weight in `weights` (as many as `output`), in one pass: an FFT's
    /// windowed input. Frames not (or no longer) in the history are zero.
    public func copy(
        from: Int64, into output: UnsafeMutableBufferPointer<Float>, weightedBy weights: UnsafeBufferPointer<Float>
    ) {
        precondition(weights.count == output.count, "one weight per output sample")
        let weight = weights.baseAddress!
        pieces(from: from, into: output) { source, target, offset, count in
            let w = weight + offset
            for i in 0..<count { target[i] = source[i] * w[i] }
        }
    }

    /// Zero-fills what of `output` lies outside the history and hands `fill`
    /// the rest in at most two contiguous pieces (the ring wraps once):
    /// (source in the ring, target in `output`, the target's offset in
    /// `output`, frames).
    @inline(__always)
    private func pieces(
        from: Int64, into output: UnsafeMutableBufferPointer<Float>,
        _ fill: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Int) -> Void
    ) {
        guard let destination = output.baseAddress, !output.isEmpty else { return }
        let lower = max(from, startFrame)
        let upper = min(from + Int64(output.count), endFrame)
        guard lower < upper else {
            destination.update(repeating: 0, count: output.count)
            return
        }
        let head = Int(lower - from)
        let available = Int(upper - lower)
        destination.update(repeating: 0, count: head)
        var written = 0
        var index = Int(lower & Int64(mask))
        while written < available {
            let n = min(available - written, storage.count - index)
            fill(storage.baseAddress! + index, destination + head + written, head + written, n)
            written += n
            index = (index + n) & mask
        }
        (destination + head + available).update(repeating: 0, count: output.count - head - available)
    }

    /// Fills `output` from frame `from` on (see `copy(from:into:)`).
    public func copy(from: Int64, into output: inout [Float]) {
        output.withUnsafeMutableBufferPointer { copy(from: from, into: $0) }
    }

    /// The sample at absolute `frame` (0 when not available).
    public subscript(frame: Int64) -> Float {
        (frame >= startFrame && frame < endFrame) ? storage[Int(frame & Int64(mask))] : 0
    }
}
