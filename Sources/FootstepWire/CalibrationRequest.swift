import Foundation

/// `POST /v1/calibration`: stores a calibration and applies it to the live levels.
///
/// `footstepctl calibrate` measures the microphone (a 94 dB calibrator, or a
/// trusted meter's reading) and sends the resulting dBFS → dB SPL offset.
public struct CalibrationRequest: Codable, Sendable, Equatable {
    /// Offset added to dBFS-derived levels to get dB SPL.
    public var offsetDB: Double
    /// The reference level measured against (94 for a calibrator), dB SPL.
    public var referenceDB: Double?
    /// How it was done (`calibrator`, `reference meter` …).
    public var method: String
    /// The reference instrument (make, model, serial), optional.
    public var reference: String?

    public init(offsetDB: Double, referenceDB: Double? = nil, method: String, reference: String? = nil) {
        self.offsetDB = offsetDB
        self.referenceDB = referenceDB
        self.method = method
        self.reference = reference
    }

    enum CodingKeys: String, CodingKey {
        case method, reference
        case offsetDB = "offset_db"
        case referenceDB = "reference_db"
    }
}

/// A stored calibration (the answer to `POST /v1/calibration`).
public struct CalibrationResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var measuredAt: Date
    public var offsetDB: Double
    public var method: String
    public var reference: String

    public init(id: Int64, measuredAt: Date, offsetDB: Double, method: String, reference: String) {
        self.id = id
        self.measuredAt = measuredAt
        self.offsetDB = offsetDB
        self.method = method
        self.reference = reference
    }

    enum CodingKeys: String, CodingKey {
        case id, method, reference
        case measuredAt = "measured_at"
        case offsetDB = "offset_db"
    }
}
