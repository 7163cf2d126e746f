import Foundation
import GRDB

extension FootstepDatabase {
    /// Records a calibration of the microphone chain.
    ///
    /// - Returns: The inserted calibration with its id.
    @discardableResult
    public func addCalibration(measuredAt: Date, offsetDB: Double, method: String, reference: String) throws(StoreError)
        -> CalibrationRecord
    {
        guard offsetDB.isFinite else { throw .invalidValue("calibration offset \(offsetDB) is not a finite number") }
        var calibration = CalibrationRecord(measuredAt: measuredAt, offsetDB: offsetDB, method: method, reference: reference)
        return try write { db in
            try calibration.insert(db)
            return calibration
        }
    }

    /// Records the configuration file's `levels.calibration_offset` as a
    /// calibration (method "configuration file", no reference) when it differs
    /// from the latest one, and nothing when a measured calibration
    /// (`footstepctl calibrate`) exists: that one wins over the file.
    ///
    /// - Returns: The calibration in force afterwards, or nil (uncalibrated).
    @discardableResult
    public func recordConfigurationCalibration(offsetDB: Double, at date: Date) throws(StoreError) -> CalibrationRecord? {
        guard offsetDB.isFinite else { throw .invalidValue("calibration offset \(offsetDB) is not a finite number") }
        return try write { db in
            let all = try CalibrationRecord.order(CalibrationRecord.Columns.measuredAt, Column("id")).fetchAll(db)
            if let measured = all.last(where: { !$0.isFromConfiguration }) { return measured }
            let latest = all.last
            if (latest?.offsetDB ?? 0) == offsetDB { return latest?.makesLevelsAbsolute == true ? latest : nil }
            var calibration = CalibrationRecord(
                measuredAt: date, offsetDB: offsetDB, method: CalibrationRecord.configurationMethod,
                reference: CalibrationRecord.configurationReference)
            try calibration.insert(db)
            return calibration.makesLevelsAbsolute ? calibration : nil
        }
    }

    /// The latest measured calibration (`footstepctl calibrate`), or nil.
    public func latestMeasuredCalibration() throws(StoreError) -> CalibrationRecord? {
        try read { db in
            try CalibrationRecord.filter(Column("method") != CalibrationRecord.configurationMethod)
                .order(CalibrationRecord.Columns.measuredAt.desc, Column("id").desc).fetchOne(db)
        }
    }

    /// The most recent calibration, or nil (reports then say "uncalibrated").
    public func latestCalibration() throws(StoreError) -> CalibrationRecord? {
        try read { db in
            try CalibrationRecord.order(CalibrationRecord.Columns.measuredAt.desc, Column("id").desc).fetchOne(db)
        }
    }

    /// All calibrations, oldest first.
    public func calibrations() throws(StoreError) -> [CalibrationRecord] {
        try read { db in
            try CalibrationRecord.order(CalibrationRecord.Columns.measuredAt, Column("id")).fetchAll(db)
        }
    }
}
