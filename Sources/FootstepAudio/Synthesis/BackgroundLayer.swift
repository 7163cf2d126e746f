/// A stationary or slowly varying background sound.
public enum BackgroundKind: String, Sendable, Codable, CaseIterable {
    /// Mains hum at 50 Hz with harmonics (100, 150, 250, 350 Hz).
    case hum50
    /// Mains hum at 60 Hz with harmonics.
    case hum60
    /// Pink noise (room noise, ventilation).
    case pink
    /// Brown noise (distant traffic, rumble).
    case brown
    /// Speech-like babble: formant-filtered pulse trains with syllable-rate modulation.
    case babble
    /// Music: a bass line, chords and a beat.
    case music
}

/// One background component and its level relative to the loudest-weighted mix.
/// The mix as a whole is scaled to `SynthesisScenario.backgroundLevelDBFS`.
public struct BackgroundLayer: Sendable, Hashable, Codable {
    public var kind: BackgroundKind
    /// Power of this component relative to the others, in dB (0 = reference).
    public var relativeLevelDB: Double

    public init(_ kind: BackgroundKind, relativeLevelDB: Double = 0) {
        self.kind = kind
        self.relativeLevelDB = relativeLevelDB
    }
}
