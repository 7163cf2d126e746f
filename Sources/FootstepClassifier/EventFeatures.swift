/// The per-event feature set: names, order and layout. A model file lists
/// these names; `FootstepModel` refuses a file whose list differs.
///
/// Bump `version` whenever a feature's definition changes, so that a model
/// trained on the old definitions is refused rather than silently wrong.
public enum EventFeatures {
    /// Version of the feature definitions (recorded in datasets and model files).
    public static let version = 3

    /// Band edges (Hz) of the eight band-energy features.
    static let bandEdges: [Double] = [30, 50, 80, 125, 250, 500, 1000, 2000, 4000]

    static let bandStart = 0
    static let riseStart = 8
    static let shapeStart = 16
    static let temporalStart = 20
    static let detectorStart = 29
    static let contextStart = 34
    static let neighbourStart = contextStart + OnsetContext.featureNames.count
    /// `laf_above_background_db` and `strength_log`, which `NeighbourContext` compares.
    static let levelIndex = detectorStart + 1
    static let strengthIndex = detectorStart + 4

    /// Feature names in vector order.
    public static let names: [String] = {
        let bands = ["30_50", "50_80", "80_125", "125_250", "250_500", "500_1k", "1k_2k", "2k_4k"]
        var names = bands.map { "band_\($0)_rel_db" }
        names += bands.map { "band_\($0)_rise_db" }
        names += ["centroid_log2_khz", "rolloff85_log2_khz", "flatness_db", "low_high_ratio_db"]
        names += [
            "attack_log_ms", "decay10_log_ms", "decay20_log_ms", "contact_peaks", "second_peak_rel_db",
            "second_peak_delay_s", "crest_db", "energy_centre_s", "early_energy_fraction",
        ]
        names += ["duration_log_s", "laf_above_background_db", "lc_minus_la_db", "sel_minus_laf_db", "strength_log"]
        names += OnsetContext.featureNames
        names += NeighbourContext.featureNames
        return names
    }()

    public static var count: Int { names.count }
}
