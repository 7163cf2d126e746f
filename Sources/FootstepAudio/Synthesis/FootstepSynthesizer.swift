/// One event rendered alone, for training a classifier: mix `samples` with any
/// background at any SNR.
public struct SynthesizedEvent: Sendable {
    /// Mono samples: `padding` of silence, the event with its full tail, `padding` of silence.
    public var samples: [Float]
    public var sampleRate: Int
    /// Index of the event's onset in `samples`.
    public var onsetFrame: Int
    /// The event's truth, with `onset` in seconds from the start of `samples` and
    /// `snrDB` relative to the default background level (-50 dBFS).
    public var groundTruth: GroundTruthEvent
}

/// Single-event rendering. The same models, floor transmission and level
/// definition as `SyntheticSource`; the style (shoes, body weight, child or
/// adult, which door) is drawn from `seed`, so different seeds give different
/// walkers and rooms.
public enum FootstepSynthesizer {
    /// The event alone with `padding` seconds of silence before and after; its onset is
    /// at frame `Int((padding * sampleRate).rounded())`. Its loudest window of
    /// `min(100 ms, duration)` has mean power `levelDBFS` (0 dBFS = full-scale sine).
    public static func renderEvent(
        _ label: SynthesisLabel, seed: UInt64, sampleRate: Int = 16000, ceiling: Bool = true,
        floor: FloorType = .timberJoist, levelDBFS: Double = -30, padding: Double = 0.2
    ) -> [Float] {
        synthesizeEvent(
            label, seed: seed, sampleRate: sampleRate, ceiling: ceiling, floor: floor, levelDBFS: levelDBFS,
            padding: padding
        ).samples
    }

    /// `renderEvent` with the ground truth and onset position.
    public static func synthesizeEvent(
        _ label: SynthesisLabel, seed: UInt64, sampleRate: Int = 16000, ceiling: Bool = true,
        floor: FloorType = .timberJoist, levelDBFS: Double = -30, padding: Double = 0.2
    ) -> SynthesizedEvent {
        let rate = Double(min(max(sampleRate, 8000), 96000))
        var rng = SynthRandom(seed: SynthRandom.derive(seed, 0x6576_656E))
        let style = SoundStyle.random(for: label, rng: &rng, child: label != .stomping && rng.chance(0.3))
        let transmission = FloorTransmission(ceiling: ceiling, floor: floor, seed: rng.next())
        let eventSeed = rng.next()
        let recipe = SoundRecipe.make(label, style: style, seed: eventSeed)
        let duration = recipe.duration + transmission.durationExtension
        let rendered = EventRenderer.render(
            recipe: recipe, transmission: transmission, seed: eventSeed, duration: duration, levelDBFS: levelDBFS,
            sampleRate: rate)
        let pad = Int((max(0, padding) * rate).rounded())
        var samples = [Float](repeating: 0, count: pad)
        samples.reserveCapacity(2 * pad + rendered.samples.count)
        samples += rendered.samples
        samples += [Float](repeating: 0, count: pad)
        let truth = GroundTruthEvent(
            onset: Double(pad) / rate, duration: duration, kind: label.kind, label: label.rawValue,
            footstepType: label.footstepType, levelDBFS: levelDBFS, snrDB: levelDBFS + 50, boutIndex: nil)
        return SynthesizedEvent(samples: samples, sampleRate: Int(rate), onsetFrame: pad, groundTruth: truth)
    }
}
