import FootstepCore

/// The built-in footstep synthesizer as an `AudioSource`: a named scenario,
/// planned up front (`groundTruth` is complete at init), rendered on demand.
///
/// Deterministic: the same scenario (seed and parameters) gives bit-identical
/// samples whatever buffer sizes `read(into:)` is called with. Memory stays
/// bounded for any duration (an 8-hour night holds only the event plan).
/// Samples are kept within [-1, 1]; anything that had to be clamped is counted
/// in `clippedSampleCount` (zero for the built-in scenarios up to 25 dB SNR).
///
/// - Note: `read(into:)` must be called from one thread at a time.
public final class SyntheticSource: AudioSource {
    public let scenario: SynthesisScenario
    public let format: AudioFormat
    public let name: String
    public let frameCount: Int?
    /// Every event in the stream, in onset order.
    public let groundTruth: [GroundTruthEvent]
    /// Samples clamped to ±1 in the final mix so far.
    public private(set) var clippedSampleCount = 0
    /// Events rendered quieter than their ground truth so that their peak stayed
    /// at -1 dBFS (only with extreme SNR or background level overrides).
    public var limitedEventCount: Int { renderer.limitedEventCount }

    private let renderer: ScenarioRenderer
    private let mono: UnsafeMutablePointer<Float>
    private let block: UnsafeMutablePointer<Float>
    private var blockFill = 0
    private var blockRead = 0
    private var closed = false
    private let rightDelay: Int
    private let rightGain: Float
    private var history: [Float]

    /// - Parameter layers: render only the events or only the background (stems); default both.
    public init(scenario: SynthesisScenario, layers: SynthesisLayers = .all) throws(AudioSourceError) {
        try scenario.validate()
        self.scenario = scenario
        format = AudioFormat(sampleRate: scenario.sampleRate, channels: scenario.channels)
        name = "synthetic:\(scenario.displayName)"
        frameCount = scenario.frameCount
        let sampleRate = Double(scenario.sampleRate)
        let transmission = FloorTransmission(
            ceiling: scenario.ceiling, floor: scenario.floor, seed: SynthRandom.derive(scenario.seed, 0x666C_6F6F))
        let planned = ScenarioPlanner.plan(scenario, transmission: transmission).sorted {
            $0.onsetFrame < $1.onsetFrame
        }
        groundTruth = planned.map { event in
            GroundTruthEvent(
                onset: Double(event.onsetFrame) / sampleRate, duration: event.duration, kind: event.label.kind,
                label: event.label.rawValue, footstepType: event.label.footstepType,
                levelDBFS: scenario.backgroundLevelDBFS + event.snrDB, snrDB: event.snrDB, boutIndex: event.boutIndex)
        }
        renderer = ScenarioRenderer(scenario: scenario, planned: planned, transmission: transmission, layers: layers)
        var rng = SynthRandom(seed: SynthRandom.derive(scenario.seed, 0x7374_6572))
        rightDelay = max(1, Int(rng.uniform(0.0001, 0.0006) * sampleRate))
        rightGain = Float(SynthLevel.gain(dB: rng.uniform(-2.5, -0.5)))
        history = [Float](repeating: 0, count: rightDelay)
        mono = .allocate(capacity: ScenarioRenderer.blockFrames)
        block = .allocate(capacity: ScenarioRenderer.blockFrames * scenario.channels)
    }

    /// Convenience: `SyntheticSource(spec: "night:seed=3,duration=28800")`.
    public convenience init(spec: String, layers: SynthesisLayers = .all) throws(AudioSourceError) {
        try self.init(scenario: SynthesisScenario(parsing: spec), layers: layers)
    }

    deinit {
        mono.deallocate()
        block.deallocate()
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        guard !closed, let base = buffer.baseAddress else { return 0 }
        let channels = format.channels
        let wanted = buffer.count / channels
        var written = 0
        while written < wanted {
            if blockRead == blockFill {
                blockFill = renderNextBlock()
                blockRead = 0
                if blockFill == 0 { break }
            }
            let n = min(wanted - written, blockFill - blockRead)
            (base + written * channels).update(from: block + blockRead * channels, count: n * channels)
            written += n
            blockRead += n
        }
        return written
    }

    public func close() {
        closed = true
    }

    /// Renders one block into `block` (interleaved, clamped) and returns its frame count.
    private func renderNextBlock() -> Int {
        let n = renderer.renderBlock(into: mono)
        guard n > 0 else { return 0 }
        var clipped = 0
        func clamp(_ x: Float) -> Float {
            if x > 1 {
                clipped += 1
                return 1
            }
            if x < -1 {
                clipped += 1
                return -1
            }
            return x
        }
        if format.channels == 1 {
            for i in 0..<n { block[i] = clamp(mono[i]) }
        } else {
            let d = rightDelay
            for i in 0..<n {
                let delayed = i >= d ? mono[i - d] : history[history.count - d + i]
                block[2 * i] = clamp(mono[i])
                block[2 * i + 1] = clamp(rightGain * delayed)
            }
            // Keep the last `d` mono samples (blocks are longer than the delay except the last).
            if n >= d {
                for k in 0..<d { history[k] = mono[n - d + k] }
            } else {
                history.removeFirst(n)
                for k in 0..<n { history.append(mono[k]) }
            }
        }
        clippedSampleCount += clipped
        return n
    }
}
