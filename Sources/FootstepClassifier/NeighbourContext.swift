import Foundation

/// How an impact compares with the impacts just before it, as classifier
/// context: a walker's steps sound alike and come at much the same loudness,
/// while a door, a drop or a knock differs from what came before. Up to
/// `capacity` impacts of the last `spanSeconds` count as neighbours (never
/// later ones: the event leaves at once).
///
/// Features (`featureNames`, in order):
/// - `nearest_band_distance_db`: the smallest mean absolute difference of the
///   eight band levels (`band_*_rel_db`) between the event and a neighbour
///   (`noNeighbourDistance` with no neighbour);
/// - `neighbour_laf_spread_db`: the median absolute difference of
///   `laf_above_background_db` from the neighbours' (`noNeighbourDistance`);
/// - `similar_neighbours`: how many neighbours are within `similarBandDistance`
///   in spectrum and `similarLevelDifference` in level;
/// - `laf_minus_neighbours_db`, `strength_minus_neighbours_log`: the event's
///   level above background and detector strength (log) minus the neighbours'
///   medians (0 with no neighbour): louder than the walker's steps so far;
/// - `previous_band_distance_log`: log10 of the spectral distance to the
///   latest neighbour (floored at 1e-3 dB; `noNeighbourDistance` with none);
/// - `similar_gap_s`: seconds since the latest similar neighbour (5 with none);
/// - `similar_irregularity`: how far that gap differs from the one between the
///   two latest similar neighbours, as a fraction of it (at most 2; 2 with
///   fewer than two): a walker's steps are alike and on a beat.
///
/// The values are read from the event's own features, so every one is
/// independent of the microphone's gain. Storage is allocated in `init`;
/// `features` and `record` do not allocate.
struct NeighbourContext {
    static let featureNames = [
        "nearest_band_distance_db", "neighbour_laf_spread_db", "similar_neighbours", "laf_minus_neighbours_db",
        "strength_minus_neighbours_log", "previous_band_distance_log", "similar_gap_s", "similar_irregularity",
    ]
    static let capacity = 8
    static let spanSeconds = 3.0
    static let similarBandDistance = 4.0
    static let similarLevelDifference = 6.0
    static let noNeighbourDistance = 30.0
    static let noSimilarGap = 5.0
    static let noRhythm = 2.0

    private static let bandCount = EventFeatures.bandEdges.count - 1
    /// A slot: onset, level above background, strength (log), then the band levels.
    private static let levelOffset = 1
    private static let strengthOffset = 2
    private static let bandOffset = 3
    private static let stride = bandOffset + bandCount

    /// A ring of the latest `capacity` impacts, `stride` values each.
    private var slots: [Double]
    private var count = 0
    private var next = 0
    /// Scratch for medians.
    private var scratch: [Double]

    init() {
        slots = [Double](repeating: 0, count: Self.capacity * Self.stride)
        scratch = [Double](repeating: 0, count: Self.capacity)
    }

    /// Writes the features of the event whose other features are already in
    /// `out` (band levels, level above background, strength) at `start`.
    mutating func features(at time: Double, into out: UnsafeMutableBufferPointer<Double>, from start: Int) {
        let level = out[EventFeatures.levelIndex]
        let strength = out[EventFeatures.strengthIndex]
        var neighbours = 0
        var nearest = Self.noNeighbourDistance
        var latest = Self.noNeighbourDistance
        var similar = 0
        var similarGap = Self.noSimilarGap
        var similarIrregularity = Self.noRhythm
        // Newest first.
        for j in 0..<count {
            let base = slotBase(j)
            let onset = slots[base]
            guard time - onset <= Self.spanSeconds else { break }
            var distance = 0.0
            for b in 0..<Self.bandCount {
                distance += abs(out[EventFeatures.bandStart + b] - slots[base + Self.bandOffset + b])
            }
            distance /= Double(Self.bandCount)
            if j == 0 { latest = distance }
            nearest = min(nearest, distance)
            let difference = level - slots[base + Self.levelOffset]
            if distance < Self.similarBandDistance, abs(difference) < Self.similarLevelDifference {
                if similar == 0 { similarGap = time - onset }
                if similar == 1 {
                    let previousGap = (time - similarGap) - onset
                    similarIrregularity = min(Self.noRhythm, abs(similarGap - previousGap) / max(similarGap, 1e-3))
                }
                similar += 1
            }
            neighbours += 1
        }
        var i = start
        out[i] = nearest; i += 1
        out[i] =
            neighbours > 0
            ? median(neighbours, offset: Self.levelOffset, absoluteDifferenceFrom: level) : Self.noNeighbourDistance
        i += 1
        out[i] = Double(similar); i += 1
        out[i] = neighbours > 0 ? level - median(neighbours, offset: Self.levelOffset) : 0; i += 1
        out[i] = neighbours > 0 ? strength - median(neighbours, offset: Self.strengthOffset) : 0; i += 1
        out[i] = log10(max(1e-3, latest)); i += 1
        out[i] = similarGap; i += 1
        out[i] = similarIrregularity
    }

    /// Remembers the event whose features are in `out` as the newest impact.
    mutating func record(_ onset: Double, features out: UnsafeMutableBufferPointer<Double>) {
        let base = next * Self.stride
        slots[base] = onset
        slots[base + Self.levelOffset] = out[EventFeatures.levelIndex]
        slots[base + Self.strengthOffset] = out[EventFeatures.strengthIndex]
        for b in 0..<Self.bandCount { slots[base + Self.bandOffset + b] = out[EventFeatures.bandStart + b] }
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Where the `j`-th newest impact's values start in `slots`.
    private func slotBase(_ j: Int) -> Int {
        ((next - 1 - j + 2 * Self.capacity) % Self.capacity) * Self.stride
    }

    /// The median over the `n` newest impacts of the value at `offset` in
    /// their slots, or of its absolute difference from `reference`; the mean
    /// of the middle two when `n` is even.
    private mutating func median(_ n: Int, offset: Int, absoluteDifferenceFrom reference: Double? = nil) -> Double {
        for j in 0..<n {
            var x = slots[slotBase(j) + offset]
            if let reference { x = abs(reference - x) }
            // Insertion into the sorted prefix.
            var k = j
            while k > 0, scratch[k - 1] > x {
                scratch[k] = scratch[k - 1]
                k -= 1
            }
            scratch[k] = x
        }
        return n % 2 == 1 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2])
    }
}
