/// Delivers another source's audio at a different sample rate
/// (``StreamResampler``), with the same channels.
///
/// The footstep model was trained on features of 16 kHz audio and the
/// detector's bands and frames are set in samples, so the analysis runs at
/// ``analysisSampleRate`` whatever the recording's rate:
/// ``AudioSource/atAnalysisRate()`` wraps a source in this converter when
/// its rate differs.
///
/// Every frame the wrapped source delivered reaches the reader, the
/// converter's delay included, before the wrapped source's end or its error
/// (a `.stalled` device is passed on at once: it is not an end).
public final class ResamplingSource: AudioSource {
    /// The rate footstepd analyses at (it records at the source's own rate).
    public static let analysisSampleRate = 16_000

    public let format: AudioFormat
    public var name: String { wrapped.name }
    public let frameCount: Int?
    public var invalidSamples: Int { wrapped.invalidSamples }
    /// The wrapped source's losses during the last read, at this rate; placed
    /// at the start of the read's frames, so within the converter's delay.
    public private(set) var framesLostBeforeLastRead = 0
    private var lostInput = 0

    private enum State {
        case reading
        /// The wrapped source ended (with this error, if any): the converter's
        /// last frames are being delivered.
        case draining(AudioSourceError?)
        case finished
    }

    /// The source this one converts.
    public let wrapped: any AudioSource
    private let converter: StreamResampler
    private var state = State.reading
    /// Interleaved input read from `wrapped`; `pending` frames from `pendingStart` are not yet converted.
    private var input: [Float]
    private var pendingStart = 0
    private var pending = 0

    /// Converts `inner` to `sampleRate`, reading it at most `blockFrames`
    /// frames at a time (by default 50 ms: a live device's audio is passed on
    /// as it arrives). Closing this source closes `inner`.
    /// - Throws: `AudioSourceError.invalidParameter` when the rate is out of
    ///   range or libsoxr refuses the conversion.
    public init(_ inner: any AudioSource, sampleRate: Int, blockFrames: Int? = nil) throws(AudioSourceError) {
        do {
            converter = try StreamResampler(from: inner.format.sampleRate, to: sampleRate, channels: inner.format.channels)
        } catch {
            throw .invalidParameter("cannot convert \(inner.name) (\(inner.format)) to \(sampleRate) Hz: \(error)")
        }
        self.wrapped = inner
        format = AudioFormat(sampleRate: sampleRate, channels: inner.format.channels)
        frameCount = inner.frameCount.map {
            Int((Double($0) * Double(sampleRate) / Double(inner.format.sampleRate)).rounded())
        }
        input = [Float](repeating: 0, count: max(1, blockFrames ?? inner.format.sampleRate / 20) * inner.format.channels)
    }

    deinit { close() }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        let channels = format.channels
        let wanted = buffer.count / channels
        guard wanted > 0, !isClosed else { return 0 }
        framesLostBeforeLastRead = 0
        while true {
            switch state {
            case .reading:
                if pending == 0 {
                    do {
                        pending = try input.withUnsafeMutableBufferPointer { (block) throws(AudioSourceError) in
                            try wrapped.read(into: block)
                        }
                        lostInput += wrapped.framesLostBeforeLastRead
                        pendingStart = 0
                        if pending == 0 { state = .draining(nil) }
                    } catch .stalled(let device, let seconds) {
                        throw .stalled(device: device, seconds: seconds)
                    } catch {
                        state = .draining(error)
                    }
                    continue
                }
                let (used, made) = input.withUnsafeBufferPointer { block in
                    converter.convert(
                        UnsafeBufferPointer(rebasing: block[(pendingStart * channels)...]), frames: pending,
                        into: UnsafeMutableBufferPointer(rebasing: buffer[..<(wanted * channels)]))
                }
                pendingStart += used
                pending -= used
                if made > 0 {
                    if lostInput > 0 {
                        framesLostBeforeLastRead = Int(
                            (Double(lostInput) * Double(format.sampleRate) / Double(wrapped.format.sampleRate)).rounded())
                        lostInput = 0
                    }
                    return made
                }
            case let .draining(error):
                let made = converter.drain(into: UnsafeMutableBufferPointer(rebasing: buffer[..<(wanted * channels)]))
                if made > 0 { return made }
                state = .finished
                if let error { throw error }
                return 0
            case .finished:
                return 0
            }
        }
    }

    private var isClosed = false

    public func close() {
        isClosed = true
        wrapped.close()
    }
}

extension AudioSource {
    /// This source at ``ResamplingSource/analysisSampleRate``: itself when it
    /// already is, else a ``ResamplingSource`` over it.
    public func atAnalysisRate() throws(AudioSourceError) -> any AudioSource {
        guard format.sampleRate != ResamplingSource.analysisSampleRate else { return self }
        return try ResamplingSource(self, sampleRate: ResamplingSource.analysisSampleRate)
    }
}
