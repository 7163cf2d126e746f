/// What an impact sounds like, independent of how loud it is: the energy of
/// its first 100 ms in the eight feature bands (30 Hz–4 kHz), in dB relative
/// to their total (the `band_*_rel_db` features, floored at −60 dB).
///
/// Two steps of one walker through one floor sound alike; a kick and a
/// snare, a door and a knock do not. Gait context compares neighbours by it
/// (`distance(to:)`), never against a fixed spectrum, so the floor, the
/// microphone and its gain cancel out.
public struct EventTimbre: Sendable, Equatable, Codable {
    /// Band levels, lowest band first (dB relative to the eight bands' total).
    public var bands: SIMD8<Float>

    public init(bands: SIMD8<Float>) {
        self.bands = bands
    }

    /// The timbre of a feature vector in `EventFeatures.names` order.
    public init(features: [Double]) {
        var bands = SIMD8<Float>()
        for b in 0..<8 { bands[b] = Float(features[EventFeatures.bandStart + b]) }
        self.bands = bands
    }

    /// Mean absolute difference of the band levels, in dB.
    public func distance(to other: EventTimbre) -> Float {
        let d = bands - other.bands
        let magnitude = d.replacing(with: -d, where: d .< 0)
        return magnitude.sum() / 8
    }
}
