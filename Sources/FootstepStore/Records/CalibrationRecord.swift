import Foundation
import GRDB

/// A calibration of the microphone chain (table `calibration`). Reports call the
/// levels "calibrated" when one exists and say which reference was used.
public struct CalibrationRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// When the calibration was done (UTC).
    public var measuredAt: Date
    /// Offset added to dBFS-derived levels to get dB SPL.
    public var offsetDB: Double
    /// How it was done ("94 dB calibrator", "compared with a class 2 meter").
    public var method: String
    /// The reference instrument (make, model, serial, certificate).
    public var reference: String

    /// `method` of a calibration taken from the configuration file's
    /// `levels.calibration_offset` rather than measured.
    public static let configurationMethod = "configuration file"
    /// `reference` of a calibration taken from the configuration file.
    public static let configurationReference = "no reference measurement"

    /// True when the offset came from the configuration file, not from a
    /// measurement against a reference (`footstepctl calibrate`).
    public var isFromConfiguration: Bool { method == Self.configurationMethod }

    /// Whether levels measured with this calibration are absolute: a
    /// configuration offset of 0 means the offset was removed (uncalibrated).
    public var makesLevelsAbsolute: Bool { !(isFromConfiguration && offsetDB == 0) }

    /// Creates a calibration value.
    public init(id: Int64? = nil, measuredAt: Date, offsetDB: Double, method: String, reference: String) {
        self.id = id
        self.measuredAt = measuredAt
        self.offsetDB = offsetDB
        self.method = method
        self.reference = reference
    }
}

extension CalibrationRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `calibration`.
    public static let databaseTableName = "calibration"

    /// Column names.
    public enum Columns {
        public static let measuredAt = Column("measuredAt")
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
