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

    /// Appends `samples`.
    public mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        var index = Int(endFrame & Int64(mask))
        for sample in samples {
            storage[index] = sample
            index = (index + 1) & mask
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
        let start = startFrame
        for i in 0..<output.count {
            let frame = from + Int64(i)
            output[i] = (frame >= start && frame < endFrame) ? storage[Int(frame & Int64(mask))] : 0
        }
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
