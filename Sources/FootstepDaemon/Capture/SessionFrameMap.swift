/// Maps the analysis pipeline's frames to the session's. The session clock
/// counts captured frames, at the capture's rate (the pipeline's is
/// ``ResamplingSource/analysisSampleRate``), and also the frames the pipeline
/// never saw: those read while paused and those the device dropped. Events, revisions and level intervals leave the
/// pipeline seconds after their first frame, so each is placed by where that
/// frame lies, not by how much had been skipped by the time it came out.
///
/// - Note: Capture thread only. Plain value; it allocates only when more skips
///   than its reserve are remembered at once (a device dropping every period).
struct SessionFrameMap {
    /// Each skip: the pipeline frame it came before, and the frames skipped in
    /// all up to it. Ascending; the first holds what was forgotten before it.
    private var skips: [(pipelineFrame: Int64, skippedBefore: Int64)] = []
    /// Session frames skipped so far.
    private(set) var skipped: Int64 = 0
    /// Session frames per pipeline frame.
    let scale: Double

    init(sessionFramesPerPipelineFrame scale: Double = 1) {
        self.scale = scale
        skips.reserveCapacity(64)
    }

    /// The session frames that `frames` pipeline frames last.
    func sessionLength(ofPipelineFrames frames: Int64) -> Int64 {
        scale == 1 ? frames : Int64((Double(frames) * scale).rounded())
    }

    /// `frames` session frames were skipped just before pipeline frame `pipelineFrame`.
    mutating func skip(_ frames: Int64, beforePipelineFrame pipelineFrame: Int64) {
        skipped += frames
        if let last = skips.last, last.pipelineFrame == pipelineFrame {
            skips[skips.count - 1].skippedBefore = skipped
        } else {
            skips.append((pipelineFrame, skipped))
        }
    }

    /// The session frame of pipeline frame `frame`.
    func sessionFrame(ofPipelineFrame frame: Int64) -> Int64 {
        // The last skip at or before `frame`: the common case is the newest.
        let scaled = sessionLength(ofPipelineFrames: frame)
        guard let last = skips.last else { return scaled }
        if last.pipelineFrame <= frame { return scaled + last.skippedBefore }
        var (low, high) = (0, skips.count - 1)  // skips[high] is after `frame`
        guard skips[low].pipelineFrame <= frame else { return scaled }
        while high - low > 1 {
            let middle = (low + high) / 2
            if skips[middle].pipelineFrame <= frame { low = middle } else { high = middle }
        }
        return scaled + skips[low].skippedBefore
    }

    /// Forgets the skips that no frame at or after `pipelineFrame` needs (nothing
    /// earlier can still come out of the pipeline).
    mutating func forget(before pipelineFrame: Int64) {
        guard let keep = skips.lastIndex(where: { $0.pipelineFrame <= pipelineFrame }), keep > 0 else { return }
        skips.removeFirst(keep)
        // What was skipped before the oldest kept skip applies to every frame from 0.
        skips[0].pipelineFrame = 0
    }
}
