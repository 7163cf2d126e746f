extension ScenarioPlanner {
    private enum Activity {
        case bathroomTrip, childRunning, stomping
        case distractor(SynthesisLabel)
    }

    /// A night upstairs, for any duration: the stream is cut into equal slots after
    /// a quiet lead-in, one activity per slot at a random time early in it, so there
    /// are long quiet stretches between. Every night has at least one bathroom trip,
    /// one running-child episode, one stomping episode, a door slam, a knock and a drop;
    /// more activities the longer the night (about one per 1/16 of it, at least one per
    /// 30 min and at most one per 30 s).
    mutating func planNight() {
        let duration = scenario.duration
        let gap = min(max(duration / 16, 30), 1800)
        let count = max(6, Int(duration / gap))
        var activities: [Activity] = [
            .bathroomTrip, .childRunning, .stomping, .distractor(.doorSlam), .distractor(.knock),
            .distractor(.objectDrop),
        ]
        while activities.count < count {
            switch rng.weighted([0.35, 0.15, 0.15, 0.35]) {
            case 0: activities.append(.bathroomTrip)
            case 1: activities.append(.childRunning)
            case 2: activities.append(.stomping)
            default:
                let label = SynthesisLabel.distractors[rng.weighted([0.3, 0.2, 0.25, 0.1, 0.15])]
                activities.append(.distractor(label))
            }
        }
        rng.shuffle(&activities)
        let lead = 0.04 * duration
        let slot = (duration - lead) / Double(count)
        for (i, activity) in activities.enumerated() {
            let slotStart = lead + Double(i) * slot
            let start = slotStart + rng.uniform(0, 0.35 * slot)
            perform(activity, start: start, limit: slotStart + slot)
        }
    }

    private mutating func perform(_ activity: Activity, start: Double, limit: Double) {
        switch activity {
        case .bathroomTrip:
            let label: SynthesisLabel = rng.chance(0.4) ? .shuffling : .heelStrike
            let style = SoundStyle.random(for: label, rng: &rng)
            var t = footsteps(label, style: style, start: start, limit: limit) + rng.uniform(0.5, 2)
            if rng.chance(0.6) { t = distractor(.doorSlam, start: t, limit: limit) + rng.uniform(0.5, 2) }
            t += min(rng.uniform(40, 240), max(0, limit - t) * 0.4)
            if rng.chance(0.5) { t = distractor(.doorSlam, start: t, limit: limit) + rng.uniform(0.5, 2) }
            _ = footsteps(label, style: style, start: t, limit: limit)
        case .childRunning:
            let style = SoundStyle.random(for: .running, rng: &rng, child: true)
            var t = start
            for _ in 0..<rng.int(1...3) {
                t = footsteps(.running, style: style, start: t, limit: limit) + rng.uniform(1, 5)
                if rng.chance(0.3) {  // jumping off the bed
                    let jump = SoundStyle.random(for: .stomping, rng: &rng, child: true)
                    t =
                        add(.stomping, style: jump, at: t, boutOffset: boutOffset(), bout: nil, limit: limit)
                        .map { $0 + rng.uniform(1, 3) } ?? t
                }
            }
        case .stomping:
            let style = SoundStyle.random(for: .stomping, rng: &rng)
            var t = start
            for _ in 0..<rng.int(1...2) {
                t = footsteps(.stomping, style: style, start: t, limit: limit) + rng.uniform(2, 10)
            }
            if rng.chance(0.3) { _ = distractor(.doorSlam, start: t, limit: limit) }
        case .distractor(let label):
            _ = distractor(label, start: start, limit: limit)
        }
    }
}
