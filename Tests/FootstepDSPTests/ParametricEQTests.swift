import Foundation
import Testing

@testable import FootstepDSP

@Suite struct ParametricEQTests {
    /// Steady-state gain (dB) of `eq` on a sine at `frequency`, mono.
    private func gain(_ eq: inout ParametricEQ, frequency: Double, sampleRate: Double) -> Double {
        let x = TestSignals.sine(frequency: frequency, dBFS: -20, seconds: 2, sampleRate: sampleRate)
        var y = x
        y.withUnsafeMutableBufferPointer { eq.process(interleaved: $0, channels: 1) }
        let settled = Int(sampleRate)..<x.count
        return TestSignals.levelDBFS(y, settled) - TestSignals.levelDBFS(x, settled)
    }

    @Test func peakingBandRaisesItsCentreBy6dBAndLeaves100HzAlone() throws {
        let fs = 48000.0
        let bands = [[EQBand(kind: .peaking, frequency: 1000, gainDB: 6, q: 1)]]
        var eq = try ParametricEQ(bands: bands, sampleRate: fs)
        #expect(abs(gain(&eq, frequency: 1000, sampleRate: fs) - 6) < 0.1)
        eq.reset()
        #expect(abs(gain(&eq, frequency: 100, sampleRate: fs)) < 0.5)
        #expect(abs(eq.magnitudeDB(atFrequency: 1000) - 6) < 1e-9)
    }

    @Test(arguments: [EQBand.Kind.lowShelf, .highShelf])
    func shelvesReachTheirGainOnTheShelf(kind: EQBand.Kind) throws {
        let fs = 16000.0
        var eq = try ParametricEQ(bands: [[EQBand(kind: kind, frequency: 500, gainDB: -9, q: 0.707)]], sampleRate: fs)
        let onShelf = kind == .lowShelf ? 40.0 : 6000.0
        let offShelf = kind == .lowShelf ? 6000.0 : 40.0
        #expect(abs(eq.magnitudeDB(atFrequency: onShelf) - -9) < 0.2)
        #expect(abs(eq.magnitudeDB(atFrequency: offShelf)) < 0.2)
        #expect(abs(gain(&eq, frequency: onShelf, sampleRate: fs) - -9) < 0.2)
    }

    @Test func stereoChannelsUseTheirOwnBands() throws {
        let fs = 16000.0
        var eq = try ParametricEQ(
            bands: [[EQBand(kind: .peaking, frequency: 1000, gainDB: 6, q: 1)],
                    [EQBand(kind: .peaking, frequency: 1000, gainDB: -6, q: 1)]],
            sampleRate: fs)
        let mono = TestSignals.sine(frequency: 1000, dBFS: -20, seconds: 2, sampleRate: fs)
        var interleaved = [Float](repeating: 0, count: mono.count * 2)
        for i in mono.indices {
            interleaved[2 * i] = mono[i]
            interleaved[2 * i + 1] = mono[i]
        }
        interleaved.withUnsafeMutableBufferPointer { eq.process(interleaved: $0, channels: 2) }
        let left = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
        let right = stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] }
        let settled = 16000..<mono.count
        #expect(abs(TestSignals.levelDBFS(left, settled) - -14) < 0.1)
        #expect(abs(TestSignals.levelDBFS(right, settled) - -26) < 0.1)
    }

    @Test func noBandsIsBypass() throws {
        var eq = try ParametricEQ(bands: [], sampleRate: 16000)
        #expect(eq.isBypassed)
        let x = TestSignals.noise(amplitude: 0.5, count: 256, seed: 9)
        var y = x
        y.withUnsafeMutableBufferPointer { eq.process(interleaved: $0, channels: 2) }
        #expect(x == y)
    }

    @Test func moreThan14BandsIsRejected() {
        let band = EQBand(kind: .peaking, frequency: 1000, gainDB: 3, q: 1)
        #expect(throws: DSPError.tooManyEQBands(channel: 1, count: 15, maximum: 14)) {
            try ParametricEQ(bands: [[band], Array(repeating: band, count: 15)], sampleRate: 48000)
        }
        #expect((try? ParametricEQ(bands: [Array(repeating: band, count: 14)], sampleRate: 48000)) != nil)
    }

    @Test func moreThanTwoChannelListsIsRejected() {
        #expect(throws: DSPError.tooManyEQChannels(count: 3, maximum: 2)) {
            try ParametricEQ(bands: [[], [], []], sampleRate: 48000)
        }
    }

    @Test(arguments: [
        (EQBand(kind: .peaking, frequency: 1000, gainDB: 30, q: 1), EQBand.Parameter.gainDB, 30.0, EQBand.gainRange),
        (EQBand(kind: .lowShelf, frequency: 5, gainDB: 3, q: 1), .frequency, 5.0, 10...21600),
        (EQBand(kind: .highShelf, frequency: 23000, gainDB: 3, q: 1), .frequency, 23000.0, 10...21600),
        (EQBand(kind: .peaking, frequency: 1000, gainDB: 3, q: 0), .q, 0.0, EQBand.qRange),
    ])
    func outOfRangeValueNamesBandParameterAndRange(
        band: EQBand, parameter: EQBand.Parameter, value: Double, allowed: ClosedRange<Double>
    ) {
        let good = EQBand(kind: .peaking, frequency: 200, gainDB: -3, q: 2)
        #expect(throws: DSPError.invalidEQBand(channel: 0, band: 1, parameter: parameter, value: value, allowed: allowed)) {
            try ParametricEQ(bands: [[good, band]], sampleRate: 48000)
        }
    }

    @Test func nanGainIsRejectedWithAReadableMessage() {
        do {
            _ = try ParametricEQ(bands: [[EQBand(kind: .peaking, frequency: 1000, gainDB: .nan, q: 1)]], sampleRate: 16000)
            Issue.record("NaN gain accepted")
        } catch {
            #expect(error.description.contains("EQ channel 1, band 1: gain_db"))
            #expect(error.description.contains("-24.0...24.0"))
        }
    }

    @Test func bandsDecodeFromSnakeCaseKinds() throws {
        let json = #"{"kind":"low_shelf","frequency":80,"gainDB":-6,"q":0.7}"#
        let band = try JSONDecoder().decode(EQBand.self, from: Data(json.utf8))
        #expect(band == EQBand(kind: .lowShelf, frequency: 80, gainDB: -6, q: 0.7))
    }
}
