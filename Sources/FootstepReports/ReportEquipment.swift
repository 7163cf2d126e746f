import Foundation

/// The instrument behind the figures: devices, microphone, calibrations.
public struct ReportEquipment: Sendable, Equatable {
    /// A capture device as the sessions recorded it.
    public struct Device: Sendable, Equatable {
        /// `alsa:plughw:CARD=Mic,DEV=0`, `synthetic:night`, a file.
        public var name: String
        public var sampleRate: Int
        public var channels: Int
        /// Sessions in the report that used it.
        public var sessions: Int

        public init(name: String, sampleRate: Int, channels: Int, sessions: Int) {
            self.name = name
            self.sampleRate = sampleRate
            self.channels = channels
            self.sessions = sessions
        }
    }

    public var devices: [Device]
    /// The microphone (make, model) and where it is, from `[capture]` of the configuration.
    public var microphone: String
    public var placement: String
    /// Every calibration up to the end of the report, oldest first.
    public var calibrations: [ReportCalibration]

    public init(devices: [Device], microphone: String = "", placement: String = "", calibrations: [ReportCalibration] = []) {
        self.devices = devices
        self.microphone = microphone
        self.placement = placement
        self.calibrations = calibrations.sorted { $0.measuredAt < $1.measuredAt }
    }

    /// How far each measured calibration moved from the previous measured one (dB), by date.
    public var drifts: [(measuredAt: Date, change: Double)] {
        let measured = calibrations.filter { !$0.isFromConfiguration }
        return zip(measured, measured.dropFirst()).map { ($1.measuredAt, $1.offsetDB - $0.offsetDB) }
    }
}

extension ReportDocument {
    /// The quietest minute of each recorded night (lowest LA90): the floor under
    /// every level, the microphone's self-noise included.
    public var noiseFloors: [(date: String, la90: Double)] {
        statistics.nights.compactMap { night in
            let minutes = EvidenceStatistics.slice(levels, from: night.start, to: night.end, time: \.start)
            guard let lowest = minutes.map(\.la90).filter(\.isFinite).min() else { return nil }
            return (night.date, lowest)
        }
    }

    /// Rules whose limit is less than 6 dB above the lowest noise floor, or
    /// below it: their exceedances may be partly, or wholly, the background or
    /// the microphone's own noise.
    public var noiseFloorWarnings: [String] {
        guard scope.calibrated, let floor = noiseFloors.map(\.la90).min() else { return [] }
        return rules.filter(\.rule.needsCalibration).compactMap { check in
            let limit = min(check.rule.threshold, check.rule.nightThreshold ?? .infinity)
            guard floor >= limit - 6 else { return nil }
            if floor > limit {
                return String(
                    format: "The lowest noise floor (LA90 %.1f dB(A)) is %.1f dB above the limit of \"%@\" (%.0f dB(A)): the room's background or the microphone's self-noise (about 29 dB(A) for a low-cost MEMS microphone) exceeds it on its own, so its exceedances cannot be told from the background.",
                    floor, floor - limit, check.name, limit)
            }
            return String(
                format: "The lowest noise floor (LA90 %.1f dB(A)) is within 6 dB of the limit of \"%@\" (%.0f dB(A)): part of what exceeds it may be the room's background or the microphone's self-noise (about 29 dB(A) for a low-cost MEMS microphone).",
                floor, check.name, limit)
        }
    }

    /// Label/value lines of the equipment and calibration section.
    var equipmentFacts: [(label: String, value: String)] {
        guard let equipment else { return [] }
        let clock = clock
        var facts: [(String, String)] = []
        for device in equipment.devices {
            facts.append((
                "Capture device",
                "\(device.name), \(device.sampleRate) Hz, \(device.channels) channel\(device.channels == 1 ? "" : "s") (\(device.sessions) session\(device.sessions == 1 ? "" : "s"))"
            ))
        }
        facts.append(("Microphone", equipment.microphone.isEmpty ? "not described ([capture] microphone in the configuration)" : equipment.microphone))
        facts.append(("Placement", equipment.placement.isEmpty ? "not described ([capture] placement)" : equipment.placement))
        if equipment.calibrations.isEmpty {
            facts.append(("Calibration", "none: levels are relative to full scale"))
        }
        for calibration in equipment.calibrations {
            var text = String(format: "%+.1f dB", calibration.offsetDB)
            if calibration.isFromConfiguration {
                text += calibration.offsetDB == 0 ? " (offset removed from the configuration file)" : " from the configuration file, no reference measurement"
            } else {
                if !calibration.method.isEmpty { text += "; method: \(calibration.method)" }
                if !calibration.reference.isEmpty { text += "; reference: \(calibration.reference)" }
            }
            facts.append(("Calibration \(clock.dayKey(calibration.measuredAt))", text))
        }
        for drift in equipment.drifts {
            facts.append(("Drift to \(clock.dayKey(drift.measuredAt))", String(format: "%+.1f dB since the previous measurement", drift.change)))
        }
        let floors = noiseFloors
        if !floors.isEmpty {
            facts.append((
                "Noise floor",
                "lowest LA90 of each night: "
                    + floors.map { String(format: "night of %@: %.1f %@", $0.date, $0.la90, scope.levelUnit) }.joined(separator: "; ")
            ))
        }
        return facts
    }
}
