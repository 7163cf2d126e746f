import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepTesting
import Foundation
import Testing

/// NaN, ±Inf and absurd values (1e38) in a float file: they are analysed as
/// silence and counted, and the rest of the stream is analysed as if they
/// were not there (one NaN used to make every level and the detector's
/// statistics NaN for the rest of the stream: 29 events became 0).
@Suite struct InvalidSampleTests {
    /// A mono 32-bit float WAV (format tag 3) of `samples`.
    static func writeFloatWAV(_ samples: [Float], rate: Int, to path: String) throws {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 4)
        data.append(contentsOf: Array("RIFF".utf8))
        u32(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(3); u16(1); u32(UInt32(rate)); u32(UInt32(rate * 4)); u16(4); u16(32)
        data.append(contentsOf: Array("data".utf8))
        u32(bytes)
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test func nonFiniteAndAbsurdSamplesAreSilenceAndCounted() throws {
        let walk = try RenderedScenario("walking:seed=4242,duration=60")
        let (clean, rate) = (walk.samples, walk.sampleRate)
        var poisoned = clean
        let injected: [(Double, Float)] = [(5, .nan), (15, .infinity), (25, -.infinity), (35, 1e38), (45, -1e38), (50, .nan)]
        for (second, value) in injected { poisoned[Int(second * Double(rate))] = value }
        for i in 0..<100 { poisoned[Int(52 * Double(rate)) + i] = .nan }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("invalid-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.writeFloatWAV(clean, rate: rate, to: "\(directory)/clean.wav")
        try Self.writeFloatWAV(poisoned, rate: rate, to: "\(directory)/poisoned.wav")

        let reference = try FileAnalysis.analyse(path: "\(directory)/clean.wav", configuration: AnalysisConfiguration())
        let result = try FileAnalysis.analyse(path: "\(directory)/poisoned.wav", configuration: AnalysisConfiguration())
        #expect(reference.invalidSamples == 0)
        #expect(result.invalidSamples == injected.count + 100)
        #expect(reference.events.count >= 20, "the walk has steps to lose")
        #expect(result.events.count >= reference.events.count - 2, "\(result.events.count) of \(reference.events.count) events")
        let late = result.events.filter { $0.onsetSeconds > 30 }.count
        #expect(late >= reference.events.filter { $0.onsetSeconds > 30 }.count - 2, "events after the first NaN")
        #expect(result.laeq.isFinite && abs(result.laeq - reference.laeq) < 0.5, "LAeq \(result.laeq) vs \(reference.laeq)")
    }
}
