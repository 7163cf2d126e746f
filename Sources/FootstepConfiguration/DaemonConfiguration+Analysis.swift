import FootstepAnalysis

extension DaemonConfiguration {
    /// The pipeline settings from this configuration (the rest keep `AnalysisConfiguration`'s defaults).
    public var analysisConfiguration: AnalysisConfiguration {
        var analysis = AnalysisConfiguration()
        analysis.levelIntervalSeconds = levels.interval
        analysis.calibrationOffsetDB = levels.calibrationOffset
        analysis.detectorThreshold = detection.threshold
        analysis.minimumInterOnsetInterval = detection.minimumInterOnsetInterval
        analysis.gaitContext = detection.gaitContext
        analysis.walks = detection.walks
        analysis.minimumConfidence = detection.minimumConfidence
        analysis.equalizer = equalizer
        return analysis
    }
}
