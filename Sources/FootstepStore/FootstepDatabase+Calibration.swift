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
