/// Renders a planned scenario block by block into a mono buffer. Blocks are
/// always `blockFrames` long (the last one shorter), whatever the caller reads,
/// so output is bit-identical for every read pattern. Memory: the events that
/// are sounding now plus fixed buffers, independent of the stream's length.
///
/// - Note: Not thread-safe; owned by one `SyntheticSource`.
final class ScenarioRenderer {
    static let blockFrames = 1024

    private struct Sounding {
        var start: Int
        var samples: [Float]
    }

    let totalFrames: Int
    private let sampleRate: Double
    private let planned: [PlannedEvent]
    private let levelDBFS: [Double]
    private let transmission: FloorTransmission
    private let background: BackgroundMix?
    private let renderEvents: Bool
    private var nextEvent = 0
    private var sounding: [Sounding] = []
    private(set) var position = 0
    private(set) var limitedEventCount = 0

    init(scenario: SynthesisScenario, planned: [PlannedEvent], transmission: FloorTransmission, layers: SynthesisLayers)
    {
        sampleRate = Double(scenario.sampleRate)
        totalFrames = scenario.frameCount
        self.planned = planned
        levelDBFS = planned.map { scenario.backgroundLevelDBFS + $0.snrDB }
        self.transmission = transmission
        renderEvents = layers.contains(.events)
        background =
            layers.contains(.background)
            ? BackgroundMix(
                layers: scenario.backgrounds, seed: scenario.seed, sampleRate: sampleRate,
                levelDBFS: scenario.backgroundLevelDBFS, duration: scenario.duration)
            : nil
        sounding.reserveCapacity(16)
    }

    /// Renders the next block (at most `blockFrames`) into `out` (overwritten) and returns its length.
    func renderBlock(into out: UnsafeMutablePointer<Float>) -> Int {
        let n = min(Self.blockFrames, totalFrames - position)
        guard n > 0 else { return 0 }
        out.initialize(repeating: 0, count: n)
        background?.add(into: out, count: n)
        if renderEvents {
            let end = position + n
            while nextEvent < planned.count, planned[nextEvent].onsetFrame < end {
                let event = planned[nextEvent]
                let recipe = SoundRecipe.make(event.label, style: event.style, seed: event.seed)
                let rendered = EventRenderer.render(
                    recipe: recipe, transmission: transmission, seed: event.seed, duration: event.duration,
                    levelDBFS: levelDBFS[nextEvent], sampleRate: sampleRate)
                if rendered.limited { limitedEventCount += 1 }
                sounding.append(Sounding(start: event.onsetFrame, samples: rendered.samples))
                nextEvent += 1
            }
            for s in sounding {
                let from = max(s.start, position)
                let to = min(s.start + s.samples.count, end)
                guard from < to else { continue }
                s.samples.withUnsafeBufferPointer { p in
                    for f in from..<to { out[f - position] += p[f - s.start] }
                }
            }
            sounding.removeAll { $0.start + $0.samples.count <= end }
        }
        position += n
        return n
    }
}

/// Which parts of a scenario a `SyntheticSource` renders. Rendering the parts
/// separately gives stems for measuring SNR or mixing training data.
public struct SynthesisLayers: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The planned events (footsteps and distractors).
    public static let events = SynthesisLayers(rawValue: 1)
    /// The background mix.
    public static let background = SynthesisLayers(rawValue: 2)
    public static let all: SynthesisLayers = [.events, .background]
}
