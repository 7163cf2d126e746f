import FootstepCore
import FootstepStore
import FootstepStoreWire
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// An event's measurements are one value from the store's append to the API's
/// JSON: nothing is dropped or renamed on the way, and the wire keeps its
/// flat snake-case keys.
@Suite("Event measurements from store to wire")
struct EventMeasurementsWireTests {
    @Test func theMeasurementsSurviveTheStoreAndTheWire() throws {
        let directory = try TemporaryDirectory()
        let database = try FootstepDatabase.open(path: directory.path + "/footstepd.db")
        let start = Date(timeIntervalSince1970: 1_740_866_400)
        let session = try database.createSession(startedAt: start, device: "hw:1", sampleRate: 16_000)
        let measured = EventMeasurements(
            duration: 0.1875, kind: .footstep, type: .stomping, confidence: 0.8125, intensity: .high, laMax: 61.5,
            lcMax: 72.25, peakDBFS: -9.5, sel: 55.75, backgroundLA: 31.5)
        let bare = EventMeasurements(
            duration: 0.25, kind: .other, type: .unknown, confidence: 0.625, intensity: .low, laMax: 40, peakDBFS: -30,
            sel: 35)
        let ids = try database.appendEvents([
            NewEvent(sessionId: session.id!, frameOffset: 16_000, timestamp: start.addingTimeInterval(1), measurements: measured),
            NewEvent(sessionId: session.id!, frameOffset: 32_000, timestamp: start.addingTimeInterval(2), measurements: bare),
        ])
        let stored = try ids.map { try #require(try database.event($0)) }
        #expect(stored.map(\.measurements) == [measured, bare])

        let responses = stored.map(EventResponse.init)
        #expect(responses.map(\.measurements) == [measured, bare])
        let json = try APIJSON.encoder.encode(responses[0])
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["la_max"] as? Double == 61.5)
        #expect(object["lc_max"] as? Double == 72.25)
        #expect(object["peak_dbfs"] as? Double == -9.5)
        #expect(object["background_la"] as? Double == 31.5)
        #expect(object["type"] as? String == "stomping")
        #expect(object["measurements"] == nil)
        let bareObject = try #require(
            try JSONSerialization.jsonObject(with: APIJSON.encoder.encode(responses[1])) as? [String: Any])
        #expect(bareObject["lc_max"] == nil && bareObject["background_la"] == nil)
        for response in responses {
            #expect(try APIJSON.decoder.decode(EventResponse.self, from: APIJSON.encoder.encode(response)) == response)
        }
    }

    /// What the store accepts of the pipeline's values: −∞ levels become
    /// −200 dB or absent, the duration and confidence are clamped.
    @Test func storableMeasurementsAreFinite() {
        let raw = EventMeasurements(
            duration: -.infinity, kind: .footstep, type: .running, confidence: 1.5, intensity: .low, laMax: -.infinity,
            lcMax: -.infinity, peakDBFS: .nan, sel: -.infinity, backgroundLA: -.infinity)
        let storable = raw.storable
        #expect(storable.duration == 0 && storable.confidence == 1)
        #expect(storable.laMax == -200 && storable.peakDBFS == -200 && storable.sel == -200)
        #expect(storable.lcMax == nil && storable.backgroundLA == nil)
        #expect(storable.kind == .footstep && storable.type == .running && storable.intensity == .low)
    }
}
