import FootstepClassifier
import FootstepCore
import Glibc

/// Names every footstep of a bout again when the bout has ended, with the
/// whole bout in view: its cadence, each step's level and colour (LCFmax −
/// LAFmax) against the bout and against the stream's footsteps of the last
/// `referenceSeconds`, and the classifier's type probabilities over the bout
/// (`BoutTypeModel`, fitted on recordings of families it was scored
/// without). A person hears a stomp as heavier than the walker's other
/// steps, running as cadence and shuffling as a scrape through most of a
/// bout; the live type (`BoutTyping`) only has the bout so far.
///
/// A bout is consecutive released footsteps less than `boutGap` (1.5 s)
/// apart, at most `maximumBoutSteps`; it ends when a footstep comes later
/// than that, or when the stream has moved `boutGap + holdSeconds` past its
/// last step (no event still on its way can extend it). Each step whose type the
/// bout changes gets a ``TypeRevision``; `unknown` stays `unknown`.
///
/// The features are `tools/eval/bout_typer.py`'s, value for value.
/// Storage is reserved in `init`; nothing is allocated per event.
struct BoutReviser {
    static let boutGap = 1.5
    static let stepIntervals = 0.2...1.2
    static let referenceSeconds = BoutTyping.referenceSeconds
    static let maximumBoutSteps = 64
    static let historyCapacity = 1024

    let model: BoutTypePredictor
    /// How long after its onset a footstep may still reach the reviser
    /// (`AnalysisConfiguration.boutRevisionHold`, through `BoutRevisionStage`).
    let holdSeconds: Double

    private var bout: [AnalyzedEvent] = []
    /// The stream's recent footsteps: onset, LAFmax, LCFmax − LAFmax (a ring).
    private var historyOnsets: [Double]
    private var historyLevels: [Double]
    private var historyColours: [Double]
    private var historyCount = 0
    private var historyNext = 0
    private var scratch: [Double] = []
    private var intervals: [Double] = []
    private var row: [Double]

    init(model: BoutTypePredictor, holdSeconds: Double) {
        self.model = model
        self.holdSeconds = holdSeconds
        bout.reserveCapacity(Self.maximumBoutSteps)
        historyOnsets = [Double](repeating: 0, count: Self.historyCapacity)
        historyLevels = historyOnsets
        historyColours = historyOnsets
        scratch.reserveCapacity(Self.historyCapacity)
        intervals.reserveCapacity(Self.maximumBoutSteps)
        row = [Double](repeating: 0, count: BoutTypeModel.featureNames.count)
    }

    /// Takes a released event (footsteps join the bout; others are ignored).
    mutating func add(_ event: AnalyzedEvent, output: (AnalysisOutput) -> Void) {
        guard event.kind == .footstep else { return }
        if let last = bout.last, event.onsetSeconds - last.onsetSeconds >= Self.boutGap || bout.count == Self.maximumBoutSteps {
            close(output: output)
        }
        // A step the gait context released late goes to its place in onset order.
        var index = bout.count
        while index > 0 && bout[index - 1].onsetSeconds > event.onsetSeconds { index -= 1 }
        bout.insert(event, at: index)
        remember(event)
    }

    /// Takes a later label of a step of the open bout: its new type, or
    /// `other`, which takes it out of the bout.
    mutating func relabel(_ revision: TypeRevision) {
        guard let index = bout.firstIndex(where: { $0.onsetFrame == revision.onsetFrame }) else { return }
        if revision.kind == .footstep {
            bout[index].apply(revision)
        } else {
            bout.remove(at: index)
        }
    }

    /// Ends the bout if the stream, complete up to `horizon` seconds, can no longer extend it.
    mutating func advance(to horizon: Double, output: (AnalysisOutput) -> Void) {
        if let last = bout.last, horizon - last.onsetSeconds >= Self.boutGap + holdSeconds {
            close(output: output)
        }
    }

    /// Ends the bout (end of stream).
    mutating func finish(output: (AnalysisOutput) -> Void) {
        if !bout.isEmpty { close(output: output) }
    }

    private mutating func remember(_ event: AnalyzedEvent) {
        historyOnsets[historyNext] = event.onsetSeconds
        historyLevels[historyNext] = event.laMax
        historyColours[historyNext] = event.lcMaxLevel - event.laMax
        historyNext = (historyNext + 1) % Self.historyCapacity
        historyCount = min(historyCount + 1, Self.historyCapacity)
    }

    private mutating func close(output: (AnalysisOutput) -> Void) {
        let last = bout[bout.count - 1].onsetSeconds
        collectHistory(historyLevels, until: last)
        let q30 = Self.percentile(30, ofSorted: scratch)
        let q50 = Self.percentile(50, ofSorted: scratch)
        collectHistory(historyColours, until: last)
        let c50 = Self.percentile(50, ofSorted: scratch)
        intervals.removeAll(keepingCapacity: true)
        for i in 1..<max(1, bout.count) {
            let d = bout[i].onsetSeconds - bout[i - 1].onsetSeconds
            if Self.stepIntervals.contains(d) { intervals.append(d) }
        }
        let cadence = intervals.isEmpty ? 0 : 1 / Self.percentile(50, of: &intervals)
        scratch.removeAll(keepingCapacity: true)
        for e in bout { scratch.append(e.laMax) }
        let boutLevel = Self.percentile(50, of: &scratch)
        scratch.removeAll(keepingCapacity: true)
        for e in bout { scratch.append(e.lcMaxLevel - e.laMax) }
        let boutColour = Self.percentile(50, of: &scratch)
        var shares = (0.0, 0.0, 0.0, 0.0)
        for e in bout {
            shares.0 += e.typeProbabilities.stomping
            shares.1 += e.typeProbabilities.heelStrike
            shares.2 += e.typeProbabilities.shuffling
            shares.3 += e.typeProbabilities.running
        }
        let n = Double(bout.count)
        for event in bout {
            var nearest = Double.infinity
            for other in bout {
                let d = abs(other.onsetSeconds - event.onsetSeconds)
                if Self.stepIntervals.contains(d) { nearest = min(nearest, d) }
            }
            let p = event.typeProbabilities
            // `BoutTypeModel.featureNames` order.
            row[0] = cadence
            row[1] = nearest.isFinite ? 1 / nearest : 0
            row[2] = log(n)
            row[3] = boutLevel - q30
            row[4] = boutLevel - q50
            row[5] = event.laMax - q30
            row[6] = event.laMax - boutLevel
            row[7] = boutColour - c50
            row[8] = (event.lcMaxLevel - event.laMax) - c50
            row[9] = log(max(event.duration, 0.01))
            row[10] = shares.0 / n
            row[11] = shares.1 / n
            row[12] = shares.2 / n
            row[13] = shares.3 / n
            row[14] = p.stomping
            row[15] = p.heelStrike
            row[16] = p.shuffling
            row[17] = p.running
            row[18] = event.footstepProbability
            guard event.type != .unknown else { continue }
            let type = row.withUnsafeBufferPointer { model.type(for: $0) }
            if type != event.type {
                output(.revision(TypeRevision(
                    onsetFrame: event.onsetFrame, onsetSeconds: event.onsetSeconds, previousType: event.type, type: type,
                    confidence: event.footstepProbability)))
            }
        }
        bout.removeAll(keepingCapacity: true)
    }

    /// Leaves in `scratch`, sorted, the remembered footsteps' `values` with
    /// onsets in the `referenceSeconds` up to `until`.
    private mutating func collectHistory(_ values: [Double], until: Double) {
        scratch.removeAll(keepingCapacity: true)
        for i in 0..<historyCount where historyOnsets[i] <= until && historyOnsets[i] >= until - Self.referenceSeconds {
            scratch.append(values[i])
        }
        scratch.sortInPlace()
    }

    /// numpy's linear-interpolation percentile; sorts `values` in place (no allocation).
    static func percentile(_ q: Double, of values: inout [Double]) -> Double {
        values.sortInPlace()
        return percentile(q, ofSorted: values)
    }

    /// numpy's linear-interpolation percentile of values sorted in ascending order (0 when there are none).
    static func percentile(_ q: Double, ofSorted values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let position = q / 100 * Double(values.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        return values[lower] + (values[upper] - values[lower]) * (position - Double(lower))
    }
}
