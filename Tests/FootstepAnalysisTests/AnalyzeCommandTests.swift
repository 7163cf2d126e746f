import FootstepAudio
import FootstepTesting
import Foundation
import Testing

@testable import FootstepAnalysis

/// `footstepctl synth` and `footstepctl analyze` as a user runs them.
@Suite("footstepctl analyze and synth")
struct AnalyzeCommandTests {
    @Test func synthThenAnalyzeWritesTheLabelCSVAndFindsTheSteps() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("walk.flac")
        let truth = directory.appending("walk-truth.csv")
        let synth = try BuiltProduct.run(
            "footstepctl", ["synth", "--scenario", "walking", "--duration", "60", "--seed", "3", "-o", audio, "--truth", truth])
        #expect(synth.status == 0, "\(synth.stderr)")
        #expect(synth.stdout.contains("wrote \(audio)"))

        let output = directory.appending("results")
        let analyze = try BuiltProduct.run("footstepctl", ["analyze", audio, "--output", output, "--format", "csv"])
        #expect(analyze.status == 0, "\(analyze.stderr)")
        #expect(analyze.stdout.hasPrefix("onset_s,duration_s,kind,type,confidence,intensity,la_max,lc_max,peak_dbfs\n"))

        let csv = try String(contentsOfFile: output + "/walk.csv", encoding: .utf8)
        let lines = csv.split(separator: "\n")
        #expect(lines.first == "onset_s,label,confidence,duration_s,la_max,lc_max,peak_dbfs")
        let onsets = lines.dropFirst().compactMap { Double($0.split(separator: ",")[0]) }
        let expected = try GroundTruthCSV.read(String(contentsOfFile: truth, encoding: .utf8)).map(\.onset)
        let score = DetectionScore(detected: onsets, truth: expected)
        #expect(score.f1 >= 0.95, "\(score)")
    }

    @Test func aBadFileIsReportedTheOthersAreAnalysedAndTheExitStatusIsOne() throws {
        let directory = try TemporaryDirectory()
        let good = directory.appending("good.wav")
        let bad = directory.appending("bad.wav")
        try "not audio".write(toFile: bad, atomically: true, encoding: .utf8)
        _ = try BuiltProduct.run("footstepctl", ["synth", "--scenario", "walking", "--duration", "20", "-o", good])
        let result = try BuiltProduct.run("footstepctl", ["analyze", "--quiet", bad, good, directory.appending("missing.flac")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("== \(good)"))
        #expect(result.stderr.contains("cannot read audio file '\(bad)': not a supported audio file or corrupt"))
        #expect(result.stderr.contains("cannot read audio file '\(directory.appending("missing.flac"))': No such file or directory"))
        #expect(result.stderr.contains("2 of 3 files failed"))
    }

    @Test func jsonLinesEndWithAParsableSummary() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("mix.wav")
        _ = try BuiltProduct.run("footstepctl", ["synth", "--scenario", "mixed", "--duration", "30", "-o", audio])
        let result = try BuiltProduct.run("footstepctl", ["analyze", "--format", "jsonl", audio])
        #expect(result.status == 0)
        let records = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let events = records.filter { $0["record"] as? String == "event" }
        let summary = records.last
        #expect(summary?["record"] as? String == "summary")
        #expect(summary?["events"] as? Int == events.count)
        #expect(events.count > 10)
        #expect(events.allSatisfy { ($0["confidence"] as? Double).map { (0...1).contains($0) } ?? false })
        #expect(events.allSatisfy { ($0["footstep_probability"] as? Double).map { (0...1).contains($0) } ?? false })
    }

    @Test func gaitContextOnlyRelabelsWhatItsRulesAllow() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("distractors.wav")
        _ = try BuiltProduct.run(
            "footstepctl", ["synth", "--scenario", "distractors", "--seed", "3", "--duration", "300", "-o", audio])
        // The gait context's rules alone: the frame decision judges every event again from their labels.
        let revised = try Self.analyzedEvents(audio, ["--no-frame-network"])
        let alone = try Self.analyzedEvents(audio, ["--no-gait-context", "--no-frame-network"])
        // The rules of one impact and its near neighbours: beats, company, ringing, trains.
        let withoutWalks = try Self.analyzedEvents(audio, ["--no-walks", "--no-memory", "--no-frame-network"])
        #expect(revised.map { $0["onset_s"] as? Double } == alone.map { $0["onset_s"] as? Double }, "the same events")
        #expect(withoutWalks.map { $0["onset_s"] as? Double } == alone.map { $0["onset_s"] as? Double })
        var toFootstep = 0
        var toOther = 0
        for (after, before) in zip(withoutWalks, alone) where after["kind"] as? String != before["kind"] as? String {
            let probability = try #require(before["footstep_probability"] as? Double)
            if after["kind"] as? String == "footstep" {
                toFootstep += 1
                if after["footstep_probability"] as? Double == probability {
                    // on the beat: an unknown footstep with the classifier's footstep probability
                    #expect(after["type"] as? String == "unknown" && probability >= 0.05)
                    #expect(after["confidence"] as? Double == probability)
                } else {
                    // in a train of impacts: the train's mean footstep probability, when higher
                    let train = try #require(after["footstep_probability"] as? Double)
                    #expect(train > probability && train >= GaitContextRefiner.trainMinimumMeanProbability)
                }
            } else {
                #expect(after["footstep_probability"] as? Double == probability)
                toOther += 1  // alone and unsure, or ringing on like a slammed door
                let confidence = try #require(before["confidence"] as? Double)
                let duration = try #require(before["duration_s"] as? Double)
                #expect((before["type"] as? String == "unknown" && confidence < 0.5)
                    || duration >= GaitContextRefiner.ringingMinimumSeconds, "\(before)")
            }
        }
        // Walks and the memory rule only make footsteps of what those rules leave `other`; sure company only
        // takes away footsteps the classifier doubted.
        var walks = 0
        var unaccompanied = 0
        for (after, before) in zip(revised, withoutWalks) where after["kind"] as? String != before["kind"] as? String {
            if after["kind"] as? String == "footstep" {
                walks += 1
                #expect(before["kind"] as? String == "other")
            } else {
                unaccompanied += 1
                let probability = try #require(before["footstep_probability"] as? Double)
                #expect(before["kind"] as? String == "footstep" && probability < GaitContextRefiner.sureCompanyExemption)
            }
        }
        let footsteps = { (events: [[String: Any]]) in events.filter { $0["kind"] as? String == "footstep" }.count }
        #expect(toOther > 0 && footsteps(revised) < footsteps(alone), "\(footsteps(revised)) vs \(footsteps(alone)) footsteps")
        print("walks and memory on 300 s of distractors: \(walks) more footsteps; sure company: \(unaccompanied) fewer")
        print("gait context on 300 s of distractors: \(toOther) to other, \(toFootstep) to footstep")
    }

    /// A walk through a concrete floor at 0 dB SNR, some of whose steps the
    /// classifier doubts: the walk rule makes footsteps of them (18 with this
    /// seed, most at the walk's probability), each a former `other`, each a real step.
    @Test func aWalkTheClassifierDoubtsIsHeardByItsRhythm() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("walk.wav")
        let truth = directory.appending("walk.csv")
        let synth = try BuiltProduct.run(
            "footstepctl", [
                "synth", "--scenario", "walking", "--duration", "120", "--seed", "3", "--snr", "0",
                "--set", "floor=concrete", "-o", audio, "--truth", truth,
            ])
        #expect(synth.status == 0, "\(synth.stderr)")
        let steps = try GroundTruthCSV.read(String(contentsOfFile: truth, encoding: .utf8))
            .filter { $0.kind == .footstep }.map(\.onset)
        // The walk rule alone: the memory and sure-company rules are off in both, and the frame decision,
        // which judges every event again from the gait context's labels.
        let withWalks = try Self.analyzedEvents(audio, ["--no-memory", "--no-frame-network"])
        let withoutWalks = try Self.analyzedEvents(audio, ["--no-walks", "--no-memory", "--no-frame-network"])
        #expect(withWalks.map { $0["onset_s"] as? Double } == withoutWalks.map { $0["onset_s"] as? Double })
        // A walk's own footsteps take its probability; the footsteps it adds can
        // put a neighbour on the beat or in a train too (their own probability).
        var added = 0
        var inWalks = 0
        for (after, before) in zip(withWalks, withoutWalks) where after["kind"] as? String != before["kind"] as? String {
            added += 1
            #expect(before["kind"] as? String == "other" && after["kind"] as? String == "footstep")
            let probability = try #require(after["footstep_probability"] as? Double)
            if abs(probability - GaitContextRefiner.walkProbability) < 0.001 { inWalks += 1 }
            let onset = try #require(after["onset_s"] as? Double)
            #expect(steps.contains { abs($0 - onset) <= 0.1 }, "a footstep the walk added at \(onset) s is no step")
        }
        #expect(inWalks >= 5 && added >= inWalks, "the walk rule found \(inWalks) of the doubted steps, \(added) in all")
    }

    /// The model was trained at 16 kHz: a recording at 44.1 kHz in stereo is
    /// converted and gets the events and labels the same sound gets at 16 kHz
    /// (analysed at its own rate, a walk at 3 dB SNR lost 76 of its 117 heel strikes).
    @Test func aRecordingAt44kHzStereoIsLabelledAsAt16kHz() throws {
        let directory = try TemporaryDirectory()
        let original = directory.appending("walk16.wav")
        let synth = try BuiltProduct.run(
            "footstepctl", ["synth", "--scenario", "mixed:snr=9", "--duration", "120", "--seed", "5", "-o", original])
        #expect(synth.status == 0, "\(synth.stderr)")
        let converted = directory.appending("walk44.wav")
        let mono = try readToEnd(try ResamplingSource(try AudioFileSource(path: original), sampleRate: 44_100))
        let stereo = mono.flatMap { [$0, $0] }
        let writer = try AudioFileWriter(
            path: converted, format: AudioFormat(sampleRate: 44_100, channels: 2), container: .wav, encoding: .float)
        try stereo.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()

        let output = directory.appending("results")
        let analyze = try BuiltProduct.run("footstepctl", ["analyze", "--quiet", "--output", output, original, converted])
        #expect(analyze.status == 0, "\(analyze.stderr)")
        func events(_ name: String) throws -> [(onset: Double, label: String)] {
            try String(contentsOfFile: "\(output)/\(name).csv", encoding: .utf8).split(separator: "\n").dropFirst().map {
                let fields = $0.split(separator: ",")
                return (Double(fields[0])!, String(fields[1]))
            }
        }
        let reference = try events("walk16")
        let fromStereo = try events("walk44")
        #expect(reference.filter { $0.label == "heel_strike" }.count > 100)
        #expect(abs(reference.count - fromStereo.count) <= 2, "\(reference.count) events at 16 kHz, \(fromStereo.count) at 44.1 kHz")
        let same = reference.filter { event in fromStereo.contains { abs($0.onset - event.onset) <= 0.02 && $0.label == event.label } }
        #expect(Double(same.count) >= 0.95 * Double(reference.count), "\(same.count) of \(reference.count) events alike")
    }

    @Test func invalidOptionsAreRefusedWithAnExplanation() throws {
        let result = try BuiltProduct.run("footstepctl", ["synth", "--duration", "ten", "-o", "/tmp/x.wav"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'ten' is not a duration"))
        let format = try BuiltProduct.run("footstepctl", ["synth", "-o", "/tmp/x.mp3"])
        #expect(format.stderr.contains("--output must end in .flac or .wav"))
    }

    /// The event records of `footstepctl analyze --format jsonl AUDIO EXTRA…`.
    static func analyzedEvents(_ audio: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let result = try BuiltProduct.run("footstepctl", ["analyze", "--format", "jsonl", audio] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["record"] as? String == "event" }
    }
}
