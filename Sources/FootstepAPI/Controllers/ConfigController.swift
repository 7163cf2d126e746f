import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation
import Hummingbird
import Logging

/// `GET /v1/config`, `POST /v1/config/reload`, `POST /v1/calibration`.
struct ConfigController {
    let backend: any ControlBackend
    let bodyLimit: Int
    let logger: Logger

    var routes: [Route] {
        [
            Route(.get, APIPaths.config, .read) { _, _ in
                try jsonResponse(backend.configuration())
            },
            Route(.post, APIPaths.configReload, .admin) { _, context in
                let result = try await backend.reloadConfiguration()
                logger.notice("configuration reload requested", metadata: peerMetadata(context))
                return try jsonResponse(result)
            },
            Route(.post, APIPaths.calibration, .admin) { request, context in
                let body = try await decodeBody(CalibrationRequest.self, from: request, limit: bodyLimit)
                guard body.offsetDB.isFinite, (-50...200).contains(body.offsetDB) else {
                    throw APIError.badParameter("offset_db", "must be a number in -50…200 dB")
                }
                if let reference = body.referenceDB, !(reference.isFinite && (0...200).contains(reference)) {
                    throw APIError.badParameter("reference_db", "must be a level in 0…200 dB SPL")
                }
                let method = body.method.trimmingCharacters(in: .whitespaces)
                guard !method.isEmpty else { throw APIError.badParameter("method", "must not be empty") }
                try SessionsController.checkText(method, field: "method", maximum: 200)
                var reference = body.reference ?? ""
                if let level = body.referenceDB {
                    let levelText = String(format: "%.1f dB SPL", level)
                    reference = reference.isEmpty ? levelText : "\(reference), \(levelText)"
                }
                try SessionsController.checkText(reference, field: "reference", maximum: 500)
                let measuredAt = Date()
                let referenceText = reference
                let record = try await backend.write { database in
                    try database.addCalibration(
                        measuredAt: measuredAt, offsetDB: body.offsetDB, method: method, reference: referenceText)
                }
                try await backend.applyCalibration(offsetDB: body.offsetDB)
                logger.notice(
                    "calibration stored: offset \(String(format: "%.2f", body.offsetDB)) dB (\(method))",
                    metadata: peerMetadata(context))
                return try jsonResponse(CalibrationResponse(record), status: .created)
            },
        ]
    }
}
