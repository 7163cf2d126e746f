/// What stays the same across the events of one bout or one sequence: who is
/// walking, in what shoes, where on the floor, which door is knocked on.
struct SoundStyle: Sendable, Hashable {
    enum Shoe: CaseIterable, Sendable, Hashable {
        /// Hard heels (leather soles, heeled shoes): sharp, bright clicks.
        case hardHeel
        /// Trainers and rubber soles: duller, slower attack.
        case trainers
        /// Bare feet, socks or slippers: soft, dull, little click.
        case soft
    }

    var shoe: Shoe
    /// Body weight and force: 0 (small child) ... 1 (heavy adult).
    var heaviness: Double
    var child: Bool
    /// Extra level relative to the label's own level (children lighter, a door closed gently).
    var levelOffsetDB: Double
    /// Seed for properties shared by the group (the spot on the floor, the door's modes).
    var seed: UInt64

    /// A random style for a bout or sequence of `label`.
    static func random(for label: SynthesisLabel, rng: inout SynthRandom, child: Bool = false) -> SoundStyle {
        let shoe: Shoe
        switch label {
        case .running: shoe = rng.chance(0.6) ? .trainers : (rng.chance(0.5) ? .soft : .hardHeel)
        case .shuffling: shoe = rng.chance(0.6) ? .soft : (rng.chance(0.6) ? .trainers : .hardHeel)
        case .stomping: shoe = rng.pick(Shoe.allCases)
        default: shoe = rng.weighted([0.35, 0.3, 0.35]) == 0 ? .hardHeel : (rng.chance(0.46) ? .trainers : .soft)
        }
        let heaviness = child ? rng.uniform(0.05, 0.35) : rng.uniform(0.35, 1)
        var offset = child ? rng.uniform(-5, -1) : rng.uniform(-1.5, 1.5)
        if label == .doorSlam, rng.chance(0.4) { offset -= rng.uniform(3, 8) }  // closed rather than slammed
        return SoundStyle(shoe: shoe, heaviness: heaviness, child: child, levelOffsetDB: offset, seed: rng.next())
    }
}

extension SoundRecipe {
    /// The recipe of one event. Deterministic in (label, style, seed).
    static func make(_ label: SynthesisLabel, style: SoundStyle, seed: UInt64) -> SoundRecipe {
        var rng = SynthRandom(seed: seed)
        var shared = SynthRandom(seed: style.seed)
        let components: [SoundComponent]
        switch label {
        case .heelStrike: components = FootstepSoundModel.heelStrike(style, &rng, &shared)
        case .running: components = FootstepSoundModel.running(style, &rng, &shared)
        case .stomping: components = FootstepSoundModel.stomping(style, &rng, &shared)
        case .shuffling: components = FootstepSoundModel.shuffling(style, &rng, &shared)
        case .doorSlam: components = DistractorSoundModel.doorSlam(style, &rng, &shared)
        case .knock: components = DistractorSoundModel.knockTap(style, &rng, &shared)
        case .objectDrop: components = DistractorSoundModel.objectDrop(style, &rng, &shared)
        case .musicBass: components = DistractorSoundModel.musicBass(style, &rng, &shared)
        case .chairScrape: components = DistractorSoundModel.chairScrape(style, &rng, &shared)
        }
        return SoundRecipe(components: components, noiseSeed: rng.next())
    }
}
