/// The four footstep types as component recipes. Each step is a contact force
/// exciting the floor locally (a few damped low modes, the "thump") plus a
/// surface click (band-passed noise) whose brightness and attack depend on the
/// shoe. Ranges overlap on purpose: level, spectrum and length alone do not
/// separate the types; the temporal structure (double contact, drag, cadence)
/// and their combination do.
enum FootstepSoundModel {
    /// Attack time constant of the thump for a shoe.
    private static func attack(_ shoe: SoundStyle.Shoe, _ rng: inout SynthRandom) -> Double {
        switch shoe {
        case .hardHeel: rng.uniform(0.0003, 0.0012)
        case .trainers: rng.uniform(0.0015, 0.004)
        case .soft: rng.uniform(0.003, 0.008)
        }
    }

    /// The surface click of a contact.
    private static func click(
        _ shoe: SoundStyle.Shoe, at start: Double, scale: Double, _ rng: inout SynthRandom
    ) -> SoundComponent {
        switch shoe {
        case .hardHeel:
            .noise(
                start: start, attack: 0.0002, hold: 0, tau: rng.uniform(0.002, 0.006), low: rng.uniform(900, 2200),
                high: rng.uniform(4500, 7500), amplitude: scale * rng.uniform(0.5, 1.1), roughness: 0)
        case .trainers:
            .noise(
                start: start, attack: rng.uniform(0.001, 0.003), hold: 0, tau: rng.uniform(0.004, 0.01),
                low: rng.uniform(250, 600), high: rng.uniform(1500, 3200), amplitude: scale * rng.uniform(0.25, 0.55),
                roughness: 0)
        case .soft:
            .noise(
                start: start, attack: rng.uniform(0.002, 0.005), hold: 0, tau: rng.uniform(0.006, 0.014),
                low: rng.uniform(120, 300), high: rng.uniform(700, 1600), amplitude: scale * rng.uniform(0.12, 0.3),
                roughness: 0)
        }
    }

    /// Three floor modes near where the walker is, lower and longer for heavier walkers.
    private static func thump(
        _ style: SoundStyle, lows: (Double, Double), taus: (Double, Double), _ shared: inout SynthRandom,
        _ rng: inout SynthRandom
    ) -> [SoundMode] {
        let weight = 1.15 - 0.3 * style.heaviness
        let f1 = shared.uniform(lows.0, lows.1) * weight * rng.uniform(0.95, 1.05)
        let t1 = rng.uniform(taus.0, taus.1) * (0.8 + 0.4 * style.heaviness)
        return [
            SoundMode(frequency: f1, tau: t1, amplitude: rng.uniform(0.8, 1.2)),
            SoundMode(frequency: f1 * shared.uniform(1.7, 2.3), tau: t1 * 0.6, amplitude: rng.uniform(0.4, 0.8)),
            SoundMode(frequency: f1 * shared.uniform(3.1, 4.2), tau: t1 * 0.35, amplitude: rng.uniform(0.2, 0.5)),
        ]
    }

    private static func scaled(_ modes: [SoundMode], _ k: Double) -> [SoundMode] {
        modes.map { SoundMode(frequency: $0.frequency, tau: $0.tau, amplitude: $0.amplitude * k) }
    }

    /// Walking: heel impact, then a softer toe/ball contact 40-120 ms later.
    static func heelStrike(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let modes = thump(style, lows: (45, 95), taus: (0.025, 0.06), &shared, &rng)
        let ta = attack(style.shoe, &rng)
        let toe = rng.uniform(0.04, 0.12)
        var parts: [SoundComponent] = [
            .modes(start: 0, attack: ta, modes: scaled(modes, 0.6 + 0.6 * style.heaviness)),
            click(style.shoe, at: 0, scale: 1, &rng),
            .modes(start: toe, attack: ta * 2.5, modes: scaled(modes, rng.uniform(0.2, 0.5))),
            click(style.shoe, at: toe, scale: rng.uniform(0.2, 0.55), &rng),
        ]
        if style.shoe == .trainers, rng.chance(0.1) {  // rubber squeak on the push-off
            parts.append(
                .tone(
                    start: toe + rng.uniform(0.02, 0.06), attack: 0.005, length: rng.uniform(0.02, 0.06),
                    release: 0.01, frequency: rng.uniform(900, 2500), harmonics: [1, 0.4, 0.2],
                    amplitude: rng.uniform(0.02, 0.06), glide: rng.uniform(-0.2, 0.3)))
        }
        return parts
    }

    /// Running (adults and children): one short, sharp contact on the ball of the foot.
    static func running(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let lows = style.child ? (80.0, 150.0) : (55.0, 115.0)
        let modes = thump(style, lows: lows, taus: (0.015, 0.04), &shared, &rng)
        var parts: [SoundComponent] = [
            .modes(start: 0, attack: attack(style.shoe, &rng) * 0.7, modes: scaled(modes, 0.7 + 0.5 * style.heaviness)),
            click(style.shoe, at: 0, scale: rng.uniform(0.9, 1.4), &rng),
        ]
        if rng.chance(0.2) {  // push-off scuff
            parts.append(
                .noise(
                    start: rng.uniform(0.05, 0.1), attack: 0.01, hold: rng.uniform(0.01, 0.03), tau: 0.015,
                    low: rng.uniform(300, 700), high: rng.uniform(2000, 4000), amplitude: rng.uniform(0.05, 0.15),
                    roughness: 0.5))
        }
        return parts
    }

    /// Stomping: a heavy, slower contact with a strong 30-120 Hz body.
    static func stomping(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let f1 = shared.uniform(30, 50) * rng.uniform(0.95, 1.05)
        let body = [
            SoundMode(frequency: f1, tau: rng.uniform(0.08, 0.22), amplitude: rng.uniform(0.9, 1.3)),
            SoundMode(frequency: shared.uniform(55, 85), tau: rng.uniform(0.05, 0.14), amplitude: rng.uniform(0.6, 1)),
            SoundMode(
                frequency: shared.uniform(85, 125), tau: rng.uniform(0.03, 0.09), amplitude: rng.uniform(0.3, 0.7)),
            SoundMode(
                frequency: shared.uniform(150, 300), tau: rng.uniform(0.015, 0.04), amplitude: rng.uniform(0.15, 0.4)),
        ]
        var parts: [SoundComponent] = [
            .modes(start: 0, attack: rng.uniform(0.002, 0.006), modes: body),
            .noise(
                start: 0, attack: rng.uniform(0.0005, 0.003), hold: 0, tau: rng.uniform(0.006, 0.015),
                low: rng.uniform(150, 300), high: rng.uniform(1500, 4000), amplitude: rng.uniform(0.25, 0.6),
                roughness: 0),
        ]
        if rng.chance(0.25) {  // things on shelves rattle
            for _ in 0..<rng.int(2...4) {
                parts.append(
                    .modes(
                        start: rng.uniform(0.02, 0.12), attack: 0.0003,
                        modes: [
                            SoundMode(
                                frequency: rng.uniform(1000, 4000), tau: rng.uniform(0.005, 0.015),
                                amplitude: rng.uniform(0.04, 0.12))
                        ]))
            }
        }
        return parts
    }

    /// Shuffling: a soft onset (20-60 ms) and a scuff of band-passed noise dragged for 150-500 ms.
    static func shuffling(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let total = rng.uniform(0.15, 0.5)
        let attack = rng.uniform(0.02, 0.06)
        let tau = rng.uniform(0.02, 0.05)
        let (low, high): (Double, Double)
        switch style.shoe {
        case .soft: (low, high) = (rng.uniform(150, 300), rng.uniform(800, 1800))
        case .trainers: (low, high) = (rng.uniform(250, 600), rng.uniform(1800, 4000))
        case .hardHeel: (low, high) = (rng.uniform(400, 1000), rng.uniform(3000, 6000))
        }
        let modes = thump(style, lows: (45, 100), taus: (0.02, 0.045), &shared, &rng)
        return [
            .noise(
                start: 0, attack: attack, hold: max(0, total - attack - 2.3 * tau), tau: tau, low: low, high: high,
                amplitude: 1, roughness: rng.uniform(0.3, 0.8)),
            .modes(start: 0, attack: rng.uniform(0.012, 0.03), modes: scaled(modes, rng.uniform(0.1, 0.35))),
        ]
    }
}
