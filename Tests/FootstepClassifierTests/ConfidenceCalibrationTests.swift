import FootstepClassifier
import FootstepCore
import Testing

/// The confidence calibration's maps: interpolation, the side of 0.5 a type
/// keeps, and the model files it refuses.
@Suite struct ConfidenceCalibrationTests {
    /// Types' curves rise from 0.1 at 0.4 to 0.9 at 1; `other`'s is the identity.
    static let rising = ConfidenceCalibration(
        curves: Array(repeating: .init(x: [0.4, 1], y: [0.1, 0.9]), count: 4) + [.init(x: [0, 1], y: [0, 1])])

    @Test func aTypeFollowsItsCurveBetweenTheKnotsAndIsConstantBeyondThem() {
        let c = Self.rising
        #expect(abs(c.calibrated(0.85, kind: .footstep, type: .running) - 0.7) < 1e-12)
        #expect(c.calibrated(1.0, kind: .footstep, type: .stomping) == 0.9)
        #expect(c.calibrated(0.2, kind: .footstep, type: .shuffling) == 0.1)
        #expect(abs(c.calibrated(0.7, kind: .other, type: .unknown) - 0.7) < 1e-12)
    }

    @Test func aTypeKeepsItsSideOfOneHalfAndUnknownPassesUnchanged() {
        let c = Self.rising
        // 0.6 maps to 0.3667 on the curve: a named type is reported at 0.5, not below.
        #expect(c.calibrated(0.6, kind: .footstep, type: .heelStrike) == 0.5)
        // Below 0.5 the curve's value stays below 0.5 whatever it says.
        let above = ConfidenceCalibration(curves: Array(repeating: .init(x: [0], y: [0.8]), count: 5))
        #expect(above.calibrated(0.45, kind: .footstep, type: .heelStrike) < 0.5)
        #expect(above.calibrated(0.45, kind: .other, type: .unknown) == 0.8)
        #expect(c.calibrated(0.42, kind: .footstep, type: .unknown) == 0.42)
    }

    @Test func curvesThatDoNotRiseOrDoNotCoverEveryClassAreRefused() throws {
        var model = try FootstepModel.bundled()
        model.confidenceCalibration = Self.rising
        try model.validate()
        model.confidenceCalibration?.curves.removeLast()
        #expect(throws: ClassifierError.self) { try model.validate() }
        model.confidenceCalibration = Self.rising
        model.confidenceCalibration?.curves[1].y = [0.9, 0.1]
        #expect(throws: ClassifierError.self) { try model.validate() }
        model.confidenceCalibration = Self.rising
        model.confidenceCalibration?.curves[4].x = [0.5, 0.5]
        #expect(throws: ClassifierError.self) { try model.validate() }
        model.confidenceCalibration = Self.rising
        model.confidenceCalibration?.curves[0].y = [0.1]
        #expect(throws: ClassifierError.self) { try model.validate() }
    }
}
