import Foundation
import FootstepDSP

/// Computes the per-event feature vector (`EventFeatures.names`) from an
/// event's segment, its detector measurements, the recent onset history and
/// how it compares with the impacts just before it (`NeighbourContext`).
///
/// Every feature is independent of the absolute level (microphone
/// calibration): spectral shapes are relative to the event's own total or to
/// the background just before the onset, levels are relative to the
/// background, times are in seconds. See `docs/classifier.md`.
///
/// Buffers are allocated for a sample rate on first use (and again only when
/// the rate changes); `extract` does not allocate in steady state.
///
/// - Note: Not thread-safe; one instance per pipeline.
public struct EventFeatureExtractor {
    /// The current feature vector, `EventFeatures.count` values in `EventFeatures.names` order.
    public private(set) var values: [Double]

    private var sampleRate: Double = 0
    private var fft: RealFFT?
    private var power: [Float] = []
    private var prePower: [Float] = []
    private var envelope: [Float] = []
    private var smooth: [Float] = []
    private var bandBins: [Int] = []
    /// Raised-cosine fades of the spectral windows (2 ms and 20 ms), computed once per rate.
    private var shortFade: [Float] = []
    private var longFade: [Float] = []
    private var context = OnsetContext()
    private var neighbours = NeighbourContext()

    /// Hop of the energy envelope.
    static let envelopeHop = 0.0025
    /// Spectral window after the onset (starts 5 ms before it).
    static let spectralWindow = 0.1
    /// Background window: 45 ms to 5 ms before the onset.
    static let backgroundWindow = 0.04

    public init() {
        values = [Double](repeating: 0, count: EventFeatures.count)
    }

    /// Forgets the onset history (a new stream).
    public mutating func reset() {
        context = OnsetContext()
        neighbours = NeighbourContext()
    }

    private mutating func prepare(sampleRate rate: Double) {
        guard rate != sampleRate else { return }
        sampleRate = rate
        let frames = Int(Self.spectralWindow * rate)
        var size = 1
        while size < frames { size <<= 1 }
        fft = try? RealFFT(size: size)
        power = [Float](repeating: 0, count: size / 2 + 1)
        prePower = [Float](repeating: 0, count: size / 2 + 1)
        envelope = [Float](repeating: 0, count: Int(2.0 / Self.envelopeHop))
        smooth = envelope
        bandBins = EventFeatures.bandEdges.map { min(size / 2, max(1, Int(($0 * Double(size) / rate).rounded()))) }
        shortFade = Self.fade(length: max(1, Int(0.002 * rate)))
        longFade = Self.fade(length: max(1, Int(0.02 * rate)))
    }

    /// w[k] = ½ − ½·cos(πk/length), k < length: the rising half of a Hann window.
    private static func fade(length: Int) -> [Float] {
        (0..<length).map { k in 0.5 - 0.5 * cos(Float.pi * Float(k) / Float(length)) }
    }

    /// Computes the features of `event` into `values` and records its onset in the history.
    public mutating func extract(
        _ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate rate: Double
    ) {
        prepare(sampleRate: rate)
        let onsetSeconds = Double(event.onsetFrame) / rate
        // Moved out and back so the helpers can mutate `self` (no copy: the buffer stays unique).
        var vector = values
        values = []
        defer { values = vector }
        vector.withUnsafeMutableBufferPointer { out in
            for i in 0..<out.count { out[i] = 0 }
            spectralFeatures(segment: segment, onset: preRollFrames, into: out)
            temporalFeatures(segment: segment, onset: preRollFrames, into: out)
            var i = EventFeatures.detectorStart
            out[i] = log10(max(0.01, Double(event.durationFrames) / rate)); i += 1
            out[i] = clamp(event.lafMax - event.backgroundLAF, -10, 60); i += 1
            out[i] = clamp(event.lcfMax - event.lafMax, -20, 40); i += 1
            out[i] = clamp(event.sel - event.lafMax, -30, 20); i += 1
            out[i] = log10(max(1, min(1000, event.strength))); i += 1
            context.features(at: onsetSeconds, into: out, from: i)
            neighbours.features(at: onsetSeconds, into: out, from: EventFeatures.neighbourStart)
            neighbours.record(onsetSeconds, features: out)
        }
        context.record(onsetSeconds)
    }

    // MARK: - Spectrum of the first 100 ms against the 40 ms before the onset

    private mutating func spectralFeatures(
        segment: UnsafeBufferPointer<Float>, onset: Int, into out: UnsafeMutableBufferPointer<Double>
    ) {
        guard let fft else { return }
        let rate = sampleRate
        let start = max(0, onset - Int(0.005 * rate))
        let length = min(Int(Self.spectralWindow * rate), segment.count - start, fft.size)
        fill(fft, from: segment, start: start, length: length, fadeIn: shortFade, fadeOut: longFade)
        fft.forward()
        power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0) }
        let preLength = min(Int(Self.backgroundWindow * rate), start)
        if preLength > 16 {
            fill(fft, from: segment, start: start - preLength, length: preLength, fadeIn: shortFade, fadeOut: shortFade)
            fft.forward()
            prePower.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0) }
        } else {
            for k in 0..<prePower.count { prePower[k] = 0 }
        }
        let binHz = rate / Double(fft.size)
        let bands = EventFeatures.bandEdges.count - 1
        let lo = bandBins[0]
        let hi = bandBins[bands]
        var total = 1e-20
        var lowSum = 0.0, weighted = 0.0, logSum = 0.0
        for k in lo..<hi {
            let p = Double(power[k]) + 1e-20
            total += p
            weighted += p * Double(k) * binHz
            // ln p through the fast decibel function: libm's log over every bin was half the feature cost.
            logSum += Decibels.fastPowerLevel(p) * 0.230_258_509_299_404_57  // ln 10 / 10
            if Double(k) * binHz < 250 { lowSum += p }
        }
        let eventNorm = 1 / Double(max(1, length))
        let preNorm = 1 / Double(max(1, preLength))
        for b in 0..<bands {
            var e = 1e-20, pre = 1e-20
            for k in bandBins[b]..<max(bandBins[b] + 1, bandBins[b + 1]) {
                e += Double(power[k])
                pre += Double(prePower[k])
            }
            out[EventFeatures.bandStart + b] = clamp(10 * log10(e / total), -60, 0)
            out[EventFeatures.riseStart + b] =
                preLength > 16 ? clamp(10 * log10((e * eventNorm) / (pre * preNorm + 1e-20)), -10, 60) : 30
        }
        var i = EventFeatures.shapeStart
        let centroid = weighted / total
        out[i] = log2(max(20, centroid) / 1000); i += 1
        var cumulative = 0.0
        var rolloff = Double(hi) * binHz
        for k in lo..<hi {
            cumulative += Double(power[k]) + 1e-20
            if cumulative >= 0.85 * total {
                rolloff = Double(k) * binHz
                break
            }
        }
        out[i] = log2(max(20, rolloff) / 1000); i += 1
        let count = Double(hi - lo)
        out[i] = clamp(10 * log10(exp(logSum / count) / (total / count)), -60, 0); i += 1
        out[i] = clamp(10 * log10(lowSum / max(1e-20, total - lowSum)), -40, 40)
    }

    private func fill(
        _ fft: RealFFT, from segment: UnsafeBufferPointer<Float>, start: Int, length: Int, fadeIn: [Float], fadeOut: [Float]
    ) {
        let input = fft.input
        for k in 0..<input.count { input[k] = 0 }
        guard length > 0 else { return }
        for k in 0..<length {
            var w: Float = 1
            if k < fadeIn.count { w = fadeIn[k] }
            let fromEnd = length - 1 - k
            if fromEnd < fadeOut.count { w *= fadeOut[fromEnd] }
            input[k] = segment[start + k] * w
        }
    }

    // MARK: - Energy envelope (2.5 ms hops)

    private mutating func temporalFeatures(
        segment: UnsafeBufferPointer<Float>, onset: Int, into out: UnsafeMutableBufferPointer<Double>
    ) {
        let rate = sampleRate
        let hop = max(1, Int(Self.envelopeHop * rate))
        let frames = min(envelope.count, segment.count / hop)
        guard frames > 8 else { return }
        for f in 0..<frames {
            var sum: Float = 0
            for k in (f * hop)..<((f + 1) * hop) { sum += segment[k] * segment[k] }
            envelope[f] = sum / Float(hop) + 1e-20
        }
        // A 12.5 ms moving average: floor modes at 30-100 Hz make the raw power ripple.
        for f in 0..<frames {
            var sum: Float = 0
            var n: Float = 0
            for g in max(0, f - 2)...min(frames - 1, f + 2) {
                sum += envelope[g]
                n += 1
            }
            smooth[f] = sum / n
        }
        // Background power: 45..5 ms before the onset.
        let onsetFrame = onset / hop
        let preStart = max(0, onsetFrame - Int(0.045 / Self.envelopeHop))
        let preEnd = max(preStart + 1, onsetFrame - 2)
        var background: Float = 0
        for f in preStart..<preEnd { background += envelope[f] }
        background /= Float(preEnd - preStart)
        // Peak within [onset - 10 ms, onset + 300 ms].
        let searchStart = max(0, onsetFrame - 4)
        let searchEnd = min(frames, onsetFrame + Int(0.3 / Self.envelopeHop))
        var peakFrame = searchStart
        for f in searchStart..<searchEnd where envelope[f] > envelope[peakFrame] { peakFrame = f }
        let peak = envelope[peakFrame]
        // Attack: from the first frame within 20 dB of the peak (and above the background) to the peak.
        var startFrame = peakFrame
        let attackThreshold = max(peak * 0.01, background * 2)
        var f = peakFrame
        while f > max(0, onsetFrame - 8), envelope[f - 1] >= attackThreshold {
            f -= 1
            startFrame = f
        }
        var i = EventFeatures.temporalStart
        out[i] = log10(Double(peakFrame - startFrame) * Self.envelopeHop * 1000 + 1); i += 1
        // Decay: time from the peak until the envelope stays below -10 / -20 dB (or the background).
        out[i] = log10(decayTime(from: peakFrame, frames: frames, threshold: max(peak * 0.1, background * 1.5)) * 1000 + 1)
        i += 1
        out[i] = log10(decayTime(from: peakFrame, frames: frames, threshold: max(peak * 0.01, background * 1.5)) * 1000 + 1)
        i += 1
        // Contacts: envelope maxima within 15 dB of the peak, each after a dip of at least 5 dB.
        let countEnd = min(frames, onsetFrame + Int(0.4 / Self.envelopeHop))
        var peaks = 0
        var secondLevel: Float = 0
        var secondDelay = 0.0
        var localMax: Float = 0
        var localMaxFrame = 0
        var dipping = true
        var minimum: Float = .greatestFiniteMagnitude
        let smoothPeak = smooth[searchStart..<searchEnd].max() ?? peak
        let peakThreshold = max(smoothPeak * 0.0316, background * 4)
        for g in searchStart..<countEnd {
            let e = smooth[g]
            if dipping {
                minimum = min(minimum, e)
                if e > peakThreshold, e > minimum * 3.16 {
                    dipping = false
                    localMax = e
                    localMaxFrame = g
                }
            } else if e > localMax {
                localMax = e
                localMaxFrame = g
            } else if e < localMax * 0.316 {
                peaks += 1
                if localMaxFrame > peakFrame + 4, localMax > secondLevel {
                    secondLevel = localMax
                    secondDelay = Double(localMaxFrame - peakFrame) * Self.envelopeHop
                }
                dipping = true
                minimum = e
            }
        }
        if !dipping {
            peaks += 1
            if localMaxFrame > peakFrame + 4, localMax > secondLevel {
                secondLevel = localMax
                secondDelay = Double(localMaxFrame - peakFrame) * Self.envelopeHop
            }
        }
        out[i] = Double(min(peaks, 6)); i += 1
        out[i] = secondLevel > 0 ? clamp(10 * log10(Double(secondLevel / smoothPeak)), -30, 0) : -30; i += 1
        out[i] = secondDelay; i += 1
        // Crest factor over the first 100 ms (sample peak over RMS).
        let start = max(0, onset - Int(0.005 * rate))
        let end = min(segment.count, start + Int(Self.spectralWindow * rate))
        var peakSample: Float = 0
        var sumSquares: Float = 0
        for k in start..<end {
            peakSample = max(peakSample, abs(segment[k]))
            sumSquares += segment[k] * segment[k]
        }
        let rms = (sumSquares / Float(max(1, end - start))).squareRoot()
        out[i] = clamp(20 * log10(Double(peakSample / max(rms, 1e-12))), 0, 30); i += 1
        // Energy distribution over the 500 ms after the onset (above the background).
        var energy = 0.0, early = 0.0, centre = 0.0
        for g in onsetFrame..<frames {
            let e = Double(max(0, envelope[g] - background))
            energy += e
            let t = Double(g - onsetFrame) * Self.envelopeHop
            centre += e * t
            if t < 0.05 { early += e }
        }
        out[i] = energy > 0 ? centre / energy : 0; i += 1
        out[i] = energy > 0 ? early / energy : 0
    }

    private func decayTime(from peakFrame: Int, frames: Int, threshold: Float) -> Double {
        // The first point after which the envelope stays below `threshold` for 10 ms
        // (a later step inside the segment does not extend the decay).
        var below = 0
        var f = peakFrame
        while f < frames {
            if smooth[f] < threshold {
                below += 1
                if below == 4 { return Double(f - 3 - peakFrame) * Self.envelopeHop }
            } else {
                below = 0
            }
            f += 1
        }
        return Double(frames - peakFrame) * Self.envelopeHop
    }
}

@inline(__always)
func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double {
    value.isNaN ? low : min(high, max(low, value))
}
