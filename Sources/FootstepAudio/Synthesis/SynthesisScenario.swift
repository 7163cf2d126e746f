/// A named synthetic scene with every parameter that shapes it. Start from a
/// name's defaults (`SynthesisScenario(.night, seed: 7)`) and override any
/// `var`, or parse `"night:seed=7,duration=28800,snr=12,ceiling=on,floor=concrete"`.
///
/// ## Levels and SNR
/// - Levels are dBFS with 0 dBFS = the mean power of a full-scale sine (0.5).
/// - The background mix (all `backgrounds` together) has a long-term mean power of
///   exactly `backgroundLevelDBFS` (default -50 dBFS), measured on channel 0 over
///   the first `min(duration, 20 s)` and held for the rest of the stream. The
///   reference holds even when `backgrounds` is empty.
/// - An event's SNR is `10 * log10(P_event / P_background)` where `P_event` is the
///   mean power, on the event alone, of its loudest window of `min(100 ms, duration)`
///   inside `[onset, onset + duration]`, and `P_background` the background mean power
///   (unweighted, full band). `GroundTruthEvent.levelDBFS = backgroundLevelDBFS + snrDB`.
/// - Each event's SNR is its centre + a bout offset uniform in ±2/3 `snrSpreadDB`
///   + a per-event offset uniform in ±1/3 `snrSpreadDB`, so it lies within
///   ±`snrSpreadDB` (default 3 dB) of the centre. The centre is `snrDB`; with
///   `relativeLevels` it also adds the label's `SynthesisLabel.relativeLevelDB`
///   (stomping +6, shuffling -6, door slam +8, ...) and the walker's offset
///   (adults ±1.5 dB, children -1 to -5 dB, a door closed rather than slammed
///   -3 to -8 dB). Levels are capped at `maximumEventLevelDBFS` (-20 dBFS), which
///   keeps every event's sample peak below -1 dBFS (worst crest factor of the
///   models is about 17 dB); the ground truth records the capped value.
/// - With the default -50 dBFS background, events at +25 dB SNR sit at -25 dBFS
///   and peak below -8 dBFS.
public struct SynthesisScenario: Sendable, Hashable {
    public enum Name: String, Sendable, Codable, CaseIterable {
        /// Walking bouts (heel strikes, 4-40 steps at 1.6-2.2 steps/s).
        case walking
        /// Running bouts (6-30 steps at 2.6-3.6 steps/s), adults and children.
        case running
        /// Isolated stomps and short stomping bouts (0.6-1.4 steps/s).
        case stomping
        /// Shuffling bouts (3-16 steps at 1.0-1.6 steps/s).
        case shuffling
        /// Bouts of all four footstep types.
        case mixed
        /// A night upstairs: quiet stretches, trips to the bathroom, a running child,
        /// some stomping, the odd door slam, knock or drop.
        case night
        /// Distractors over backgrounds, no footsteps.
        case distractors
        /// Backgrounds only.
        case background
    }

    /// The highest event level (dBFS) planned, whatever the SNR asked for.
    public static let maximumEventLevelDBFS = -20.0

    public var name: Name
    public var seed: UInt64
    /// Seconds. The stream is exactly `Int((duration * sampleRate).rounded())` frames.
    public var duration: Double
    /// 8000 ... 96000 Hz.
    public var sampleRate: Int
    /// 1, or 2 (the same signal with a small level and delay difference on the right channel).
    public var channels: Int
    /// Centre SNR of the events in dB (see the type's documentation).
    public var snrDB: Double
    /// Events lie within ±`snrSpreadDB` of their centre SNR.
    public var snrSpreadDB: Double
    /// Apply the per-label level offsets (`SynthesisLabel.relativeLevelDB`), e.g. stomps
    /// 6 dB above walking. Off by default for the single-type scenarios.
    public var relativeLevels: Bool
    /// True: the sound comes through a ceiling (floor resonances, low-pass, room).
    /// False: the microphone is in the same room (direct, brighter).
    public var ceiling: Bool
    public var floor: FloorType
    public var backgrounds: [BackgroundLayer]
    /// Mean power of the background mix, dBFS.
    public var backgroundLevelDBFS: Double

    public init(_ name: Name, seed: UInt64 = 1) {
        self.name = name
        self.seed = seed
        sampleRate = 16000
        channels = 1
        snrDB = 15
        snrSpreadDB = 3
        ceiling = true
        floor = .timberJoist
        backgroundLevelDBFS = -50
        duration = 60
        relativeLevels = false
        backgrounds = [BackgroundLayer(.pink), BackgroundLayer(.hum50, relativeLevelDB: -10)]
        switch name {
        case .walking, .running:
            break
        case .stomping:
            snrDB = 18
            floor = .concreteSlab
            backgrounds = [
                BackgroundLayer(.brown), BackgroundLayer(.pink, relativeLevelDB: -3),
                BackgroundLayer(.hum50, relativeLevelDB: -12),
            ]
        case .shuffling:
            snrDB = 12
            ceiling = false
            backgrounds = [BackgroundLayer(.pink), BackgroundLayer(.hum50, relativeLevelDB: -12)]
        case .mixed:
            duration = 300
            relativeLevels = true
        case .night:
            duration = 600
            relativeLevels = true
            backgrounds = [
                BackgroundLayer(.brown), BackgroundLayer(.pink, relativeLevelDB: -4),
                BackgroundLayer(.hum50, relativeLevelDB: -9),
            ]
        case .distractors:
            duration = 120
            relativeLevels = true
            backgrounds.append(BackgroundLayer(.music, relativeLevelDB: -6))
        case .background:
            backgrounds = [
                BackgroundLayer(.pink), BackgroundLayer(.hum50, relativeLevelDB: -8),
                BackgroundLayer(.babble, relativeLevelDB: -4), BackgroundLayer(.music, relativeLevelDB: -6),
            ]
        }
    }

    /// `name(seed=N)`, e.g. `night(seed=1)`.
    public var displayName: String { "\(name.rawValue)(seed=\(seed))" }

    public var frameCount: Int { Int((duration * Double(sampleRate)).rounded()) }

    /// Throws `AudioSourceError.invalidParameter` naming the first value out of range.
    public func validate() throws(AudioSourceError) {
        guard (8000...96000).contains(sampleRate) else {
            throw .invalidParameter("synthetic scenario: sample rate \(sampleRate) Hz is outside 8000...96000")
        }
        guard (1...2).contains(channels) else {
            throw .invalidParameter("synthetic scenario: channels must be 1 or 2, not \(channels)")
        }
        guard duration.isFinite, duration > 0, duration <= 7 * 86400 else {
            throw .invalidParameter("synthetic scenario: duration \(duration) s must be > 0 and at most 7 days")
        }
        guard snrDB.isFinite, (-20...60).contains(snrDB) else {
            throw .invalidParameter("synthetic scenario: SNR \(snrDB) dB is outside -20...60")
        }
        guard snrSpreadDB.isFinite, (0...20).contains(snrSpreadDB) else {
            throw .invalidParameter("synthetic scenario: SNR spread \(snrSpreadDB) dB is outside 0...20")
        }
        guard backgroundLevelDBFS.isFinite, (-120 ... -20).contains(backgroundLevelDBFS) else {
            throw .invalidParameter(
                "synthetic scenario: background level \(backgroundLevelDBFS) dBFS is outside -120...-20")
        }
        for layer in backgrounds where !layer.relativeLevelDB.isFinite || abs(layer.relativeLevelDB) > 60 {
            throw .invalidParameter("synthetic scenario: background \(layer.kind.rawValue) level is outside ±60 dB")
        }
    }
}
