import FootstepClassifier
import FootstepCore

/// A second look at the classifier's labels with the neighbouring impacts in
/// view, a short way behind the stream. Footsteps come in rhythm; door
/// slams, knocks and drops mostly come alone. So:
///
/// - **On the beat.** An impact the classifier called `other`, but with a
///   footstep probability of at least `rhythmMinimumProbability`, becomes an
///   `unknown` footstep when it lands on the beat of footsteps around it: one
///   0.25–0.8 s before and one the same interval (±15 %) after, or two
///   before or two after at that interval. Its confidence stays the
///   classifier's footstep probability, so it is always below 0.5.
/// - **Unsure and alone.** A footstep whose type the classifier could not
///   name (type `unknown`: no type reached 0.5) is unsure. It stays a footstep only with two other footsteps within
///   `GaitBoutTracker.maximumInterval` (1.5 s) on either side; otherwise it
///   becomes `other`: a knock-knock or a slam and its rebound make a pair, a
///   walk more. A footstep the classifier typed needs no company (unless it
///   rings): it leaves as one at once.
/// - **Ringing.** A footstep that rings for `ringingMinimumSeconds` (0.6 s)
///   or longer needs one footstep within that reach (an unsure one two)
///   whatever its confidence: a foot's thud dies within a few tenths of a
///   second (99 % of the stand-in check's steps within 0.5 s), a slammed door
///   or a dropped pan rings on.
/// - **Crowded.** An unsure or ringing footstep, or an impact
///   the beat would make one, with another impact of any kind less than
///   `crowdingGap` (0.25 s) before or after it has no company and is not on
///   the beat: knock groups, taps and rattles come faster than any gait (a
///   run of 3.6 steps/s is 0.28 s a step). An impact more than
///   `crowdingQuieterLimit` (6 dB) quieter does not count: it is the louder
///   one's own ring. A footstep looks at the impacts known when it has
///   company and does not wait for one that might follow (live latency); a
///   rescue waits.
/// - **In a train of impacts.** An impact the classifier called `other`
///   (not on the beat), or a footstep the rules above would make `other`,
///   is a footstep when it belongs to a train of at least `trainLength` (4)
///   regular impacts of any label: each at least `trainMinimumProbability`
///   (0.1) a footstep, each interval 0.25–0.8 s and within 15 % of the one
///   before but the intervals not machine-exact (their spread at least
///   `minimumSpread`, 1.2 %, of their mean: a drum machine's or a clock's is
///   less), each within `trainLevelTolerance` (6 dB LAFmax) of the first,
///   and on average at least `trainMinimumMeanProbability` (0.6) footsteps.
///   A walk the classifier hears as half steps, half `other` is a walk.
///   Its footstep probability becomes the train's mean when that is higher
///   (out of fold on the training clips, 70–85 % of the impacts so rescued
///   were steps, close to that mean), and its bout names its type. Crowding
///   does not stop a train (a slab's ring does not stop a walk).
/// - **In a walk.** An impact that would leave as `other`, however unlikely
///   a footstep on its own, is a footstep when it belongs to a walk: at
///   least `walkLength` (4) impacts, each interval within `walkIntervals`
///   (0.9–4 steps/s, slow stomps and shuffles too) and within 15 % of the one
///   before, each impact within `walkLevelTolerance` (6 dB LAFmax) and
///   `walkTimbreTolerance` (8 dB, ``EventTimbre``) of the one before it: one
///   walker's steps through one floor sound alike. The intervals must not be
///   machine-exact (`minimumSpread`, as a train's), and the classifier
///   must lean towards footsteps over the walk as a whole (mean footstep
///   probability at least `walkMinimumMeanProbability`, 0.45): on the
///   training clips, regular trains of alike impacts that the classifier
///   doubts are as often a looped music background's beat as a walk. Its
///   footstep probability becomes at least `walkProbability`, the share of
///   the impacts so rescued that were steps on recording families the model
///   never trained on. An impact the other rules hold is judged with the
///   `walkSeconds` (3.45 s) after it, time for a slow walk's four steps to
///   follow its first; one they would release at once (a sure `other`) only
///   with the impacts before it, so it is rescued when it continues a walk
///   (and then waits only if the sure-company rule makes it).
/// - **Like the footsteps already heard.** An impact that would leave as
///   `other` after its hold, with a footstep probability of at least
///   `memoryMinimumProbability` (0.3), is a footstep when at least
///   `memoryCompany` (3) of the footsteps the classifier was sure of in the
///   minute before it (and its hold after) sound like it and are as loud
///   (``FootstepMemory``): a listener who has heard the neighbour's clear
///   steps knows the doubtful ones by ear. Its footstep probability becomes
///   at least `memoryProbability`, the share of the impacts so rescued on the
///   training clips, out of fold, that were steps.
/// - **Sure company.** A footstep that is not in a train or a walk (rhythm
///   is company enough), with
///   a footstep probability below `sureCompanyExemption` (0.95), stays one only
///   with at least `sureCompany` (2) other sure footsteps (``FootstepMemory``)
///   in the minute before it or its hold after it; otherwise it becomes
///   `other`. With nobody walking, sure footsteps are rare: on the training
///   clips, out of fold, this halves the false footsteps on audio with nobody
///   walking (127 → 63 an hour) at the same F1.
///   A footstep that has such company is settled at once; one that has not
///   is held (reported provisionally) until it has, at most its hold.
///
/// Each event is reported in the hop it is classified in. When no rule can
/// apply (a typed footstep that does not ring and is sure or has sure
/// company, a sure `other`) it is reported settled (`.event`); otherwise it
/// is reported at once with the classifier's label (`.provisional`, so live
/// events stay fast) and held until its label is settled: as soon as a
/// neighbour puts it on the beat or gives it company, and otherwise once
/// every impact within `holdSeconds(walks:)` has been reported (a slow
/// walk's length, 3.45 s; a train's, 2.4 s, without walks). It then leaves
/// with a ``TypeRevision`` that `settles` it, whether or not the label
/// changed. Events are reported in onset order; settlements can come out of
/// it (by at most that hold). Released footsteps count with their final
/// labels, held events with the classifier's; a neighbour that arrives later
/// can only add a beat, company or a train, so a label settled early is
/// never contradicted by one.
///
/// A released footstep then gets its type from its bout (`BoutTyping`):
/// running by cadence, stomping by loudness above the walker's ordinary
/// steps, shuffling when the classifier heard a scrape, else heel strike.
/// When its bout has ended, `BoutReviser` (with the model's bout typer) may
/// name it again, after the frame evidence (`BoutRevisionStage`): a ``TypeRevision``.
///
/// Storage is reserved in `init`; `add` and `release` do not allocate.
struct GaitContextRefiner {
    static let rhythmMinimumProbability = 0.05
    /// A footstep that rings at least this long (seconds) must have company.
    static let ringingMinimumSeconds = 0.6
    /// Step intervals (seconds) the rhythm rule recognises.
    static let stepIntervals = 0.25...0.8
    /// How far an interval may differ from the previous one (fraction of it).
    static let intervalTolerance = 0.15
    /// Impacts a train needs, and what they must have in common.
    static let trainLength = 4
    static let trainMinimumProbability = 0.1
    static let trainMinimumMeanProbability = 0.6
    static let trainLevelTolerance = 6.0
    /// The furthest neighbour any rule looks at (a train's length ahead).
    static let contextSeconds = Double(trainLength - 1) * stepIntervals.upperBound
    /// An unsure step with another impact closer than this is not a step.
    static let crowdingGap = 0.25
    /// The least spread (standard deviation, a fraction of their mean) of the
    /// intervals of a train or a walk: a walker's vary by a few per cent.
    static let minimumSpread = 0.012
    /// Impacts a walk needs, and what they must have in common.
    static let walkLength = 4
    static let walkIntervals = 0.25...1.15
    static let walkLevelTolerance = 6.0
    static let walkTimbreTolerance: Float = 8
    static let walkMinimumMeanProbability = 0.45
    /// The footstep probability of an impact in a walk (at least): the share
    /// of the impacts the rule rescued on the training clips, out of fold, that were steps.
    static let walkProbability = 0.72
    /// How far back a walk through a new impact can start, and how far
    /// ahead of its first impact its last can come (3.45 s).
    static let walkSeconds = Double(walkLength - 1) * walkIntervals.upperBound
    /// The memory rule: how likely a footstep an impact must be, and how many
    /// remembered footsteps must sound like it.
    static let memoryMinimumProbability = 0.3
    static let memoryCompany = 3
    /// The footstep probability of an impact the memory rule rescues (at
    /// least): the share of those it rescued on the training clips, out of
    /// fold, that were steps.
    static let memoryProbability = 0.54
    /// The sure-company rule: a footstep with a footstep probability below
    /// `sureCompanyExemption` needs `sureCompany` sure footsteps around it.
    static let sureCompanyExemption = 0.95
    static let sureCompany = 2

    /// How long after its onset a held event waits for the impacts that can
    /// settle it: a train's length (`contextSeconds`), or a slow walk's
    /// (`walkSeconds`) when the walk rule applies.
    static func holdSeconds(walks: Bool) -> Double {
        walks ? max(contextSeconds, walkSeconds) : contextSeconds
    }

    /// An impact more than this many dB (LAFmax) quieter does not crowd: it
    /// is the louder one's ring or rebound (a slab rings on after a stomp),
    /// not a second impact.
    static let crowdingQuieterLimit = 6.0

    /// An event whose label is not settled yet.
    private struct Held {
        /// The event as the classifier labelled it.
        var event: AnalyzedEvent
        /// Whether it has been reported provisionally (with that label).
        var reported = false
    }

    /// Events not released yet, in onset order.
    private var pending: [Held] = []
    /// Onsets of released footsteps that can still be a held event's neighbour.
    private var releasedFootsteps: [Double] = []
    /// Footstep onsets around the event being refined (scratch).
    private var neighbours: [Double] = []
    /// An impact as the crowding, train and walk rules see it.
    private typealias Impact = (onset: Double, laMax: Double, probability: Double, timbre: EventTimbre?)
    /// Every impact added within `contextSeconds` + `walkSeconds` of a held one
    /// (a walk through a later impact can start that far back), in onset order.
    private var recentImpacts: [Impact] = []
    private let capacity = 128
    /// Names each released footstep's type from its bout.
    private var typing = BoutTyping()

    /// The sure footsteps around an impact, for the memory and sure-company
    /// rules (nil: both off).
    private var memory: FootstepMemory?
    /// Whether the walk rule applies.
    private let walks: Bool
    /// How long a held event waits (`holdSeconds(walks:)`).
    private let hold: Double

    init(walks: Bool = true, memory: Bool = true) {
        self.walks = walks
        hold = Self.holdSeconds(walks: walks)
        self.memory = memory ? FootstepMemory(reach: hold) : nil
        pending.reserveCapacity(capacity)
        releasedFootsteps.reserveCapacity(2 * capacity)
        recentImpacts.reserveCapacity(3 * capacity)
        neighbours.reserveCapacity(3 * capacity)
    }

    /// Holds a newly classified event (events arrive in onset order).
    mutating func add(_ event: AnalyzedEvent, output: (AnalysisOutput) -> Void) {
        if pending.count == capacity { release(at: 0, knownUntil: .infinity, output: output) }
        pending.append(Held(event: event))
        memory?.add(event)
        if recentImpacts.count == 3 * capacity { recentImpacts.removeFirst() }
        recentImpacts.append((event.onsetSeconds, event.laMax, event.footstepProbability, event.timbre))
    }

    /// Releases the events whose label is settled, given that every impact
    /// with an onset before `horizon` (seconds) has been added.
    mutating func release(knownUntil horizon: Double, output: (AnalysisOutput) -> Void) {
        var index = 0
        while index < pending.count {
            if !release(at: index, knownUntil: horizon, output: output) { index += 1 }
        }
        if let oldest = pending.first?.event.onsetSeconds ?? releasedFootsteps.max() {
            releasedFootsteps.removeAll { $0 < oldest - Self.contextSeconds }
            recentImpacts.removeAll { $0.onset < oldest - Self.contextSeconds - Self.walkSeconds }
        }
    }

    /// Releases every held event (end of stream).
    mutating func finish(output: (AnalysisOutput) -> Void) {
        while !pending.isEmpty { release(at: 0, knownUntil: .infinity, output: output) }
    }

    /// Releases the held event at `index` if its label is settled (as an
    /// event, or as the revision that settles its provisional report);
    /// otherwise reports it provisionally if it has not been yet. Returns
    /// whether it released it.
    @discardableResult
    private mutating func release(at index: Int, knownUntil horizon: Double, output: (AnalysisOutput) -> Void) -> Bool {
        let held = pending[index]
        var event = held.event
        guard refine(&event, at: index, knownUntil: horizon) else {
            if !held.reported {
                pending[index].reported = true
                output(.provisional(held.event))
            }
            return false
        }
        typing.name(&event)
        pending.remove(at: index)
        if event.kind == .footstep { releasedFootsteps.append(event.onsetSeconds) }
        output(held.reported ? .revision(TypeRevision(settling: held.event, as: event)) : .event(event))
        return true
    }

    /// What the rules other than sure company made of an event.
    private enum Settlement {
        /// Its label cannot be settled yet.
        case pending
        /// Settled on the evidence of the impact itself or of a few neighbours.
        case settled
        /// A footstep because it is in a train or a walk: rhythm is its company.
        case inRhythm
    }

    /// Applies the rules to `event` (held at `index`); false when its label cannot be settled yet.
    private mutating func refine(_ event: inout AnalyzedEvent, at index: Int, knownUntil horizon: Double) -> Bool {
        switch settleByNeighbours(&event, at: index, knownUntil: horizon) {
        case .pending: false
        case .inRhythm: true
        case .settled: event.kind == .other || settleBySureCompany(&event, knownUntil: horizon)
        }
    }

    /// The sure-company rule for a footstep: true when its label is settled
    /// (it stays a footstep, or has become `other`).
    private func settleBySureCompany(_ event: inout AnalyzedEvent, knownUntil horizon: Double) -> Bool {
        guard let memory, event.footstepProbability < Self.sureCompanyExemption,
            memory.sureCount(around: event) < Self.sureCompany
        else { return true }
        guard horizon > event.onsetSeconds + hold else { return false }
        event.kind = .other
        event.type = .unknown
        event.confidence = 1 - event.footstepProbability
        return true
    }

    /// Every rule but the sure-company one.
    private mutating func settleByNeighbours(
        _ event: inout AnalyzedEvent, at index: Int, knownUntil horizon: Double
    ) -> Settlement {
        let onset = event.onsetSeconds
        var settlement = Settlement.settled
        switch event.kind {
        case .other where event.footstepProbability < Self.rhythmMinimumProbability:
            // Too sure an `other` to hold: a walk can only be heard behind it.
            guard isInWalk(event) else { return .settled }
            event.footstepProbability = max(event.footstepProbability, Self.walkProbability)
            settlement = .inRhythm
        case .other:
            collectNeighbours(of: onset, except: index)
            let onBeat = !isCrowded(event) && isOnBeat(onset)
            // An impact that could be in a train waits to see whether it is: a train says more.
            if onBeat, event.footstepProbability < Self.trainMinimumProbability {
                guard horizon > onset + Self.crowdingGap else { return .pending }
            } else {
                guard horizon > onset + hold else { return .pending }
                if let train = trainProbability(of: event) {
                    event.footstepProbability = max(event.footstepProbability, train)
                    settlement = .inRhythm
                } else if isInWalk(event) {
                    event.footstepProbability = max(event.footstepProbability, Self.walkProbability)
                    settlement = .inRhythm
                } else if soundsLikeRememberedFootsteps(event) {
                    event.footstepProbability = max(event.footstepProbability, Self.memoryProbability)
                } else if !onBeat {
                    return .settled
                }
            }
        case .footstep where needsCompany(event):
            if !isCrowded(event) {
                collectNeighbours(of: onset, except: index)
                let company = event.type == .unknown ? 2 : 1
                if footstepsWithinBoutInterval(of: onset) >= company { return .settled }
            }
            guard horizon > onset + hold else { return .pending }
            if let train = trainProbability(of: event) {
                event.footstepProbability = max(event.footstepProbability, train)
                return .inRhythm
            }
            if isInWalk(event) {
                event.footstepProbability = max(event.footstepProbability, Self.walkProbability)
                return .inRhythm
            }
            if soundsLikeRememberedFootsteps(event) {
                event.footstepProbability = max(event.footstepProbability, Self.memoryProbability)
                return .settled
            }
            event.kind = .other
            event.type = .unknown
            event.confidence = 1 - event.footstepProbability
            return .settled
        default:
            return .settled
        }
        // An `other` rescued: a footstep whose type its bout names (`BoutTyping`).
        event.kind = .footstep
        event.type = .unknown
        event.confidence = event.footstepProbability
        return settlement
    }

    /// Fills `neighbours`: released footsteps and the other held events the
    /// classifier called footsteps, within `contextSeconds` of `onset`; not an
    /// unsure one that is crowded (it waits only to see whether it is in a train).
    private mutating func collectNeighbours(of onset: Double, except index: Int) {
        neighbours.removeAll(keepingCapacity: true)
        for released in releasedFootsteps where abs(released - onset) <= Self.contextSeconds {
            neighbours.append(released)
        }
        for (i, held) in pending.enumerated()
        where i != index && held.event.kind == .footstep && abs(held.event.onsetSeconds - onset) <= Self.contextSeconds
            && !(needsCompany(held.event) && isCrowded(held.event))
        {
            neighbours.append(held.event.onsetSeconds)
        }
    }

    /// Whether `onset` continues a step rhythm of `neighbours`.
    private func isOnBeat(_ onset: Double) -> Bool {
        for previous in neighbours where Self.stepIntervals.contains(onset - previous) {
            let interval = onset - previous
            if hasNeighbour(near: onset + interval, interval: interval)
                || hasNeighbour(near: previous - interval, interval: interval)
            {
                return true
            }
        }
        for next in neighbours where Self.stepIntervals.contains(next - onset) {
            let interval = next - onset
            if hasNeighbour(near: next + interval, interval: interval) { return true }
        }
        return false
    }

    private func hasNeighbour(near time: Double, interval: Double) -> Bool {
        let tolerance = Self.intervalTolerance * interval
        return neighbours.contains { abs($0 - time) <= tolerance }
    }

    /// The mean footstep probability of a train of impacts that `event`
    /// belongs to (the first found), or nil when it is in none. Every impact
    /// that could be in such a train is known (the caller waits
    /// `contextSeconds`), so the answer does not depend on when it is asked.
    private func trainProbability(of event: AnalyzedEvent) -> Double? {
        let onset = event.onsetSeconds
        guard event.footstepProbability >= Self.trainMinimumProbability else { return nil }
        for first in recentImpacts.indices where recentImpacts[first].onset >= onset - Self.contextSeconds {
            guard recentImpacts[first].onset <= onset else { break }
            guard recentImpacts[first].probability >= Self.trainMinimumProbability else { continue }
            var second = first + 1
            while second < recentImpacts.count,
                recentImpacts[second].onset - recentImpacts[first].onset <= Self.stepIntervals.upperBound
            {
                if let mean = trainMean(from: first, then: second, through: onset),
                    mean >= Self.trainMinimumMeanProbability
                {
                    return mean
                }
                second += 1
            }
        }
        return nil
    }

    /// Follows the beat that `recentImpacts[first]` and `[second]` set, taking
    /// the impact closest to each next step, until the train has
    /// `trainLength` impacts and includes the one at `onset`; returns their
    /// mean footstep probability, or nil when the beat stops first.
    private func trainMean(from first: Int, then second: Int, through onset: Double) -> Double? {
        let start = recentImpacts[first]
        guard Self.stepIntervals.contains(recentImpacts[second].onset - start.onset),
            isTrainMember(recentImpacts[second], of: start)
        else { return nil }
        var length = 2
        var sum = start.probability + recentImpacts[second].probability
        var includes = start.onset == onset || recentImpacts[second].onset == onset
        var last = second
        var interval = recentImpacts[second].onset - start.onset
        var intervals = Intervals(interval)
        while length < Self.trainLength || !includes {
            // Past the event without it: this beat is not its train.
            guard recentImpacts[last].onset < onset || includes,
                let next = nextOnBeat(after: last, interval: interval, of: start)
            else { return nil }
            interval = recentImpacts[next].onset - recentImpacts[last].onset
            intervals.add(interval)
            last = next
            length += 1
            sum += recentImpacts[next].probability
            includes = includes || recentImpacts[next].onset == onset
        }
        return intervals.isMachineExact ? nil : sum / Double(length)
    }

    /// The train member closest to one `interval` after `recentImpacts[last]`
    /// (within `intervalTolerance` of it, and a step interval away).
    private func nextOnBeat(after last: Int, interval: Double, of start: Impact) -> Int? {
        nearestOnBeat(after: last, interval: interval, within: Self.stepIntervals) { isTrainMember($0, of: start) }
    }

    /// The impact closest to one `interval` after `recentImpacts[last]`, within
    /// `intervalTolerance` of it and `intervals` from it, that `accepts` takes.
    private func nearestOnBeat(
        after last: Int, interval: Double, within intervals: ClosedRange<Double>, accepts: (Impact) -> Bool
    ) -> Int? {
        let expected = recentImpacts[last].onset + interval
        let tolerance = Self.intervalTolerance * interval
        var best: Int?
        var candidate = last + 1
        while candidate < recentImpacts.count, recentImpacts[candidate].onset <= expected + tolerance {
            let impact = recentImpacts[candidate]
            if abs(impact.onset - expected) <= tolerance,
                intervals.contains(impact.onset - recentImpacts[last].onset),
                best.map({ abs(impact.onset - expected) < abs(recentImpacts[$0].onset - expected) }) ?? true,
                accepts(impact)
            {
                best = candidate
            }
            candidate += 1
        }
        return best
    }

    /// Whether `impact` can join the train that `start` begins.
    private func isTrainMember(_ impact: Impact, of start: Impact) -> Bool {
        impact.probability >= Self.trainMinimumProbability
            && abs(impact.laMax - start.laMax) <= Self.trainLevelTolerance
    }

    /// Whether `event` belongs to a walk among the impacts known so far: a
    /// chain that begins at most `walkSeconds` before it (see the type's doc).
    private func isInWalk(_ event: AnalyzedEvent) -> Bool {
        let onset = event.onsetSeconds
        guard walks, event.timbre != nil else { return false }
        for first in recentImpacts.indices where recentImpacts[first].onset >= onset - Self.walkSeconds {
            guard recentImpacts[first].onset <= onset else { break }
            var second = first + 1
            while second < recentImpacts.count,
                recentImpacts[second].onset - recentImpacts[first].onset <= Self.walkIntervals.upperBound
            {
                if isWalk(from: first, then: second, through: onset) { return true }
                second += 1
            }
        }
        return false
    }

    /// Follows the beat that `recentImpacts[first]` and `[second]` set, each
    /// next impact alike the one before it, as far as it goes; whether the
    /// chain includes `onset`, has `walkLength` impacts and is not machine-exact.
    private func isWalk(from first: Int, then second: Int, through onset: Double) -> Bool {
        let start = recentImpacts[first]
        var interval = recentImpacts[second].onset - start.onset
        guard Self.walkIntervals.contains(interval), isAlike(recentImpacts[second], start) else { return false }
        var length = 2
        var includes = start.onset == onset || recentImpacts[second].onset == onset
        var intervals = Intervals(interval)
        var probability = start.probability + recentImpacts[second].probability
        var last = second
        while let next = nextInWalk(after: last, interval: interval) {
            interval = recentImpacts[next].onset - recentImpacts[last].onset
            last = next
            length += 1
            intervals.add(interval)
            probability += recentImpacts[next].probability
            includes = includes || recentImpacts[next].onset == onset
        }
        return includes && length >= Self.walkLength
            && probability >= Self.walkMinimumMeanProbability * Double(length) && !intervals.isMachineExact
    }

    /// The intervals of a train or a walk, as far as it has been followed.
    private struct Intervals {
        private var count = 1
        private var sum: Double
        private var squares: Double

        init(_ first: Double) {
            sum = first
            squares = first * first
        }

        mutating func add(_ interval: Double) {
            count += 1
            sum += interval
            squares += interval * interval
        }

        /// Whether their spread (standard deviation) is below `minimumSpread`
        /// of their mean: a drum machine's or a clock's beat, not a walker's.
        var isMachineExact: Bool {
            let mean = sum / Double(count)
            return (max(0, squares / Double(count) - mean * mean)).squareRoot() < GaitContextRefiner.minimumSpread * mean
        }
    }

    /// The impact closest to one `interval` after `recentImpacts[last]`
    /// (within `intervalTolerance` of it, a walk's interval away, alike it).
    private func nextInWalk(after last: Int, interval: Double) -> Int? {
        let previous = recentImpacts[last]
        return nearestOnBeat(after: last, interval: interval, within: Self.walkIntervals) { isAlike($0, previous) }
    }

    /// Whether two impacts sound like one walker's steps: as loud and alike in timbre.
    private func isAlike(_ impact: Impact, _ previous: Impact) -> Bool {
        guard let timbre = impact.timbre, let other = previous.timbre else { return false }
        return abs(impact.laMax - previous.laMax) <= Self.walkLevelTolerance
            && timbre.distance(to: other) <= Self.walkTimbreTolerance
    }

    /// Whether `memoryCompany` of the sure footsteps remembered around
    /// `event` sound like it (the memory rule; every impact within the hold
    /// after it is known).
    private func soundsLikeRememberedFootsteps(_ event: AnalyzedEvent) -> Bool {
        guard let memory, event.footstepProbability >= Self.memoryMinimumProbability else { return false }
        return memory.alikeCount(of: event) >= Self.memoryCompany
    }

    /// Whether footstep `event` must have company to stay one: the classifier
    /// could not type it (unsure), or it rings.
    private func needsCompany(_ event: AnalyzedEvent) -> Bool {
        event.type == .unknown || event.duration >= Self.ringingMinimumSeconds
    }

    /// Whether another impact of any kind, no more than `crowdingQuieterLimit`
    /// quieter, is within `crowdingGap` of `event` (onsets of distinct impacts
    /// differ: the detector keeps them apart).
    private func isCrowded(_ event: AnalyzedEvent) -> Bool {
        let onset = event.onsetSeconds
        return recentImpacts.contains {
            $0.onset != onset && abs($0.onset - onset) < Self.crowdingGap
                && $0.laMax >= event.laMax - Self.crowdingQuieterLimit
        }
    }

    /// How many footsteps are within a bout's step interval of `onset`.
    private func footstepsWithinBoutInterval(of onset: Double) -> Int {
        neighbours.count { abs($0 - onset) <= GaitBoutTracker.maximumInterval }
    }
}
