import FootstepCore
import Foundation

/// One synthesized event as it truly happened, for scoring the detector and
/// classifier against a `SyntheticSource`.
///
/// - `onset`: the first sample of the impact (contact transient), not its peak,
///   in seconds from the start of the stream; always a whole frame
///   (`onsetFrame / sampleRate`).
/// - `duration`: nominal audible length from the sound model: from the onset until
///   the model's envelope (including floor ringing) has decayed about 30 dB
///   below its peak. Not measured from the rendered samples.
/// - `label`: a `FootstepType` raw value or a distractor name (`door_slam`,
///   `knock`, `object_drop`, `music_bass`, `chair_scrape`); see `SynthesisLabel`.
///   Each tap of a knock is its own event.
/// - `levelDBFS`: mean power over the event's loudest window of
///   `min(100 ms, duration)` that lies inside `[onset, onset + duration]`,
///   0 dBFS = full-scale sine, measured on the event alone (channel 0).
/// - `snrDB`: `levelDBFS` minus the scenario's background level (its mean power,
///   unweighted); see `SynthesisScenario`.
/// - `boutIndex`: the gait bout (walking or running episode) the step belongs to;
///   nil for distractors and isolated stomps.
public struct GroundTruthEvent: Sendable, Codable, Equatable {
    public var onset: Double
    public var duration: Double
    public var kind: EventKind
    public var label: String
    public var footstepType: FootstepType?
    public var levelDBFS: Double
    public var snrDB: Double
    public var boutIndex: Int?

    public init(
        onset: Double, duration: Double, kind: EventKind, label: String, footstepType: FootstepType?,
        levelDBFS: Double, snrDB: Double, boutIndex: Int?
    ) {
        self.onset = onset
        self.duration = duration
        self.kind = kind
        self.label = label
        self.footstepType = footstepType
        self.levelDBFS = levelDBFS
        self.snrDB = snrDB
        self.boutIndex = boutIndex
    }
}

/// Writes and reads ground truth as CSV:
/// `onset_s,duration_s,kind,label,level_dbfs,snr_db,bout` with seconds to 3
/// decimals, levels to 2 decimals and an empty `bout` for events outside a bout.
/// The footstep type is recovered from `label` when reading.
public enum GroundTruthCSV {
    public static let header = "onset_s,duration_s,kind,label,level_dbfs,snr_db,bout"

    public static func write(_ events: [GroundTruthEvent]) -> String {
        var out = header + "\n"
        for e in events {
            let bout = e.boutIndex.map(String.init) ?? ""
            out += "\(format(e.onset, 3)),\(format(e.duration, 3)),\(e.kind.rawValue),\(e.label),"
            out += "\(format(e.levelDBFS, 2)),\(format(e.snrDB, 2)),\(bout)\n"
        }
        return out
    }

    /// Parses what `write` produces. Throws `AudioSourceError.invalidParameter`
    /// naming the line for anything else.
    public static func read(_ text: String) throws(AudioSourceError) -> [GroundTruthEvent] {
        var events: [GroundTruthEvent] = []
        for (index, rawLine) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if index == 0 {
                guard line == header else {
                    throw .invalidParameter("ground truth CSV: expected header '\(header)', found '\(line)'")
                }
                continue
            }
            if line.isEmpty { continue }
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 7, let onset = Double(f[0]), let duration = Double(f[1]),
                let kind = EventKind(rawValue: f[2]), let level = Double(f[4]), let snr = Double(f[5])
            else {
                throw .invalidParameter("ground truth CSV line \(index + 1): cannot parse '\(line)'")
            }
            let bout: Int?
            if f[6].isEmpty {
                bout = nil
            } else if let value = Int(f[6]) {
                bout = value
            } else {
                throw .invalidParameter("ground truth CSV line \(index + 1): bad bout '\(f[6])'")
            }
            events.append(
                GroundTruthEvent(
                    onset: onset, duration: duration, kind: kind, label: f[3],
                    footstepType: kind == .footstep ? FootstepType(rawValue: f[3]) : nil,
                    levelDBFS: level, snrDB: snr, boutIndex: bout))
        }
        return events
    }

    private static func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
