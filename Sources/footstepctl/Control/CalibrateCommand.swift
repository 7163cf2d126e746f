import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Calibrate the microphone: measure a known level and store the dBFS → dB SPL offset.",
            discussion: ControlExitCodes.discussion(
                """
                With an acoustic calibrator (94 dB at 1 kHz) fitted to the microphone, run \
                `footstepctl calibrate`. Without one, place the microphone next to a trusted sound \
                level meter in a steady noise (a fan, pink noise from a speaker) and pass the meter's \
                dB(A) reading: `footstepctl calibrate --reference 62.5 --instrument "Class 2 meter, SN 1234"`.

                The live levels are averaged (energy mean of LAeq) over --seconds; the offset is the \
                reference minus the uncalibrated level. The measurement is refused when the level \
                varies by more than --max-range dB (the source is not steady). The calibration is \
                stored with its date and applied at once; reports then call levels calibrated. \
                Needs the admin group.
                """))

        @Option(help: ArgumentHelp("The true level in dB SPL (A-weighted reading of a trusted meter); default 94 dB, a 1 kHz calibrator.", valueName: "DB"))
        var reference: Double?
        @Option(help: "Seconds to measure.") var seconds: Double = 10
        @Option(help: ArgumentHelp("Largest LAF range (max − min) accepted, dB.", valueName: "DB")) var maxRange: Double = 3
        @Option(help: ArgumentHelp("The reference instrument, stored with the calibration (make, model, serial).", valueName: "TEXT"))
        var instrument: String?
        @Flag(help: "Measure and print the offset without storing it.") var dryRun = false
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard seconds >= 1 && seconds <= 600 else { throw ValidationError("--seconds must be between 1 and 600.") }
            guard maxRange > 0 else { throw ValidationError("--max-range must be positive.") }
            if let reference, !(20...160).contains(reference) {
                throw ValidationError("--reference must be a level between 20 and 160 dB.")
            }
        }

        func run() async throws {
            try await connection.withClient { client in
                let currentOffset = try await client.configuration()["levels", "calibration_offset"]?.number ?? 0
                let progress = isatty(STDERR_FILENO) == 1
                let measurement = try await CalibrationMeasurement.measure(
                    client: client, seconds: seconds, progress: progress)
                let result = try measurement.offset(reference: reference ?? 94, currentOffset: currentOffset, maxRange: maxRange)
                let method = reference == nil ? "94 dB calibrator at 1 kHz" : "compared with a reference sound level meter"
                let summary = String(
                    format: "measured %.1f dB(A) uncalibrated over %.1f s (LAF range %.1f dB); reference %.1f dB; offset %+.2f dB",
                    result.uncalibrated, measurement.duration, measurement.range, reference ?? 94, result.offset)
                if dryRun {
                    if output.json {
                        return try OutputOptions.printJSON(CalibrationRequest(
                            offsetDB: result.offset, referenceDB: reference ?? 94, method: method, reference: instrument))
                    }
                    return print(summary + " (not stored: --dry-run)")
                }
                let request = try ControlRequest.calibrate(
                    CalibrationRequest(offsetDB: result.offset, referenceDB: reference ?? 94, method: method, reference: instrument))
                let data = try await client.data(request)
                if output.json { return OutputOptions.printJSON(data) }
                let stored = try ControlClient.decode(CalibrationResponse.self, from: data)
                print(summary)
                print("stored as calibration \(stored.id) on \(HumanFormat.time(stored.measuredAt)); levels are now dB SPL")
            }
        }
    }
}

/// Live level readings collected over a window, and the offset they imply.
struct CalibrationMeasurement {
    var readings: [LiveLevelReading]

    /// Seconds between the first and last reading.
    var duration: Double {
        guard let first = readings.first, let last = readings.last else { return 0 }
        return last.time.timeIntervalSince(first.time)
    }

    /// max − min of the Fast levels.
    var range: Double {
        let levels = readings.map(\.lafDB)
        guard let low = levels.min(), let high = levels.max() else { return .infinity }
        return high - low
    }

    /// The energy mean of the readings' LAeq.
    var energyMean: Double {
        let energy = readings.reduce(0.0) { $0 + pow(10, $1.laeqDB / 10) } / Double(readings.count)
        return 10 * log10(energy)
    }

    /// Reads `/v1/levels/live` for `seconds` (wall clock).
    static func measure(client: ControlClient, seconds: Double, progress: Bool) async throws -> CalibrationMeasurement {
        var readings: [LiveLevelReading] = []
        let start = ContinuousClock.now
        for try await reading in client.liveLevels() {
            readings.append(reading)
            let elapsed = Double((ContinuousClock.now - start).components.seconds)
            if progress {
                FileHandle.standardError.write(
                    Data(String(format: "\rmeasuring… %2.0f/%.0f s  LAF %@", elapsed, seconds, HumanFormat.decibels(reading.lafDB)).utf8))
            }
            if ContinuousClock.now - start >= .seconds(seconds) { break }
        }
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        guard ContinuousClock.now - start >= .seconds(seconds) else { throw LiveOutput.streamEnded }
        return CalibrationMeasurement(readings: readings)
    }

    /// The new offset, or a failure saying why the measurement cannot be trusted.
    func offset(reference: Double, currentOffset: Double, maxRange: Double) throws(CommandFailure)
        -> (offset: Double, uncalibrated: Double)
    {
        guard readings.count >= 4 else {
            throw CommandFailure("only \(readings.count) level readings arrived; is footstepd capturing?", exitCode: 65)
        }
        let measured = energyMean
        guard measured.isFinite else {
            throw CommandFailure("the microphone delivers silence: check the device and the calibrator", exitCode: 65)
        }
        guard range <= maxRange else {
            throw CommandFailure(
                String(
                    format: "the level varied by %.1f dB (more than %.1f dB) during the measurement: use a steady source, keep still and quiet, and try again",
                    range, maxRange), exitCode: 65)
        }
        // Readings already carry the offset in force; remove it to get the raw level.
        let calibrated = readings.contains { $0.calibrated }
        let uncalibrated = measured - (calibrated ? currentOffset : 0)
        return (reference - uncalibrated, uncalibrated)
    }
}
