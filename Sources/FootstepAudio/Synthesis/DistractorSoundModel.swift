import Foundation

/// Impacts and sounds that are NOT footsteps but that a footstep detector will
/// hear: door slams, knocks, dropped objects, music bass, chair scrapes.
enum DistractorSoundModel {
    /// Loud broadband impact, a latch/frame rattle and a long low decay of the wall and room.
    static func doorSlam(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let panel = [
            SoundMode(frequency: shared.uniform(80, 140), tau: rng.uniform(0.05, 0.12), amplitude: 1),
            SoundMode(frequency: shared.uniform(150, 260), tau: rng.uniform(0.03, 0.08), amplitude: 0.7),
            SoundMode(frequency: shared.uniform(300, 600), tau: rng.uniform(0.02, 0.05), amplitude: 0.4),
        ]
        let boom = [
            SoundMode(frequency: shared.uniform(40, 70), tau: rng.uniform(0.25, 0.6), amplitude: rng.uniform(0.5, 0.9)),
            SoundMode(
                frequency: shared.uniform(75, 120), tau: rng.uniform(0.15, 0.4), amplitude: rng.uniform(0.3, 0.6)),
        ]
        var parts: [SoundComponent] = [
            .modes(start: 0, attack: 0.0008, modes: panel),
            .noise(
                start: 0, attack: 0.0003, hold: rng.uniform(0.001, 0.004), tau: rng.uniform(0.01, 0.03),
                low: rng.uniform(80, 200), high: rng.uniform(5000, 7500), amplitude: rng.uniform(1.2, 2), roughness: 0),
            .modes(start: 0, attack: 0.004, modes: boom),
        ]
        let rattleFrequency = shared.uniform(1500, 4000)
        var t = rng.uniform(0.015, 0.03)
        let rattleEnd = rng.uniform(0.06, 0.2)
        var amplitude = rng.uniform(0.15, 0.35)
        while t < rattleEnd {
            parts.append(
                .modes(
                    start: t, attack: 0.0002,
                    modes: [
                        SoundMode(
                            frequency: rattleFrequency * rng.uniform(0.97, 1.03), tau: 0.01, amplitude: amplitude),
                        SoundMode(frequency: rattleFrequency * 1.6, tau: 0.006, amplitude: amplitude * 0.5),
                    ]))
            amplitude *= rng.uniform(0.7, 0.95)
            t += 1 / rng.uniform(18, 40)
        }
        return parts
    }

    /// One knuckle tap on a door or wall: a sharp contact exciting woody resonances.
    static func knockTap(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let modes = [
            SoundMode(frequency: shared.uniform(180, 320), tau: rng.uniform(0.02, 0.04), amplitude: 1),
            SoundMode(frequency: shared.uniform(350, 550), tau: rng.uniform(0.015, 0.03), amplitude: 0.6),
            SoundMode(frequency: shared.uniform(700, 1200), tau: rng.uniform(0.008, 0.02), amplitude: 0.4),
            SoundMode(frequency: shared.uniform(1400, 2400), tau: rng.uniform(0.004, 0.01), amplitude: 0.25),
        ]
        return [
            .modes(start: 0, attack: rng.uniform(0.0002, 0.0008), modes: modes),
            .noise(
                start: 0, attack: 0.0001, hold: 0, tau: rng.uniform(0.001, 0.003), low: 800, high: 6000,
                amplitude: rng.uniform(0.3, 0.7), roughness: 0),
        ]
    }

    /// An object hitting the floor and bouncing with decreasing intervals and levels.
    static func objectDrop(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let material = rng.int(0...2)  // 0 plastic, 1 metal, 2 wood
        let base = [rng.uniform(300, 900), rng.uniform(700, 2500), rng.uniform(200, 600)][material]
        let tau = [rng.uniform(0.01, 0.03), rng.uniform(0.05, 0.2), rng.uniform(0.01, 0.025)][material]
        let ratios = [1.0, rng.uniform(1.9, 2.6), rng.uniform(3.2, 4.5)]
        let objectModes = ratios.enumerated().map { i, r in
            SoundMode(frequency: base * r, tau: tau / (1 + Double(i)), amplitude: 1 / (1 + Double(i)))
        }
        let floorModes = [
            SoundMode(
                frequency: shared.uniform(60, 120), tau: rng.uniform(0.02, 0.05), amplitude: rng.uniform(0.3, 0.9))
        ]
        let restitution = rng.uniform(0.4, 0.7)
        var interval = rng.uniform(0.08, 0.25)
        var t = 0.0
        var amplitude = 1.0
        var parts: [SoundComponent] = []
        while amplitude > 0.03, parts.count < 40 {
            parts.append(
                .modes(
                    start: t, attack: 0.0003,
                    modes: objectModes.map {
                        SoundMode(frequency: $0.frequency, tau: $0.tau, amplitude: $0.amplitude * amplitude * 0.5)
                    }
                        + floorModes.map {
                            SoundMode(frequency: $0.frequency, tau: $0.tau, amplitude: $0.amplitude * amplitude)
                        }))
            parts.append(
                .noise(
                    start: t, attack: 0.0001, hold: 0, tau: 0.002, low: 500, high: 7000, amplitude: 0.4 * amplitude,
                    roughness: 0))
            t += interval
            interval *= restitution
            amplitude *= restitution * rng.uniform(0.8, 1.1)
            if interval < 0.012 { break }
        }
        return parts
    }

    /// A short phrase (1-4 notes) of sustained bass notes, as music through a ceiling.
    static func musicBass(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let root = 41.2 * pow(2, Double(shared.int(0...14)) / 12)  // E1 ... F#2
        let steps = [0, 0, 3, 5, 7, 10, 12]
        var t = 0.0
        var parts: [SoundComponent] = []
        for _ in 0..<rng.int(1...4) {
            let length = rng.uniform(0.25, 0.9)
            let f = root * pow(2, Double(rng.pick(steps)) / 12)
            parts.append(
                .tone(
                    start: t, attack: rng.uniform(0.01, 0.04), length: length, release: rng.uniform(0.05, 0.15),
                    frequency: f, harmonics: [1, rng.uniform(0.3, 0.7), rng.uniform(0.1, 0.4), 0.1], amplitude: 1,
                    glide: 0))
            t += length + rng.uniform(0.02, 0.25)
        }
        return parts
    }

    /// A chair dragged over the floor: stick-slip chatter, 0.3-1.2 s.
    static func chairScrape(_ style: SoundStyle, _ rng: inout SynthRandom, _ shared: inout SynthRandom)
        -> [SoundComponent]
    {
        let rate = rng.uniform(60, 220)
        return [
            .scrape(
                start: 0, attack: rng.uniform(0.02, 0.05), length: rng.uniform(0.3, 1.2), rateStart: rate,
                rateEnd: rate * rng.uniform(0.7, 1.4), center: shared.uniform(300, 1400), amplitude: 1),
            .modes(
                start: 0, attack: 0.01,
                modes: [SoundMode(frequency: shared.uniform(50, 110), tau: 0.04, amplitude: rng.uniform(0.1, 0.3))]),
        ]
    }
}
