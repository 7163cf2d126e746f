/// Precision, recall and F1 of detected onsets against ground-truth onsets,
/// matching each truth to at most one detection within a tolerance.
public struct DetectionScore: Sendable, CustomStringConvertible {
    public var truePositives: Int
    public var falsePositives: Int
    public var falseNegatives: Int
    /// Onset errors (detected − true, seconds) of the matched pairs.
    public var onsetErrors: [Double]

    /// Greedy matching in time order: each true onset takes the nearest
    /// unmatched detection within `tolerance` seconds.
    public init(detected: [Double], truth: [Double], tolerance: Double = 0.05) {
        let detections = detected.sorted()
        var used = [Bool](repeating: false, count: detections.count)
        var errors: [Double] = []
        var start = 0
        for onset in truth.sorted() {
            while start < detections.count, detections[start] < onset - tolerance { start += 1 }
            var best: Int?
            var index = start
            while index < detections.count, detections[index] <= onset + tolerance {
                if !used[index], best == nil || abs(detections[index] - onset) < abs(detections[best!] - onset) {
                    best = index
                }
                index += 1
            }
            if let best {
                used[best] = true
                errors.append(detections[best] - onset)
            }
        }
        truePositives = errors.count
        falseNegatives = truth.count - errors.count
        falsePositives = detections.count - errors.count
        onsetErrors = errors
    }

    public var precision: Double { truePositives + falsePositives == 0 ? 1 : Double(truePositives) / Double(truePositives + falsePositives) }
    public var recall: Double { truePositives + falseNegatives == 0 ? 1 : Double(truePositives) / Double(truePositives + falseNegatives) }
    public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    /// Median absolute onset error of matched pairs, seconds.
    public var medianAbsoluteOnsetError: Double {
        let sorted = onsetErrors.map(abs).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    public var description: String {
        "F1 \(rounded(f1)) (precision \(rounded(precision)), recall \(rounded(recall)); TP \(truePositives), FP \(falsePositives), FN \(falseNegatives); median |onset error| \(rounded(medianAbsoluteOnsetError * 1000)) ms)"
    }

    private func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
