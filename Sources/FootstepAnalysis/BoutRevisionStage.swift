import FootstepClassifier

/// The bout reviser over the pipeline's final labels: it takes every output
/// of the frame evidence (of the gait context when there is no frame
/// network), passes it on unchanged, and gives ``BoutReviser`` each footstep
/// once its label is settled — an event at once, a provisional report when
/// the revision that settles it comes, as that revision labels it — and
/// every later label of a step still in the open bout. So a bout holds the
/// footsteps the pipeline reports, the steps the frame network added among
/// them and none it vetoed, as `tools/eval/bout_typer.py` sees them in
/// `footstepctl analyze`'s output and fits the typer on them.
///
/// A bout ends `BoutReviser.boutGap` after its last step once no event
/// before then can still be reported or settled: the stream is complete up
/// to the detector's horizon, and `holdSeconds` covers the longest an event
/// or its settlement can take after its onset (`AnalysisConfiguration.boutRevisionHold`).
///
/// Storage is reserved in `init`; nothing is allocated per event.
struct BoutRevisionStage {
    /// Provisional reports waiting for their settlement, at most this many
    /// (more, and the oldest is dropped: its step is left out of its bout).
    static let capacity = 256

    private var reviser: BoutReviser
    private var provisional: [AnalyzedEvent] = []

    init(model: BoutTypePredictor, holdSeconds: Double) {
        reviser = BoutReviser(model: model, holdSeconds: holdSeconds)
        provisional.reserveCapacity(Self.capacity)
    }

    /// Passes `item` on, then gives the reviser what it says of a footstep.
    mutating func accept(_ item: AnalysisOutput, output: (AnalysisOutput) -> Void) {
        output(item)
        switch item {
        case .levels:
            break
        case let .event(event):
            reviser.add(event, output: output)
        case let .provisional(event):
            if provisional.count == Self.capacity { provisional.removeFirst() }
            provisional.append(event)
        case let .revision(revision):
            guard let index = provisional.lastIndex(where: { $0.onsetFrame == revision.onsetFrame }) else {
                return reviser.relabel(revision)
            }
            provisional[index].apply(revision)
            if revision.settles { reviser.add(provisional.remove(at: index), output: output) }
        }
    }

    /// Ends the open bout if the stream, complete up to `horizon` seconds, can no longer extend it.
    mutating func advance(to horizon: Double, output: (AnalysisOutput) -> Void) {
        reviser.advance(to: horizon, output: output)
    }

    /// Ends the open bout (end of stream).
    mutating func finish(output: (AnalysisOutput) -> Void) {
        reviser.finish(output: output)
    }
}
