extension SynthesisScenario {
    /// Parses `name[:key=value,...]`, e.g.
    /// `night:seed=7,duration=28800,snr=12,spread=3,ceiling=off,floor=concrete,rate=48000,channels=2,`
    /// `backgrounds=pink+hum60@-10+babble@-6,background_level=-55,relative=on`.
    /// `backgrounds=none` removes all backgrounds. Throws `AudioSourceError.invalidParameter`
    /// naming the offending key.
    public init(parsing spec: String) throws(AudioSourceError) {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
        guard let first = parts.first, let name = Name(rawValue: first) else {
            throw .invalidParameter("synthetic scenario: unknown name '\(spec)'; known: \(names)")
        }
        self.init(name)
        guard parts.count == 2 else {
            try validate()
            return
        }
        for pair in parts[1].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else {
                throw .invalidParameter("synthetic scenario: expected key=value, got '\(pair)'")
            }
            let (key, value) = (kv[0], kv[1])
            func number() throws(AudioSourceError) -> Double {
                guard let v = Double(value) else {
                    throw .invalidParameter("synthetic scenario: \(key) must be a number, got '\(value)'")
                }
                return v
            }
            func flag() throws(AudioSourceError) -> Bool {
                switch value {
                case "on", "true", "yes", "1": return true
                case "off", "false", "no", "0": return false
                default: throw .invalidParameter("synthetic scenario: \(key) must be on or off, got '\(value)'")
                }
            }
            switch key {
            case "seed":
                guard let v = UInt64(value) else { throw .invalidParameter("synthetic scenario: bad seed '\(value)'") }
                seed = v
            case "duration": duration = try number()
            case "rate", "sample_rate", "sampleRate": sampleRate = Int(try number())
            case "channels": channels = Int(try number())
            case "snr": snrDB = try number()
            case "spread": snrSpreadDB = try number()
            case "background_level", "bglevel": backgroundLevelDBFS = try number()
            case "ceiling": ceiling = try flag()
            case "relative": relativeLevels = try flag()
            case "floor":
                guard let v = FloorType(rawValue: value) else {
                    throw .invalidParameter("synthetic scenario: floor must be timber or concrete, got '\(value)'")
                }
                floor = v
            case "backgrounds", "bg":
                backgrounds = try Self.parseBackgrounds(value)
            default:
                throw .invalidParameter("synthetic scenario: unknown key '\(key)'")
            }
        }
        try validate()
    }

    private static func parseBackgrounds(_ value: String) throws(AudioSourceError) -> [BackgroundLayer] {
        if value == "none" || value.isEmpty { return [] }
        var layers: [BackgroundLayer] = []
        for item in value.split(separator: "+") {
            let p = item.split(separator: "@", maxSplits: 1).map(String.init)
            guard let kind = BackgroundKind(rawValue: p[0]) else {
                let known = BackgroundKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidParameter("synthetic scenario: unknown background '\(p[0])'; known: \(known)")
            }
            var level = 0.0
            if p.count == 2 {
                guard let v = Double(p[1]) else {
                    throw .invalidParameter("synthetic scenario: bad background level '\(p[1])'")
                }
                level = v
            }
            layers.append(BackgroundLayer(kind, relativeLevelDB: level))
        }
        return layers
    }
}
